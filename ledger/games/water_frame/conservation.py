"""Water Frame's conservation laws: every worker, pound, share, tile, ship and grey marker in
exactly one place, and every factory, warehouse and track within its limits."""

from __future__ import annotations

from ledger.games.water_frame import stock_exchange
from ledger.games.water_frame.components import GOODS, GREY_ACTIONS
from ledger.games.water_frame.economy import C, appeal, harbour_workers, has, large_cap
from ledger.games.water_frame.setup import tile_copies
from ledger.games.water_frame.state import Phase, State


def workers_in_play(s: State) -> int:
    total = (C.jm_cells - s.jm_empty) + s.fired + s.boxed
    for p in s.players:
        total += harbour_workers(p)
        for f in p.factories:
            if f is not None:
                total += sum(r.workers for r in f.rows) + f.obsolete_workers
    return total


def conservation(s: State) -> list[str]:
    problems = []
    if workers_in_play(s) != C.workers_total:
        problems.append(f"workers: {workers_in_play(s)} in play, not {C.workers_total}")
    if sum(p.cash for p in s.players) + s.bank != 0:
        problems.append("money: players' cash plus the bank's balance is constant")
    if s.phase != Phase.SETUP and not s.draws:
        copies = tile_copies(s)
        held = [t for p in s.players for t in p.tiles]
        for tile in set(held) | set(s.display):
            if held.count(tile) + s.display.count(tile) > copies.get(tile, 0):
                problems.append(f"tiles: more {tile} than printed")
        ships = sorted([*(x for r in s.mat_ships for x in r), *(x for p in s.players for x in p.ships)])
        expected = sorted(
            x.id for x in C.ships if s.players_count > 2 or x.capacity == C.two_player_ship_capacity
        )
        if ships != expected:
            problems.append("ships: each on the mat or at one player's pier")
        if not s.options.predetermined_setup:
            markers = sorted(
                [*(m for r in s.mat for m in r), *(m for p in s.players for m in p.grey), *s.box_markers]
            )
            pool = sorted(
                f"{shade}:{a}"
                for shade in ("LIGHT", "DARK")
                for a in GREY_ACTIONS
                for _ in range(C.mat_copies - C.mat_sets_removed[s.players_count])
            )
            if markers != pool:
                problems.append("grey markers: each on the mat, with one player, or in the box")
    for p in s.players:
        if p.shares + p.bank_shares != C.shares_per_company:
            problems.append(f"seat {p.seat}: shares held plus the bank's is 30")
        if p.cash < 0:
            problems.append(f"seat {p.seat}: cash never negative after a payment")
        if len(p.tiles) > C.tiles_max or len(set(p.tiles)) != len(p.tiles):
            problems.append(f"seat {p.seat}: at most four tiles, no two alike")
        if len(p.ships) > C.piers or len(set(p.grey)) != len(p.grey):
            problems.append(f"seat {p.seat}: two piers; one grey marker per action and shade")
        if sum(p.small_stock) > (C.small_warehouse if has(p, "SMALL_WAREHOUSE") else 0):
            problems.append(f"seat {p.seat}: the small warehouse holds five goods")
        for g in range(4):
            f = p.factories[g]
            if p.stock[g] > large_cap(p, g) or p.stock[g] < 0 or p.small_stock[g] < 0:
                problems.append(f"seat {p.seat}: stock within the warehouse's capacity")
            if p.contracts[g] not in (0, *stock_exchange.contract_track(s)):
                problems.append(f"seat {p.seat}: contract on a track space")
            if f is None:
                continue
            if appeal(g, f) < 0:
                problems.append(f"seat {p.seat}: {GOODS[g]} appeal at least 0")
            if not C.price_min <= f.price <= C.price_max - p.small_stock[g]:
                problems.append(f"seat {p.seat}: {GOODS[g]} price within £5-£25 and the small warehouse")
            for r, row in enumerate(f.rows):
                only, flex = C.row_slots[g][r]
                if row.machines > flex or row.workers + row.machines > only + flex:
                    problems.append(f"seat {p.seat}: {GOODS[g]} row {r + 1} within its slots")
            if f.marker_worker and s.decade != 1810:
                problems.append(f"seat {p.seat}: a worker on the factory marker only in 1810")
        if not C.share_min <= p.share_space <= C.share_max:
            problems.append(f"seat {p.seat}: share value on the track")
    if not 0 <= s.jm_empty <= C.jm_cells or s.fired < 0:
        problems.append("job market within its cells")
    return problems

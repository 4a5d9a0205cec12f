"""The end of the round (spec §3.6, §5.9, §5.10; rulebook, the event phase): action markers
return, ship crews and warehouse workers are paid, ships and warehouse workers may be released,
the decade's event is revealed, broker owners trade, the owner of the least valuable portfolio
names the start player, and factories of the level leaving play become obsolete."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games import vocabulary
from ledger.games.shared import replace
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.cycle import start_decade
from ledger.games.water_frame.decisions import ChooseStartPlayer, Done, ReleaseShip, ReleaseWarehouseWorker
from ledger.games.water_frame.economy import (
    C,
    Effects,
    ask_in_turn,
    charisma_owner,
    edge_occupied,
    edges,
    fire,
    harbour_workers,
    has,
    portfolio,
    set_edge,
    set_factory,
    set_player,
    settle,
    trim_stock,
    turn_order,
    violation,
    wage,
)
from ledger.games.water_frame.state import Phase, State
from ledger.games.water_frame.stock_exchange import trade, trade_options


def return_markers(s: State, out: Effects) -> State:
    players = tuple(replace(p, admin=(None,) * len(C.admin_spaces)) for p in s.players)
    out.append(fx.MarkersReturned(decade=s.decade))
    return replace(s, players=players, phase=Phase.HARBOUR_WAGES)


def harbour_wages(s: State, out: Effects) -> State:
    w = wage(s)
    for seat in turn_order(s):
        workers = harbour_workers(s.players[seat])
        if workers:
            out.append(fx.HarbourWagesPaid(seat=seat, workers=workers, amount=workers * w))
            s = settle(s, seat, workers * w, "harbour_wages", out)
    return replace(s, phase=Phase.RELEASE, cursor=0)


def release(s: State, out: Effects) -> State:
    return ask_in_turn(
        s,
        turn_order(s),
        lambda st, seat: harbour_workers(st.players[seat]) > 0 or bool(st.players[seat].ships),
        Phase.EVENT,
    )


def release_options(s: State, seat: int) -> tuple[Decision, ...]:
    p = s.players[seat]
    return (
        *(ReleaseShip(ship=x) for x in p.ships),
        *(ReleaseWarehouseWorker(edge=e) for e, occupied in edges(p) if occupied),
        Done(),
    )


def release_or_done(s: State, seat: int, d: Decision, out: Effects) -> State:
    if isinstance(d, Done):
        return replace(s, cursor=s.cursor + 1, awaiting=())
    p = s.players[seat]
    if isinstance(d, ReleaseShip):
        if d.ship not in p.ships:
            raise violation("no_such_ship", f"You have no ship {d.ship}.", "6.II")
        ship = C.ship(d.ship)
        p = replace(
            p,
            ships=tuple(x for x in p.ships if x != d.ship),
            admin=tuple(None if m == f"SHIP:{d.ship}" else m for m in p.admin),
        )
        mat_ships = tuple(
            tuple(sorted((*r, d.ship))) if i == ship.row - 1 else r for i, r in enumerate(s.mat_ships)
        )
        s = fire(replace(set_player(s, p), mat_ships=mat_ships), ship.crew)
        out.append(fx.ShipReleased(seat=seat, ship=d.ship, crew_fired=ship.crew))
        return s
    assert isinstance(d, ReleaseWarehouseWorker)
    if not edge_occupied(p, d.edge):
        raise violation("no_worker_there", f"No worker stands at {d.edge}.", "6.II")
    s = fire(set_player(s, set_edge(p, d.edge, False)), 1)
    s, lost = trim_stock(s, seat, out)
    out.append(fx.WarehouseWorkerReleased(seat=seat, edge=d.edge, goods_lost=lost))
    return s


def event(s: State, out: Effects) -> State:
    event = s.events[s.decade_index]
    s = replace(s, events_revealed=s.events_revealed + 1)
    out.append(fx.EventRevealed(decade=s.decade, event=event))
    if event == C.event_bureaucracy:
        s = replace(s, bureaucracy=True)  # the rest of the game (U-31)
    if event == C.event_end:
        return replace(s, phase=Phase.FINAL_STOCK_EXCHANGE, cursor=0)
    return replace(s, phase=Phase.BROKER, cursor=0)


def broker(s: State, out: Effects) -> State:
    """D-41: broker owners trade in the event phase (after the event, A-33)."""
    s = ask_in_turn(s, turn_order(s), lambda st, seat: has(st.players[seat], "BROKER"), Phase.START_PLAYER)
    if s.phase == Phase.START_PLAYER and charisma_owner(s) is not None:
        return replace(s, phase=Phase.CHARISMA)
    return s


def broker_options(s: State, seat: int) -> tuple[Decision, ...]:
    return (*trade_options(s, seat, repay=False), Done())


def broker_trade(s: State, seat: int, d: Decision, out: Effects) -> State:
    return trade(s, seat, d, out, "6.II")


def start_player(s: State, out: Effects) -> State:
    return replace(s, awaiting=(start_player_chooser(s),))


def start_player_options(s: State, seat: int) -> tuple[Decision, ...]:
    return tuple(ChooseStartPlayer(seat=i) for i in range(s.players_count))


def start_player_chooser(s: State) -> int:
    """Lowest portfolio; then less cash; then farthest clockwise from the start player (§5.9)."""
    n = s.players_count
    return min(
        range(n),
        key=lambda i: (portfolio(s.players[i]), s.players[i].cash, -((i - s.start_player) % n)),
    )


def choose_start_player(s: State, seat: int, d: ChooseStartPlayer, out: Effects) -> State:
    if d.seat >= s.players_count:
        raise violation("no_such_seat", f"There is no seat {d.seat}.", "6.III")
    out.append(vocabulary.StartPlayerChanged(seat=d.seat, reason="chosen"))
    return replace(s, start_player=d.seat, awaiting=(), phase=Phase.OBSOLESCENCE)


def obsolescence(s: State, out: Effects) -> State:
    nxt = s.decade + 10
    lvl = C.obsolete_level_on_entering.get(nxt)
    if lvl is not None:
        targets = [
            (seat, g)
            for seat in turn_order(s)
            for g in range(4)
            if (f := s.players[seat].factories[g]) is not None and f.level == lvl and not f.obsolete
        ]
        pool = s.fired + (C.jm_cells - s.jm_empty)
        got = dict.fromkeys(targets, 0)
        if pool >= 2 * len(targets):
            got = dict.fromkeys(targets, 2)
        else:  # one worker at a time, per factory, in turn order
            left = pool
            for _ in range(2):
                for t in targets:
                    if left:
                        got[t] += 1
                        left -= 1
        for (seat, g), k in got.items():
            from_fired = min(k, s.fired)  # the fired space first, then the job market
            s = replace(s, fired=s.fired - from_fired, jm_empty=s.jm_empty + (k - from_fired))
            f = s.players[seat].factories[g]
            assert f is not None
            s = set_factory(s, seat, g, replace(f, obsolete_workers=f.obsolete_workers + k, obsolete=True))
        fee = wage(s)
        for (seat, g), k in got.items():
            f = s.players[seat].factories[g]
            assert f is not None
            out.append(
                fx.FactoryObsolete(
                    seat=seat, good=GOODS[g], level=f.level, workers=k, missing=2 - k, fee=(2 - k) * fee
                )
            )
            s = settle(s, seat, (2 - k) * fee, "obsolescence", out)
    return start_decade(replace(s, decade=nxt), out)

"""Special markers (spec §6.9): development tiles, advanced (grey) action markers and ships,
taken as the additional action of workers, machinery, stock exchange and ship actions, and
once in 1760; the broker's share purchase; re-assigning the foreman or the workshop."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.shared import ceil_div, replace
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import ReassignTile, TakeGreyMarker, TakeShip, TakeTile, UseBroker
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    assigned,
    available_for_hire,
    crew,
    has,
    return_tile,
    set_player,
    settle,
    take_for_hire,
    violation,
)
from ledger.games.water_frame.state import State
from ledger.games.water_frame.stock_exchange import buy_shares

ASSIGNED_TILES = ("FOREMAN", "WORKSHOP")


def mat_level(s: State) -> int:
    """The second time indicator: the highest mat row open now (§1.2)."""
    return C.level_of_decade[s.decade]


def _row_allowed(s: State, seat: int, row: int, inventor: str | None, start: bool) -> None:
    level = 1 if start else mat_level(s)
    if row <= level:
        if inventor is not None:
            raise violation("inventor_not_needed", "The inventor only opens the next row.", "II.3.2.2")
        return
    if start or row != level + 1 or inventor is None or not has(s.players[seat], "INVENTOR"):
        raise violation("row_not_open", f"Special markers come from rows I to {level} now.", "II.3.2.2")


def _inventor(s: State, seat: int, use: str | None, out: Effects) -> State:
    if use is None:
        return s
    if use == "return":
        out.append(fx.InventorUsed(seat=seat, use="return", paid=0))
        return return_tile(s, seat, "INVENTOR", out)
    out.append(fx.InventorUsed(seat=seat, use="pay", paid=C.inventor_fee))
    return settle(s, seat, C.inventor_fee, "inventor", out)  # batch (c)


def take_tile(s: State, seat: int, d: TakeTile, out: Effects, *, from_box: bool = False) -> State:
    p = s.players[seat]
    if not from_box and d.tile not in s.display:
        raise violation("tile_not_on_display", f"No {d.tile.lower()} tile lies on the display.", "II.3.2.1")
    if d.tile in p.tiles:
        raise violation("identical_tile", "You may not own two identical development tiles.", "II.3.2.1")
    if len(p.tiles) >= C.tiles_max:
        if d.give_back is None or d.give_back not in p.tiles:
            raise violation(
                "give_back_a_tile", f"With {C.tiles_max} tiles you must give one of them back.", "II.3.2.1"
            )
    elif d.give_back is not None:
        raise violation(
            "nothing_to_give_back", "You give a tile back only when you already hold four.", "II.3.2.1"
        )
    good = None
    if d.tile in ASSIGNED_TILES:  # spec §6.9, D-04: the tile names the factory it serves
        if d.assign is None:
            raise violation(
                "assign_required",
                f"The {d.tile.lower()} is assigned to one of your factories: name it (assign).",
                "II.3.2.1",
            )
        good = GOODS.index(d.assign)
        if p.factories[good] is None:
            raise violation(
                "assign_to_factory", "Foreman and workshop serve one of your factories.", "II.3.2.1"
            )
    elif d.assign is not None:
        raise violation(
            "not_assignable", "Only the foreman and the workshop are assigned to a factory.", "II.3.2.1"
        )
    if d.give_back is not None:
        s = return_tile(s, seat, d.give_back, out)
        p = s.players[seat]
    display = list(s.display)
    if not from_box:
        display.remove(d.tile)
    assigned_to = p.assigned + (((d.tile, good),) if good is not None else ())
    s = set_player(s, replace(p, tiles=(*p.tiles, d.tile), assigned=assigned_to))
    out.append(fx.TileTaken(seat=seat, tile=d.tile, assigned=GOODS[good] if good is not None else None))
    return replace(s, display=tuple(display))


def take_grey(s: State, seat: int, d: TakeGreyMarker, out: Effects, *, start: bool = False) -> State:
    p = s.players[seat]
    _row_allowed(s, seat, d.row, d.inventor, start)
    if start and not d.marker.startswith("LIGHT:"):
        raise violation("row_one_light", "In 1760 only a light grey marker of row I may be taken.", "4.1 V")
    if d.marker not in s.mat[d.row - 1]:
        raise violation("marker_not_there", f"No {d.marker.lower()} marker lies on row {d.row}.", "II.3.2.2")
    if d.marker in p.grey:
        raise violation(
            "identical_marker", "You may not own the same action in the same shade twice.", "II.3.2.2"
        )
    row = list(s.mat[d.row - 1])
    row.remove(d.marker)
    mat = tuple(tuple(row) if i == d.row - 1 else r for i, r in enumerate(s.mat))
    s = replace(s, mat=mat)
    s = set_player(s, replace(p, grey=(*p.grey, d.marker)))
    out.append(fx.GreyMarkerTaken(seat=seat, marker=d.marker, row=d.row))
    return _inventor(s, seat, d.inventor, out)


def take_ship(s: State, seat: int, d: TakeShip, out: Effects, *, start: bool = False) -> State:
    p = s.players[seat]
    row = next((i + 1 for i, ships in enumerate(s.mat_ships) if d.ship in ships), None)
    if row is None:
        raise violation(
            "ship_not_there", f"Ship {d.ship} does not lie on the special markers mat.", "II.3.2.3"
        )
    _row_allowed(s, seat, row, d.inventor, start)
    new = C.ship(d.ship)
    ships = list(p.ships)
    if len(ships) < C.piers:
        if d.give_back is not None:
            raise violation("pier_free", "A ship is replaced only when both piers are taken.", "II.3.2.3")
    else:
        if d.give_back not in ships:
            raise violation("return_a_ship", "With two ships, one must go back to the mat.", "II.3.2.3")
        if new.capacity <= C.ship(d.give_back).capacity:  # type: ignore[arg-type]
            raise violation(
                "only_larger", "A ship may only be replaced by a ship of higher capacity.", "II.3.2.3"
            )
        ships.remove(d.give_back)  # type: ignore[arg-type]
    need = crew(replace(p, ships=(*ships, d.ship))) - crew(p)
    if available_for_hire(s) < need:
        raise violation("no_crew", "There are not enough workers to crew that ship.", "II.3.2.3")
    s, _ = take_for_hire(s, max(0, need))
    mat_ships = [list(x) for x in s.mat_ships]
    mat_ships[row - 1].remove(d.ship)
    admin = p.admin
    if d.give_back is not None:
        mat_ships[C.ship(d.give_back).row - 1].append(d.give_back)
        old = f"SHIP:{d.give_back}"
        if old in admin:  # a ship replaced on the chart keeps its chart position
            admin = tuple(f"SHIP:{d.ship}" if m == old else m for m in admin)
    s = replace(s, mat_ships=tuple(tuple(sorted(x)) for x in mat_ships))
    s = set_player(s, replace(s.players[seat], ships=(*ships, d.ship), admin=admin))
    out.append(
        fx.ShipTaken(
            seat=seat, ship=d.ship, capacity=new.capacity, crew_hired=max(0, need), returned=d.give_back
        )
    )
    return _inventor(s, seat, d.inventor, out)


def use_broker(s: State, seat: int, d: UseBroker, out: Effects) -> State:
    if not has(s.players[seat], "BROKER"):
        raise violation("no_broker", "You do not own the broker.", "II.3.2")
    s = buy_shares(s, seat, d.count, out, "II.3.2", half=True)
    return return_tile(s, seat, "BROKER", out)


def reassign(s: State, seat: int, d: ReassignTile, out: Effects) -> State:
    p = s.players[seat]
    g = GOODS.index(d.good)
    if not has(p, d.tile):
        raise violation("tile_not_owned", f"You do not own the {d.tile.lower()}.", "II.3.2.1")
    if p.factories[g] is None:
        raise violation("assign_to_factory", "Foreman and workshop serve one of your factories.", "II.3.2.1")
    assigned = (*(a for a in p.assigned if a[0] != d.tile), (d.tile, g))
    s = set_player(s, replace(p, assigned=assigned))
    out.append(fx.TileReassigned(seat=seat, tile=d.tile, good=d.good))
    return s


def take(s: State, seat: int, d: Decision, out: Effects, *, start: bool = False) -> State:
    if isinstance(d, TakeTile):
        return take_tile(s, seat, d, out)
    if isinstance(d, TakeGreyMarker):
        return take_grey(s, seat, d, out, start=start)
    if isinstance(d, TakeShip):
        return take_ship(s, seat, d, out, start=start)
    if isinstance(d, UseBroker) and not start:
        return use_broker(s, seat, d, out)
    if isinstance(d, ReassignTile) and not start:
        return reassign(s, seat, d, out)
    raise violation("not_a_special_marker", "Take a tile, a grey marker or a ship.", "II.3.2")


def half_price(price: int) -> int:
    return ceil_div(price, 2)


def options(s: State, seat: int, *, start: bool, valid: Valid) -> list[Decision]:
    """Every legal special marker now (tiles, grey markers, ships, broker, re-assignment)."""
    p = s.players[seat]
    out: list[Decision] = []
    others = list(p.tiles)
    for tile in sorted(set(s.display)):
        if tile in p.tiles:
            continue
        backs: list[str | None] = [None] if len(p.tiles) < C.tiles_max else list(others)
        goods: list[str | None] = [None]
        if tile in ASSIGNED_TILES:  # foreman and workshop name the factory they serve
            goods = [GOODS[g] for g in range(4) if p.factories[g] is not None]
        for back in backs:
            for good in goods:
                out.append(TakeTile(tile=tile, give_back=back, assign=good))  # type: ignore[arg-type]
    level = 1 if start else mat_level(s)
    inventor = has(p, "INVENTOR") and not start
    for row in range(1, 5):
        uses: list[str | None] = (
            [None] if row <= level else (["return", "pay"] if inventor and row == level + 1 else [])
        )
        for use in uses:
            for marker in sorted(set(s.mat[row - 1])):
                if marker not in p.grey and not (start and not marker.startswith("LIGHT:")):
                    out.append(TakeGreyMarker(marker=marker, row=row, inventor=use))  # type: ignore[arg-type]
            for ship in sorted(set(s.mat_ships[row - 1])):
                backs2: list[str | None] = (
                    [None]
                    if len(p.ships) < C.piers
                    else [x for x in p.ships if C.ship(x).capacity < C.ship(ship).capacity]
                )
                for back in backs2:
                    d = TakeShip(ship=ship, give_back=back, inventor=use)  # type: ignore[arg-type]
                    if valid(s, seat, d):
                        out.append(d)
    if not start:
        if has(p, "BROKER") and not p.loans:
            for n in (1, 2):
                price = half_price(C.buy_price(p.share_space))
                if p.cash >= n * price and p.bank_shares >= n:
                    out.append(UseBroker(count=n))
        for tile in ASSIGNED_TILES:
            if has(p, tile):
                for g in range(4):
                    if p.factories[g] is not None and assigned(p, tile) != g:
                        out.append(ReassignTile(tile=tile, good=GOODS[g]))  # type: ignore[arg-type]
    return out

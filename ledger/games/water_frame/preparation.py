"""The preparation round, 1760 (spec §3.1, rulebook 4.1): two factories founded (in turn order,
then in reverse), a special marker of row I, shares sold for the start-up capital, the building
costs paid; or the predetermined set-up (§3.1.1: fixed factories, shares and capital, then a
development tile each from the box)."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games import vocabulary
from ledger.games.shared import ceil_div, replace
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame import special
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.cycle import start_decade
from ledger.games.water_frame.decisions import (
    ChooseStartPlayer,
    FoundFactory,
    SellStartShares,
    SkipSpecialMarker,
    TakeTile,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    appeal,
    ask_in_turn,
    change_shares,
    check_price,
    gain,
    prices,
    reverse_order,
    set_factory,
    set_player,
    settle,
    turn_order,
    violation,
)
from ledger.games.water_frame.setup import box_tiles
from ledger.games.water_frame.state import Factory, Phase, Player, Row, State

# --- the predetermined set-up (§3.1.1) ----------------------------------------------------


def set_up(s: State, out: Effects) -> State:
    if not s.options.predetermined_setup:
        first = Phase.FIRST_START_PLAYER if s.options.chosen_start_player else Phase.FOUNDATION_1
        return replace(s, phase=first, cursor=0)
    # The predetermined setup: fixed factories, shares and capital, then a tile each (spec §3.1.1)
    for seat, (factories, shares_kept) in enumerate(C.predetermined[s.players_count]):
        for g, price in factories:
            s = found(s, seat, g, price, out)
        sold = C.start_shares - shares_kept
        s = sell_for_capital(s, seat, sold, out)
    out.append(fx.MarkerLaidOut(rows=s.mat, ships=s.mat_ships))
    out.append(fx.TilesDisplayed(tiles=s.display, rejected=()))
    return replace(s, phase=Phase.PREDETERMINED_TILE, cursor=0)


# --- the start player chosen (start_player="chosen"; R14 4.1 II) ------------------------------


def first_start_player(s: State, out: Effects) -> State:
    """R14 4.1 II: "The players determine the start player in a manner that suits them": the
    creator's seat (seat 0) names the start player for the table, the game's first decision. The
    predetermined set-up names blue (seat 0) itself and never asks."""
    return replace(s, awaiting=(0,))


def choose_first_start_player(s: State, seat: int, d: ChooseStartPlayer, out: Effects) -> State:
    if d.seat >= s.players_count:
        raise violation("no_such_seat", f"There is no seat {d.seat}.", "4.1 II")
    out.append(vocabulary.StartPlayerChanged(seat=d.seat, reason="named_at_setup"))
    return replace(s, start_player=d.seat, awaiting=(), phase=Phase.FOUNDATION_1, cursor=0)


def predetermined_tile(s: State, out: Effects) -> State:
    return ask_in_turn(s, reverse_order(s), lambda _s, _p: True, Phase.PAY_FACTORIES)


def predetermined_tile_options(s: State, seat: int) -> tuple[Decision, ...]:
    p = s.players[seat]
    return (
        *(TakeTile(tile=t) for t in box_tiles(s) if t not in p.tiles and t not in special.ASSIGNED_TILES),  # type: ignore[arg-type]
        *(
            TakeTile(tile=t, assign=GOODS[g])
            for t in box_tiles(s)
            if t in special.ASSIGNED_TILES  # type: ignore[arg-type]
            for g in range(4)
            if p.factories[g] is not None
        ),
        SkipSpecialMarker(),
    )


def take_predetermined_tile(s: State, seat: int, d: Decision, out: Effects) -> State:
    if isinstance(d, TakeTile):
        if d.tile not in box_tiles(s):
            raise violation(
                "tile_not_in_box", "The predetermined tile is one not on the display.", "4.1 (A-47)"
            )
        s = special.take_tile(s, seat, d, out, from_box=True)
    return replace(s, cursor=s.cursor + 1, awaiting=())


# --- two factories founded (4.1 IV) -------------------------------------------------------


def first_foundation(s: State, out: Effects) -> State:
    return ask_in_turn(s, turn_order(s), lambda _s, _p: True, Phase.FOUNDATION_2)


def second_foundation(s: State, out: Effects) -> State:
    return ask_in_turn(s, reverse_order(s), lambda _s, _p: True, Phase.START_SHARES)


def foundation_options(s: State, seat: int) -> tuple[Decision, ...]:
    p = s.players[seat]
    out: list[Decision] = []
    for g in range(4):
        if s.phase == Phase.FOUNDATION_2 and g in p.start_goods:
            continue
        blank = Factory(level=1, price=C.price_min, rows=(Row(), Row(), Row(), Row()))
        for price in prices(g, blank, every=True):
            out.append(FoundFactory(good=GOODS[g], price=price))  # type: ignore[arg-type]
    return tuple(out)


def found_factory(s: State, seat: int, d: FoundFactory, out: Effects) -> State:
    g = GOODS.index(d.good)
    p = s.players[seat]
    if s.phase == Phase.FOUNDATION_2 and g in p.start_goods:
        raise violation("same_good", "The second factory must make a different kind of goods.", "4.1 IV")
    f = Factory(level=1, price=d.price, rows=(Row(), Row(), Row(), Row()))
    check_price(g, f, d.price, "4.1 IV")
    if C.jm_cells - s.jm_empty < C.slots(g, 0) + C.slots(g, 1):
        raise violation("no_workers", "The job market has too few workers for this factory.", "4.1 IV")
    s = found(s, seat, g, d.price, out)
    return replace(s, cursor=s.cursor + 1, awaiting=())


def found(s: State, seat: int, g: int, price: int, out: Effects) -> State:
    """Rows 1 and 2 filled with workers from the job market only ([R16 4.1 IV])."""
    n = C.slots(g, 0) + C.slots(g, 1)
    s = replace(s, jm_empty=s.jm_empty + n)
    f = Factory(
        level=1, price=price, rows=(Row(workers=C.slots(g, 0)), Row(workers=C.slots(g, 1)), Row(), Row())
    )
    s = set_factory(s, seat, g, f)
    p = s.players[seat]
    s = set_player(s, replace(p, start_goods=(*p.start_goods, g)))
    out.append(fx.FactoryFounded(seat=seat, good=GOODS[g], price=price, appeal=appeal(g, f), workers=n))
    return s


# --- a special marker of row I (4.1 V) ----------------------------------------------------


def start_special(s: State, out: Effects) -> State:
    return replace(s, awaiting=(reverse_order(s)[s.cursor],))


def start_special_options(s: State, seat: int, valid: Valid) -> tuple[Decision, ...]:
    return (*special.options(s, seat, start=True, valid=valid), SkipSpecialMarker())


def take_start_special(s: State, seat: int, d: Decision, out: Effects) -> State:
    if not isinstance(d, SkipSpecialMarker):
        s = special.take(s, seat, d, out, start=True)
    return replace(s, phase=Phase.START_SHARES, cursor=s.cursor + 1, awaiting=())


# --- shares sold for the start-up capital, the building costs paid (4.1 V) ----------------


def start_shares(s: State, out: Effects) -> State:
    return ask_in_turn(s, reverse_order(s), lambda _s, _p: True, Phase.PAY_FACTORIES)


def start_share_options(s: State, seat: int) -> tuple[Decision, ...]:
    lo, hi = start_sale_range(s.players[seat])
    return tuple(SellStartShares(count=n) for n in range(lo, hi + 1))


def start_sale_range(p: Player) -> tuple[int, int]:
    return ceil_div(build_cost(p), C.start_share_price), C.max_start_sale


def sell_start_shares(s: State, seat: int, d: SellStartShares, out: Effects) -> State:
    lo, hi = start_sale_range(s.players[seat])
    if not lo <= d.count <= hi:
        raise violation(
            "start_shares", f"Sell between {lo} and {hi} shares: enough to pay for both factories.", "4.1 V"
        )
    s = sell_for_capital(s, seat, d.count, out)
    return replace(s, cursor=s.cursor + 1, awaiting=())


def sell_for_capital(s: State, seat: int, count: int, out: Effects) -> State:

    s = change_shares(s, seat, -count, C.start_share_price, "start_capital", out)
    return gain(s, seat, count * C.start_share_price, "start_capital", out)


def pay_factories(s: State, out: Effects) -> State:
    for seat in turn_order(s):
        s = settle(s, seat, build_cost(s.players[seat]), "building_costs", out)
    return start_decade(replace(s, decade=1770), out)


def build_cost(p: Player) -> int:
    return sum(C.base_quality(g, 1) for g in p.start_goods)

"""The action phase (spec §5.4, §6): markers on the administration chart — own colour,
grey (advanced) and ships — the actions, each a sequence of small decisions, and the
additional action (price adjustment or taking a special marker)."""

from __future__ import annotations

from collections.abc import Callable

from ledger.engine import Decision
from ledger.games.shared import replace, set_at
from ledger.games.water_frame import (
    decisions,
    factory,
    improvements,
    production_action,
    special,
    stock_exchange,
    storage,
    workers,
)
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS, GREY_ACTIONS, OWN_ACTIONS
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    appeal,
    check_price,
    factory_of,
    good_index,
    has,
    prices,
    return_tile,
    set_factory,
    set_player,
    settle,
    turn_of,
    violation,
)
from ledger.games.water_frame.factory import build, close, modernize
from ledger.games.water_frame.improvements import (
    machine_limit,
    max_steps,
    place_machine,
    raise_distribution,
    raise_quality,
    use_patent,
)
from ledger.games.water_frame.production_action import deliver, produce, store_produced
from ledger.games.water_frame.state import Phase, State, Turn
from ledger.games.water_frame.stock_exchange import (
    buy_shares,
    place_contract,
    repay_loans,
    sell_shares,
    sell_stored,
)
from ledger.games.water_frame.workers import fire_workers, hire, hire_warehouse, move_warehouse

PRICE_ACTIONS = ("FACTORY", "QUALITY", "DISTRIBUTION", "PRODUCTION")
SPECIAL_ACTIONS = ("WORKERS", "MACHINERY", "STOCK_EXCHANGE", "SHIP")
MAIN_DECISIONS: dict[str, tuple[type[Decision], ...]] = {
    "FACTORY": (decisions.BuildFactory, decisions.ModernizeFactory, decisions.CloseFactory),
    "WORKERS": (
        decisions.HireWorkers,
        decisions.HireWarehouseWorker,
        decisions.MoveWarehouseWorker,
        decisions.FireWorkers,
    ),
    "MACHINERY": (decisions.PlaceMachine,),
    "QUALITY": (decisions.RaiseQuality,),
    "DISTRIBUTION": (decisions.RaiseDistribution, decisions.UsePatent),
    "STOCK_EXCHANGE": (
        decisions.BuyShares,
        decisions.SellShares,
        decisions.RepayLoans,
        decisions.SellStoredGoods,
        decisions.PlaceContract,
    ),
    "PRODUCTION": (decisions.ProduceGoods,),
    "SHIP": (decisions.DeliverContract,),
}
SPECIAL_DECISIONS = (
    decisions.TakeTile,
    decisions.TakeGreyMarker,
    decisions.TakeShip,
    decisions.UseBroker,
    decisions.ReassignTile,
)
TURN_DECISIONS: tuple[type[Decision], ...] = (
    decisions.PlaceMarker,
    decisions.ReuseMarker,
    *(decision for steps in MAIN_DECISIONS.values() for decision in steps),
    *SPECIAL_DECISIONS,
    decisions.AdjustPrice,
    decisions.FinishMainAction,
    decisions.EndTurn,
)
"""Every decision of a turn in the action phase, in the order the refusal of another names them."""


# --- the turn: its decisions, and its menu ------------------------------------------------


def apply_turn_decision(s: State, seat: int, d: Decision, out: Effects) -> State:
    """A decision during one player's turn in the action phase."""
    if s.turn is None:
        if isinstance(d, decisions.PlaceMarker | decisions.ReuseMarker):
            return place(s, seat, d, out)
        raise violation("choose_action_first", "First place (or re-use) an action marker.", "II.1")
    t = s.turn
    if t.storing is not None:  # rules.apply admits only decisions.StoreGoods now
        if not isinstance(d, decisions.StoreGoods):
            raise violation("wrong_decision", "Now the decision must be: store_goods.", "II.2.8")
        return store_produced(s, seat, d, out)
    if isinstance(d, decisions.EndTurn):
        return end_turn(s, out)
    if isinstance(d, decisions.FinishMainAction):
        if t.stage != "main":
            raise violation("main_action_done", "The main action is already finished.", "II.3")
        return finish_main(s, out)
    if isinstance(d, decisions.AdjustPrice):
        return adjust_price(s, seat, d, out)
    if isinstance(d, SPECIAL_DECISIONS):
        if t.action not in SPECIAL_ACTIONS or (t.action == "STOCK_EXCHANGE" and t.shade != "OWN"):
            raise violation(
                "no_special_marker", f"The {t.action.lower()} action gives no special marker.", "II.3.2"
            )
        if t.stage == "special_done" or (t.took_special and t.action != "DISTRIBUTION"):
            raise violation("special_once", "One special marker per additional action.", "II.3.2")
        s = finish_main(s, out)
        s = special.take(s, seat, d, out)
        return replace(s, turn=replace(turn_of(s), took_special=True, stage="special_done"))
    if not isinstance(d, MAIN_DECISIONS[t.action]) or t.stage != "main":
        raise violation(
            "not_this_action", f"{type(d).__name__} is not part of the {t.action.lower()} action now.", "II.2"
        )
    if isinstance(d, decisions.BuyShares):
        return buy_shares(s, seat, d.count, out)
    if isinstance(d, decisions.SellShares):
        return sell_shares(s, seat, d.count, out)
    if isinstance(d, decisions.RepayLoans):
        return repay_loans(s, seat, d.count, out)
    if isinstance(d, decisions.SellStoredGoods):
        return sell_stored(s, seat, d, out)
    handlers = {
        decisions.BuildFactory: build,
        decisions.ModernizeFactory: modernize,
        decisions.CloseFactory: close,
        decisions.HireWorkers: hire,
        decisions.HireWarehouseWorker: hire_warehouse,
        decisions.MoveWarehouseWorker: move_warehouse,
        decisions.FireWorkers: fire_workers,
        decisions.PlaceMachine: place_machine,
        decisions.RaiseQuality: raise_quality,
        decisions.RaiseDistribution: raise_distribution,
        decisions.UsePatent: use_patent,
        decisions.PlaceContract: place_contract,
        decisions.ProduceGoods: produce,
        decisions.DeliverContract: deliver,
    }
    return handlers[type(d)](s, seat, d, out)  # type: ignore[operator]


def options(s: State, seat: int, valid: Valid) -> tuple[Decision, ...]:
    """The action phase's menu: a marker to place, the action's steps, the additional action,
    the end of the turn; or, in a storage conflict, the arrangements of the warehouses."""
    conflict = storing(s)
    if conflict is not None:
        good, _, made = conflict
        return tuple(storage.options(s.players[seat], good, made))
    return tuple(turn_options(s, seat, valid))


def storing(s: State) -> tuple[int, int, int] | None:
    """A production action's storage conflict awaiting the player's decisions.StoreGoods (D-34)."""
    return s.turn.storing if s.phase == Phase.ACTION and s.turn is not None else None


def turn_options(s: State, seat: int, valid: Valid) -> list[Decision]:
    t = s.turn
    p = s.players[seat]
    if t is None:
        return marker_options(s, seat)
    options: list[Decision] = []
    if t.stage == "main":
        options.extend(ACTION_OPTIONS[t.action](s, seat, t, valid))
        options.append(decisions.FinishMainAction())
    if t.action in PRICE_ACTIONS:
        probe = s if t.stage == "additional" else replace(s, turn=replace(t, stage="additional"))
        for g in range(4):
            f = p.factories[g]
            if f is not None and price_adjustment_cost(probe, g) is not None:
                for price in prices(g, f, every=True):
                    if price != f.price and price <= C.price_max - p.small_stock[g]:
                        options.append(decisions.AdjustPrice(good=GOODS[g], price=price))  # type: ignore[arg-type]
    if (
        t.action in SPECIAL_ACTIONS
        and not (t.action == "STOCK_EXCHANGE" and t.shade != "OWN")
        and t.stage != "special_done"
    ):
        options.extend(special.options(s, seat, start=False, valid=valid))
    options.append(decisions.EndTurn())
    return options


ACTION_OPTIONS: dict[str, Callable[[State, int, Turn, Valid], list[Decision]]] = {
    "FACTORY": factory.options,
    "WORKERS": workers.options,
    "MACHINERY": improvements.machinery_options,
    "QUALITY": improvements.quality_options,
    "DISTRIBUTION": improvements.distribution_options,
    "STOCK_EXCHANGE": stock_exchange.options,
    "PRODUCTION": production_action.production_options,
    "SHIP": production_action.ship_options,
}
"""Each action's steps, while its main action lasts."""


def main_possible(s: State) -> bool:
    t = turn_of(s)
    if t.action == "MACHINERY":
        return machine_limit(t) > 0
    if t.action == "QUALITY":
        return max_steps(C.quality_thresholds[t.shade], t.budget) > 0
    return True


# --- placing a marker (II.1, D-10) --------------------------------------------------------


def marker_options(s: State, seat: int) -> list[Decision]:
    p = s.players[seat]
    out: list[Decision] = []
    markers: list[tuple[str, str, str | None]] = [("OWN", a, None) for a in OWN_ACTIONS]
    markers += [(m.split(":")[0], m.split(":")[1], None) for m in p.grey]
    markers += [("OWN", "SHIP", x) for x in p.ships]
    acc = [0] if not has(p, "ACCOUNTANT") else [-2, 0, 2]
    for shade, action, ship in markers:
        mid = f"SHIP:{ship}" if ship else f"{shade}:{action}"
        capacity = C.ship(ship).capacity if ship else 0
        if mid in p.admin:
            cost = C.admin_spaces[p.admin.index(mid)]
            for a in acc:
                if max(0, cost + a) >= capacity:
                    out.append(decisions.ReuseMarker(action=action, shade=shade, ship=ship, accountant=a))  # type: ignore[arg-type]
            continue
        for i, cost in enumerate(C.admin_spaces):
            if p.admin[i] is not None or (s.bureaucracy and i == 0 and not has(p, "ADMINISTRATOR")):
                continue
            for a in acc:
                if max(0, cost + a) >= capacity and (a == 0 or cost + a > 0):
                    out.append(
                        decisions.PlaceMarker(action=action, space=cost, shade=shade, ship=ship, accountant=a)
                    )  # type: ignore[arg-type]
    return out


def marker_id(d: decisions.PlaceMarker | decisions.ReuseMarker) -> str:
    if d.action == "SHIP":
        return f"SHIP:{d.ship}"
    return f"{d.shade}:{d.action}"


def _check_marker(s: State, seat: int, d: decisions.PlaceMarker | decisions.ReuseMarker) -> None:
    p = s.players[seat]
    if d.action == "SHIP":
        if d.ship is None or d.ship not in p.ships:
            raise violation("no_such_ship", "Name one of your ships for the ship action.", "II.2.7")
        return
    if d.shade == "OWN":
        if d.action not in OWN_ACTIONS:
            raise violation("no_own_marker", f"There is no own-colour {d.action.lower()} marker.", "II.2.8")
    elif d.action not in GREY_ACTIONS or f"{d.shade}:{d.action}" not in p.grey:
        raise violation(
            "marker_not_owned", f"You own no {d.shade.lower()} grey {d.action.lower()} marker.", "II.3.2.2"
        )


def _paid(s: State, seat: int, d: decisions.PlaceMarker | decisions.ReuseMarker, cost: int) -> int:
    p = s.players[seat]
    if d.accountant and not has(p, "ACCOUNTANT"):
        raise violation("no_accountant", "Only the accountant changes the administrative cost.", "II.1")
    if d.engineer_payment is not None:
        if not has(p, "ENGINEER") or d.action != "QUALITY":
            raise violation("no_engineer", "Only the engineer chooses what a quality action costs.", "II.2.4")
        return d.engineer_payment
    return max(0, cost + d.accountant)


def _budget(s: State, seat: int, action: str, shade: str, paid: int, capacity: int) -> int:
    if action == "MACHINERY":
        return paid + (3 if has(s.players[seat], "WORKSHOP") else 0)  # the workshop adds £3 for free
    if action == "DISTRIBUTION":
        return min(paid, C.distribution_max[shade])
    if action == "SHIP":
        return capacity
    return paid


def place(s: State, seat: int, d: decisions.PlaceMarker | decisions.ReuseMarker, out: Effects) -> State:
    _check_marker(s, seat, d)
    marker = marker_id(d)
    p = s.players[seat]
    if isinstance(d, decisions.PlaceMarker):
        if d.space not in C.admin_spaces:
            raise violation(
                "no_such_space", f"The administration spaces cost {list(C.admin_spaces)}.", "II.1"
            )
        index = C.admin_spaces.index(d.space)
        if marker in p.admin:
            raise violation(
                "marker_on_chart", "That marker already lies on the chart: re-use it instead.", "II.1"
            )
        if p.admin[index] is not None:
            raise violation("space_taken", f"Your £{d.space} space is taken this decade.", "II.1")
        if s.bureaucracy and index == 0 and not has(p, "ADMINISTRATOR"):
            raise violation(
                "bureaucracy",
                "Bureaucracy: the £2 space is only for players with the administrator.",
                "Events",
            )
        fee = 0
    else:
        if marker not in p.admin:
            raise violation("marker_not_on_chart", "That marker is not on your chart this decade.", "II.1")
        index = p.admin.index(marker)
        fee = 0 if has(p, "ADMINISTRATOR") else C.reuse_fee
    cost = C.admin_spaces[index]
    paid = _paid(s, seat, d, cost)
    capacity = C.ship(d.ship).capacity if d.action == "SHIP" and d.ship else 0
    if d.action == "SHIP" and paid < capacity:
        raise violation(
            "ship_too_cheap", f"A ship of capacity {capacity} needs at least £{capacity} paid.", "II.2.7"
        )
    if isinstance(d, decisions.PlaceMarker):
        s = set_player(s, replace(p, admin=set_at(p.admin, index, marker)))
    out.append(
        fx.MarkerPlaced(
            seat=seat,
            action=d.action,
            space=cost,
            cost=paid + fee,
            reuse=isinstance(d, decisions.ReuseMarker),
        )
    )
    s = settle(s, seat, paid + fee, "administration", out)  # batch (a), paid in advance
    shade = "SHIP" if d.action == "SHIP" else d.shade
    turn = Turn(
        seat=seat,
        marker=marker,
        action=d.action,
        shade=shade,
        space=index,
        paid=paid,
        budget=_budget(s, seat, d.action, shade, paid, capacity),
        capacity=capacity,
    )
    return replace(s, turn=turn)


# --- ending the main action, the additional action (II.3), the turn -----------------------


def finish_main(s: State, out: Effects) -> State:
    t = turn_of(s)
    if t.stage != "main":
        return s
    s = settle(s, t.seat, t.main_costs, "main_action", out)  # batch (b)
    if t.developer_on and has(s.players[t.seat], "DEVELOPER"):
        s = return_tile(s, t.seat, "DEVELOPER", out)
    return replace(s, turn=replace(t, stage="additional", main_costs=0))


def price_adjustment_cost(s: State, g: int) -> int | None:
    """£0 for an affected factory, £1 of left-over budget (quality, distribution), None if impossible."""
    t = turn_of(s)
    if t.action not in PRICE_ACTIONS or g in t.adjusted:
        return None
    if g in t.affected:
        return 0
    if t.action in ("QUALITY", "DISTRIBUTION") and t.budget - t.spent >= 1:
        return 1
    return None


def adjust_price(s: State, seat: int, d: decisions.AdjustPrice, out: Effects) -> State:
    g = good_index(d.good)
    f = factory_of(s, seat, g, "II.3.1")
    s = finish_main(s, out)
    cost = price_adjustment_cost(s, g)
    if cost is None:
        raise violation(
            "price_not_adjustable",
            f"The {d.good.lower()} factory's price may not be adjusted in this additional action.",
            "II.3.1",
        )
    check_price(g, f, d.price, "II.3.1", s.players[seat].small_stock[g])
    f = replace(f, price=d.price)
    s = set_factory(s, seat, g, f)
    out.append(fx.PriceSet(seat=seat, good=d.good, price=d.price, appeal=appeal(g, f)))
    t = turn_of(s)
    return replace(s, turn=replace(t, spent=t.spent + cost, adjusted=(*t.adjusted, g)))


def end_turn(s: State, out: Effects) -> State:
    s = finish_main(s, out)
    t = turn_of(s)
    out.append(fx.TurnEnded(seat=t.seat))
    return replace(s, turn=None, cursor=s.cursor + 1, awaiting=())

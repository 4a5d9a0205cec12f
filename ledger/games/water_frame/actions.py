"""The action phase (spec §5.4, §6): markers on the administration chart and the six
own-colour actions, each a sequence of small decisions, then the additional action."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.shared import replace
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import (
    AdjustPrice,
    BuildFactory,
    BuyShares,
    CloseFactory,
    EndTurn,
    FinishMainAction,
    FireWorkers,
    HireWarehouseWorker,
    HireWorkers,
    ModernizeFactory,
    MoveWarehouseWorker,
    PlaceMachine,
    PlaceMarker,
    RaiseDistribution,
    RaiseQuality,
    RepayLoans,
    ReuseMarker,
    SellShares,
    SellStoredGoods,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    appeal,
    available_for_hire,
    base_quality,
    change_loans,
    change_shares,
    edge_occupied,
    fire,
    gain,
    large_cap,
    level_now,
    price_ok,
    set_edge,
    set_factory,
    set_player,
    settle,
    take_for_hire,
    trim_stock,
    violation,
)
from ledger.games.water_frame.state import Factory, Row, State, Turn

PRICE_ACTIONS = ("FACTORY", "QUALITY", "DISTRIBUTION")
MAIN_DECISIONS: dict[str, tuple[type[Decision], ...]] = {
    "FACTORY": (BuildFactory, ModernizeFactory, CloseFactory),
    "WORKERS": (HireWorkers, HireWarehouseWorker, MoveWarehouseWorker, FireWorkers),
    "MACHINERY": (PlaceMachine,),
    "QUALITY": (RaiseQuality,),
    "DISTRIBUTION": (RaiseDistribution,),
    "STOCK_EXCHANGE": (BuyShares, SellShares, RepayLoans, SellStoredGoods),
}


def _g(name: str) -> int:
    return GOODS.index(name)


# --- placing a marker (D-10) -----------------------------------------------------


def _marker_space(s: State, seat: int, marker: str) -> int | None:
    admin = s.players[seat].admin
    return admin.index(marker) if marker in admin else None


def check_place(s: State, seat: int, d: PlaceMarker) -> int:
    marker = f"OWN:{d.action}"
    if d.space not in C.admin_spaces:
        raise violation("no_such_space", f"The administration spaces cost {list(C.admin_spaces)}.", "II.1")
    index = C.admin_spaces.index(d.space)
    p = s.players[seat]
    if _marker_space(s, seat, marker) is not None:
        raise violation(
            "marker_on_chart", f"Your {d.action} marker already lies on the chart: re-use it instead.", "II.1"
        )
    if p.admin[index] is not None:
        raise violation("space_taken", f"Your £{d.space} space is taken this decade.", "II.1")
    if s.bureaucracy and d.space == C.admin_spaces[0]:
        raise violation(
            "bureaucracy",
            "Bureaucracy: the £2 space may only be used with the administrator.",
            "Events, Bureaucracy",
        )
    return index


def _budget(action: str, paid: int) -> int:
    if action == "DISTRIBUTION":
        return min(paid, C.distribution_max["OWN"])
    return paid


def place(s: State, seat: int, d: PlaceMarker | ReuseMarker, out: Effects) -> State:
    marker = f"OWN:{d.action}"
    if isinstance(d, PlaceMarker):
        index = check_place(s, seat, d)
        fee = 0
        p = s.players[seat]
        s = set_player(s, replace(p, admin=(*p.admin[:index], marker, *p.admin[index + 1 :])))
    else:
        found = _marker_space(s, seat, marker)
        if found is None:
            raise violation(
                "marker_not_on_chart", f"Your {d.action} marker is not on the chart this decade.", "II.1"
            )
        index = found
        fee = C.reuse_fee  # the administrator tile waives it (next issue)
    cost = C.admin_spaces[index]
    out.append(fx.MarkerPlaced(seat=seat, action=d.action, space=cost, cost=cost + fee, reuse=fee > 0))
    s = settle(s, seat, cost + fee, "administration", out)  # batch (a), paid in advance
    turn = Turn(
        seat=seat, marker=marker, action=d.action, space=index, paid=cost, budget=_budget(d.action, cost)
    )
    return replace(s, turn=turn)


# --- the main actions (§6.1-§6.6) ---------------------------------------------------


def _t(s: State) -> Turn:
    assert s.turn is not None
    return s.turn


def _factory(s: State, seat: int, good: int, rule: str) -> Factory:
    f = s.players[seat].factories[good]
    if f is None:
        raise violation("no_factory", f"You have no {GOODS[good].lower()} factory.", rule)
    return f


def _add(t: tuple[int, ...], x: int) -> tuple[int, ...]:
    return t if x in t else (*t, x)


def build(s: State, seat: int, d: BuildFactory, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    if s.players[seat].factories[g] is not None:
        raise violation("factory_exists", f"You already have a {d.good.lower()} factory.", "II.2.1")
    if d.level > level_now(s):
        raise violation(
            "level_not_available", f"Level {d.level} is beyond the current level {level_now(s)}.", "II.2.1"
        )
    if (g, d.level) in t.closed:
        raise violation(
            "closed_this_action", "A factory closed in this action may not be rebuilt in it.", "II.2.1"
        )
    f = Factory(level=d.level, price=d.price, rows=(Row(), Row(), Row(), Row()))
    if not price_ok(g, f, d.price):
        raise violation(
            "bad_price",
            f"The price must be £{C.price_min}-£{C.price_max} and at most the base quality "
            f"£{base_quality(g, f)} (appeal at least 0).",
            "II.2.1",
        )
    cost = C.base_quality(g, d.level)
    s, got = take_for_hire(s, C.slots(g, 0))  # row 1 only, filled with workers (A-41: may stay short)
    f = replace(f, rows=(Row(workers=got), Row(), Row(), Row()))
    s = set_factory(s, seat, g, f)
    out.append(fx.FactoryBuilt(seat=seat, good=d.good, level=d.level, price=d.price, cost=cost, workers=got))
    return replace(
        s,
        turn=replace(t, main_costs=t.main_costs + cost, built=_add(t.built, g), affected=_add(t.affected, g)),
    )


def modernize(s: State, seat: int, d: ModernizeFactory, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.1")
    new = f.level + 1
    if new > 4 or new > level_now(s):
        raise violation(
            "level_not_available", f"Level {new} is beyond the current level {level_now(s)}.", "II.2.1"
        )
    cost = C.base_quality(g, new)
    released = 0
    f = replace(f, level=new)
    if new >= level_now(s) and (f.obsolete_workers or f.obsolete):
        released = f.obsolete_workers  # reaching the current level fires them at once
        f = replace(f, obsolete_workers=0, obsolete=False)
        s = fire(s, released)
    s = set_factory(s, seat, g, f)
    out.append(fx.FactoryModernized(seat=seat, good=d.good, level=new, cost=cost, obsolete_released=released))
    return replace(s, turn=replace(t, main_costs=t.main_costs + cost, affected=_add(t.affected, g)))


def close(s: State, seat: int, d: CloseFactory, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.1")
    if g in t.built:
        raise violation(
            "built_this_action", "A factory built in this action may not be closed in it.", "II.2.1"
        )
    workers = sum(r.workers for r in f.rows) + f.obsolete_workers
    s = fire(s, workers)
    s = set_factory(s, seat, g, None)
    out.append(fx.FactoryClosed(seat=seat, good=d.good, level=f.level, workers_fired=workers))
    return replace(s, turn=replace(t, closed=(*t.closed, (g, f.level))))


def hire(s: State, seat: int, d: HireWorkers, out: Effects) -> State:
    g, t, r = _g(d.good), _t(s), d.row - 1
    f = _factory(s, seat, g, "II.2.2")
    row = f.rows[r]
    if row.workers + row.machines + d.count > C.slots(g, r):
        free = C.slots(g, r) - row.workers - row.machines
        raise violation(
            "row_full", f"Row {d.row} of your {d.good.lower()} factory has {free} free slots.", "II.2.2"
        )
    if (g, r) in t.fired_rows:
        raise violation(
            "fired_and_hired",
            "Workers may not be fired and hired on the same production row in one action.",
            "II.2.2",
        )
    if available_for_hire(s) < d.count:
        raise violation("no_workers", "There are not that many workers to hire.", "II.2.2")
    s, got = take_for_hire(s, d.count)
    rows = list(f.rows)
    rows[r] = replace(row, workers=row.workers + got)
    f = replace(f, rows=tuple(rows))  # type: ignore[arg-type]
    if s.decade == 1810 and g in s.goods_done:
        f = replace(f, marker_worker=True)  # 1810: this good has already been active (§6.2)
    s = set_factory(s, seat, g, f)
    out.append(fx.WorkersHired(seat=seat, good=d.good, row=d.row, count=got))
    hired = t.hired_rows if (g, r) in t.hired_rows else (*t.hired_rows, (g, r))
    return replace(s, turn=replace(t, hired_rows=hired))


def hire_warehouse(s: State, seat: int, d: HireWarehouseWorker, out: Effects) -> State:
    p = s.players[seat]
    if edge_occupied(p, d.edge):
        raise violation("edge_taken", f"A worker already stands at {d.edge}.", "II.2.2")
    if available_for_hire(s) < 1:
        raise violation("no_workers", "There is no worker to hire.", "II.2.2")
    s, _ = take_for_hire(s, 1)
    s = set_player(s, set_edge(s.players[seat], d.edge, True))
    out.append(fx.WarehouseWorkerHired(seat=seat, edge=d.edge))
    return s


def move_warehouse(s: State, seat: int, d: MoveWarehouseWorker, out: Effects) -> State:
    p = s.players[seat]
    if not edge_occupied(p, d.from_edge) or edge_occupied(p, d.to_edge):
        raise violation(
            "bad_move", "Move a warehouse worker from an occupied edge to an empty one.", "II.2.2"
        )
    p = set_edge(set_edge(p, d.from_edge, False), d.to_edge, True)
    s, lost = trim_stock(set_player(s, p), seat, out)
    out.append(fx.WarehouseWorkerMoved(seat=seat, from_edge=d.from_edge, to_edge=d.to_edge, goods_lost=lost))
    return s


def fire_workers(s: State, seat: int, d: FireWorkers, out: Effects) -> State:
    """Workers leave the rightmost rows first (4, 3, 2); row 1 stays complete ([R16 II.2.2])."""
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.2")
    rows = list(f.rows)
    left = d.count
    touched: list[tuple[int, int]] = []
    for r in (3, 2, 1):
        take = min(left, rows[r].workers)
        if take:
            touched.append((g, r))
            left -= take
            rows[r] = replace(rows[r], workers=rows[r].workers - take)
    if left:
        firable = sum(f.rows[r].workers for r in (1, 2, 3))
        raise violation(
            "too_many_fired", f"Only {firable} workers can be fired (row 1 stays complete).", "II.2.2"
        )
    if any(row in t.hired_rows for row in touched):
        raise violation(
            "fired_and_hired",
            "Workers may not be fired and hired on the same production row in one action.",
            "II.2.2",
        )
    removed = 0
    for r in (1, 2, 3):
        if rows[r].workers == 0 and rows[r].machines:
            removed += rows[r].machines  # a row without workers loses its machines
            rows[r] = Row()
    s = set_factory(s, seat, g, replace(f, rows=tuple(rows)))  # type: ignore[arg-type]
    s = fire(s, d.count)
    out.append(fx.WorkersFired(seat=seat, good=d.good, count=d.count, machines_removed=removed))
    return replace(
        s, turn=replace(t, fired_rows=(*t.fired_rows, *(x for x in touched if x not in t.fired_rows)))
    )


def max_steps(thresholds: tuple[int, ...], budget: int) -> int:
    return sum(1 for x in thresholds if x <= budget)


def place_machine(s: State, seat: int, d: PlaceMachine, out: Effects) -> State:
    g, t, r = _g(d.good), _t(s), d.row - 1
    f = _factory(s, seat, g, "II.2.3")
    limit = max_steps(C.machinery_thresholds["OWN"], t.budget)
    if t.steps >= limit:
        raise violation("no_more_machines", f"£{t.paid} buys {limit} machine(s) with this marker.", "II.2.3")
    only, flex = C.row_slots[g][r]
    row = f.rows[r]
    if row.machines >= flex or row.workers <= only:
        raise violation(
            "no_flexible_worker", "A machine replaces a worker on a flexible slot of that row.", "II.2.3"
        )
    rows = list(f.rows)
    rows[r] = Row(workers=row.workers - 1, machines=row.machines + 1)
    s = set_factory(s, seat, g, replace(f, rows=tuple(rows)))  # type: ignore[arg-type]
    s = fire(s, 1)  # the replaced worker goes to the fired space
    out.append(fx.MachinePlaced(seat=seat, good=d.good, row=d.row))
    return replace(s, turn=replace(t, steps=t.steps + 1))


def raise_quality(s: State, seat: int, d: RaiseQuality, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.4")
    thresholds = C.quality_thresholds["OWN"]
    if t.steps >= max_steps(thresholds, t.budget):
        raise violation(
            "quality_budget",
            f"£{t.paid} pays for {max_steps(thresholds, t.budget)} quality step(s).",
            "II.2.4",
        )
    if f.quality >= C.quality_max:
        raise violation("quality_max", "The quality marker is at its highest level.", "II.2.4")
    f = replace(f, quality=f.quality + 1)
    s = set_factory(s, seat, g, f)
    out.append(fx.QualityRaised(seat=seat, good=d.good, level=f.quality))
    steps = t.steps + 1
    return replace(s, turn=replace(t, steps=steps, spent=thresholds[steps - 1], affected=_add(t.affected, g)))


def raise_distribution(s: State, seat: int, d: RaiseDistribution, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.5")
    if f.distribution >= C.distribution_levels:
        raise violation("distribution_max", "Distribution is at most +4.", "II.2.5")
    cost = f.distribution + 1  # raising to level L costs £L
    if t.spent + cost > t.budget:
        raise violation(
            "distribution_budget",
            f"£{t.budget - t.spent} of the budget is left; level {cost} costs £{cost}.",
            "II.2.5",
        )
    f = replace(f, distribution=f.distribution + 1)
    s = set_factory(s, seat, g, f)
    out.append(fx.DistributionRaised(seat=seat, good=d.good, level=f.distribution, cost=cost))
    return replace(s, turn=replace(t, spent=t.spent + cost, affected=_add(t.affected, g)))


def buy_shares(s: State, seat: int, count: int, out: Effects, rule: str = "II.2.6") -> State:
    p = s.players[seat]
    price = C.buy_price(p.share_space)
    if p.loans:
        raise violation("loans_first", "All loans must be repaid before buying shares.", rule)
    if count > p.bank_shares:
        raise violation("bank_has_fewer", f"The bank holds {p.bank_shares} of your shares.", rule)
    if p.cash < price * count:
        raise violation("cannot_afford", f"{count} share(s) at £{price} cost £{price * count}.", rule)
    s = change_shares(s, seat, count, price, "bought", out)
    return gain(s, seat, -price * count, "share_purchase", out)


def sell_shares(s: State, seat: int, count: int, out: Effects, rule: str = "II.2.6") -> State:
    p = s.players[seat]
    if count > p.shares:
        raise violation("not_enough_shares", f"You hold {p.shares} of your shares.", rule)
    price = C.share_value(p.share_space)
    s = change_shares(s, seat, -count, price, "sold", out)
    return gain(s, seat, price * count, "share_sale", out)


def repay_loans(s: State, seat: int, count: int, out: Effects, rule: str = "II.2.6") -> State:
    p = s.players[seat]
    if count > p.loans:
        raise violation("no_such_loans", f"You have {p.loans} loan(s).", rule)
    if p.cash < C.loan_repay * count:
        raise violation("cannot_afford", f"Repaying {count} loan(s) costs £{C.loan_repay * count}.", rule)
    s = change_loans(s, seat, -count, out)
    return gain(s, seat, -C.loan_repay * count, "loan_repayment", out)


def sell_stored(s: State, seat: int, d: SellStoredGoods, out: Effects, rule: str = "II.2.6") -> State:
    g = _g(d.good)
    p = s.players[seat]
    if d.count > p.stock[g]:
        raise violation("not_in_warehouse", f"You have {p.stock[g]} {d.good.lower()} stored.", rule)
    s = set_player(s, replace(p, stock=tuple(x - d.count if i == g else x for i, x in enumerate(p.stock))))  # type: ignore[arg-type]
    income = C.fixed_goods_prices[g] * d.count
    out.append(fx.StoredGoodsSold(seat=seat, good=d.good, count=d.count, income=income))
    return gain(s, seat, income, "warehouse_sale", out)


# --- ending the main action, the additional action, the turn -----------------------


def finish_main(s: State, out: Effects) -> State:
    t = _t(s)
    if t.stage != "main":
        return s
    s = settle(s, t.seat, t.main_costs, "main_action", out)  # batch (b)
    return replace(s, turn=replace(t, stage="additional", main_costs=0))


def price_adjustment_cost(s: State, g: int) -> int | None:
    """£0 for an affected factory, £1 of left-over budget (quality, distribution), None if impossible."""
    t = _t(s)
    if t.action not in PRICE_ACTIONS or g in t.adjusted:
        return None
    if g in t.affected:
        return 0
    if t.action in ("QUALITY", "DISTRIBUTION") and t.budget - t.spent >= 1:
        return 1
    return None


def adjust_price(s: State, seat: int, d: AdjustPrice, out: Effects) -> State:
    g = _g(d.good)
    f = _factory(s, seat, g, "II.3.1")
    s = finish_main(s, out)
    cost = price_adjustment_cost(s, g)
    if cost is None:
        raise violation(
            "price_not_adjustable",
            f"The {d.good.lower()} factory's price may not be adjusted in this additional action.",
            "II.3.1",
        )
    if not price_ok(g, f, d.price):
        raise violation(
            "bad_price",
            f"The price must be £{C.price_min}-£{C.price_max} and keep the appeal at least 0 "
            f"(at most £{f.price + appeal(g, f)}).",
            "II.3.1",
        )
    f = replace(f, price=d.price)
    s = set_factory(s, seat, g, f)
    out.append(fx.PriceSet(seat=seat, good=d.good, price=d.price, appeal=appeal(g, f)))
    t = _t(s)
    return replace(s, turn=replace(t, spent=t.spent + cost, adjusted=(*t.adjusted, g)))


def end_turn(s: State, out: Effects) -> State:
    s = finish_main(s, out)
    t = _t(s)
    out.append(fx.TurnEnded(seat=t.seat))
    return replace(s, turn=None, cursor=s.cursor + 1, awaiting=())


def apply_turn_decision(s: State, seat: int, d: Decision, out: Effects) -> State:
    """A decision during one player's turn in the action phase."""
    if s.turn is None:
        if isinstance(d, PlaceMarker | ReuseMarker):
            return place(s, seat, d, out)
        raise violation("choose_action_first", "First place (or re-use) an action marker.", "II.1")
    t = s.turn
    if isinstance(d, EndTurn):
        return end_turn(s, out)
    if isinstance(d, FinishMainAction):
        if t.stage != "main":
            raise violation("main_action_done", "The main action is already finished.", "II.3")
        return finish_main(s, out)
    if isinstance(d, AdjustPrice):
        return adjust_price(s, seat, d, out)
    if not isinstance(d, MAIN_DECISIONS[t.action]) or t.stage != "main":
        raise violation(
            "not_this_action", f"{type(d).__name__} is not part of the {t.action.lower()} action now.", "II.2"
        )
    handlers = {
        BuildFactory: build,
        ModernizeFactory: modernize,
        CloseFactory: close,
        HireWorkers: hire,
        HireWarehouseWorker: hire_warehouse,
        MoveWarehouseWorker: move_warehouse,
        FireWorkers: fire_workers,
        PlaceMachine: place_machine,
        RaiseQuality: raise_quality,
        RaiseDistribution: raise_distribution,
    }
    if isinstance(d, BuyShares):
        return buy_shares(s, seat, d.count, out)
    if isinstance(d, SellShares):
        return sell_shares(s, seat, d.count, out)
    if isinstance(d, RepayLoans):
        return repay_loans(s, seat, d.count, out)
    if isinstance(d, SellStoredGoods):
        return sell_stored(s, seat, d, out)
    return handlers[type(d)](s, seat, d, out)  # type: ignore[operator]


def main_possible(s: State) -> bool:
    t = _t(s)
    if t.action == "MACHINERY":
        return max_steps(C.machinery_thresholds["OWN"], t.budget) > 0
    if t.action == "QUALITY":
        return max_steps(C.quality_thresholds["OWN"], t.budget) > 0
    return True


__all__ = ["apply_turn_decision", "large_cap"]

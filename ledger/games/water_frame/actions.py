"""The action phase (spec §5.4, §6): markers on the administration chart — own colour,
grey (advanced) and ships — the actions, each a sequence of small decisions, and the
additional action (price adjustment or taking a special marker)."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.shared import replace, set_at
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame import special, storage
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import (
    AdjustPrice,
    BuildFactory,
    BuyShares,
    CloseFactory,
    DeliverContract,
    EndTurn,
    FinishMainAction,
    FireWorkers,
    HireWarehouseWorker,
    HireWorkers,
    ModernizeFactory,
    MoveWarehouseWorker,
    PlaceContract,
    PlaceMachine,
    PlaceMarker,
    ProduceGoods,
    RaiseDistribution,
    RaiseQuality,
    ReassignTile,
    RepayLoans,
    ReuseMarker,
    SellShares,
    SellStoredGoods,
    StoreGoods,
    TakeGreyMarker,
    TakeShip,
    TakeTile,
    UseBroker,
    UsePatent,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    appeal,
    available_for_hire,
    base_quality,
    edge_occupied,
    fire,
    gain,
    has,
    level_now,
    move_share,
    price_ok,
    production_cost,
    return_tile,
    set_edge,
    set_factory,
    set_player,
    settle,
    store,
    take_for_hire,
    trim_stock,
    violation,
)
from ledger.games.water_frame.state import Factory, Row, State, Turn
from ledger.games.water_frame.stock_exchange import (
    buy_shares,
    place_contract,
    repay_loans,
    sell_shares,
    sell_stored,
)

OWN_ACTIONS = ("FACTORY", "WORKERS", "MACHINERY", "QUALITY", "DISTRIBUTION", "STOCK_EXCHANGE")
GREY_ACTIONS = ("MACHINERY", "QUALITY", "DISTRIBUTION", "PRODUCTION")
PRICE_ACTIONS = ("FACTORY", "QUALITY", "DISTRIBUTION", "PRODUCTION")
SPECIAL_ACTIONS = ("WORKERS", "MACHINERY", "STOCK_EXCHANGE", "SHIP")
MAIN_DECISIONS: dict[str, tuple[type[Decision], ...]] = {
    "FACTORY": (BuildFactory, ModernizeFactory, CloseFactory),
    "WORKERS": (HireWorkers, HireWarehouseWorker, MoveWarehouseWorker, FireWorkers),
    "MACHINERY": (PlaceMachine,),
    "QUALITY": (RaiseQuality,),
    "DISTRIBUTION": (RaiseDistribution, UsePatent),
    "STOCK_EXCHANGE": (BuyShares, SellShares, RepayLoans, SellStoredGoods, PlaceContract),
    "PRODUCTION": (ProduceGoods,),
    "SHIP": (DeliverContract,),
}
SPECIAL_DECISIONS = (TakeTile, TakeGreyMarker, TakeShip, UseBroker, ReassignTile)


def _g(name: str) -> int:
    return GOODS.index(name)


def _add(t: tuple[int, ...], x: int) -> tuple[int, ...]:
    return t if x in t else (*t, x)


def _t(s: State) -> Turn:
    assert s.turn is not None
    return s.turn


# --- placing a marker (D-10) -----------------------------------------------------


def marker_id(d: PlaceMarker | ReuseMarker) -> str:
    if d.action == "SHIP":
        return f"SHIP:{d.ship}"
    return f"{d.shade}:{d.action}"


def _check_marker(s: State, seat: int, d: PlaceMarker | ReuseMarker) -> None:
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


def _paid(s: State, seat: int, d: PlaceMarker | ReuseMarker, cost: int) -> int:
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


def place(s: State, seat: int, d: PlaceMarker | ReuseMarker, out: Effects) -> State:
    _check_marker(s, seat, d)
    marker = marker_id(d)
    p = s.players[seat]
    if isinstance(d, PlaceMarker):
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
    if isinstance(d, PlaceMarker):
        s = set_player(s, replace(p, admin=set_at(p.admin, index, marker)))
    out.append(
        fx.MarkerPlaced(
            seat=seat, action=d.action, space=cost, cost=paid + fee, reuse=isinstance(d, ReuseMarker)
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


# --- FACTORY (§6.1) ---------------------------------------------------------------


def _factory(s: State, seat: int, good: int, rule: str) -> Factory:
    f = s.players[seat].factories[good]
    if f is None:
        raise violation("no_factory", f"You have no {GOODS[good].lower()} factory.", rule)
    return f


def _developer(s: State, seat: int, g: int, use: bool) -> int:
    if not use:
        return 0
    t = _t(s)
    if not has(s.players[seat], "DEVELOPER"):
        raise violation("no_developer", "You do not own the developer.", "II.2.1")
    if g in t.developer_on:
        raise violation("developer_once", "The developer helps each factory once per action.", "II.2.1")
    return C.developer_discount


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
    if not price_ok(g, f, d.price, s.players[seat].small_stock[g]):
        raise violation(
            "bad_price",
            f"The price must be £{C.price_min}-£{C.price_max} and at most the base quality "
            f"£{base_quality(g, f)} (appeal at least 0).",
            "II.2.1",
        )
    discount = _developer(s, seat, g, d.developer)
    cost = max(0, C.base_quality(g, d.level) - discount)
    s, got = take_for_hire(s, C.slots(g, 0))  # row 1 only, filled with workers (A-41: may stay short)
    f = replace(f, rows=(Row(workers=got), Row(), Row(), Row()))
    s = set_factory(s, seat, g, f)
    out.append(fx.FactoryBuilt(seat=seat, good=d.good, level=d.level, price=d.price, cost=cost, workers=got))
    return replace(
        s,
        turn=replace(
            t,
            main_costs=t.main_costs + cost,
            built=_add(t.built, g),
            affected=_add(t.affected, g),
            developer_on=_add(t.developer_on, g) if discount else t.developer_on,
        ),
    )


def _inventor_use(s: State, seat: int, use: str, out: Effects) -> tuple[State, int]:
    """After each use the inventor is returned, or its fee paid (the fee is returned as a cost)."""
    if use == "return":
        out.append(fx.InventorUsed(seat=seat, use="return", paid=0))
        return return_tile(s, seat, "INVENTOR", out), 0
    out.append(fx.InventorUsed(seat=seat, use="pay", paid=C.inventor_fee))
    return s, C.inventor_fee


def modernize(s: State, seat: int, d: ModernizeFactory, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.1")
    new = f.level + 1
    beyond = new > level_now(s)
    if new > 4 or (beyond and (d.inventor is None or new > level_now(s) + 1)):
        raise violation(
            "level_not_available", f"Level {new} is beyond the current level {level_now(s)}.", "II.2.1"
        )
    if d.inventor is not None and (not beyond or not has(s.players[seat], "INVENTOR")):
        raise violation(
            "inventor_not_needed", "The inventor reaches one level beyond the current one.", "II.2.1"
        )
    if beyond and d.developer:
        raise violation(
            "developer_not_beyond", "The developer does not help a step beyond the current level.", "II.2.1"
        )
    discount = _developer(s, seat, g, d.developer)
    cost = C.base_quality(g, new) - discount
    fee = 0
    if d.inventor is not None:
        s, fee = _inventor_use(s, seat, d.inventor, out)
    released = 0
    f = replace(f, level=new)
    if new >= level_now(s) and (f.obsolete_workers or f.obsolete):
        released = f.obsolete_workers  # reaching the current level fires them at once
        f = replace(f, obsolete_workers=0, obsolete=False)
        s = fire(s, released)
    s = set_factory(s, seat, g, f)
    out.append(fx.FactoryModernized(seat=seat, good=d.good, level=new, cost=cost, obsolete_released=released))
    t = _t(s)
    return replace(
        s,
        turn=replace(
            t,
            main_costs=t.main_costs + cost + fee,
            affected=_add(t.affected, g),
            developer_on=_add(t.developer_on, g) if discount else t.developer_on,
        ),
    )


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
    p = s.players[seat]
    s = set_player(s, replace(p, assigned=tuple((tile, x) for tile, x in p.assigned if x != g)))
    out.append(fx.FactoryClosed(seat=seat, good=d.good, level=f.level, workers_fired=workers))
    return replace(s, turn=replace(t, closed=(*t.closed, (g, f.level))))


# --- WORKERS (§6.2) -----------------------------------------------------------------


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
    f = replace(f, rows=set_at(f.rows, r, replace(row, workers=row.workers + got)))  # type: ignore[arg-type]
    if s.decade == 1810 and g in s.goods_done:
        f = replace(f, marker_worker=True)  # 1810: this good has already been active (§6.2)
    s = set_factory(s, seat, g, f)
    out.append(fx.WorkersHired(seat=seat, good=d.good, row=d.row, count=got))
    hired = t.hired_rows if (g, r) in t.hired_rows else (*t.hired_rows, (g, r))
    return replace(s, turn=replace(t, hired_rows=hired))


def hire_warehouse(s: State, seat: int, d: HireWarehouseWorker, out: Effects) -> State:
    if edge_occupied(s.players[seat], d.edge):
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


# --- MACHINERY, QUALITY, DISTRIBUTION (§6.3-§6.5) ------------------------------------


def max_steps(thresholds: tuple[int, ...], budget: int) -> int:
    return sum(1 for x in thresholds if x <= budget)


def machine_limit(t: Turn) -> int:
    return max_steps(C.machinery_thresholds[t.shade], t.budget)


def place_machine(s: State, seat: int, d: PlaceMachine, out: Effects) -> State:
    g, t, r = _g(d.good), _t(s), d.row - 1
    f = _factory(s, seat, g, "II.2.3")
    limit = machine_limit(t)
    if t.steps >= limit:
        raise violation(
            "no_more_machines", f"£{t.budget} buys {limit} machine(s) with this marker.", "II.2.3"
        )
    only, flex = C.row_slots[g][r]
    row = f.rows[r]
    if row.machines >= flex or row.workers <= only:
        raise violation(
            "no_flexible_worker", "A machine replaces a worker on a flexible slot of that row.", "II.2.3"
        )
    if (g, r) in t.hired_rows:
        raise violation(
            "school_moved_worker", "A worker the school moved may not be replaced in this action.", "II.2.3"
        )
    f = replace(f, rows=set_at(f.rows, r, Row(workers=row.workers - 1, machines=row.machines + 1)))  # type: ignore[arg-type]
    s = set_factory(s, seat, g, f)
    if d.school_to_good is not None:  # the school moves the replaced worker to a free slot
        if not has(s.players[seat], "SCHOOL") or d.school_to_row is None:
            raise violation("no_school", "Only the school moves a replaced worker into a factory.", "II.2.3")
        tg, tr = _g(d.school_to_good), d.school_to_row - 1
        target = _factory(s, seat, tg, "II.2.3")
        trow = target.rows[tr]
        if trow.workers + trow.machines >= C.slots(tg, tr):
            raise violation("school_row_full", "The school moves a worker only onto a free slot.", "II.2.3")
        s = set_factory(
            s,
            seat,
            tg,
            replace(target, rows=set_at(target.rows, tr, replace(trow, workers=trow.workers + 1))),
        )  # type: ignore[arg-type]
        t = replace(t, hired_rows=(*t.hired_rows, (tg, tr)))  # no machine may replace it in this action
    else:
        s = fire(s, 1)  # the replaced worker goes to the fired space
    out.append(fx.MachinePlaced(seat=seat, good=d.good, row=d.row))
    for other in range(s.players_count):  # engineering works: £1 per machine bought by someone else
        if other != seat and has(s.players[other], "ENGINEERING_WORKS"):
            out.append(fx.EngineeringWorksPaid(seat=other, machines=1))
            s = gain(s, other, 1, "engineering_works", out)
    return replace(s, turn=replace(t, steps=t.steps + 1))


def raise_quality(s: State, seat: int, d: RaiseQuality, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.4")
    thresholds = C.quality_thresholds[t.shade]
    if t.steps >= max_steps(thresholds, t.budget):
        raise violation(
            "quality_budget",
            f"£{t.budget} pays for {max_steps(thresholds, t.budget)} quality step(s).",
            "II.2.4",
        )
    top = C.quality_max_engineer if has(s.players[seat], "ENGINEER") else C.quality_max
    if f.quality >= top:
        raise violation("quality_max", "The quality marker is at its highest level.", "II.2.4")
    f = replace(f, quality=f.quality + 1)
    s = set_factory(s, seat, g, f)
    out.append(fx.QualityRaised(seat=seat, good=d.good, level=f.quality))
    steps = t.steps + 1
    return replace(s, turn=replace(t, steps=steps, spent=thresholds[steps - 1], affected=_add(t.affected, g)))


def use_patent(s: State, seat: int, d: UsePatent, out: Effects) -> State:
    t = _t(s)
    if not has(s.players[seat], "PATENT"):
        raise violation("no_patent", "You do not own the patent.", "II.2.5")
    if t.took_special:
        raise violation("patent_once", "The patent is used once per distribution action.", "II.2.5")
    if d.option == "extra_budget":
        return replace(
            s, turn=replace(t, budget=t.budget + 2, took_special=True)
        )  # beyond the marker's limit
    s = return_tile(s, seat, "PATENT", out)
    return replace(s, turn=replace(t, free_raises=2, took_special=True))


def raise_distribution(s: State, seat: int, d: RaiseDistribution, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.5")
    if f.distribution >= C.distribution_levels:
        raise violation("distribution_max", "Distribution is at most +4.", "II.2.5")
    cost = 0 if t.free_raises else f.distribution + 1  # raising to level L costs £L
    if t.spent + cost > t.budget:
        raise violation(
            "distribution_budget",
            f"£{t.budget - t.spent} of the budget is left; level {cost} costs £{cost}.",
            "II.2.5",
        )
    f = replace(f, distribution=f.distribution + 1)
    s = set_factory(s, seat, g, f)
    out.append(fx.DistributionRaised(seat=seat, good=d.good, level=f.distribution, cost=cost))
    return replace(
        s,
        turn=replace(
            t, spent=t.spent + cost, affected=_add(t.affected, g), free_raises=max(0, t.free_raises - 1)
        ),
    )


# --- PRODUCTION (§6.8) and SHIP (§6.7) ---------------------------------------------------


def produce(s: State, seat: int, d: ProduceGoods, out: Effects) -> State:
    g, t = _g(d.good), _t(s)
    f = _factory(s, seat, g, "II.2.8")
    if t.steps:
        raise violation("produced_already", "One production per production action.", "II.2.8")
    if d.rows > C.production_rows[t.shade]:
        raise violation(
            "too_many_rows", f"This marker uses rows 1 to {C.production_rows[t.shade]}.", "II.2.8"
        )
    if d.extra_shift and not has(s.players[seat], "EXTRA_SHIFTS"):
        raise violation("no_extra_shifts", "You do not own the extra shifts.", "II.2.8")
    levels = C.row_output[f.level - 1]
    made = sum(levels[r] for r in range(d.rows) if f.rows[r].workers + f.rows[r].machines == C.slots(g, r))
    if d.extra_shift:
        s = return_tile(s, seat, "EXTRA_SHIFTS", out)
        made += 1
    if f.marker_worker:  # the worker on the factory marker goes back to row 1
        s = set_factory(s, seat, g, replace(f, marker_worker=False))
    p = s.players[seat]
    _, _, cost = production_cost(s, p, g, f, tuple(range(d.rows)), obsolete=False)
    t = replace(t, steps=1, main_costs=t.main_costs + cost, affected=(g,))
    if storage.needs_choice(p, g, made):  # D-34: the player chooses what to keep ([R16 §II.2.8])
        return replace(s, turn=replace(t, storing=(g, d.rows, made)))
    s, lost = store(s, seat, g, made)
    out.append(
        fx.GoodsMadeByAction(
            seat=seat, good=d.good, rows=d.rows, produced=made, stored=made - lost, lost=lost
        )
    )
    return replace(s, turn=t)


def store_produced(s: State, seat: int, d: StoreGoods, out: Effects) -> State:
    """D-34 after a production action with a storage conflict: the warehouses become the chosen
    arrangement and the turn goes on exactly as after an automatic store (main action not finished)."""
    t = _t(s)
    assert t.storing is not None
    g, rows, made = t.storing
    stored = storage.new_kept(s.players[seat], g, d)
    arranged: Effects = []
    s = storage.choose(s, seat, g, made, d, arranged)  # raises on an illegal arrangement
    out.append(
        fx.GoodsMadeByAction(
            seat=seat, good=GOODS[g], rows=rows, produced=made, stored=stored, lost=made - stored
        )
    )
    out.extend(arranged)
    return replace(s, turn=replace(t, storing=None))


def deliver(s: State, seat: int, d: DeliverContract, out: Effects) -> State:
    """Deliver one whole contract from the warehouses; share value -1 on the first delivery."""
    g, t = _g(d.good), _t(s)
    p = s.players[seat]
    if not p.contracts[g]:
        raise violation("no_contract", f"You have no {d.good.lower()} contract.", "II.2.7")
    f = p.factories[g]
    if f is None:
        raise violation(
            "no_factory", "Contracts pay the building cost of your factory of that good (A-25).", "II.2.7"
        )
    if d.agent and (not has(p, "AGENT_IN_THE_COLONIES") or t.agent_used):
        raise violation("no_agent", "The agent in the colonies changes one contract by one good.", "II.2.7")
    n = p.contracts[g] + d.agent
    if t.shipped + n > t.capacity:
        raise violation("ship_too_small", f"This ship carries {t.capacity - t.shipped} more goods.", "II.2.7")
    if p.stock[g] + p.small_stock[g] < n:
        raise violation(
            "not_enough_goods", f"The contract needs {n} {d.good.lower()} in your warehouses.", "II.2.7"
        )
    large = min(n, p.stock[g])
    p = replace(
        p,
        stock=set_at(p.stock, g, p.stock[g] - large),  # type: ignore[arg-type]
        small_stock=set_at(p.small_stock, g, p.small_stock[g] - (n - large)),  # type: ignore[arg-type]
        contracts=set_at(p.contracts, g, 0),  # type: ignore[arg-type]
    )
    s = set_player(s, p)
    income = n * base_quality(g, f)
    out.append(fx.ContractDelivered(seat=seat, good=d.good, goods=n, income=income, ships_used=1))
    s = gain(s, seat, income, "contract", out)
    if t.shipped == 0:
        s = move_share(s, seat, -1, "ship", out)
        if has(s.players[seat], "OFFICE"):
            s = gain(s, seat, C.office_bonus, "office", out)
    return replace(s, turn=replace(t, shipped=t.shipped + n, agent_used=t.agent_used or bool(d.agent)))


# --- ending the main action, the additional action, the turn -------------------------------


def finish_main(s: State, out: Effects) -> State:
    t = _t(s)
    if t.stage != "main":
        return s
    s = settle(s, t.seat, t.main_costs, "main_action", out)  # batch (b)
    if t.developer_on and has(s.players[t.seat], "DEVELOPER"):
        s = return_tile(s, t.seat, "DEVELOPER", out)
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
    if not price_ok(g, f, d.price, s.players[seat].small_stock[g]):
        raise violation(
            "bad_price",
            f"The price must be £{C.price_min}-£{C.price_max} (less goods on the small warehouse) and keep the "
            f"appeal at least 0 (at most £{f.price + appeal(g, f)}).",
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
    if t.storing is not None:  # rules.apply admits only StoreGoods now
        if not isinstance(d, StoreGoods):
            raise violation("wrong_decision", "Now the decision must be: store_goods.", "II.2.8")
        return store_produced(s, seat, d, out)
    if isinstance(d, EndTurn):
        return end_turn(s, out)
    if isinstance(d, FinishMainAction):
        if t.stage != "main":
            raise violation("main_action_done", "The main action is already finished.", "II.3")
        return finish_main(s, out)
    if isinstance(d, AdjustPrice):
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
        return replace(s, turn=replace(_t(s), took_special=True, stage="special_done"))
    if not isinstance(d, MAIN_DECISIONS[t.action]) or t.stage != "main":
        raise violation(
            "not_this_action", f"{type(d).__name__} is not part of the {t.action.lower()} action now.", "II.2"
        )
    if isinstance(d, BuyShares):
        return buy_shares(s, seat, d.count, out)
    if isinstance(d, SellShares):
        return sell_shares(s, seat, d.count, out)
    if isinstance(d, RepayLoans):
        return repay_loans(s, seat, d.count, out)
    if isinstance(d, SellStoredGoods):
        return sell_stored(s, seat, d, out)
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
        UsePatent: use_patent,
        PlaceContract: place_contract,
        ProduceGoods: produce,
        DeliverContract: deliver,
    }
    return handlers[type(d)](s, seat, d, out)  # type: ignore[operator]


def main_possible(s: State) -> bool:
    t = _t(s)
    if t.action == "MACHINERY":
        return machine_limit(t) > 0
    if t.action == "QUALITY":
        return max_steps(C.quality_thresholds[t.shade], t.budget) > 0
    return True

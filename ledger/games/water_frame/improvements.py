"""The machinery, quality and distribution actions (spec §6.3-§6.5; rulebook II.2.3-II.2.5):
as many steps as the marker's budget buys, with the school, the engineer, the patent and the
engineering works."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.shared import replace, set_at
from ledger.games.vocabulary import counted
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import PlaceMachine, RaiseDistribution, RaiseQuality, UsePatent
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    add_once,
    factory_of,
    fire,
    gain,
    good_index,
    has,
    return_tile,
    set_factory,
    turn_of,
    violation,
)
from ledger.games.water_frame.state import Row, State, Turn


def max_steps(thresholds: tuple[int, ...], budget: int) -> int:
    return sum(1 for x in thresholds if x <= budget)


def machine_limit(t: Turn) -> int:
    return max_steps(C.machinery_thresholds[t.shade], t.budget)


def place_machine(s: State, seat: int, d: PlaceMachine, out: Effects) -> State:
    g, t, r = good_index(d.good), turn_of(s), d.row - 1
    f = factory_of(s, seat, g, "II.2.3")
    limit = machine_limit(t)
    if t.steps >= limit:
        raise violation(
            "no_more_machines", f"£{t.budget} buys {counted(limit, 'machines')} with this marker.", "II.2.3"
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
        tg, tr = good_index(d.school_to_good), d.school_to_row - 1
        target = factory_of(s, seat, tg, "II.2.3")
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
    g, t = good_index(d.good), turn_of(s)
    f = factory_of(s, seat, g, "II.2.4")
    thresholds = C.quality_thresholds[t.shade]
    if t.steps >= max_steps(thresholds, t.budget):
        raise violation(
            "quality_budget",
            f"£{t.budget} pays for {counted(max_steps(thresholds, t.budget), 'quality steps')}.",
            "II.2.4",
        )
    top = C.quality_max_engineer if has(s.players[seat], "ENGINEER") else C.quality_max
    if f.quality >= top:
        raise violation("quality_max", "The quality marker is at its highest level.", "II.2.4")
    f = replace(f, quality=f.quality + 1)
    s = set_factory(s, seat, g, f)
    out.append(fx.QualityRaised(seat=seat, good=d.good, level=f.quality))
    steps = t.steps + 1
    return replace(
        s, turn=replace(t, steps=steps, spent=thresholds[steps - 1], affected=add_once(t.affected, g))
    )


def use_patent(s: State, seat: int, d: UsePatent, out: Effects) -> State:
    t = turn_of(s)
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
    g, t = good_index(d.good), turn_of(s)
    f = factory_of(s, seat, g, "II.2.5")
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
            t, spent=t.spent + cost, affected=add_once(t.affected, g), free_raises=max(0, t.free_raises - 1)
        ),
    )


def machinery_options(s: State, seat: int, t: Turn, valid: Valid) -> list[Decision]:
    """A machine more, while the budget buys one."""
    p = s.players[seat]
    options: list[Decision] = []
    if t.steps < machine_limit(t):
        for g in range(4):
            f = p.factories[g]
            if f is None:
                continue
            for r in range(4):
                only, flex = C.row_slots[g][r]
                if f.rows[r].machines < flex and f.rows[r].workers > only and (g, r) not in t.hired_rows:
                    options.append(PlaceMachine(good=GOODS[g], row=r + 1))  # type: ignore[arg-type]
    return options


def quality_options(s: State, seat: int, t: Turn, valid: Valid) -> list[Decision]:
    """A quality step more, while the budget pays for one."""
    p = s.players[seat]
    options: list[Decision] = []
    top = C.quality_max_engineer if has(p, "ENGINEER") else C.quality_max
    if t.steps < max_steps(C.quality_thresholds[t.shade], t.budget):
        for g in range(4):
            f = p.factories[g]
            if f is not None and f.quality < top:
                options.append(RaiseQuality(good=GOODS[g]))  # type: ignore[arg-type]
    return options


def distribution_options(s: State, seat: int, t: Turn, valid: Valid) -> list[Decision]:
    """The patent, and a distribution step more within the budget."""
    p = s.players[seat]
    options: list[Decision] = []
    if has(p, "PATENT") and not t.took_special:
        options.extend(UsePatent(option=o) for o in ("extra_budget", "free_raises"))  # type: ignore[arg-type]
    for g in range(4):
        f = p.factories[g]
        cost = 0 if t.free_raises else (f.distribution + 1 if f else 0)
        if f is not None and f.distribution < C.distribution_levels and t.spent + cost <= t.budget:
            options.append(RaiseDistribution(good=GOODS[g]))  # type: ignore[arg-type]
    return options

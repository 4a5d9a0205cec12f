"""The workers action (spec §6.2; rulebook II.2.2): hire into a production row or onto the
large warehouse's edges, move a warehouse worker, fire from the rightmost rows."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.shared import replace, set_at
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import (
    FireWorkers,
    HireWarehouseWorker,
    HireWorkers,
    MoveWarehouseWorker,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    available_for_hire,
    edge_occupied,
    edges,
    factory_of,
    fire,
    good_index,
    set_edge,
    set_factory,
    set_player,
    take_for_hire,
    trim_stock,
    turn_of,
    violation,
)
from ledger.games.water_frame.state import Row, State, Turn


def hire(s: State, seat: int, d: HireWorkers, out: Effects) -> State:
    g, t, r = good_index(d.good), turn_of(s), d.row - 1
    f = factory_of(s, seat, g, "II.2.2")
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
    g, t = good_index(d.good), turn_of(s)
    f = factory_of(s, seat, g, "II.2.2")
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


def options(s: State, seat: int, t: Turn, valid: Valid) -> list[Decision]:
    """The workers action's steps now: hire, fire, hire and move warehouse workers."""
    p = s.players[seat]
    options: list[Decision] = []
    free = available_for_hire(s)
    for g in range(4):
        f = p.factories[g]
        if f is None:
            continue
        for r in range(4):
            room = C.slots(g, r) - f.rows[r].workers - f.rows[r].machines
            if room and free and (g, r) not in t.fired_rows:
                for n in sorted({1, min(room, free)}):
                    options.append(HireWorkers(good=GOODS[g], row=r + 1, count=n))  # type: ignore[arg-type]
        firable = sum(f.rows[r].workers for r in (1, 2, 3))
        for n in sorted({1, firable}):
            if n >= 1 and valid(s, seat, FireWorkers(good=GOODS[g], count=n)):  # type: ignore[arg-type]
                options.append(FireWorkers(good=GOODS[g], count=n))  # type: ignore[arg-type]
    taken = [e for e, occupied in edges(p) if occupied]
    empty = [e for e, occupied in edges(p) if not occupied]
    if free:
        options.extend(HireWarehouseWorker(edge=e) for e in empty)
    options.extend(MoveWarehouseWorker(from_edge=a, to_edge=b) for a in taken for b in empty)
    return options

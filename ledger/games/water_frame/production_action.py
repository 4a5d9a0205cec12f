"""The production and ship actions (spec §6.7, §6.8; rulebook II.2.7, II.2.8): a grey marker's
production into the warehouses (the player arranging them where the goods do not all fit), and
a ship delivering whole contracts from the warehouses."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.shared import replace, set_at
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame import storage
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import DeliverContract, ProduceGoods, StoreGoods
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    base_quality,
    factory_of,
    gain,
    good_index,
    has,
    move_share,
    production_cost,
    return_tile,
    set_factory,
    set_player,
    store,
    turn_of,
    violation,
)
from ledger.games.water_frame.state import State, Turn


def produce(s: State, seat: int, d: ProduceGoods, out: Effects) -> State:
    g, t = good_index(d.good), turn_of(s)
    f = factory_of(s, seat, g, "II.2.8")
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
    t = turn_of(s)
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
    g, t = good_index(d.good), turn_of(s)
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


def production_options(s: State, seat: int, t: Turn, valid: Valid) -> list[Decision]:
    """One production, with rows 1 to those the marker allows."""
    p = s.players[seat]
    options: list[Decision] = []
    if not t.steps:
        for g in range(4):
            if p.factories[g] is not None:
                for rows in range(1, C.production_rows[t.shade] + 1):
                    options.append(ProduceGoods(good=GOODS[g], rows=rows))  # type: ignore[arg-type]
                    if has(p, "EXTRA_SHIFTS"):
                        options.append(ProduceGoods(good=GOODS[g], rows=rows, extra_shift=True))  # type: ignore[arg-type]
    return options


def ship_options(s: State, seat: int, t: Turn, valid: Valid) -> list[Decision]:
    """Contracts the ship can deliver now."""
    p = s.players[seat]
    options: list[Decision] = []
    for g in range(4):
        if p.contracts[g] and p.factories[g] is not None:
            for a in [0, -1, 1] if has(p, "AGENT_IN_THE_COLONIES") and not t.agent_used else [0]:
                d = DeliverContract(good=GOODS[g], agent=a)  # type: ignore[arg-type]
                if valid(s, seat, d):
                    options.append(d)
    return options

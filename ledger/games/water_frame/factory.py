"""The factory action (spec §6.1; rulebook II.2.1): build a factory (row 1 filled from the job
market), modernise one a level up (the developer £5 off, the inventor one level beyond), or close
one (its workers fired)."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.shared import replace
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import BuildFactory, CloseFactory, ModernizeFactory
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    add_once,
    check_price,
    factory_of,
    fire,
    good_index,
    has,
    level_now,
    prices,
    return_tile,
    set_factory,
    set_player,
    take_for_hire,
    turn_of,
    violation,
)
from ledger.games.water_frame.state import Factory, Row, State, Turn


def _developer(s: State, seat: int, g: int, use: bool) -> int:
    if not use:
        return 0
    t = turn_of(s)
    if not has(s.players[seat], "DEVELOPER"):
        raise violation("no_developer", "You do not own the developer.", "II.2.1")
    if g in t.developer_on:
        raise violation("developer_once", "The developer helps each factory once per action.", "II.2.1")
    return C.developer_discount


def build(s: State, seat: int, d: BuildFactory, out: Effects) -> State:
    g, t = good_index(d.good), turn_of(s)
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
    check_price(g, f, d.price, "II.2.1", s.players[seat].small_stock[g])
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
            built=add_once(t.built, g),
            affected=add_once(t.affected, g),
            developer_on=add_once(t.developer_on, g) if discount else t.developer_on,
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
    g, t = good_index(d.good), turn_of(s)
    f = factory_of(s, seat, g, "II.2.1")
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
    t = turn_of(s)
    return replace(
        s,
        turn=replace(
            t,
            main_costs=t.main_costs + cost + fee,
            affected=add_once(t.affected, g),
            developer_on=add_once(t.developer_on, g) if discount else t.developer_on,
        ),
    )


def close(s: State, seat: int, d: CloseFactory, out: Effects) -> State:
    g, t = good_index(d.good), turn_of(s)
    f = factory_of(s, seat, g, "II.2.1")
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


def options(s: State, seat: int, t: Turn, valid: Valid) -> list[Decision]:
    """The factory action's steps now: build, modernise (the developer, the inventor), close."""
    p = s.players[seat]
    options: list[Decision] = []
    for g in range(4):
        f = p.factories[g]
        dev = [False, True] if has(p, "DEVELOPER") and g not in t.developer_on else [False]
        if f is None:
            for level in range(1, level_now(s) + 1):
                if (g, level) in t.closed:
                    continue
                blank = Factory(level=level, price=C.price_min, rows=(Row(), Row(), Row(), Row()))
                for price in prices(g, blank, every=False):
                    for use in dev:
                        options.append(BuildFactory(good=GOODS[g], level=level, price=price, developer=use))  # type: ignore[arg-type]
        else:
            if f.level < min(4, level_now(s)):
                options.extend(ModernizeFactory(good=GOODS[g], developer=use) for use in dev)  # type: ignore[arg-type]
            elif f.level == level_now(s) < 4 and has(p, "INVENTOR"):
                options.extend(ModernizeFactory(good=GOODS[g], inventor=use) for use in ("return", "pay"))  # type: ignore[arg-type]
            if g not in t.built:
                options.append(CloseFactory(good=GOODS[g]))  # type: ignore[arg-type]
    return options

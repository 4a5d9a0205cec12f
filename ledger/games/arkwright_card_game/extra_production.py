"""Action 6 (expert; spec §3.1.6, §5.9, §5.11): extra production into the storehouses, a
storehouse taken from another factory wasting its goods."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import RESERVE
from ledger.games.arkwright_card_game.decisions import ProduceExtra, StoreGoods
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    RULE,
    C,
    Effects,
    capacity,
    costs,
    decay,
    discard_card,
    factory_goods,
    factory_of,
    good_index,
    has,
    in_action,
    opened,
    pay_costs,
    set_player,
    step_done,
    turn_of,
    violation,
)
from ledger.games.arkwright_card_game.state import Player, State, Storehouse
from ledger.games.shared import replace


def waste_loose(s: State, seat: int, out: Effects) -> State:
    t = turn_of(s)
    if t.loose:
        out.append(fx.GoodsWasted(seat=seat, good=GOODS[t.loose_good], count=t.loose))
    return replace(s, turn=replace(t, loose=0, loose_good=RESERVE))


def produce_extra(s: State, seat: int, d: ProduceExtra, out: Effects) -> State:
    t = in_action(s, "EXTRA_PRODUCTION")
    g = good_index(d.good)
    p = s.players[seat]
    f = factory_of(p, g, RULE["EXTRA_PRODUCTION"])
    if g in t.produced:
        raise violation("produced_twice", "Each factory produces once per action.", RULE["EXTRA_PRODUCTION"])
    if d.worker_cards > len(f.workers):
        raise violation(
            "no_worker_card", "The factory has fewer worker cards than that.", RULE["EXTRA_PRODUCTION"]
        )
    if d.extra_shift and not has(p, "EXTRA_SHIFT"):
        raise violation("no_extra_shift", "You hold no Extra Shift.", "Card 3 Extra Shift")
    s = waste_loose(s, seat, out)
    produced = factory_goods(g, f, d.worker_cards)
    if d.extra_shift:
        produced += C.extra_shift_goods
        s = discard_card(s, seat, "EXTRA_SHIFT", "extra_shift", out)
        s = replace(s, turn=replace(turn_of(s), discarded=(*turn_of(s).discarded, "EXTRA_SHIFT")))
    out.append(fx.GoodsProduced(seat=seat, good=d.good, count=produced, extra=True))
    wages, maintenance, fixed = costs(s, s.players[seat], g, d.worker_cards)
    total = wages + maintenance + fixed
    out.append(
        fx.ProductionCostsPaid(
            seat=seat, good=d.good, wages=wages, maintenance=maintenance, fixed=fixed, total=total
        )
    )
    s = pay_costs(s, seat, total, "production_costs", out)
    if s.options.extra_production_decay:  # A-09, other reading
        s = decay(s, seat, g, out)
    t = turn_of(s)
    if s.players[seat].eliminated:
        out.append(fx.GoodsWasted(seat=seat, good=d.good, count=produced))
        return replace(s, turn=replace(t, step="done"))
    return step_done(s, produced=(*t.produced, g), loose_good=g, loose=produced)


def storehouse_room(p: Player, st: Storehouse, g: int) -> int:
    """Room for goods of ``g``: a storehouse at that factory keeps its goods, any other is emptied."""
    return capacity(st) - (st.goods if st.good == g else 0)


def store(s: State, seat: int, g: int, d: StoreGoods, loose: int, rule: str, out: Effects) -> State:
    """Put ``d.count`` of ``loose`` goods of ``g`` into a storehouse beside factory ``g``; one taken
    from another factory loses its goods (§5.11, A-32)."""
    p = s.players[seat]
    st = next((x for x in p.storehouses if x.id == d.storehouse), None)
    if st is None:
        raise violation("no_storehouse", f"You have no storehouse {d.storehouse}.", rule)
    if d.count > loose:
        raise violation("not_enough_goods", f"Only {loose} goods are left to store.", rule)
    if d.count > storehouse_room(p, st, g):
        raise violation("storehouse_full", f"The storehouse holds at most {capacity(st)} goods.", rule)
    wasted = st.goods if st.good not in (g, RESERVE) else 0
    kept = st.goods if st.good == g else 0
    houses = tuple(
        Storehouse(id=x.id, good=g, goods=kept + d.count) if x.id == st.id else x for x in p.storehouses
    )
    s = set_player(s, replace(p, storehouses=houses))
    out.append(
        fx.GoodsStored(seat=seat, good=GOODS[g], storehouse=d.storehouse, count=d.count, wasted=wasted)
    )
    return s


def store_extra(s: State, seat: int, d: StoreGoods, out: Effects) -> State:
    t = in_action(s, "EXTRA_PRODUCTION")
    if not t.loose:
        raise violation(
            "nothing_to_store", "No produced goods wait for a storehouse.", RULE["EXTRA_PRODUCTION"]
        )
    s = store(s, seat, t.loose_good, d, t.loose, RULE["EXTRA_PRODUCTION"], out)
    return step_done(s, loose=t.loose - d.count)


def options(s: State, p: Player) -> list[Decision]:
    """The loose goods stored, or a factory's extra production."""
    out: list[Decision] = []
    t = s.turn
    if t is not None and t.loose:
        out += [
            StoreGoods(storehouse=st.id, count=n)  # type: ignore[arg-type]
            for st in p.storehouses
            for n in sorted({1, min(t.loose, storehouse_room(p, st, t.loose_good))})
            if n >= 1
        ]
    for g in opened(p):
        f = p.factories[g]
        assert f is not None
        for k in range(len(f.workers) + 1):
            out.append(ProduceExtra(good=GOODS[g], worker_cards=k))  # type: ignore[arg-type]
            if has(p, "EXTRA_SHIFT"):
                out.append(ProduceExtra(good=GOODS[g], worker_cards=k, extra_shift=True))  # type: ignore[arg-type]
    return out

"""The production phase (spec §5.8): every owner of a factory of the active good produces,
sells to the home market, stores or ships the rest, pays the production costs; then share
values rise and distribution decays. Players decide one after the other, clockwise from the
start player (A-25); their sales do not interact."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import SHIP
from ledger.games.arkwright_card_game.decisions import (
    BreakTieWithEntrepreneur,
    FinishProduction,
    SellGoods,
    ShipGoods,
    StoreGoods,
    UseExtraShift,
    UsePatron,
)
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    Effects,
    Valid,
    allowed_sales,
    card_type,
    costs,
    decay,
    discard_card,
    factory_goods,
    gain,
    held,
    move_share_value,
    pay_costs,
    set_held,
    set_player,
    stored_at,
    take_stored,
    track_allows,
    turn_order,
    values,
    violation,
)
from ledger.games.arkwright_card_game.extra_production import store, storehouse_room
from ledger.games.arkwright_card_game.shipping import check_ship, shipped
from ledger.games.arkwright_card_game.state import Phase, Player, Production, State
from ledger.games.shared import replace, set_at

RULE = "2 Production Phase"


def start(s: State) -> State:
    g = s.good
    n = s.players_count
    order = tuple(seat for seat in turn_order(s) if s.players[seat].factories[g] is not None)
    pr = Production(
        good=g,
        order=order,
        stage="produce",
        produced=(0,) * n,
        extra_shift=(False,) * n,
        patron=(False,) * n,
        sold=(0,) * n,
        leftover=(0,) * n,
        shipped=(0,) * n,
    )
    return replace(s, phase=Phase.PRODUCTION, production=pr)


def prod(s: State) -> Production:
    assert s.production is not None
    return s.production


def _set(s: State, **changes: object) -> State:
    return replace(s, production=replace(prod(s), **changes))


def current(s: State) -> int:
    pr = prod(s)
    return pr.order[pr.cursor]


def base_allowed(s: State, p: Player, g: int) -> int:
    """Appeal (the marker on the market board) minus demand, at most the appeal ([S] a. Sell)."""
    return allowed_sales(p.appeal[g] or 0, s.demand[g])


def allowed(s: State, seat: int) -> int:
    pr = prod(s)
    p = s.players[seat]
    base = base_allowed(s, p, pr.good)
    if not pr.patron[seat]:
        return base
    extra = base + C.patron_extra
    if s.options.patron_capped_by_appeal:  # A-39, other reading
        return min(extra, p.appeal[pr.good] or 0)
    return extra


def usable_patron(s: State, p: Player, g: int) -> str | None:
    """An unrotated Patron of the active good (A-06: only for a sale of at least one good)."""
    for h in p.cards:
        kind = card_type(h)
        if g in C.card_types[kind].goods and not h.rotated:
            return kind
    return None


def step(s: State, out: Effects) -> State:
    """Run the producers in order until one has a choice; then the share value and decay."""
    while True:
        pr = prod(s)
        if pr.cursor >= len(pr.order):
            return _share_value(s, out)
        seat = current(s)
        p = s.players[seat]
        if pr.stage == "produce":
            f = p.factories[pr.good]
            assert f is not None
            n = factory_goods(pr.good, f)
            out.append(fx.GoodsProduced(seat=seat, good=GOODS[pr.good], count=n, extra=False))
            s = _set(s, produced=set_at(pr.produced, seat, n), stage="sale")
            continue
        if pr.stage == "sale":
            opts = _sale_options(s, seat)
            if len(opts) > 1:
                return replace(s, awaiting=(seat,))
            s = sell(s, seat, SellGoods(from_storage=0), out)
            continue
        if pr.stage == "leftovers":
            if _leftover_options(s, seat):
                return replace(s, awaiting=(seat,))
            s = finish(s, seat, FinishProduction(), out)
            continue
        raise AssertionError(pr.stage)  # pragma: no cover


def _stage(s: State, seat: int, stage: str) -> Production:
    pr = prod(s)
    if pr.stage != stage or pr.cursor >= len(pr.order) or current(s) != seat:
        raise violation("production_order", f"This decision belongs to the {stage} step of production.", RULE)
    return pr


# --- the decisions of the production phase ------------------------------------------------


def decide(s: State, seat: int, d: Decision, out: Effects) -> State:
    handler = _DECIDE.get(type(d))
    if handler is None:
        raise violation(
            "wrong_decision", "Now the production phase needs your decision.", "2 Production Phase"
        )
    return replace(handler(s, seat, d, out), awaiting=())


def options(s: State, seat: int) -> list[Decision]:
    pr = prod(s)
    if pr.stage == "tie":
        return [BreakTieWithEntrepreneur(use=True), BreakTieWithEntrepreneur(use=False)]
    if pr.stage == "sale":
        return _sale_options(s, seat)
    return [*_leftover_options(s, seat), FinishProduction()]


def legal_options(s: State, seat: int, valid: Valid) -> tuple[Decision, ...]:
    return tuple(d for d in options(s, seat) if valid(s, seat, d))


def _sale_options(s: State, seat: int) -> list[Decision]:
    pr = prod(s)
    p = s.players[seat]
    g = pr.good
    out: list[Decision] = []
    if held(p, "EXTRA_SHIFT") is not None and not pr.extra_shift[seat]:
        out.append(UseExtraShift())
    patron = usable_patron(s, p, g)
    if patron is not None and not pr.patron[seat] and base_allowed(s, p, g) >= 1:
        out.append(UsePatron(card=patron))  # type: ignore[arg-type]
    room = max(0, allowed(s, seat) - min(pr.produced[seat], allowed(s, seat)))
    most = min(stored_at(p, g), room)
    out += [SellGoods(from_storage=k) for k in range(most + 1)]
    return out


def _leftover_options(s: State, seat: int) -> list[Decision]:
    pr = prod(s)
    p = s.players[seat]
    g = pr.good
    out: list[Decision] = []
    left = pr.leftover[seat]
    if left:
        for st in p.storehouses:
            room = storehouse_room(p, st, g)
            for n in sorted({1, min(left, room)}):
                if n >= 1:
                    out.append(StoreGoods(storehouse=st.id, count=n))  # type: ignore[arg-type]
    stored = stored_at(p, g)
    if p.ships and left + stored:
        cap = track_allows(p, SHIP)
        loads = {
            (min(left, cap), min(stored, cap - min(left, cap))),
            (min(left, cap), 0),
            (0, min(stored, cap)),
        }
        loads |= {(1, 0)} if left else set()
        customs = [False]
        h = held(p, "CUSTOMS_OFFICE")
        if h is not None and not h.rotated:
            customs.append(True)
        for a, b in sorted(loads):
            if a + b >= 1:
                out += [ShipGoods(from_production=a, from_storage=b, customs_office=c) for c in customs]
    return out


def use_extra_shift(s: State, seat: int, d: UseExtraShift, out: Effects) -> State:
    pr = _stage(s, seat, "sale")
    if held(s.players[seat], "EXTRA_SHIFT") is None:
        raise violation("no_extra_shift", "You hold no Extra Shift.", "Card 3 Extra Shift")
    s = discard_card(s, seat, "EXTRA_SHIFT", "extra_shift", out)
    n = pr.produced[seat] + C.extra_shift_goods
    out.append(fx.GoodsProduced(seat=seat, good=GOODS[pr.good], count=C.extra_shift_goods, extra=False))
    return _set(s, produced=set_at(pr.produced, seat, n), extra_shift=set_at(pr.extra_shift, seat, True))


def use_patron(s: State, seat: int, d: UsePatron, out: Effects) -> State:
    pr = _stage(s, seat, "sale")
    p = s.players[seat]
    h = held(p, d.card)
    if h is None or pr.good not in C.card_types[d.card].goods or h.rotated or pr.patron[seat]:
        raise violation(
            "no_patron", f"You hold no unrotated Patron of {GOODS[pr.good].lower()}.", "Card 7 Patron"
        )
    if base_allowed(s, p, pr.good) < 1:
        raise violation(
            "patron_no_sale", "The Patron raises a sale to the home market (A-06).", "Card 7 Patron"
        )
    s = set_player(s, set_held(p, replace(h, rotated=True)))
    out.append(fx.CardRotated(seat=seat, card=d.card, rotated=True, reason="patron"))
    return _set(s, patron=set_at(pr.patron, seat, True))


def sell(s: State, seat: int, d: SellGoods, out: Effects) -> State:
    """[S] You must sell all you can from production; you may add stored goods up to the limit."""
    pr = _stage(s, seat, "sale")
    g = pr.good
    p = s.players[seat]
    limit = allowed(s, seat)
    from_production = min(pr.produced[seat], limit)
    room = limit - from_production
    if d.from_storage > min(room, stored_at(p, g)):
        raise violation(
            "sale_limit",
            f"You may add at most {min(room, stored_at(p, g))} stored goods to this sale.",
            "a. Sell Goods to the Home Market",
        )
    if d.from_storage:
        s = set_player(s, take_stored(p, g, d.from_storage))
    price = values(p, g).price
    sold = from_production + d.from_storage
    income = sold * price
    out.append(
        fx.GoodsSold(
            seat=seat,
            good=GOODS[g],
            allowed=limit,
            from_production=from_production,
            from_storage=d.from_storage,
            price=price,
            income=income,
        )
    )
    s = gain(s, seat, income, "home_market", out)
    pr = prod(s)
    return _set(
        s,
        sold=set_at(pr.sold, seat, sold),
        leftover=set_at(pr.leftover, seat, pr.produced[seat] - from_production),
        stage="leftovers",
    )


def store_leftover(s: State, seat: int, d: StoreGoods, out: Effects) -> State:
    pr = _stage(s, seat, "leftovers")
    s = store(s, seat, pr.good, d, pr.leftover[seat], "b. Store or Ship Goods", out)
    return _set(s, leftover=set_at(pr.leftover, seat, pr.leftover[seat] - d.count))


def ship(s: State, seat: int, d: ShipGoods, out: Effects) -> State:
    pr = _stage(s, seat, "leftovers")
    g = pr.good
    p = s.players[seat]
    rule = "b. Store or Ship Goods"
    if d.from_production > pr.leftover[seat] or d.from_storage > stored_at(p, g):
        raise violation("not_enough_goods", "Ship only leftover goods of this factory.", rule)
    total = d.from_production + d.from_storage
    tokens = check_ship(s, p, total, d.customs_office, rule)
    if d.from_storage:
        s = set_player(s, take_stored(p, g, d.from_storage))
    s = shipped(s, seat, ((g, total),), d.customs_office, tokens, out)
    pr = prod(s)
    return _set(
        s,
        leftover=set_at(pr.leftover, seat, pr.leftover[seat] - d.from_production),
        shipped=set_at(pr.shipped, seat, pr.shipped[seat] + total),
    )


def finish(s: State, seat: int, d: FinishProduction, out: Effects) -> State:
    """The rest is wasted; wages, maintenance and fixed costs are paid ([S] c. Pay Production costs)."""
    pr = _stage(s, seat, "leftovers")
    g = pr.good
    if pr.leftover[seat]:
        out.append(fx.GoodsWasted(seat=seat, good=GOODS[g], count=pr.leftover[seat]))
    wages, maintenance, fixed = costs(s, s.players[seat], g)
    total = wages + maintenance + fixed
    out.append(
        fx.ProductionCostsPaid(
            seat=seat, good=GOODS[g], wages=wages, maintenance=maintenance, fixed=fixed, total=total
        )
    )
    s = pay_costs(s, seat, total, "production_costs", out)
    pr = prod(s)
    return _set(s, leftover=set_at(pr.leftover, seat, 0), cursor=pr.cursor + 1, stage="produce")


# --- share value and decay ----------------------------------------------------------------


def qualified(s: State) -> list[int]:
    """Producers still in the game who sold at least 2 goods at home (shipped goods never count)."""
    pr = prod(s)
    return [seat for seat in pr.order if not s.players[seat].eliminated and pr.sold[seat] >= C.gain_min_sold]


def top_appeal(s: State) -> list[int]:
    """Of the qualified players, those with the highest appeal (the 2-player neutral never counts, A-23)."""
    pr = prod(s)
    q = qualified(s)
    if not q:
        return []
    best = max(s.players[seat].appeal[pr.good] or 0 for seat in q)
    return [seat for seat in q if (s.players[seat].appeal[pr.good] or 0) == best]


def entrepreneur_in(s: State, seats: list[int]) -> int | None:
    for seat in seats:
        h = held(s.players[seat], "ENTREPRENEUR")
        if h is not None and not h.rotated:
            return seat
    return None


def _share_value(s: State, out: Effects) -> State:
    pr = prod(s)
    if pr.stage != "tie":
        for seat in qualified(s):
            s = move_share_value(s, seat, C.gain, "sold_goods", out)
        top = top_appeal(s)
        if len(top) == 1:
            s = move_share_value(s, top[0], C.gain_top, "highest_appeal", out)
        elif top and (holder := entrepreneur_in(s, top)) is not None:
            s = _set(s, stage="tie")
            return replace(s, awaiting=(holder,))
    return _decay_all(s, out)


def break_tie(s: State, seat: int, d: BreakTieWithEntrepreneur, out: Effects) -> State:
    pr = prod(s)
    if pr.stage != "tie" or entrepreneur_in(s, top_appeal(s)) != seat:
        raise violation(
            "no_tie", "No tie for the highest appeal waits for your Entrepreneur.", "Card 1 Entrepreneur"
        )
    if d.use:
        p = s.players[seat]
        h = held(p, "ENTREPRENEUR")
        assert h is not None
        s = set_player(s, set_held(p, replace(h, rotated=True)))
        out.append(fx.CardRotated(seat=seat, card="ENTREPRENEUR", rotated=True, reason="tie_break"))
        s = move_share_value(s, seat, C.gain_top, "highest_appeal", out)
    return _decay_all(s, out)


def _decay_all(s: State, out: Effects) -> State:
    pr = prod(s)
    for seat in pr.order:
        if not s.players[seat].eliminated:
            s = decay(s, seat, pr.good, out)
    return replace(s, production=None, phase=Phase.END_OF_ROUND, awaiting=())


_DECIDE: dict[type[Decision], Callable[[State, int, Any, Effects], State]] = {
    UseExtraShift: use_extra_shift,
    UsePatron: use_patron,
    SellGoods: sell,
    StoreGoods: store_leftover,
    ShipGoods: ship,
    FinishProduction: finish,
    BreakTieWithEntrepreneur: break_tie,
}

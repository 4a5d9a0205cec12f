"""Shipping (spec §5.8, §5.10): a ship's capacity and what a shipment earns, shared by the
production phase and action 7 (expert), early shipping from the storehouses."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import RESERVE, SHIP
from ledger.games.arkwright_card_game.decisions import ShipStoredGoods
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    RULE,
    C,
    Effects,
    gain,
    has,
    held,
    in_action,
    set_held,
    set_player,
    step_done,
    track_allows,
    values,
    violation,
)
from ledger.games.arkwright_card_game.state import Player, State, Storehouse
from ledger.games.shared import replace


def check_ship(s: State, p: Player, goods: int, customs: bool, rule: str) -> int:
    """One ship with ``goods``: returns the shipping tokens it adds."""
    if p.ships < 1:
        raise violation("no_ship", "You have no available ship: regain them with the stock exchange.", rule)
    if not 1 <= goods <= track_allows(p, SHIP):
        raise violation(
            "ship_capacity", f"Each of your ships carries 1 to {track_allows(p, SHIP)} goods.", rule
        )
    if customs:
        h = held(p, "CUSTOMS_OFFICE")
        if h is None or h.rotated:
            raise violation(
                "no_customs_office", "You hold no unrotated Customs Office.", "Card 2 Customs Office"
            )
    tokens = 1 - (C.customs_tokens if customs else 0)
    tokens = max(0, tokens)
    if p.shipping_tokens + tokens > C.shipping_tokens:
        raise violation(
            "shipping_tokens", f"Your board has room for {C.shipping_tokens} shipping tokens.", rule
        )
    if s.options.ship_limit_counts_ships and p.ships_used + 1 > C.ships_in_game:
        raise violation(
            "ships_in_game", f"You can use up to {C.ships_in_game} ships in the game (A-24).", rule
        )
    return tokens


def shipped(
    s: State, seat: int, goods: tuple[tuple[int, int], ...], customs: bool, tokens: int, out: Effects
) -> State:
    """Income at each factory's ship price, the Contract bonus, a shipping token, one ship fewer."""
    p = s.players[seat]
    income = 0
    for g, n in goods:
        f = p.factories[g]
        assert f is not None
        income += n * C.side(g, f.side).ship_price
    count = sum(n for _, n in goods)
    bonus = count * C.contract_bonus if has(p, "CONTRACT") else 0
    if customs:
        h = held(p, "CUSTOMS_OFFICE")
        assert h is not None
        p = set_held(p, replace(h, rotated=True))
        out.append(fx.CardRotated(seat=seat, card="CUSTOMS_OFFICE", rotated=True, reason="ship"))
    p = replace(p, ships=p.ships - 1, shipping_tokens=p.shipping_tokens + tokens, ships_used=p.ships_used + 1)
    s = set_player(s, p)
    out.append(
        fx.GoodsShipped(
            seat=seat,
            goods=tuple((GOODS[g], n) for g, n in goods),
            income=income,
            contract=bonus,
            tokens=tokens,
        )
    )
    out.append(fx.ShipsChanged(seat=seat, ships=p.ships, reason="shipped"))
    s = gain(s, seat, income, "shipping", out)
    return gain(s, seat, bonus, "contract", out)


def ship_stored(s: State, seat: int, d: ShipStoredGoods, out: Effects) -> State:
    in_action(s, "EARLY_SHIPPING")
    rule = RULE["EARLY_SHIPPING"]
    p = s.players[seat]
    ids = [x for x, _ in d.loads]
    if len(set(ids)) != len(ids):
        raise violation("storehouse_twice", "Name each storehouse once per ship.", rule)
    goods: list[tuple[int, int]] = []
    for st_id, n in d.loads:
        st = next((x for x in p.storehouses if x.id == st_id), None)
        if st is None or st.good == RESERVE:
            raise violation("empty_storehouse", f"Storehouse {st_id} holds no goods.", rule)
        if not 1 <= n <= st.goods:
            raise violation("not_enough_goods", f"Storehouse {st_id} holds {st.goods} goods.", rule)
        goods.append((st.good, n))
    total = sum(n for _, n in goods)
    tokens = check_ship(s, p, total, d.customs_office, rule)
    for st_id, n in d.loads:
        st = next(x for x in p.storehouses if x.id == st_id)
        p = replace(
            p,
            storehouses=tuple(
                (Storehouse(id=x.id) if x.goods == n else replace(x, goods=x.goods - n))
                if x.id == st_id
                else x
                for x in p.storehouses
            ),
        )
    s = set_player(s, p)
    merged: dict[int, int] = {}
    for g, n in goods:
        merged[g] = merged.get(g, 0) + n
    s = shipped(s, seat, tuple(sorted(merged.items())), d.customs_office, tokens, out)
    return step_done(s)


def ship_load_options(s: State, p: Player) -> list[Decision]:
    """Representative ship loads: each storehouse alone (1 or as much as fits), and a full ship."""
    cap = track_allows(p, SHIP)
    full = [x for x in p.storehouses if x.good != RESERVE]
    out: list[Decision] = []
    customs = [False, True] if (h := held(p, "CUSTOMS_OFFICE")) is not None and not h.rotated else [False]
    loads: list[tuple[tuple[str, int], ...]] = []
    for st in full:
        for n in sorted({1, min(cap, st.goods)}):
            loads.append(((st.id, n),))
    left = cap
    greedy: list[tuple[str, int]] = []
    for st in sorted(full, key=lambda x: -values(p, x.good).ship_price):
        n = min(left, st.goods)
        if n:
            greedy.append((st.id, n))
            left -= n
    if len(greedy) > 1:
        loads.append(tuple(greedy))
    for load in loads:
        for c in customs:
            out.append(ShipStoredGoods(loads=load, customs_office=c))  # type: ignore[arg-type]
    return out

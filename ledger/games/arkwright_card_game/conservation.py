"""The card game's conservation laws: every card in exactly one place, money between the bank
and the players, and every factory, card and track within its limits."""

from __future__ import annotations

from ledger.games.arkwright_card_game.components import DEV_CARDS, RESERVE
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    card_range,
    card_type,
    half_machine_cards,
    held,
    quality_cap,
    total_at,
    track_allows,
)
from ledger.games.arkwright_card_game.state import Phase, Player, State


def cards_in_play(s: State) -> list[str]:
    if s.options.random_dev_supply:
        return sorted(c.id for c in C.dev_cards)
    return sorted(c.split("/")[0] for c in C.base_supply(s.players_count))


def conservation(s: State) -> list[str]:
    problems: list[str] = []
    if sum(p.money for p in s.players) + s.bank != 0:
        problems.append("money: players' money plus the bank's balance is constant")
    instances = [*s.supply, *s.box, *s.unseen, *(h.card for p in s.players for h in p.cards)]
    if sorted(c.split("/")[0] for c in instances) != cards_in_play(s):
        problems.append(
            "development cards: each card in play once, in the supply, the box or a player's hands"
        )
    if not C.demand_min <= min(s.demand) <= max(s.demand) <= C.demand_max:
        problems.append("demand markers on their tracks")
    if not 0 <= s.wage < len(C.wage_values):
        problems.append("wages marker on its track")
    for p in s.players:
        problems += [f"seat {p.seat}: {x}" for x in _player_laws(s, p)]
    return problems


def _player_laws(s: State, p: Player) -> list[str]:
    out: list[str] = []
    kinds = [card_type(h) for h in p.cards]
    if p.money < 0:
        out.append("money never negative")
    if len(set(kinds)) != len(kinds):
        out.append("no two development cards of the same type")
    if len(kinds) > track_allows(p, DEV_CARDS):
        out.append("development cards within the limit")
    expect_q = [f"Q{i + 1}" for i in range(C.quality_cards)] + (["ENGINEER"] if "ENGINEER" in kinds else [])
    expect_d = [f"D{i + 1}" for i in range(C.distribution_cards)] + (["PATENT"] if "PATENT" in kinds else [])
    expect_s = [f"S{i + 1}" for i in range(C.small_storehouses)] + (
        ["BIG"] if "BIG_STOREHOUSE" in kinds else []
    )
    if sorted(c.id for c in p.quality) != sorted(expect_q) or sorted(c.id for c in p.distribution) != sorted(
        expect_d
    ):
        out.append("quality and distribution cards: the player's own, plus the Engineer and Patent held")
    if sorted(x.id for x in p.storehouses) != sorted(expect_s):
        out.append("storehouses: two small ones, plus the Big Storehouse held")
    if "ENGINEER" in kinds and not p.engineer_token:
        out.append("the Engineer flips the engineer token")
    opened = [g for g in range(len(GOODS)) if p.factories[g] is not None]
    if len(opened) > min(C.factory_tokens, C.factories_per_player):
        out.append("factory tokens: one per open factory")
    if not p.eliminated:
        if [g for g in range(len(GOODS)) if p.appeal[g] is not None] != opened:
            out.append("appeal markers: one per open factory")
        if any(a is not None and not C.appeal_min <= a <= C.appeal_max for a in p.appeal):
            out.append("appeal markers on the appeal tracks")
    for c in (*p.quality, *p.distribution):
        if c.good == RESERVE:
            if c.value:
                out.append(f"{c.id} in reserve shows no value")
        else:
            lo, hi = card_range(s, c.id)
            if p.factories[c.good] is None or not lo <= c.value <= hi:
                out.append(f"{c.id} at an open factory within its values")
    for g in opened:
        if total_at(p.quality, g) > quality_cap(p) or total_at(p.distribution, g) > C.distribution_cap:
            out.append(f"{GOODS[g]}: quality and distribution within their caps")
        f = p.factories[g]
        assert f is not None
        if len(f.workers) > C.workers_per_factory or [w.position for w in f.workers] != list(
            range(1, len(f.workers) + 1)
        ):
            out.append(f"{GOODS[g]}: worker cards in position order, at most two")
        if any(not 0 <= w.machines <= C.worker_cards[w.position].workers for w in f.workers):
            out.append(f"{GOODS[g]}: machines only replace the card's workers")
        if not 1 <= f.side <= C.sides_count(g):
            out.append(f"{GOODS[g]}: a printed factory side")
    if len(half_machine_cards(p)) > C.machine_tokens:
        out.append("one machine token")
    for st in p.storehouses:
        cap = C.big_capacity if st.id == "BIG" else C.small_capacity
        if st.good == RESERVE and st.goods:
            out.append(f"storehouse {st.id} in reserve is empty")
        if st.good != RESERVE and (not 1 <= st.goods <= cap or p.factories[st.good] is None):
            out.append(f"storehouse {st.id}: goods within its capacity, beside an open factory")
    if not 0 <= p.loans <= C.loan_tokens or not 0 <= p.shipping_tokens <= C.shipping_tokens:
        out.append("loan and shipping tokens: 9 spots each")
    if not 0 <= p.ships <= C.ships_max:
        out.append("ships: the shipping card shows 2, 1, or lies in reserve")
    if any(not 0 <= x <= C.levels_max for x in p.levels):
        out.append("development markers on their tracks")
    if not C.share_min <= p.share_value <= C.share_max or p.shares < 0:
        out.append("share value on its track, shares never negative")
    foreman = held(p, "FOREMAN")
    if foreman is not None and p.factories[foreman.good] is None and s.phase != Phase.START_FOREMAN:
        out.append("the Foreman lies beside an open factory")
    return out

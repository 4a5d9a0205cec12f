"""Action 4 (spec §3.1.4): add quality or distribution, moving quality or distribution cards
within the factories' caps and the allowance of the player-board track."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import DISTRIBUTION, QUALITY, RESERVE
from ledger.games.arkwright_card_game.decisions import SetDistributionCard, SetQualityCard
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    RULE,
    C,
    Effects,
    card_range,
    factory_of,
    good_index,
    in_action,
    opened,
    quality_cap,
    set_card,
    set_player,
    step_done,
    total_at,
    totals,
    violation,
)
from ledger.games.arkwright_card_game.state import Card, Player, State, Turn
from ledger.games.shared import replace


def set_quality(s: State, seat: int, d: SetQualityCard, out: Effects) -> State:
    t = in_action(s, "QUALITY")
    p = s.players[seat]
    card = next((c for c in p.quality if c.id == d.card), None)
    if card is None:
        raise violation("no_such_card", f"You have no quality card {d.card}.", RULE["QUALITY"])
    g = RESERVE if d.good is None else good_index(d.good)
    appeal = d.mode == "APPEAL"
    if g == RESERVE:
        new = replace(card, good=RESERVE, value=0, appeal=True)
    else:
        factory_of(p, g, RULE["QUALITY"])
        lo, hi = card_range(s, d.card)
        if not lo <= d.value <= hi:
            raise violation("card_value", f"The {d.card} card shows {lo} to {hi}.", RULE["QUALITY"])
        new = replace(card, good=g, value=d.value, appeal=appeal)
    if (new.good, new.value) == (card.good, card.value):
        raise violation(
            "nothing_changes",
            "The card must be added, moved or change its value; sides alone change in step b (A-15).",
            RULE["QUALITY"],
        )
    cards = set_card(p.quality, new)
    if g != RESERVE and total_at(cards, g) > quality_cap(p):
        raise violation(
            "quality_cap", f"The quality of a factory is at most {quality_cap(p)}.", RULE["QUALITY"]
        )
    _allowance(t, cards, C.track_value(QUALITY, p.levels[QUALITY]), "quality")
    s = set_player(s, replace(p, quality=cards))
    out.append(
        fx.QualityCardSet(
            seat=seat,
            card=d.card,
            good=None if g == RESERVE else GOODS[g],
            value=new.value,
            mode="APPEAL" if new.appeal else "PRICE",
        )
    )
    return step_done(s)


def _allowance(t: Turn, cards: tuple[Card, ...], allowed: int, what: str) -> None:
    """Added = the increases of the factories' totals since the action began; decreases are lost
    and never offset increases (Example 4)."""
    after = totals(cards)
    added = sum(max(0, a - b) for a, b in zip(after, t.start_totals, strict=True))
    if added > allowed:
        raise violation(
            f"{what}_allowance",
            f"Your development allows adding {allowed} {what} per action; this would add {added}.",
            RULE["QUALITY"],
        )


def set_distribution(s: State, seat: int, d: SetDistributionCard, out: Effects) -> State:
    t = in_action(s, "DISTRIBUTION")
    p = s.players[seat]
    card = next((c for c in p.distribution if c.id == d.card), None)
    if card is None:
        raise violation("no_such_card", f"You have no distribution card {d.card}.", RULE["DISTRIBUTION"])
    g = RESERVE if d.good is None else good_index(d.good)
    if g == RESERVE:
        new = replace(card, good=RESERVE, value=0)
    else:
        factory_of(p, g, RULE["DISTRIBUTION"])
        lo, hi = card_range(s, d.card)
        if not lo <= d.value <= hi:
            raise violation("card_value", f"The {d.card} card shows {lo} to {hi}.", RULE["DISTRIBUTION"])
        new = replace(card, good=g, value=d.value)
    if (new.good, new.value) == (card.good, card.value):
        raise violation(
            "nothing_changes", "The card must be added, moved or change its value.", RULE["DISTRIBUTION"]
        )
    cards = set_card(p.distribution, new)
    if g != RESERVE and total_at(cards, g) > C.distribution_cap:
        raise violation(
            "distribution_cap",
            f"The distribution of a factory is at most {C.distribution_cap}.",
            RULE["DISTRIBUTION"],
        )
    _allowance(t, cards, C.track_value(DISTRIBUTION, p.levels[DISTRIBUTION]), "distribution")
    s = set_player(s, replace(p, distribution=cards))
    out.append(
        fx.DistributionCardSet(
            seat=seat, card=d.card, good=None if g == RESERVE else GOODS[g], value=new.value
        )
    )
    return step_done(s)


def card_options(s: State, p: Player, opened: list[int], *, quality: bool) -> list[Decision]:
    """Moves of a quality or distribution card that keep the factory caps and the allowance."""
    cards = p.quality if quality else p.distribution
    now = totals(cards)
    t = s.turn
    start = t.start_totals if t is not None and t.step == "action" and t.start_totals else now
    track = QUALITY if quality else DISTRIBUTION
    allowed = C.track_value(track, p.levels[track])
    cap = quality_cap(p) if quality else C.distribution_cap
    out: list[Decision] = []
    for c in cards:
        if c.good != RESERVE:
            out.append(
                SetQualityCard(card=c.id, good=None)  # type: ignore[arg-type]
                if quality
                else SetDistributionCard(card=c.id, good=None)  # type: ignore[arg-type]
            )
        lo, hi = card_range(s, c.id)
        for g in opened:
            for v in range(lo, hi + 1):
                after = list(now)
                if c.good != RESERVE:
                    after[c.good] -= c.value
                after[g] += v
                if after[g] > cap or sum(max(0, a - b) for a, b in zip(after, start, strict=True)) > allowed:
                    continue
                if quality:
                    for mode in ("APPEAL", "PRICE"):
                        out.append(SetQualityCard(card=c.id, good=GOODS[g], value=v, mode=mode))  # type: ignore[arg-type]
                else:
                    out.append(SetDistributionCard(card=c.id, good=GOODS[g], value=v))  # type: ignore[arg-type]
    return out


def quality_options(s: State, p: Player) -> list[Decision]:
    return card_options(s, p, opened(p), quality=True)


def distribution_options(s: State, p: Player) -> list[Decision]:
    return card_options(s, p, opened(p), quality=False)

"""Action 4 (spec §3.1.4): add quality or distribution, moving quality or distribution cards
within the factories' caps and the allowance of the player-board track."""

from __future__ import annotations

from dataclasses import dataclass

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
    track_allows,
    violation,
)
from ledger.games.arkwright_card_game.state import Card, Player, State, Turn
from ledger.games.shared import replace


@dataclass(frozen=True)
class _Kind:
    """Adding quality or adding distribution: the same step with its own action, track and words."""

    action: str  # the turn's action, whose rule a refusal cites
    track: int  # the development track that sets the allowance
    word: str  # "quality" or "distribution" in the refusals
    unchanged: str  # why a card that would stay as it is is refused


_QUALITY = _Kind(
    "QUALITY",
    QUALITY,
    "quality",
    "The card must be added, moved or change its value; sides alone change in step b (A-15).",
)
_DISTRIBUTION = _Kind(
    "DISTRIBUTION", DISTRIBUTION, "distribution", "The card must be added, moved or change its value."
)


def _moved(
    s: State,
    p: Player,
    kind: _Kind,
    cards: tuple[Card, ...],
    cap: int,
    d: SetQualityCard | SetDistributionCard,
    appeal: bool | None,
) -> tuple[Card, tuple[Card, ...]]:
    """The card ``d`` moves (back to the reserve, or to an open factory with a value its range
    shows) and the cards afterwards, within the factory's ``cap`` and the track's allowance;
    ``appeal`` is the side it shows at a factory (None: as it was)."""
    t = in_action(s, kind.action)
    rule = RULE[kind.action]
    card = next((c for c in cards if c.id == d.card), None)
    if card is None:
        raise violation("no_such_card", f"You have no {kind.word} card {d.card}.", rule)
    g = RESERVE if d.good is None else good_index(d.good)
    if g == RESERVE:
        new = replace(card, good=RESERVE, value=0, appeal=card.appeal if appeal is None else True)
    else:
        factory_of(p, g, rule)
        lo, hi = card_range(s, d.card)
        if not lo <= d.value <= hi:
            raise violation("card_value", f"The {d.card} card shows {lo} to {hi}.", rule)
        new = replace(card, good=g, value=d.value, appeal=card.appeal if appeal is None else appeal)
    if (new.good, new.value) == (card.good, card.value):
        raise violation("nothing_changes", kind.unchanged, rule)
    after = set_card(cards, new)
    if g != RESERVE and total_at(after, g) > cap:
        raise violation(f"{kind.word}_cap", f"The {kind.word} of a factory is at most {cap}.", rule)
    _allowance(t, after, track_allows(p, kind.track), kind.word)
    return new, after


def _good(card: Card) -> str | None:
    return None if card.good == RESERVE else GOODS[card.good]


def set_quality(s: State, seat: int, d: SetQualityCard, out: Effects) -> State:
    p = s.players[seat]
    new, cards = _moved(s, p, _QUALITY, p.quality, quality_cap(p), d, appeal=d.mode == "APPEAL")
    s = set_player(s, replace(p, quality=cards))
    mode = "APPEAL" if new.appeal else "PRICE"
    out.append(fx.QualityCardSet(seat=seat, card=d.card, good=_good(new), value=new.value, mode=mode))
    return step_done(s)


def set_distribution(s: State, seat: int, d: SetDistributionCard, out: Effects) -> State:
    p = s.players[seat]
    new, cards = _moved(s, p, _DISTRIBUTION, p.distribution, C.distribution_cap, d, appeal=None)
    s = set_player(s, replace(p, distribution=cards))
    out.append(fx.DistributionCardSet(seat=seat, card=d.card, good=_good(new), value=new.value))
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


def card_options(s: State, p: Player, opened: list[int], *, quality: bool) -> list[Decision]:
    """Moves of a quality or distribution card that keep the factory caps and the allowance."""
    cards = p.quality if quality else p.distribution
    now = totals(cards)
    t = s.turn
    start = t.start_totals if t is not None and t.step == "action" and t.start_totals else now
    track = QUALITY if quality else DISTRIBUTION
    allowance = track_allows(p, track)
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
                if (
                    after[g] > cap
                    or sum(max(0, a - b) for a, b in zip(after, start, strict=True)) > allowance
                ):
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

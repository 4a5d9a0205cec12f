"""Step c of a turn (spec §3.3) and the starting development (ACG-D-04): a development on the
player board, a development card from the supply, or a card's alternative (Broker, Inventor);
discarding to make room, and the Engineer's replacement (ACG-D-14)."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import DEV_CARDS, RESERVE, TRACKS
from ledger.games.arkwright_card_game.decisions import (
    DiscardDevelopmentCard,
    FinishReplacement,
    PlaceReplacementQuality,
    SkipDevelopment,
    TakeDevelopment,
    TakeDevelopmentCard,
    UseBroker,
    UseInventor,
)
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    Effects,
    buy_shares,
    can_hold_shares,
    card_range,
    card_type,
    discard_card,
    good_index,
    has,
    lifted,
    quality_cap,
    set_card,
    set_player,
    total_at,
    track_allows,
    violation,
)
from ledger.games.arkwright_card_game.state import Card, Held, Player, State, Storehouse
from ledger.games.shared import replace, set_at

RULE = "Step c Take One Development"


def restricted(s: State, p: Player, track: int) -> bool:
    """Expert: the next level of the track needs a later decade (setup step 3)."""
    if not s.options.decade_restrictions or lifted(p, track):
        return False
    return s.decade < C.track_min_decade[track][p.levels[track] + 1]


def take_track(
    s: State, seat: int, track_name: str, out: Effects, *, reason: str, ignore_decade: bool
) -> State:
    track = TRACKS.index(track_name)
    p = s.players[seat]
    if p.levels[track] >= C.levels_max:
        raise violation("track_complete", f"Your {track_name.lower()} development is complete.", RULE)
    if not ignore_decade and restricted(s, p, track):
        need = C.decades[C.track_min_decade[track][p.levels[track] + 1] - 1]
        raise violation(
            "decade_restriction",
            f"The next {track_name.lower()} level needs decade {need} (expert decade restriction).",
            "Expert setup 3",
        )
    p = replace(p, levels=set_at(p.levels, track, p.levels[track] + 1))
    out.append(fx.DevelopmentTaken(seat=seat, track=track_name, level=p.levels[track], reason=reason))
    return set_player(s, p)


def supply_instance(s: State, kind: str) -> str | None:
    return next((c for c in s.supply if C.card_type(c) == kind), None)


def take_card(
    s: State, seat: int, d: TakeDevelopmentCard, discarded: tuple[str, ...], out: Effects, rule: str = RULE
) -> State:
    p = s.players[seat]
    instance = supply_instance(s, d.card)
    if instance is None:
        raise violation("not_in_supply", f"No {d.card.title()} lies in the general supply.", rule)
    if len(p.cards) >= track_allows(p, DEV_CARDS):
        raise violation(
            "card_limit",
            f"Your development allows {track_allows(p, DEV_CARDS)} development cards: discard one first.",
            "Development cards",
        )
    if has(p, d.card):
        raise violation(
            "same_type", "You can never possess 2 development cards of the same type.", "Development cards"
        )
    if d.card in discarded:
        raise violation(
            "regained_same_turn",
            "A discarded card may be regained, but not during the same turn.",
            "Development cards",
        )
    good = RESERVE
    if d.card == "FOREMAN":
        if d.foreman_good is None or p.factories[good_index(d.foreman_good)] is None:
            raise violation(
                "foreman_place",
                "The Foreman is placed at once beside one of your factories.",
                "Card 5 Foreman",
            )
        good = good_index(d.foreman_good)
    elif d.foreman_good is not None:
        raise violation("not_a_foreman", "Only the Foreman is placed beside a factory.", rule)
    return acquire(s, seat, instance, good, out)


def acquire(s: State, seat: int, instance: str, good: int, out: Effects) -> State:
    """A card from the supply: the Engineer, Patent and Big Storehouse add a component to the
    reserve; the Engineer flips the engineer token for good (§5.12, A-16)."""
    kind = C.card_type(instance)
    p = s.players[seat]
    p = replace(p, cards=(*p.cards, Held(card=instance, good=good)))
    if kind == "ENGINEER":
        p = replace(p, quality=(*p.quality, Card(id="ENGINEER")), engineer_token=True)
    elif kind == "PATENT":
        p = replace(p, distribution=(*p.distribution, Card(id="PATENT")))
    elif kind == "BIG_STOREHOUSE":
        p = replace(p, storehouses=(*p.storehouses, Storehouse(id="BIG")))
    supply = list(s.supply)
    supply.remove(instance)
    s = replace(set_player(s, p), supply=tuple(supply))
    out.append(
        fx.DevelopmentCardTaken(
            seat=seat, card=kind, instance=instance, good=None if good == RESERVE else GOODS[good]
        )
    )
    return s


def _turn_step_c(s: State) -> None:
    t = s.turn
    if t is None or t.step != "c":
        raise violation("not_step_c", "Developments are taken in step c.", RULE)


def end_turn(s: State) -> State:
    return replace(s, turn=replace(s.turn, step="done") if s.turn is not None else None)


def take_development(s: State, seat: int, d: TakeDevelopment, out: Effects) -> State:
    _turn_step_c(s)
    s = take_track(s, seat, d.track, out, reason="development", ignore_decade=False)
    return end_turn(s)


def take_development_card(s: State, seat: int, d: TakeDevelopmentCard, out: Effects) -> State:
    _turn_step_c(s)
    assert s.turn is not None
    s = take_card(s, seat, d, s.turn.discarded, out)
    return end_turn(s)


def discard(s: State, seat: int, d: DiscardDevelopmentCard, out: Effects) -> State:
    """Step c: return a card to the supply to stay within the limit; an Engineer leaving a factory
    may be replaced by reserve quality cards up to its value (ACG-D-14)."""
    _turn_step_c(s)
    t = s.turn
    assert t is not None
    p = s.players[seat]
    if not has(p, d.card):
        raise violation("not_held", f"You hold no {d.card.title()}.", "Development cards")
    if len(p.cards) < track_allows(p, DEV_CARDS):
        raise violation(
            "discard_without_need",
            "Discard a card only to take a new one within your limit.",
            "Development cards",
        )
    engineer = next((c for c in p.quality if c.id == "ENGINEER"), None)
    s = discard_card(s, seat, d.card, "discarded", out)
    t = replace(t, discarded=(*t.discarded, d.card))
    if d.card == "ENGINEER" and engineer is not None and engineer.good != RESERVE and engineer.value > 0:
        t = replace(t, step="engineer", engineer_good=engineer.good, engineer_budget=engineer.value)
        s = replace(s, turn=t)
        if not replacement_options(s, seat):
            t = replace(t, step="c", engineer_good=RESERVE, engineer_budget=0)
    return replace(s, turn=t)


def use_broker(s: State, seat: int, d: UseBroker, out: Effects) -> State:
    _turn_step_c(s)
    p = s.players[seat]
    if not has(p, "BROKER"):
        raise violation("no_broker", "You hold no Broker.", "Card 6 Broker")
    if d.count > C.broker_shares:
        raise violation("broker_shares", f"The Broker buys up to {C.broker_shares} shares.", "Card 6 Broker")
    price = C.half(p.share_value)
    if d.count * price > p.money:
        raise violation("cannot_afford", "You may not buy more shares than you can afford.", "Card 6 Broker")
    if not can_hold_shares(p, d.count):
        raise violation("share_track_full", "The share track holds no more.", "Card 6 Broker")
    s = discard_card(s, seat, "BROKER", "broker", out)
    s = buy_shares(s, seat, d.count, price, "broker", out)
    return end_turn(s)


def inventor_expert_allowed(s: State) -> bool:
    """A-41: with the decade-restriction variant (or the switch that allows it in any game)."""
    return s.options.decade_restrictions or s.options.inventor_expert_anywhere


def use_inventor(s: State, seat: int, d: UseInventor, out: Effects) -> State:
    _turn_step_c(s)
    p = s.players[seat]
    if not has(p, "INVENTOR"):
        raise violation("no_inventor", "You hold no Inventor.", "Card 8 Inventor")
    if not inventor_expert_allowed(s):
        raise violation(
            "inventor_expert", "Two developments with the Inventor is an expert use.", "Card 8 Inventor"
        )
    if d.tracks[0] == d.tracks[1]:
        raise violation("same_track", "The Inventor takes 2 different developments.", "Card 8 Inventor")
    for name in d.tracks:
        track = TRACKS.index(name)
        if p.levels[track] >= C.levels_max:
            raise violation(
                "track_complete", f"Your {name.lower()} development is complete.", "Card 8 Inventor"
            )
    s = discard_card(s, seat, "INVENTOR", "inventor", out)
    for name in d.tracks:
        s = take_track(s, seat, name, out, reason="inventor", ignore_decade=True)
    return end_turn(s)


def skip(s: State, seat: int, d: SkipDevelopment, out: Effects) -> State:
    _turn_step_c(s)
    return end_turn(s)


# --- the Engineer's replacement (ACG-D-14) -------------------------------------------------------


def place_replacement(s: State, seat: int, d: PlaceReplacementQuality, out: Effects) -> State:
    t = s.turn
    if t is None or t.step != "engineer":
        raise violation("no_replacement", "No Engineer is being replaced.", "Card 12 Engineer")
    p = s.players[seat]
    card = next((c for c in p.quality if c.id == d.card), None)
    if card is None or card.good != RESERVE:
        raise violation(
            "not_in_reserve", f"Quality card {d.card} is not in your reserve.", "Card 12 Engineer"
        )
    lo, hi = card_range(s, d.card)
    if not lo <= d.value <= hi:
        raise violation("card_value", f"The {d.card} card shows {lo} to {hi}.", "Card 12 Engineer")
    if d.value > t.engineer_budget:
        raise violation(
            "replacement_value",
            f"Replace the Engineer up to its value: {t.engineer_budget} left.",
            "Card 12 Engineer",
        )
    g = t.engineer_good
    cards = set_card(p.quality, replace(card, good=g, value=d.value, appeal=d.mode == "APPEAL"))
    if total_at(cards, g) > quality_cap(p):
        raise violation(
            "quality_cap", f"The quality of a factory is at most {quality_cap(p)}.", "Card 12 Engineer"
        )
    s = set_player(s, replace(p, quality=cards))
    out.append(fx.QualityCardSet(seat=seat, card=d.card, good=GOODS[g], value=d.value, mode=d.mode))
    t = replace(t, engineer_budget=t.engineer_budget - d.value)
    s = replace(s, turn=t)
    if not replacement_options(s, seat):
        s = replace(s, turn=replace(t, step="c", engineer_good=RESERVE, engineer_budget=0))
    return s


def finish_replacement(s: State, seat: int, d: FinishReplacement, out: Effects) -> State:
    t = s.turn
    if t is None or t.step != "engineer":
        raise violation("no_replacement", "No Engineer is being replaced.", "Card 12 Engineer")
    return replace(s, turn=replace(t, step="c", engineer_good=RESERVE, engineer_budget=0))


def replacement_options(s: State, seat: int) -> list[Decision]:
    t = s.turn
    assert t is not None
    p = s.players[seat]
    out: list[Decision] = []
    room = quality_cap(p) - total_at(p.quality, t.engineer_good)
    for c in p.quality:
        if c.good != RESERVE:
            continue
        lo, hi = card_range(s, c.id)
        for v in range(lo, min(hi, t.engineer_budget, room) + 1):
            for mode in ("APPEAL", "PRICE"):
                out.append(PlaceReplacementQuality(card=c.id, value=v, mode=mode))  # type: ignore[arg-type]
    return out


# --- candidates ---------------------------------------------------------------------------------


def options(s: State, seat: int, *, start: bool) -> list[Decision]:
    """Candidate developments (legal_decisions keeps those the rules accept)."""
    p = s.players[seat]
    out: list[Decision] = [TakeDevelopment(track=t) for t in TRACKS]  # type: ignore[arg-type]
    opened = [GOODS[g] for g in range(len(GOODS)) if p.factories[g] is not None]
    for kind in sorted({C.card_type(c) for c in s.supply}):
        if kind == "FOREMAN":
            out += [TakeDevelopmentCard(card=kind, foreman_good=g) for g in opened]  # type: ignore[arg-type]
        else:
            out.append(TakeDevelopmentCard(card=kind))  # type: ignore[arg-type]
    if not start:
        if len(p.cards) >= track_allows(p, DEV_CARDS):
            out += [DiscardDevelopmentCard(card=card_type(h)) for h in p.cards]  # type: ignore[arg-type]
        if has(p, "BROKER"):
            out += [UseBroker(count=n) for n in range(C.broker_shares + 1)]
        if has(p, "INVENTOR"):
            names = list(TRACKS)
            out += [
                UseInventor(tracks=(a, b))  # type: ignore[arg-type]
                for i, a in enumerate(names)
                for b in names[i + 1 :]
            ]
    out.append(SkipDevelopment())
    return out

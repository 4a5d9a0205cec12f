"""The audit said in words (``ledger.audit``): what each check is about, its result in a
sentence, and an event named as a person would name it. The same check results make the JSON
document for machines; nothing here decides an outcome, it only says it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SHORT = "gameledger.game."

# What each check is about, said as what it establishes when it passes.
TITLES = {
    "every stored event decodes": "Every stored event can be read",
    "stream starts with game created": "The record starts with the game's creation",
    "hash chain": "Nothing in the record was changed, removed or put out of order",
    "random draws committed at creation": "The random draws were fixed before the game began",
    "every private part present and committed": "Every hidden part was sealed when it was written",
    "every draw re-derived from the seed": "Every draw is the one the seed gives",
    "replay": "Every move was legal under the rules",
    "rules engine available": "The rules can be replayed here",
    "replay reproduces every digest": "Every move was legal, and the positions recorded follow from the moves",
    "conservation laws hold at every position": "Nothing was created or lost along the way",
    "replay reproduces the standings": "The final standings follow from the moves",
    "every snapshot agrees with the record": "The server's saved positions agree with the record",
    "rules version": "The rules the game is judged by",
}

EVENT_KINDS = {
    "created": "the game's creation",
    "seat_claimed": "a seat taken",
    "started": "the start",
    "finished": "the end of the game",
    "timed_out": "a clock running out",
    "decision_undone": "a move taken back",
    "abandoned": "the game's abandonment",
    "annulled": "the annulment",
    "dispute_opened": "a dispute opened",
    "dispute_resolved": "a ruling on a dispute",
    "rules_migrated": "the move to the current rules",
    "invitation_issued": "an invitation",
    "invitation_withdrawn": "an invitation withdrawn",
    "seat_opened": "a seat opened to anyone",
}


@dataclass(frozen=True)
class Context:
    """What the sentences mention beyond a check's own result."""

    events: int
    ended: bool
    seed_commitment: str
    rules: str  # the rules version the game was recorded under
    current_rules: str = ""  # the one this server replays it with
    failing_event: str = ""  # the first failing event, in words (``event_words``)


def _human(code: Any) -> str:
    return str(code).replace("_", " ").strip() or "?"


def event_words(record: dict[str, Any], names: dict[int, str] | None = None) -> str:
    """An event of the record in words, as it is stored now (a changed event says what it says
    now): "event 12 (Bob's move “rent ship”, recorded 2025-03-01 14:02 UTC)"."""
    names = names or {}
    try:
        p = record.get("public") or {}
        kind = str(record.get("type", "")).removeprefix(SHORT)
        seat = p.get("seat")
        who = names.get(seat, f"seat {seat}") if isinstance(seat, int) and seat >= 0 else None
        decision = p.get("decision")
        if kind == "decision_recorded" and isinstance(decision, dict):
            what = f"{who or 'a seat'}'s move “{_human(decision.get('type'))}”"
        elif kind == "draw_recorded":
            what = f"the draw of the {p.get('label') or 'cards'}"
        else:
            what = EVENT_KINDS.get(kind, _human(kind))
            if who and kind in ("seat_claimed", "timed_out", "dispute_opened"):
                what += f" by {who}" if kind != "timed_out" else f" ({who})"
        when = str(record.get("timestamp", ""))[:16].replace("T", " ")
        return f"event {record.get('version')} ({what}, recorded {when} UTC)"
    except Exception:  # a record changed so much that it no longer reads as an event
        return f"event {record.get('version', '?')}"


def _leading(detail: str) -> str:
    """The count a passing check's detail starts with ("58 draws"), or "the"."""
    first = detail.split(maxsplit=1)[0] if detail else ""
    return first if first.isdigit() else "the"


def title(name: str) -> str:
    return TITLES.get(name, name[:1].upper() + name[1:])


def sentence(name: str, ok: bool, detail: str, at: int | None, ctx: Context) -> str:
    """A check's result in a sentence a player can read."""
    where = ctx.failing_event or (f"event {at}" if at else "")
    n = ctx.events
    if name == "hash chain":
        if ok:
            return (
                f"The record is unchanged since it was written: each of its {n} events carries the "
                "fingerprint (hash) of the one before it, and every fingerprint matches its event."
            )
        if "altered" in detail:
            return f"{where[:1].upper()}{where[1:]} was changed after it was written: what it says now no longer matches the fingerprint sealed into the record."
        if "does not link" in detail:
            return f"{where[:1].upper()}{where[1:]} no longer follows the event before it: an event was changed, removed or moved there."
        return f"The record breaks at event {at}: an event is missing or was moved ({detail})."
    if name == "random draws committed at creation":
        fingerprint = ctx.seed_commitment[:16]
        if ok:
            revealed = (
                " The seed was revealed at the end and matches it."
                if ctx.ended
                else " The seed stays secret until the game ends; the server checked it against the fingerprint."
            )
            return (
                "Every random draw comes from a secret seed whose fingerprint "
                f"({fingerprint}…) was published when the game was created, before any move.{revealed}"
            )
        return (
            f"The seed does not match the fingerprint ({fingerprint}…) published when the game was "
            "created: the draws could have been chosen after the fact."
        )
    if name == "every private part present and committed":
        if ok:
            return (
                "Every hidden part of the record (cards in a hand, face-down markers, a deck's order) is "
                "kept and matches the fingerprint sealed into the record when it was written."
            )
        return f"A hidden part of the record is missing or was changed ({detail}){': first at ' + where if where else ''}."
    if name == "every draw re-derived from the seed":
        if ok:
            yourself = (
                " You can re-derive them yourself from the revealed seed."
                if ctx.ended
                else " You can check them yourself once the game ends and its seed is revealed."
            )
            return f"Every one of the {_leading(detail)} draws is the one the seed gives: nobody chose any of them.{yourself}"
        return f"The draw at {where} is not the one the seed gives."
    if name == "replay":
        return f"The rules refuse {where}: {detail.split(': ', 1)[-1]}"
    if name == "rules engine available":
        return "This server cannot replay the game's rules." if not ok else "The game's rules are here."
    if name == "replay reproduces every digest":
        if ok:
            return (
                f"Replaying every move through the rules accepts each one (each was among the moves the rules "
                f"offered in its position) and gives every one of the {_leading(detail)} positions the record "
                "states."
            )
        return f"From {where} on, the rules give another position than the one the record states."
    if name == "conservation laws hold at every position":
        if ok:
            return (
                "Nothing was created or lost: the money, goods, workers and cards add up at every position."
            )
        return f"At {where}, something does not add up: {detail.split(': ', 1)[-1]}."
    if name == "replay reproduces the standings":
        if ok:
            return "The final standings are the ones the moves give."
        return "The final standings recorded are not the ones the moves give."
    if name == "every snapshot agrees with the record":
        if ok:
            return "The positions the server saved to load the game faster agree with the record."
        return f"A position the server saved disagrees with the record ({detail}); it is not used, the record is."
    if name == "rules version":
        if ctx.current_rules in ("", ctx.rules):
            return f"It was recorded under the rules {ctx.rules} and replayed here with the same rules."
        return (
            f"It was recorded under the rules {ctx.rules} and replayed here with {ctx.current_rules}, "
            "the rules this server runs (the checks above say whether they agree)."
        )
    if name == "every stored event decodes":
        return "A stored event no longer reads as an event: the record was damaged."
    if name == "stream starts with game created":
        return "The record does not start with the game's creation: it was damaged."
    return f"{title(name)}: {'passed' if ok else 'failed'}{(' (' + detail + ')') if detail else ''}."


def summary(ok: bool, checks: list[dict[str, Any]], ended: bool) -> str:
    """The audit's outcome in one sentence."""
    if ok:
        if ended:
            return "Every check passed: the record is the game as it was played."
        return (
            "Every check passed: the record is the game as it has been played so far "
            "(anyone can check its draws too once it ends)."
        )
    failed = [c for c in checks if not c["ok"]]
    first = min((c["at"] for c in failed if c.get("at")), default=None)
    where = f" The first event at fault is event {first}." if first else ""
    return (
        f"{len(failed)} of {len(checks)} checks failed: the record is not the game as it was played.{where}"
    )

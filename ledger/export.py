"""Game records as a viewer may see them: event records, redaction, JSON-lines exports.

Before a game ends a viewer gets the public part of every event, plus the
private parts addressed to their own seats together with the salts that open
those parts' commitments. Once the game is finished everything is public: all
private parts, and the seed (revealed by the ``finished`` event).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ledger import records

if TYPE_CHECKING:
    from ledger.application import Ledger
    from ledger.domain import Game

EXPORT_FORMAT = "gameledger-export/1"


def event_record(event: Any) -> dict[str, Any]:
    """The full stored record of one game event (server side: includes private parts)."""
    return {
        "game": str(event.originator_id),
        "version": event.originator_version,
        "type": type(event).TOPIC,
        "timestamp": records.timestamp_text(event.timestamp),
        "public": event.public,
        "commitments": event.commitments,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
        "private": getattr(event, "private", {}),
    }


def audiences(seats: Iterable[int]) -> set[str]:
    return {records.seat_audience(s) for s in seats}


def redact(record: dict[str, Any], seats: Iterable[int], finished: bool, seed: bytes) -> dict[str, Any]:
    """The record as a viewer holding ``seats`` may see it (all of it once finished)."""
    allowed = audiences(seats)
    private = {aud: part for aud, part in record["private"].items() if finished or aud in allowed}
    out = {k: v for k, v in record.items() if k != "private"}
    if private:
        out["private"] = private
        out["salts"] = {aud: records.salt(seed, record["version"], aud).hex() for aud in private}
    return out


def visible_effects(record: dict[str, Any], seats: Iterable[int], finished: bool) -> list[dict[str, Any]]:
    allowed = audiences(seats)
    effects = list(record["public"].get("effects", []))
    for aud, part in record["private"].items():
        if finished or aud in allowed:
            effects.extend(part.get("effects", []))
    return effects


def export_lines(
    header: dict[str, Any], events: Iterable[Any], seats: Iterable[int], finished: bool, seed: bytes
) -> Iterator[str]:
    seats = list(seats)
    yield json.dumps({"format": EXPORT_FORMAT, **header}, sort_keys=True)
    for event in events:
        yield json.dumps(redact(event_record(event), seats, finished, seed), sort_keys=True)


def export_header(game: Game, seats: Sequence[int], complete: bool = False) -> dict[str, Any]:
    """What an export announces: its game, title, rules, status and last version (``gameledger
    verify`` holds the events to these) and whose view it is (``full`` once nothing is hidden)."""
    full = complete or game.over
    return {
        "game": str(game.id),
        "title": game.title,
        "rules_version": game.rules_version,
        "status": game.status,
        "version": game.version,
        "audience": "full" if full else (",".join(f"seat:{s}" for s in seats) or "spectator"),
        "exported_at": datetime.now(UTC).isoformat(),
    }


def talk_record(event: Any, game_id: Any) -> dict[str, Any]:
    """One event of a game's table talk, as exported (marked ``record: talk``)."""
    return {
        "record": "talk",
        "game": str(game_id),
        "version": event.originator_version,
        "type": type(event).TOPIC,
        "timestamp": records.timestamp_text(event.timestamp),
        "public": event.public,
        "commitments": {},
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }


def game_export(
    ledger: Ledger, game: Game, seats: Sequence[int], complete: bool = False, talk: bool | None = None
) -> Iterator[str]:
    """A game's export as ``seats`` may see it (a spectator: no seats), or ``complete``: every
    hidden part with its salt, for the operator. The events are read up to the game's version,
    so that a decision written meanwhile cannot make the record longer than its header says.
    The game's table talk follows (its own hash chain; the header's ``talk_version`` says how
    long) when ``talk``: by default for the seated players, the operator's complete export, and
    anyone once spectators are allowed."""
    events = list(ledger.events.get(game.id, lte=game.version))
    header = export_header(game, seats, complete)
    conversation = ledger.conversation(game.id)
    if talk is None:
        talk = bool(seats) or complete or bool(conversation and conversation.spectators)
    said = list(ledger.events.get(conversation.id, lte=conversation.version)) if talk and conversation else []
    if said:
        header["talk_version"] = len(said)
    lines = export_lines(header, events, seats, complete or game.over, game.seed_bytes)
    return itertools.chain(lines, (json.dumps(talk_record(e, game.id), sort_keys=True) for e in said))

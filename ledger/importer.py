"""Importing a game's export into another ledger (``gameledger import FILE``).

An export of a game that is over (finished, abandoned or annulled) holds every event whole:
every private part, and the seed, revealed by the closing event. Such an export is checked
first exactly as ``gameledger verify`` checks it (hash chain, every commitment opened with
the seed's salts, every draw re-derived, a replay reproducing every stored digest and the
standings); only then are its events recorded as they were: the same game id, versions,
timestamps, payloads, commitments and hashes, so that the imported game exports the same
record and verifies again. The loaded game's head must match the export's last hash. The
game's table talk, when the export holds it, is recorded as it was too (its own chain).

A running game's export hides the other seats' parts and the seed, so it cannot be recorded
faithfully: it is refused (move a running game with a database backup instead). The
players of an imported game need not exist on the receiving server.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from ledger.domain import Conversation, Game, conversation_id
from ledger.errors import ConflictError, InvalidRequestError
from ledger.verify import ABANDONED, ANNULLED, CREATED, FINISHED, parse_all, verify_export

OVER = (FINISHED, ABANDONED, ANNULLED)


@dataclass(frozen=True)
class ImportResult:
    game_id: str
    title: str
    status: str
    events: int
    head: str
    checks: list[tuple[str, bool, str]]


def event_classes(aggregate: type[Any] = Game, prefix: str = "gameledger.game.") -> dict[str, type[Any]]:
    """Every stored event class of the aggregate (a game's, or its table talk's) by its topic."""
    out: dict[str, type[Any]] = {}
    for value in vars(aggregate).values():
        topic = getattr(value, "TOPIC", None)
        if isinstance(value, type) and isinstance(topic, str) and topic.startswith(prefix):
            out[topic] = value
    return out


def talk_events(game_id: UUID, rows: list[dict[str, Any]]) -> list[Any]:
    """The game's table talk as it was recorded (its chain verified with the export)."""
    classes = event_classes(Conversation, "gameledger.talk.")
    events = []
    for r in rows:
        cls = classes.get(r["type"])
        if cls is None or UUID(r["game"]) != game_id:
            raise _fail(f"Table-talk event {r['version']} is of an unknown type or another game.")
        fields: dict[str, Any] = {
            "originator_id": conversation_id(game_id),
            "originator_version": r["version"],
            "timestamp": datetime.fromisoformat(r["timestamp"]),
            "public": r["public"],
            "prev_hash": r["prev_hash"],
            "hash": r["hash"],
        }
        if r["type"] == Conversation.Created.TOPIC:
            fields["originator_topic"] = Conversation.TOPIC
        events.append(cls(**fields))
    return events


def _fail(message: str, code: str = "import/invalid") -> InvalidRequestError:
    return InvalidRequestError(message, code=code)


def import_export(ledger: Any, lines: list[str]) -> ImportResult:
    """Verify an export of a game that is over, then record its events as they were."""
    report = verify_export(lines)
    if not report.ok:
        failed = "; ".join(f"{name}: {detail}" for name, ok, detail in report.checks if not ok)
        raise _fail(f"The export does not verify ({failed}).", "import/not_verified")
    header, records, talk = parse_all(lines)
    if header.get("audience") != "full" or records[-1]["type"] not in OVER:
        raise _fail(
            "Only a game that is over can be imported (its export then holds every event whole).",
            "import/not_over",
        )
    if any(r["type"] == "gameledger.game.snapshot" for r in records):
        raise _fail("An export holds events, not snapshots.")
    classes = event_classes()
    seed = records[-1]["public"]["seed"]
    game_id = UUID(records[0]["game"])
    events = []
    for r in records:
        cls = classes.get(r["type"])
        if cls is None:
            raise _fail(f"Event {r['version']} is of an unknown type {r['type']!r}.")
        if UUID(r["game"]) != game_id:
            raise _fail(f"Event {r['version']} belongs to another game.")
        fields: dict[str, Any] = {
            "originator_id": game_id,
            "originator_version": r["version"],
            "timestamp": datetime.fromisoformat(r["timestamp"]),
            "public": r["public"],
            "private": r.get("private", {}),
            "commitments": r["commitments"],
            "prev_hash": r["prev_hash"],
            "hash": r["hash"],
        }
        if r["type"] == CREATED:
            fields |= {"originator_topic": Game.TOPIC, "seed": seed, "private": {}}
        events.append(cls(**fields))
    events += talk_events(game_id, talk)
    try:
        ledger.save(*events)
    except IntegrityError:
        raise ConflictError(f"Game {game_id} is already in this ledger.", code="import/exists") from None
    game = ledger.get_game(game_id)
    if game.head_hash != records[-1]["hash"] or game.version != len(records):
        raise _fail("The imported game does not load to the export's head.")
    return ImportResult(
        game_id=str(game_id),
        title=game.title,
        status=game.status,
        events=len(records),
        head=game.head_hash,
        checks=report.checks,
    )

"""The Conversation aggregate: a game's table talk, in a record of its own.

Its id is derived from the game's (``conversation_id``), so a game has one and finding it
needs no index. Each event is sealed into the conversation's own hash chain, with the same
envelope as the game's events (``ledger.records``: nothing in it is private, so it has no
commitments): the game's events, hashes and digests never change because people talked.
Events: created (who may write besides the seats), a message posted (by whom, from which
seat or as a spectator, at which version of the game), a message hidden by the operator
(with the reason; the text stays in the record, which is never rewritten), and the creator
allowing or refusing spectators.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, cast
from uuid import UUID

from eventsourcing.domain import Aggregate

from ledger import records

TALK_NAMESPACE = uuid.UUID("0b7d2f4e-8c1a-4b5e-9d3f-6a2c1e8b7f40")


def conversation_id(game_id: UUID | str) -> UUID:
    return uuid.uuid5(TALK_NAMESPACE, f"talk:{UUID(str(game_id))}")


class Conversation(Aggregate):
    TOPIC = "gameledger.talk"

    class Created(Aggregate.Created):
        TOPIC = "gameledger.talk.created"
        public: dict[str, Any]
        prev_hash: str
        hash: str

        def apply_talk(self, talk: Conversation) -> None:
            """Nothing more: ``__init__`` has set the conversation up."""

    class Event(Aggregate.Event):
        public: dict[str, Any]
        prev_hash: str
        hash: str

        def apply(self, aggregate: Any) -> None:
            talk = cast(Conversation, aggregate)
            talk.head_hash = self.hash
            self.apply_talk(talk)

        def apply_talk(self, talk: Conversation) -> None:
            raise NotImplementedError

    class MessagePosted(Event):
        TOPIC = "gameledger.talk.message_posted"

        def apply_talk(self, talk: Conversation) -> None:
            talk.messages.append(
                {**self.public, "at": records.timestamp_text(self.timestamp), "hidden": None}
            )

    class MessageHidden(Event):
        """The operator hid a message; the reason is part of the record."""

        TOPIC = "gameledger.talk.message_hidden"

        def apply_talk(self, talk: Conversation) -> None:
            message = talk.messages[self.public["number"] - 1]
            message["hidden"] = {"by": self.public["by"], "reason": self.public["reason"]}

    class SpectatorsChanged(Event):
        """The game's creator let spectators read and write, or stopped them."""

        TOPIC = "gameledger.talk.spectators_changed"

        def apply_talk(self, talk: Conversation) -> None:
            talk.spectators = bool(self.public["allowed"])

    def __init__(self, public: dict[str, Any], prev_hash: str, hash: str) -> None:
        self.game: str = public["game"]
        self.spectators: bool = bool(public.get("spectators"))
        self.head_hash: str = hash
        self.messages: list[dict[str, Any]] = []

    def __deepcopy__(self, memo: dict[int, Any]) -> Conversation:
        """A copy for the repository's cache (messages are replaced or marked, so one level)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(
            {**self.__dict__, "messages": [dict(m) for m in self.messages], "_pending_events": []}
        )
        return clone

    @classmethod
    def start(cls, game_id: UUID | str, timestamp: datetime) -> Conversation:
        public = {"game": str(game_id), "spectators": False}
        cid = conversation_id(game_id)
        header = records.Header(
            str(game_id), 1, cls.Created.TOPIC, records.timestamp_text(timestamp), records.GENESIS
        )
        return cast(
            Conversation,
            cls._create(
                cls.Created,
                id=cid,
                timestamp=timestamp,
                public=public,
                prev_hash=records.GENESIS,
                hash=header.hash(public, {}),
            ),
        )

    def _record(self, event_class: Any, timestamp: datetime, public: dict[str, Any]) -> None:
        header = records.Header(
            self.game, self.version + 1, event_class.TOPIC, records.timestamp_text(timestamp), self.head_hash
        )
        self.trigger_event(
            event_class,
            timestamp=timestamp,
            public=public,
            prev_hash=self.head_hash,
            hash=header.hash(public, {}),
        )

    def post(
        self, player: str, name: str, seat: int | None, text: str, game_version: int, timestamp: datetime
    ) -> int:
        number = len(self.messages) + 1
        public = {
            "number": number,
            "player": player,
            "name": name,
            "seat": seat,
            "text": text,
            "game_version": game_version,
        }
        self._record(self.MessagePosted, timestamp, public)
        return number

    def hide(self, number: int, by: str, reason: str, timestamp: datetime) -> None:
        self._record(self.MessageHidden, timestamp, {"number": number, "by": by, "reason": reason})

    def allow_spectators(self, allowed: bool, by: str, timestamp: datetime) -> None:
        self._record(self.SpectatorsChanged, timestamp, {"allowed": allowed, "by": by})

    def recent_by(self, player: str, since: datetime) -> list[dict[str, Any]]:
        """The player's messages written at or after ``since``."""
        stamp = records.timestamp_text(since)
        return [m for m in self.messages if m["player"] == player and m["at"] >= stamp]


TALK_TOPICS: tuple[str, ...] = (
    Conversation.Created.TOPIC,
    Conversation.MessagePosted.TOPIC,
    Conversation.MessageHidden.TOPIC,
    Conversation.SpectatorsChanged.TOPIC,
)

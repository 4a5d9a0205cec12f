"""The ledger's table-talk use cases: the seated players (and spectators, if the game's
creator allows them) write to the game's conversation; the operator hides a message."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from copy import deepcopy
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, project_aggregate
from eventsourcing.persistence import IntegrityError

from ledger.domain import ADMIN, Conversation, Game, Player, conversation_id
from ledger.errors import (
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    RateLimitedError,
)

MAX_MESSAGE = 1000  # characters
MAX_REASON = 500
# a writer may post BURST messages in any WINDOW (then waits until the oldest leaves it)
TALK_BURST = 5
TALK_WINDOW = timedelta(seconds=30)
TALK_RETRIES = 3  # a message written at the same moment as another is numbered after it


def clean_text(text: str, limit: int, what: str, code: str) -> str:
    """NFC, trimmed, printable but for line breaks and tabs, 1 to ``limit`` characters."""
    clean = unicodedata.normalize("NFC", text).strip()
    if not clean:
        raise InvalidRequestError(f"Say something: {what} is empty.", code=code)
    if len(clean) > limit:
        raise InvalidRequestError(
            f"{what.capitalize()} is at most {limit} characters ({len(clean)} given).", code=code
        )
    if any(not (ch.isprintable() or ch in "\n\t") for ch in clean):
        raise InvalidRequestError(f"{what.capitalize()} holds control characters.", code=code)
    return clean


class TalkUseCases(Application[UUID]):
    """A part of the ``Ledger``: a game's table talk."""

    if TYPE_CHECKING:  # what they use of the rest of the ledger
        clock: Callable[[], datetime]

        def get_game(self, game_id: UUID | str, version: int | None = None) -> Game: ...
        def get_player(self, player_id: UUID | str) -> Player: ...

    def conversation(self, game_id: UUID | str) -> Conversation | None:
        """The game's conversation, or None before anything was said or set.

        One query when it is not in the cache: a conversation is never snapshotted, so its
        events are read without first looking for a snapshot (most games have no conversation,
        and every page of theirs asked twice that none exists)."""
        try:
            cid = conversation_id(game_id)
            cache = self.repository.cache
            if cache is not None:
                try:
                    cache.get(cid)
                except KeyError:
                    events = list(self.repository.event_store.get(originator_id=cid))
                    if not events:
                        return None
                    talk: Any = project_aggregate(None, events)
                    cache.put(cid, deepcopy(talk))
                    return talk if isinstance(talk, Conversation) else None
            talk = self.repository.get(cid)
        except (AggregateNotFoundError, ValueError):
            return None
        return talk if isinstance(talk, Conversation) else None

    def may_read_talk(self, game: Game, player: str, talk: Conversation | None) -> bool:
        """The seated players, the operator, and anyone once spectators are allowed."""
        return player == ADMIN or bool(game.seats_of(player)) or bool(talk and talk.spectators)

    def read_talk(self, game_id: UUID | str, player: str) -> tuple[Game, Conversation | None]:
        game = self.get_game(game_id)
        talk = self.conversation(game.id)
        if not self.may_read_talk(game, player, talk):
            raise ForbiddenError("The table talk of this game is for its players.", code="game/not_seated")
        return game, talk

    def post_message(self, game_id: UUID | str, player: str, text: str) -> tuple[Conversation, int]:
        """Write to the game's table talk, as a seat (the first the player holds) or a spectator.
        Two messages written at once both go in (the second is numbered after the first)."""
        for _ in range(TALK_RETRIES - 1):
            try:
                return self._post_message(game_id, player, text)
            except ConflictError as exc:
                if exc.code != "talk/busy":
                    raise
        return self._post_message(game_id, player, text)

    def _post_message(self, game_id: UUID | str, player: str, text: str) -> tuple[Conversation, int]:
        if player == ADMIN:
            raise ForbiddenError(
                "The operator holds no seat and does not take part in table talk.", code="game/not_seated"
            )
        game = self.get_game(game_id)
        talk = self.conversation(game.id)
        seats = game.seats_of(player)
        if not seats and not (talk and talk.spectators):
            raise ForbiddenError(
                "Only the game's players write to its table talk (its creator may let spectators in).",
                code="game/not_seated",
            )
        clean = clean_text(text, MAX_MESSAGE, "a message", "talk/bad_text")
        now = self.clock()
        talk = talk or Conversation.start(game.id, now)
        recent = talk.recent_by(player, now - TALK_WINDOW)
        if len(recent) >= TALK_BURST:
            free_at = datetime.fromisoformat(recent[-TALK_BURST]["at"]) + TALK_WINDOW
            raise RateLimitedError(
                f"At most {TALK_BURST} messages in {int(TALK_WINDOW.total_seconds())} s.",
                int((free_at - now).total_seconds()) + 1,
            )
        name = self.get_player(player).name
        number = talk.post(player, name, seats[0] if seats else None, clean, game.version, now)
        self._save_talk(talk)
        return talk, number

    def hide_message(self, game_id: UUID | str, number: int, reason: str, by: str = ADMIN) -> Conversation:
        """The operator hides a message (the reason is recorded; the record keeps the text)."""
        game = self.get_game(game_id)
        talk = self.conversation(game.id)
        if talk is None or not 1 <= number <= len(talk.messages):
            raise NotFoundError(f"The game's table talk has no message {number}.", code="talk/not_found")
        if talk.messages[number - 1]["hidden"]:
            raise ConflictError("The message is already hidden.", code="talk/already_hidden")
        talk.hide(number, by, clean_text(reason, MAX_REASON, "the reason", "talk/bad_reason"), self.clock())
        self._save_talk(talk)
        return talk

    def allow_spectators(self, game_id: UUID | str, player: str, allowed: bool) -> Conversation:
        """The game's creator (or the operator) lets spectators read and write the table talk."""
        game = self.get_game(game_id)
        if player not in (game.created_by, ADMIN):
            raise ForbiddenError(
                "Only the game's creator decides whether spectators join the table talk.",
                code="game/not_creator",
            )
        now = self.clock()
        talk = self.conversation(game.id) or Conversation.start(game.id, now)
        if talk.spectators != allowed:
            talk.allow_spectators(allowed, player, now)
            self._save_talk(talk)
        return talk

    def cited_messages(self, game: Game, numbers: list[int]) -> list[int]:
        """Messages a dispute cites: each must be in the game's table talk."""
        if not numbers:
            return []
        talk = self.conversation(game.id)
        known = len(talk.messages) if talk else 0
        bad = [n for n in numbers if not 1 <= n <= known]
        if bad:
            raise InvalidRequestError(
                f"The table talk has messages 1 to {known}; {bad} are not among them.",
                code="dispute/bad_messages",
            )
        return sorted(set(numbers))

    def _save_talk(self, talk: Conversation) -> None:
        try:
            self.save(talk)
        except IntegrityError:
            raise ConflictError(
                "Another message was written at the same moment; send yours again.", code="talk/busy"
            ) from None

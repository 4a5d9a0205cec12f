"""The ledger's undo use cases: a player takes back their last decision alone while nothing
followed it and nothing hidden was revealed, or with every other player's consent."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import Application

from ledger.domain import ACTIVE, Game
from ledger.errors import ConflictError, ForbiddenError
from ledger.export import event_record
from ledger.preview import seats_at


class UndoUseCases(Application[UUID]):
    """A part of the ``Ledger``: taking a decision back."""

    if TYPE_CHECKING:  # what they use of the rest of the ledger
        clock: Callable[[], datetime]

        def get_game(self, game_id: UUID | str, version: int | None = None) -> Game: ...
        def _save_game(self, game: Game) -> list[Any]: ...
        def _run_automatic(self, game: Game) -> None: ...

    def undo_target(self, game: Game, seat: int) -> int:
        """The version of the seat's last decision still in force (the stream read backwards,
        a page at a time, only for a game restored from a snapshot older than its index)."""
        undoable = getattr(game, "undoable", None)
        if undoable is not None:
            if str(seat) in undoable:
                return undoable[str(seat)]
            raise ConflictError("You have no decision to take back.", code="undo/nothing")
        for event in self._events_backwards(game.id):
            record = event_record(event)
            if record["type"] == Game.DecisionUndone.TOPIC:
                break  # nothing before an undo can be taken back again
            if record["type"] == Game.DecisionRecorded.TOPIC:
                pub = record["public"]
                if pub["seat"] == seat and not pub.get("forced"):
                    return int(record["version"])
            if record["type"] in (Game.Started.TOPIC, Game.TimedOut.TOPIC):
                break
        raise ConflictError("You have no decision to take back.", code="undo/nothing")

    def _events_backwards(self, game_id: UUID, page: int = 64) -> Iterator[Any]:
        lte: int | None = None
        while True:
            batch = list(self.events.get(game_id, lte=lte, desc=True, limit=page))
            yield from batch
            if len(batch) < page:
                return
            lte = batch[-1].originator_version - 1

    def undo_check(self, game: Game, seat: int, target: int) -> str | None:
        """Why taking back the decision at ``target`` needs everyone's consent (None: it does not)."""
        if target != game.version:
            return "other events followed it (another player's decision, or a draw it caused)"
        event = next(iter(self.events.get(game.id, gt=target - 1, lte=target)))
        record = event_record(event)
        if any(k != "server" for k in record.get("private", {}) or {}):
            return "it showed you hidden information"
        before = self.get_game(game.id, version=target - 1).state
        eng = game.engine
        for viewer in [None, *range(game.seat_count)]:
            if eng.secrets(before, viewer) - eng.secrets(game.state, viewer):
                return "it revealed hidden information"
        return None

    def undo(self, game_id: UUID | str, player: str, expected_version: int) -> Game:
        """Take back one's last decision: alone while nothing followed it and it revealed
        nothing hidden; otherwise only with everyone's consent (``request_undo``)."""
        game, seat = self._undo_game(game_id, player, expected_version)
        target = self.undo_target(game, seat)
        reason = self.undo_check(game, seat, target)
        if reason:
            raise ConflictError(
                f"Taking this decision back needs every other player's consent: {reason}. "
                "Ask for it with POST .../undo/request.",
                code="undo/needs_consent",
            )
        self._apply_undo(game, seat, target, [])
        return game

    def request_undo(self, game_id: UUID | str, player: str, expected_version: int) -> Game:
        game, seat = self._undo_game(game_id, player, expected_version)
        if game.undo_request is not None:
            raise ConflictError("An undo request is already open.", code="undo/pending")
        target = self.undo_target(game, seat)
        game.request_undo(seat, target, self.clock())
        if not [s for s in range(game.seat_count) if game.seats[s] != player]:
            self._apply_undo(game, seat, target, [])  # nobody else to ask
            return game
        self._save_game(game)
        return game

    def answer_undo(self, game_id: UUID | str, player: str, accept: bool) -> Game:
        game = self.get_game(game_id)
        req = game.undo_request
        if req is None or game.status != ACTIVE:
            raise ConflictError("No undo request is open.", code="undo/none")
        seats = [s for s in game.seats_of(player) if game.seats[s] != req["player"]]
        if not seats:
            raise ForbiddenError("Only the other players answer an undo request.", code="undo/not_asked")
        for s in seats:
            game.answer_undo(s, accept, self.clock())
        others = [s for s in range(game.seat_count) if game.seats[s] != req["player"]]
        if accept and game.undo_request and all(str(s) in game.undo_request["answers"] for s in others):
            self._apply_undo(game, req["seat"], req["target_version"], others)
            return game
        self._save_game(game)
        return game

    def _undo_game(self, game_id: UUID | str, player: str, expected_version: int) -> tuple[Game, int]:
        game = self.get_game(game_id)
        return game, seats_at(game, player, expected_version)[0]

    def _apply_undo(self, game: Game, seat: int, target: int, consent: list[int]) -> None:
        before = self.get_game(game.id, version=target - 1)
        game.undo(seat, target, before.state, before.draws, consent, self.clock())
        self._run_automatic(game)
        self._save_game(game)

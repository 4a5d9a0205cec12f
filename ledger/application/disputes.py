"""The ledger's use cases on the record after the fact: a player disputes events and the
administrator adjudicates (no change, a correction by compensating events, or annulment); a
game moves to the rules this server runs after a re-simulation; and a what-if fork plays on
from a position of another game in a sandbox."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import Application

from ledger import registry
from ledger.domain import ACTIVE, ADMIN, ANNULLED, BOT, Game
from ledger.errors import ConflictError, ForbiddenError, InvalidRequestError, NotFoundError
from ledger.resimulate import resimulate_game


class DisputeUseCases(Application[UUID]):
    """A part of the ``Ledger``: disputes, rules migrations and what-if forks."""

    if TYPE_CHECKING:  # what they use of the rest of the ledger
        clock: Callable[[], datetime]
        entropy: Callable[[int], bytes]

        def get_game(self, game_id: UUID | str, version: int | None = None) -> Game: ...
        def _save_game(self, game: Game) -> list[Any]: ...
        def _run_automatic(self, game: Game) -> None: ...
        def cited_messages(self, game: Game, numbers: list[int]) -> list[int]: ...

    # -- disputes ---------------------------------------------------------------

    def open_dispute(
        self,
        game_id: UUID | str,
        player: str,
        versions: list[int],
        text: str,
        messages: list[int] | None = None,
    ) -> tuple[Game, int]:
        """A seat disputes events of the record (``versions``), citing table talk (``messages``)."""
        game = self.get_game(game_id)
        seats = game.seats_of(player)
        if not seats:
            raise ForbiddenError("Only a player of the game opens a dispute.", code="game/not_seated")
        if game.sandbox:
            raise ConflictError("A sandbox fork has nothing to dispute.", code="dispute/sandbox")
        if game.status == ANNULLED:
            raise ConflictError("The game is annulled.", code="game/annulled")
        bad = [v for v in versions if not 1 <= v <= game.version]
        if not versions or bad:
            raise InvalidRequestError(
                f"Name the disputed events by version, 1 to {game.version}.", code="dispute/bad_versions"
            )
        text = text.strip()
        if not 1 <= len(text) <= 2000:
            raise InvalidRequestError("Say what is wrong, in 1 to 2000 characters.", code="dispute/bad_text")
        cited = self.cited_messages(game, messages or [])
        number = game.open_dispute(seats[0], sorted(set(versions)), text, self.clock(), cited)
        self._save_game(game)
        return game, number

    def resolve_dispute(
        self,
        game_id: UUID | str,
        number: int,
        outcome: str,
        note: str,
        rewind_to: int | None = None,
        by: str = ADMIN,
    ) -> Game:
        """The administrator's adjudication, recorded in the game's stream: ``no_change``;
        ``correction``: the game goes back to the position before event ``rewind_to`` by a
        compensating event (a running game only: a finished game's seed is public); or
        ``annulment``: the game is void and no result of it counts."""
        game = self.get_game(game_id)
        dispute = game.disputes.get(str(number))
        if dispute is None:
            raise NotFoundError(f"The game has no dispute {number}.", code="dispute/not_found")
        if dispute["status"] != "open":
            raise ConflictError("The dispute is already resolved.", code="dispute/resolved")
        if outcome not in ("no_change", "correction", "annulment"):
            raise InvalidRequestError(
                "The outcome is no_change, correction or annulment.", code="dispute/bad_outcome"
            )
        now = self.clock()
        if outcome == "correction":
            if game.status != ACTIVE:
                raise ConflictError(
                    "Only a running game can be corrected (once it ends its seed is public); annul it instead.",
                    code="dispute/not_correctable",
                )
            started = next(
                (int(e.originator_version) for e in self.events.get(game.id) if isinstance(e, Game.Started)),
                None,
            )
            if rewind_to is None or started is None or not started < rewind_to <= game.version:
                raise InvalidRequestError(
                    f"A correction names the first event to set aside (rewind_to, {started and started + 1} to"
                    f" {game.version}).",
                    code="dispute/bad_rewind",
                )
        game.resolve_dispute(number, outcome, note.strip()[:2000], by, now)
        if outcome == "correction":
            assert rewind_to is not None
            before = self.get_game(game.id, version=rewind_to - 1)
            game.undo(-1, rewind_to, before.state, before.draws, [], now, dispute=number)
            self._run_automatic(game)  # a draw due at that position is re-derived: the same outcome
        elif outcome == "annulment" and game.status != ANNULLED:
            game.annul(by, f"dispute {number}: {note.strip()[:500]}", now)
        self._save_game(game)
        return game

    def migrate(self, game_id: UUID | str, by: str = ADMIN, *, force: bool = False) -> dict[str, Any]:
        """Move a game to the current rules: re-simulated first; an identical game moves, a
        diverged one only with ``force``, one the current rules refuse never does."""
        game = self.get_game(game_id)
        current = registry.meta(game.title).rules_version
        if game.rules_version == current:
            raise ConflictError(f"The game already runs under {current}.", code="migrate/current")
        result = resimulate_game(self, game.id)
        if result["outcome"] == "illegal" or (result["outcome"] == "diverged" and not force):
            raise ConflictError(
                f"Re-simulated under {current} the game is {result['outcome']} at event {result['at']}; "
                + (
                    "it cannot move."
                    if result["outcome"] == "illegal"
                    else "migrate with force to accept that."
                ),
                code=f"migrate/{result['outcome']}",
            )
        summary = {"outcome": result["outcome"], "at": result["at"]}
        game.migrate_rules(current, summary, by, self.clock())
        self._save_game(game)
        return result

    # -- what-if forks ------------------------------------------------------------

    def fork(self, game_id: UUID | str, player: str, version: int, bots: list[int] | None = None) -> Game:
        """A sandbox game from the position after event ``version`` of another game, played
        hotseat by ``player`` (bots on the seats listed). Never in a league; a running game's
        position is forked only when nothing in it is hidden from anyone."""
        origin = self.get_game(game_id)
        if not 1 <= version <= origin.version:
            raise InvalidRequestError(
                f"Fork after an event from 1 to {origin.version}.", code="fork/bad_version"
            )
        at = self.get_game(origin.id, version=version)
        if at.state is None:
            raise ConflictError("The game had not started at that event.", code="fork/not_started")
        eng = at.engine
        if not origin.over and any(eng.secrets(at.state, s) for s in [None, *range(at.seat_count)]):
            raise ConflictError(
                "That position of a running game holds hidden information (cards, markers, a deck's "
                "order); it can be forked once the game is over.",
                code="fork/hidden_information",
            )
        if eng.pending(at.state).finished:
            raise ConflictError("Nothing is left to play at that event.", code="fork/finished")
        bots = sorted(set(bots or []))
        if any(not 0 <= s < at.seat_count for s in bots):
            raise InvalidRequestError("Bot seats are seat numbers of the game.", code="fork/bad_seats")
        seats: list[str | None] = [BOT if s in bots else player for s in range(at.seat_count)]
        now = self.clock()
        fork = Game.create(
            game_id=uuid.UUID(bytes=self.entropy(16), version=4),
            title=origin.title,
            options=origin.options,
            rules_version=registry.meta(origin.title).rules_version,
            seat_count=at.seat_count,
            seats=seats,
            created_by=player,
            seed=self.entropy(32),  # the fork's own draws: never the origin's future ones
            timestamp=now,
            origin={"game": str(origin.id), "version": version, "head": at.head_hash},
        )
        fork.start(now, state=at.state, draws=at.draws)
        self._run_automatic(fork)
        self.save(fork)
        return fork

"""The ledger's use cases on the record after the fact: a player disputes events and the
game's adjudicator rules on it (no change, a correction by compensating events, or annulment);
a game moves to the rules this server runs after a re-simulation; and a what-if fork plays on
from a position of another game in a sandbox.

Who rules on a game's disputes: the organiser of the game's league, unless they hold a seat
in it; otherwise (a game in no league, or one its organiser plays in) the operator. The
operator may rule on any game's disputes; nobody rules on a game they play in."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application

from ledger import registry
from ledger.application.talk import clean_text
from ledger.domain import ACTIVE, ADMIN, ANNULLED, BOT, Game, League, LeagueGame
from ledger.errors import (
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    StaleVersionError,
)
from ledger.resimulate import resimulate_game
from ledger.retry import retrying
from ledger.verify import spans

MAX_DISPUTE_TEXT = 2000  # characters: what is wrong, in the player's words
MAX_NOTE = 2000  # characters: the ruling's note
MAX_DISPUTES = 100  # a game's disputes, open and resolved, all told
OUTCOMES = ("no_change", "correction", "annulment")


@dataclass(frozen=True)
class OpenedDispute:
    """The game and the number of the dispute a player's submission is answered with;
    ``existing``: the seat's open dispute about these events was there before it (a repeated
    submission is answered with it, never with a second dispute). Unpacks as (game, number)."""

    game: Game
    number: int
    existing: bool = False

    def __iter__(self) -> Iterator[Any]:
        return iter((self.game, self.number))


class DisputeUseCases(Application[UUID]):
    """A part of the ``Ledger``: disputes, rules migrations and what-if forks."""

    if TYPE_CHECKING:  # what they use of the rest of the ledger
        clock: Callable[[], datetime]
        entropy: Callable[[int], bytes]

        def get_game(self, game_id: UUID | str, version: int | None = None) -> Game: ...
        def get_league(self, league: UUID | str) -> League: ...
        def _save_game(self, game: Game) -> list[Any]: ...
        def _run_automatic(self, game: Game) -> None: ...
        def cited_messages(self, game: Game, numbers: list[int]) -> list[int]: ...

    # -- disputes ---------------------------------------------------------------

    def league_of(self, game: Game) -> League | None:
        """The league that counts the game: the one it was created in, or the one its organiser
        added it to afterwards (None: in no league)."""
        league_id = game.league
        if league_id is None:
            try:
                claim: Any = self.repository.get(LeagueGame.id_for(str(game.id)))
            except AggregateNotFoundError:
                return None
            league_id = claim.league_id
        try:
            return self.get_league(league_id)
        except NotFoundError:
            return None

    def adjudicator(self, game: Game) -> str:
        """Who rules on the game's disputes: the organiser of its league, unless they play in it;
        otherwise the operator (``admin``)."""
        league = self.league_of(game)
        if league is not None and league.created_by != ADMIN and not game.seats_of(league.created_by):
            return league.created_by
        return ADMIN

    def may_rule(self, game: Game, who: str) -> bool:
        """The operator on any game; the game's adjudicator; nobody on a game they play in."""
        return who == ADMIN or (not game.seats_of(who) and who == self.adjudicator(game))

    def _check_adjudicator(self, game: Game, who: str) -> None:
        if game.seats_of(who):
            raise ForbiddenError(
                "You play in this game: the operator rules on its disputes.", code="dispute/plays_in_game"
            )
        if not self.may_rule(game, who):
            raise ForbiddenError(
                "Only the organiser of the game's league, or the operator, rules on its disputes.",
                code="dispute/not_adjudicator",
            )

    @staticmethod
    def open_dispute_about(game: Game, player: str, versions: list[int]) -> int | None:
        """The player's open dispute that covers all these events, if there is one."""
        seats = game.seats_of(player)
        for d in sorted(game.disputes.values(), key=lambda d: d["dispute"]):
            if d["status"] == "open" and d["seat"] in seats and set(versions) <= set(d["versions"]):
                return int(d["dispute"])
        return None

    def open_dispute(
        self,
        game_id: UUID | str,
        player: str,
        versions: list[int],
        text: str,
        messages: list[int] | None = None,
        before_write: Callable[[Game], None] | None = None,
    ) -> OpenedDispute:
        """A seat disputes events of the record (``versions``), citing table talk (``messages``).
        One open dispute per seat per event: a submission about events the seat already disputes
        is answered with that open dispute (a repeated or concurrent one too); one that names
        some of them among others is refused, naming it. ``before_write`` is called when a new
        dispute is about to be written (the API's rate limit: it may refuse)."""
        clean = clean_text(text, MAX_DISPUTE_TEXT, "what is wrong", "dispute/bad_text")
        wanted = sorted(set(versions))

        def attempt() -> OpenedDispute:
            game = self.get_game(game_id)
            seats = game.seats_of(player)
            if not seats:
                raise ForbiddenError("Only a player of the game opens a dispute.", code="game/not_seated")
            if game.sandbox:
                raise ConflictError("A sandbox fork has nothing to dispute.", code="dispute/sandbox")
            if game.status == ANNULLED:
                raise ConflictError("The game is annulled.", code="game/annulled")
            bad = [v for v in wanted if not 1 <= v <= game.version]
            if not wanted or bad:
                raise InvalidRequestError(
                    f"Name the disputed events by version, 1 to {game.version}.", code="dispute/bad_versions"
                )
            existing = self.open_dispute_about(game, player, wanted)
            if existing is not None:
                return OpenedDispute(game, existing, existing=True)
            for d in sorted(game.disputes.values(), key=lambda d: d["dispute"]):
                overlap = set(wanted) & set(d["versions"])
                if d["status"] == "open" and d["seat"] in seats and overlap:
                    raise ConflictError(
                        f"You already dispute event {spans(overlap)} in dispute {d['dispute']}, which is "
                        "still open: one open dispute per event.",
                        code="dispute/already_open",
                        dispute=d["dispute"],
                    )
            if len(game.disputes) >= MAX_DISPUTES:
                raise ConflictError(
                    f"This game has had {MAX_DISPUTES} disputes, the most it takes.", code="dispute/too_many"
                )
            cited = self.cited_messages(game, messages or [])
            if before_write is not None:
                before_write(game)
            number = game.open_dispute(seats[0], wanted, clean, self.clock(), cited)
            self._save_game(game)
            return OpenedDispute(game, number)

        # a twin written at the same moment: read again, and it is the one open already
        return retrying(attempt, code="game/stale_version", clashes=(StaleVersionError,))

    def correctable_from(self, game: Game) -> int | None:
        """The first event a correction may set aside: the one after the game's start (None: it
        has not started)."""
        first_events = self.events.get(game.id, lte=game.seat_count + 2)  # created, seats, started
        started = next((int(e.originator_version) for e in first_events if isinstance(e, Game.Started)), None)
        return None if started is None else started + 1

    def resolve_dispute(
        self,
        game_id: UUID | str,
        number: int,
        outcome: str,
        note: str,
        rewind_to: int | None = None,
        by: str = ADMIN,
    ) -> Game:
        """The adjudication by ``by`` (the game's adjudicator, or the operator), recorded in the
        game's stream with who ruled: ``no_change``; ``correction``: the game goes back to the
        position before event ``rewind_to`` by a compensating event (a running game only: a
        finished game's seed is public); or ``annulment``: the game is void and no result of it
        counts."""
        game = self.get_game(game_id)
        dispute = game.disputes.get(str(number))
        if dispute is None:
            raise NotFoundError(f"The game has no dispute {number}.", code="dispute/not_found")
        self._check_adjudicator(game, by)
        if dispute["status"] != "open":
            raise ConflictError("The dispute is already resolved.", code="dispute/resolved")
        if outcome not in OUTCOMES:
            raise InvalidRequestError(
                "The outcome is no_change, correction or annulment.", code="dispute/bad_outcome"
            )
        clean = note.strip() and clean_text(note, MAX_NOTE, "the note", "dispute/bad_note")
        now = self.clock()
        if outcome == "correction":
            if game.status != ACTIVE:
                raise ConflictError(
                    "Only a running game can be corrected (once it ends its seed is public); annul it instead.",
                    code="dispute/not_correctable",
                )
            first = self.correctable_from(game)
            if rewind_to is None or first is None or not first <= rewind_to <= game.version:
                raise InvalidRequestError(
                    f"A correction names the first event to set aside (rewind_to, {first} to {game.version}).",
                    code="dispute/bad_rewind",
                )
        game.resolve_dispute(number, outcome, clean, by, now)
        if outcome == "correction":
            assert rewind_to is not None
            before = self.get_game(game.id, version=rewind_to - 1)
            game.undo(-1, rewind_to, before.state, before.draws, [], now, dispute=number)
            self._run_automatic(game)  # a draw due at that position is re-derived: the same outcome
        elif outcome == "annulment" and game.status != ANNULLED:
            game.annul(by, f"dispute {number}: {clean[:500]}", now)
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

    def forkable_at(self, origin: Game, version: int) -> Game:
        """The position after event ``version`` of ``origin``, if a what-if fork may start there
        (else the refusal: a running game's position that hides something, one not started or
        with nothing left to play)."""
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
        return at

    def fork(self, game_id: UUID | str, player: str, version: int, bots: list[int] | None = None) -> Game:
        """A sandbox game from the position after event ``version`` of another game, played
        hotseat by ``player`` (bots on the seats listed). Never in a league; a running game's
        position is forked only when nothing in it is hidden from anyone."""
        origin = self.get_game(game_id)
        at = self.forkable_at(origin, version)
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

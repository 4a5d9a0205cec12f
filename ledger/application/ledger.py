"""The ledger: thin use cases over the Game, Player and League aggregates (its league use cases
in ``leagues``, taking a decision back in ``undo``, table talk in ``talk``, disputes, rules
migrations and forks in ``disputes``).

Each use case loads, decides, saves and returns (STYLE.md item 7). Storage is
eventsourcing's own (SQLite or PostgreSQL, chosen by the environment given);
nothing here knows HTTP or SQL.
"""

from __future__ import annotations

import base64
import secrets
import time
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Repository
from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import IntegrityError
from pydantic import ValidationError

from ledger import registry, snapshots
from ledger.accounts import matching_token
from ledger.accounts import token_hash as _token_hash
from ledger.application.disputes import DisputeUseCases
from ledger.application.invitations import InvitationUseCases
from ledger.application.leagues import LeagueUseCases
from ledger.application.repository import CopyOnReadRepository
from ledger.application.seasons import SeasonUseCases
from ledger.application.talk import TalkUseCases
from ledger.application.undo import UndoUseCases
from ledger.canonical import canonical, sha256_hex
from ledger.clocks import parse_time_control
from ledger.defaults import default_decision
from ledger.domain import ABANDONED, ACTIVE, ANNULLED, BOT, FINISHED, WAITING, Game, Player
from ledger.engine import DrawOutcome
from ledger.errors import (
    AuthError,
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    StaleVersionError,
)
from ledger.export import event_record, visible_effects
from ledger.orders import apply_orders, parse_replies, parse_rules
from ledger.preview import checked_decision, first_error
from ledger.retry import retrying
from ledger.rng import derive_draw
from ledger.standin import stand_in_decision

IDEMPOTENCY_NAMESPACE = uuid.UUID("6f1d8c52-3c1a-4d0e-9a57-1e2b7c1f0a11")
MAX_NAME = 40
# The automatic decisions (standing orders, conditional replies, the stand-in, forfeited and
# sandbox seats) one seat may make in a row, and one request in all. No turn of any title takes a
# seat near 200 small steps; the card game lets quality cards go to the reserve and back without
# end within one action, and an order taking the first such move decided for ever. A whole game
# played by bots in a sandbox stays well under the request's bound.
MAX_TURN_STEPS = 200
MAX_REQUEST_STEPS = 10_000


@dataclass
class _Run:
    """The automatic decisions of one request: how many, and who made the last ones in a row."""

    steps: int = 0
    seat: int | None = None
    in_a_row: int = 0

    def within(self, seat: int) -> bool:
        """Whether the seat may make one more automatic decision in this run."""
        return seat != self.seat or self.in_a_row < MAX_TURN_STEPS

    def count(self, seat: int) -> None:
        self.steps += 1
        self.in_a_row = self.in_a_row + 1 if seat == self.seat else 1
        self.seat = seat


AUTH_RECHECK_SECONDS = 2.0  # how long a verified token is trusted before the store is asked again
NOTIFICATION_KINDS = (
    "your_turn",
    "game_started",
    "game_finished",
    "timed_out",
    "dispute_opened",
    "dispute_resolved",
)


@dataclass(frozen=True)
class DecisionResult:
    game_id: UUID
    version: int
    first_version: int
    effects: list[dict[str, Any]] = field(default_factory=list)
    replayed: bool = False
    position: int | None = None  # the notification id of the last event written
    game: Game | None = field(default=None, compare=False, repr=False)  # as saved, when it was


SNAPSHOTS_DUE_MAX = 10_000
ENDINGS = (
    snapshots.ENDINGS
)  # an ending records no position: the check reads back to the last (ledger/snapshots.py)


class Ledger(LeagueUseCases, SeasonUseCases, UndoUseCases, TalkUseCases, DisputeUseCases, InvitationUseCases):
    """Games and players, event-sourced."""

    name = "Ledger"  # pinned: table names and env prefix derive from it
    log_section_size = 1000
    snapshotting_intervals = {Game: 50}
    # A game's snapshot interval by title, so that the events replayed through the rules
    # after the latest snapshot cost about 2 ms at most here (replay µs/event measured by
    # tests/benchmarks: Water Frame ~90, Cotton Trade ~70, the card game ~270); a snapshot
    # is 4-7 KB and 0.3 ms to take.
    game_snapshot_intervals = {"water-frame": 20, "cotton-trade": 25, "arkwright-card-game": 8}

    env = {"AGGREGATE_CACHE_MAXSIZE": "2000"}  # fast-forwarded from the store on every get

    # Where ids, tokens and game seeds come from unless a ledger is given its own source; the
    # test suite swaps it for a seeded generator so that every test's games are reproducible.
    default_entropy: Callable[[int], bytes] = staticmethod(secrets.token_bytes)

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        entropy: Callable[[int], bytes] | None = None,
        vacation_days_per_year: int = 30,
    ) -> None:
        super().__init__(env)
        self.clock = clock or DomainEvent.create_timestamp
        self.entropy = entropy or type(self).default_entropy
        self.vacation_days_per_year = vacation_days_per_year
        # token hash -> (its player, the token's id, until when the verification holds)
        self._authenticated: dict[str, tuple[Player, str, float]] = {}
        self.on_saved: list[Callable[[list[Any]], None]] = []  # told of every save (api.changefeed)
        # games whose interval was crossed by an event recording no position: snapshot at the next
        # event that records one (insertion-ordered, at most SNAPSHOTS_DUE_MAX, oldest dropped)
        self._snapshot_due: dict[Any, None] = {}

    def _take_snapshots(self, processing_event: Any) -> None:
        """Snapshot the aggregate just saved, in memory, whenever its new events cross a
        multiple of its interval (the library would reload it from the store to snapshot the
        exact multiple: a replay of up to an interval of events through the rules, in the
        request)."""
        if not self.snapshots:
            return
        crossed: set[Any] = set()
        last: dict[Any, Any] = {}  # each aggregate's last event in this save
        for event in processing_event.events:
            aggregate = processing_event.aggregates.get(event.originator_id)
            last[event.originator_id] = event
            interval = self.snapshot_interval(aggregate) if aggregate is not None else None
            if interval and event.originator_version % interval == 0:
                crossed.add(event.originator_id)
        for aggregate_id in crossed | (self._snapshot_due.keys() & last.keys()):
            aggregate = processing_event.aggregates[aggregate_id]
            if (
                isinstance(aggregate, Game)
                and aggregate.state is not None
                and "state_digest" not in getattr(last[aggregate_id], "public", {})
                and getattr(last[aggregate_id], "TOPIC", None) not in ENDINGS
            ):
                # A snapshot is checked against the last event at or before it that records a
                # position's digest (ledger/snapshots.py): taken after events that record none
                # (undo requests refused, again and again), every load would read back through
                # them all. Wait for the game's next event that records one.
                self._snapshot_due[aggregate_id] = None
                while len(self._snapshot_due) > SNAPSHOTS_DUE_MAX:
                    del self._snapshot_due[next(iter(self._snapshot_due))]
                continue
            self._snapshot_due.pop(aggregate_id, None)
            self.snapshots.put([type(aggregate).Snapshot.take(aggregate)])

    def _notify(self, recordings: list[Any]) -> None:
        """After every save (the events are committed): tell whoever follows the ledger."""
        for listener in self.on_saved:
            listener(recordings)

    def snapshot_interval(self, aggregate: Any) -> int | None:
        if isinstance(aggregate, Game):
            return self.game_snapshot_intervals.get(aggregate.title, self.snapshotting_intervals[Game])
        return self.snapshotting_intervals.get(type(aggregate))

    # -- players ------------------------------------------------------------

    def register_player(self, name: str, *, bot: bool = False) -> tuple[UUID, str]:
        """Register a player (``bot``: played by a program); returns the id and a bearer token
        shown only this once. The id and the token's secret come from ``entropy`` alone."""
        clean = unicodedata.normalize("NFC", name).strip()
        if not 1 <= len(clean) <= MAX_NAME or not clean.isprintable():
            raise InvalidRequestError(
                f"A player name is 1 to {MAX_NAME} printable characters.", code="request/invalid_name"
            )
        player_id = uuid.UUID(bytes=self.entropy(16), version=4)
        secret = base64.urlsafe_b64encode(self.entropy(24)).decode().rstrip("=")
        token = f"gl_{player_id.hex}_{secret}"
        self.save(Player.register(player_id, clean, _token_hash(token), self.clock(), bot=bot))
        return player_id, token

    def authenticate(self, token: str) -> Player:
        return self.verify_token(token)[0]

    def verify_token(self, token: str) -> tuple[Player, str]:
        """The player holding this bearer token, and the token's id (``first``: the one given at
        registration). A token is found by the player id it names, then its SHA-256 is compared
        in constant time with the player's active tokens. A verified token is remembered for
        ``AUTH_RECHECK_SECONDS`` (a revocation by another process takes effect within that)."""
        parts = token.split("_", 2)
        if len(parts) != 3 or parts[0] != "gl" or len(parts[1]) != 32:
            raise AuthError("The bearer token is not a gameledger token.")
        digest = _token_hash(token)
        known = self._authenticated.get(digest)
        if known is not None and known[2] > time.monotonic():
            return known[0], known[1]
        try:
            player: Any = self.repository.get(UUID(hex=parts[1]))
        except (AggregateNotFoundError, ValueError):
            raise AuthError("Unknown bearer token.") from None
        token_id = matching_token(player, digest) if isinstance(player, Player) else None
        if token_id is None:
            self._authenticated.pop(digest, None)
            raise AuthError("Unknown bearer token.")
        if len(self._authenticated) >= 50_000:
            self._authenticated.clear()
        self._authenticated[digest] = (player, token_id, time.monotonic() + AUTH_RECHECK_SECONDS)
        return player, token_id

    def known_token(self, token: str) -> tuple[Player, str] | None:
        """What ``verify_token`` would answer from what this process remembers, without reading
        the store: None when the token is not (or no longer) remembered, or is not well formed."""
        parts = token.split("_", 2)
        if len(parts) != 3 or parts[0] != "gl" or len(parts[1]) != 32:
            return None
        known = self._authenticated.get(_token_hash(token))
        if known is not None and known[2] > time.monotonic():
            return known[0], known[1]
        return None

    def forget_credentials(self, player_id: UUID | str) -> None:
        """Verify the player's tokens again from the store on their next use (after a revocation)."""
        pid = str(player_id)
        for digest, (player, _, _) in list(self._authenticated.items()):
            if str(player.id) == pid:
                self._authenticated.pop(digest, None)

    def get_player(self, player_id: UUID | str) -> Player:
        try:
            player: Any = self.repository.get(UUID(str(player_id)))
        except (AggregateNotFoundError, ValueError):
            raise NotFoundError(f"No player {player_id}.", code="player/not_found") from None
        if not isinstance(player, Player):
            raise NotFoundError(f"No player {player_id}.", code="player/not_found")
        return player

    # -- games ----------------------------------------------------------------

    def get_game(self, game_id: UUID | str, version: int | None = None) -> Game:
        try:
            gid = UUID(str(game_id))
            game: Any = self.repository.get(gid, version=version)
        except (AggregateNotFoundError, ValueError):
            raise NotFoundError(f"No game {game_id}.") from None
        if not isinstance(game, Game):
            raise NotFoundError(f"No game {game_id}.")
        if version is not None and game.version != version:
            raise NotFoundError(f"Game {game_id} has no version {version}.", code="game/no_such_version")
        return game

    def create_game(
        self,
        *,
        creator: str,
        title: str,
        options: dict[str, Any] | None = None,
        seats: int | None = None,
        players: list[str] | None = None,
        join: bool = True,
        idempotency_key: str | None = None,
        league: str | None = None,
        time_control: dict[str, Any] | None = None,
        seed: bytes | None = None,
        private: bool = False,
    ) -> Game:
        """``seed``: the game's draws from a given seed (a reproducible simulation), never
        from a caller over the network; default: fresh entropy. Run again when a game was
        added to the same league at the same moment (the league's version clashed)."""

        def attempt() -> Game:
            meta = registry.meta(title)
            clock = parse_time_control(time_control)
            league_agg = self._league_for_new_game(league, creator, title) if league else None
            try:
                opts = meta.options.model_validate(options or {})
            except ValidationError as exc:
                raise InvalidRequestError(
                    f"Invalid options for {meta.name}: {first_error(exc)}", code="request/invalid_options"
                ) from None
            if players:
                seat_list: list[str | None] = [str(self.get_player(p).id) for p in players]
                if len(set(seat_list)) != len(seat_list):
                    raise InvalidRequestError(
                        "A player can hold only one seat.", code="request/duplicate_player"
                    )
                if league_agg is not None:
                    for seated in seat_list:
                        self._check_admitted(league_agg, str(seated))
            else:
                n = seats if seats is not None else meta.min_players
                seat_list = [None] * n
                if join:
                    seat_list[0] = creator
            count = len(seat_list)
            if not meta.min_players <= count <= meta.max_players:
                raise InvalidRequestError(
                    f"{meta.name} is for {meta.min_players} to {meta.max_players} players.",
                    code="game/player_count",
                )
            registry.engine(title).new_game(opts, count)  # refuses unplayable options now, not at start
            asked = {
                "title": title,
                "options": opts.model_dump(mode="json"),
                "seat_count": count,
                "seats": seat_list,
                "league": str(league_agg.id) if league_agg else None,
                "time_control": clock,
            }
            if private:  # compared with the first event's only when set (as it records it)
                asked["private"] = True
            if idempotency_key:
                game_id = uuid.uuid5(IDEMPOTENCY_NAMESPACE, f"{creator}:{idempotency_key}")
                existing = self._find_game(game_id)
                if existing is not None:
                    return self._same_creation(existing, asked)
            else:
                game_id = uuid.UUID(bytes=self.entropy(16), version=4)
            now = self.clock()
            game = Game.create(
                game_id=game_id,
                title=title,
                options=opts.model_dump(mode="json"),
                rules_version=meta.rules_version,
                seat_count=count,
                seats=seat_list,
                created_by=creator,
                seed=self.entropy(32) if seed is None else seed,
                timestamp=now,
                league=str(league_agg.id) if league_agg else None,
                time_control=clock,
                private=private,
            )
            if league_agg is not None:
                league_agg.add_game(str(game.id), now)
            if game.full:
                self._start(game)
            try:
                self.save(game, league_agg)
            except IntegrityError:
                existing = self._find_game(game_id)
                if existing is None:
                    raise
                return self._same_creation(existing, asked)
            return game

        return retrying(attempt, code="league/conflict")

    def _same_creation(self, existing: Game, asked: dict[str, Any]) -> Game:
        """The game an Idempotency-Key made before, if it was made by this very request (as
        its first event recorded it); otherwise the key was used for another request."""
        first = self.get_game(existing.id, version=1)
        made = {k: getattr(first, k) for k in asked}
        if canonical(made) != canonical(asked):
            raise ConflictError(
                "This Idempotency-Key was used for a different request.",
                code="request/idempotency_key_reused",
            )
        return existing

    def abandon(self, game_id: UUID | str, by: str, reason: str) -> Game:
        """End a game without a result (the operator's call); its seed is revealed."""
        game = self.get_game(game_id)
        if game.status in (FINISHED, ABANDONED, ANNULLED):
            raise ConflictError(f"The game is already {game.status}.", code=f"game/{game.status}")
        game.abandon(by, reason, self.clock())
        self._save_game(game)
        return game

    def join(self, game_id: UUID | str, player: str) -> Game:
        """Take the first free seat; run again on the new version when someone else took a
        seat at the same moment (the next free one is then taken)."""
        return retrying(
            lambda: self._join(game_id, player),
            code="game/stale_version",
            message="Others joined at the same moment; try again.",
            clashes=(StaleVersionError,),
        )

    def _join(self, game_id: UUID | str, player: str) -> Game:
        game = self.get_game(game_id)
        if game.status != WAITING:
            raise ConflictError("The game has already started.", code="game/already_started")
        if player in game.seats:
            raise ConflictError("You already hold a seat in this game.", code="game/already_seated")
        if game.league:
            self._check_admitted(self.get_league(game.league), player)
        now = self.clock()
        held = game.reserved(now.isoformat())
        free = [i for i, p in enumerate(game.seats) if p is None and i not in held]
        if game.private:  # only a seat its creator opened to anyone with the address
            free = [i for i in free if i in game.opened]
            if not free:
                raise ForbiddenError(
                    "This table is private: it is joined by invitation only.", code="game/private_table"
                )
        if not free:
            raise ConflictError("Every free seat is held for an invited player.", code="game/seats_reserved")
        seat = free[0]
        game.claim_seat(seat, player, now)
        if game.full:
            self._start(game)
        self._save_game(game)
        return game

    def decide(
        self,
        game_id: UUID | str,
        player: str,
        expected_version: int,
        decision: dict[str, Any],
        *,
        seat: int | None = None,
        idempotency_key: str | None = None,
    ) -> DecisionResult:
        game = self.get_game(game_id)
        request = None
        if idempotency_key:
            request = {
                "key": f"{player}:{idempotency_key}",
                "hash": sha256_hex(canonical({"v": expected_version, "d": decision, "s": seat})),
            }
            seen = game.requests.get(request["key"])
            if seen is not None:
                if seen[0] != request["hash"]:
                    raise ConflictError(
                        "This Idempotency-Key was used for a different request.",
                        code="request/idempotency_key_reused",
                    )
                return self._replay_result(game, player, first_version=seen[1])
        seats, deciding, parsed = checked_decision(game, player, expected_version, decision, seat)
        first = game.version + 1
        game.record_decision(deciding, player, parsed, self.clock(), request)
        self._run_automatic(game)
        try:
            recordings = self._save_game(game)
        except StaleVersionError:
            # Another request won the race; if it was this very request (the same
            # Idempotency-Key sent twice at once, or a retry after a lost commit
            # acknowledgement), answer as the replay it is rather than as a conflict.
            if request is not None:
                won = self.get_game(game_id)
                seen = won.requests.get(request["key"])
                if seen is not None and seen[0] == request["hash"]:
                    return self._replay_result(won, player, first_version=seen[1])
            raise
        finished = game.over
        viewer = set(seats)
        effects = [
            fx for r in recordings for fx in visible_effects(event_record(r.domain_event), viewer, finished)
        ]
        return DecisionResult(
            game_id=game.id,
            version=game.version,
            first_version=first,
            effects=effects,
            position=recordings[-1].notification.id if recordings else None,
            game=game,
        )

    # -- clocks ----------------------------------------------------------------

    def expire(self, game_id: UUID | str, now: datetime | None = None) -> list[int]:
        """Record a timeout for every awaited seat whose clock has run out, with the game's
        consequence; returns those seats (none if another writer got there first)."""
        game = self.get_game(game_id)
        if game.status != ACTIVE or not game.clocks.timed:
            return []
        now = now or self.clock()
        consequence = game.time_control["on_expiry"]
        expired: list[int] = []
        for seat in list(game.awaiting):
            if seat in game.forfeited or seat not in game.awaiting or game.status != ACTIVE:
                continue
            left = game.clocks.remaining(seat, game.awaiting, now)
            if left is None or left > 0:
                continue
            game.time_out(seat, consequence, -left, now)
            expired.append(seat)
            if seat in game.awaiting and consequence != BOT:  # else the stand-in plays it, below
                mode = "skip" if consequence == "skip" else "default"
                decision = default_decision(game.title, game.state, seat, mode)
                game.record_decision(seat, game.seats[seat] or "", decision, now, forced="timeout")
            self._run_automatic(game)
        if expired:
            try:
                self._save_game(game)
            except StaleVersionError:
                return []
        return expired

    def return_to_game(self, game_id: UUID | str, player: str) -> Game:
        """The player takes their seat back from the stand-in."""
        game = self.get_game(game_id)
        seats = [s for s in game.seats_of(player) if s in game.stand_in]
        if not game.seats_of(player):
            raise ForbiddenError("Only a player of the game returns to it.", code="game/not_seated")
        if game.status != ACTIVE or not seats:
            raise ConflictError("No stand-in plays your seat.", code="game/not_away")
        for seat in seats:
            game.player_returned(seat, self.clock())
        self._save_game(game)
        return game

    def start_vacation(self, player: str, days: int) -> tuple[datetime, datetime]:
        """Stop the player's clocks for ``days`` days, within the yearly allowance."""
        return retrying(lambda: self._start_vacation(player, days), code="player/conflict")

    def _start_vacation(self, player: str, days: int) -> tuple[datetime, datetime]:
        p = self.get_player(player)
        now = self.clock()
        if p.on_vacation(now):
            raise ConflictError("You are already on vacation.", code="vacation/already")
        allowance = self.vacation_days_per_year
        used = p.vacation_days_used(now.year)
        if not 1 <= days <= allowance - used:
            raise InvalidRequestError(
                f"A vacation is 1 to {allowance - used} days: {used} of {allowance} days used this year.",
                code="vacation/allowance",
            )
        until = now + timedelta(days=days)
        p.start_vacation(now, until, days)
        self.save(p)
        return now, until

    def end_vacation(self, player: str) -> datetime:
        return retrying(lambda: self._end_vacation(player), code="player/conflict")

    def _end_vacation(self, player: str) -> datetime:
        p = self.get_player(player)
        now = self.clock()
        if not p.on_vacation(now):
            raise ConflictError("You are not on vacation.", code="vacation/none")
        p.end_vacation(now)
        self.save(p)
        return now

    def apply_vacation(self, game_id: UUID | str, player: str) -> bool:
        """Bring a game's clocks in line with the player's vacation (paused, or resumed early)."""
        game = self.get_game(game_id)
        p = self.get_player(player)
        if game.status != ACTIVE or not game.clocks.timed or not p.vacations:
            return False
        start, until = p.vacations[-1]
        now = self.clock()
        changed = False
        for seat in game.seats_of(player):
            paused = game.clocks.paused.get(seat)
            if paused is None or paused[0] != start:
                if datetime.fromisoformat(until) > now:
                    game.pause_clock(seat, datetime.fromisoformat(start), datetime.fromisoformat(until), now)
                    changed = True
            elif paused[1] != until:
                game.resume_clock(seat, datetime.fromisoformat(until), now)
                changed = True
        if changed:
            self._save_game(game)
        return changed

    # -- notifications ---------------------------------------------------------------

    def set_notifications(
        self, player: str, kinds: list[str] | None, webhook_url: str | None, new_secret: bool = False
    ) -> Player:
        """The player's notification settings (run again on the new version after a clash:
        the last writer's settings hold)."""
        return retrying(
            lambda: self._set_notifications(player, kinds, webhook_url, new_secret), code="player/conflict"
        )

    def _set_notifications(
        self, player: str, kinds: list[str] | None, webhook_url: str | None, new_secret: bool
    ) -> Player:
        p = self.get_player(player)
        wanted = list(NOTIFICATION_KINDS) if kinds is None else kinds
        unknown = sorted(set(wanted) - set(NOTIFICATION_KINDS))
        if unknown:
            raise InvalidRequestError(
                f"Unknown notification kinds {unknown}; choose from {list(NOTIFICATION_KINDS)}.",
                code="request/invalid_notification_kind",
            )
        if webhook_url and not webhook_url.startswith(("https://", "http://")):
            raise InvalidRequestError("A webhook is an http(s) URL.", code="request/invalid_webhook")
        secret = p.webhook_secret
        if webhook_url and (new_secret or not secret):
            secret = "whsec_" + base64.urlsafe_b64encode(self.entropy(24)).decode().rstrip("=")
        p.set_notifications(wanted, webhook_url or None, secret if webhook_url else None, self.clock())
        self.save(p)
        return p

    # -- internals -------------------------------------------------------------

    def _find_game(self, game_id: UUID) -> Game | None:
        try:
            return self.get_game(game_id)
        except NotFoundError:
            return None

    def _start(self, game: Game) -> None:
        game.start(self.clock())
        self._run_automatic(game)

    def _run_automatic(self, game: Game) -> None:
        """Derive and record every random draw that is due, make every automatic decision (a
        forfeited seat's default, a sandbox bot's, an armed reply or standing order, the
        stand-in's), and finish a game that is over. Bounded: a seat makes at most
        ``MAX_TURN_STEPS`` automatic decisions in a row (then a standing order is dropped with a
        note to its owner, and a machine seat takes the default that ends its turn), and a
        request at most ``MAX_REQUEST_STEPS``; the game counts them (``automatic_decisions``)."""
        eng = game.engine
        turn = _Run()
        while True:
            pending = eng.pending(game.state)
            if pending.draw is not None:
                values = derive_draw(game.seed_bytes, game.draws, pending.draw)
                game.record_draw(DrawOutcome(pending.draw.key, values), self.clock())
                continue
            if pending.finished:
                if game.status != FINISHED:
                    game.finish(self.clock())
                break
            if turn.steps >= MAX_REQUEST_STEPS:
                break  # the game waits for the next request to go on
            forfeited = [s for s in pending.seats if s in game.forfeited]
            if forfeited:
                seat = forfeited[0]
                mode = "default" if turn.within(seat) else "skip"
                decision = default_decision(game.title, game.state, seat, mode)
                game.record_decision(seat, game.seats[seat] or "", decision, self.clock(), forced="forfeit")
                turn.count(seat)
                continue
            bots = [s for s in pending.seats if game.seats[s] == BOT]
            if bots:  # a sandbox seat played by the strong bot
                seat = bots[0]
                game.record_decision(seat, BOT, self._machine_decision(game, seat, turn), self.clock())
                turn.count(seat)
                continue
            if game.orders or game.replies:
                acted = self._standing(game, pending.seats, turn)
                if acted is not None:
                    continue  # a standing order or conditional reply decided, or was dropped
            away = [s for s in pending.seats if s in game.stand_in]
            if away:  # a player whose clock ran out: the stand-in plays
                seat = away[0]
                decision = self._machine_decision(game, seat, turn)
                game.record_decision(seat, game.seats[seat] or "", decision, self.clock(), by=BOT)
                turn.count(seat)
                continue
            break
        game.count_automatic(turn.steps)

    def _machine_decision(self, game: Game, seat: int, turn: _Run) -> Any:
        """The strong bot's decision for a seat, or past the bound the default that ends its turn."""
        if turn.within(seat):
            return stand_in_decision(game.title, game.state, seat, game.seed_bytes, game.version + 1)
        return default_decision(game.title, game.state, seat, "skip")

    def _standing(self, game: Game, awaited: tuple[int, ...] | list[int], turn: _Run) -> int | None:
        """An awaited seat's armed conditional reply, else its standing order, decides for it (or
        a rule that can no longer act is dropped with a note); the seat, if anything was recorded.
        A seat whose orders have decided ``MAX_TURN_STEPS`` times in a row has them all dropped."""
        eng = game.engine
        for seat in awaited:
            player = game.seats[seat] or ""
            armed = game.replies.get(str(seat), {}).get("armed")
            if armed is not None:
                reply = eng.decision_adapter.validate_python(armed["reply"])
                if reply in eng.legal_decisions(game.state, seat):
                    game.record_decision(
                        seat, player, reply, self.clock(), by="reply", made_by={"reply": armed["id"]}
                    )
                    turn.count(seat)
                else:
                    game.drop_reply(
                        seat, armed["id"], "the reply was not legal when it was due", self.clock()
                    )
                return seat
            rules = game.orders.get(str(seat))
            if not rules:
                continue
            if not turn.within(seat):
                note = (
                    f"it made {MAX_TURN_STEPS} decisions in a row without the turn passing, "
                    "the most a turn may take; the seat is yours to play again"
                )
                game.drop_orders(seat, tuple((r["id"], note) for r in rules), self.clock())
                return seat
            out = apply_orders(game.title, game.state, seat, rules, game.version + 1, game.seed_bytes)
            if out.dropped:
                game.drop_orders(seat, out.dropped, self.clock())
            if out.decision is not None:
                game.record_decision(
                    seat, player, out.decision, self.clock(), by="order", made_by={"order": out.order}
                )
                turn.count(seat)
            if out.dropped or out.decision is not None:
                return seat
        return None

    # -- standing orders and conditional replies ---------------------------------------------

    def _own_seat(self, game: Game, player: str) -> int:
        seats = game.seats_of(player)
        if not seats:
            raise ForbiddenError("Only a player of the game has orders in it.", code="game/not_seated")
        return seats[0]

    def set_orders(self, game_id: UUID | str, player: str, rules: list[dict[str, Any]]) -> Game:
        """Replace the caller's standing order (an empty list removes it); it acts at once when the
        seat is awaited now."""
        game = self.get_game(game_id)
        seat = self._own_seat(game, player)
        if game.status not in (WAITING, ACTIVE):
            raise ConflictError(f"The game is {game.status}.", code=f"game/{game.status}")
        parsed = parse_rules(game.title, rules)
        game.set_orders(seat, parsed, self.clock())
        if game.status == ACTIVE:
            self._run_automatic(game)
        self._save_game(game)
        return game

    def set_replies(self, game_id: UUID | str, player: str, replies: list[dict[str, Any]]) -> Game:
        """Replace the caller's conditional replies (an empty list removes them)."""
        game = self.get_game(game_id)
        seat = self._own_seat(game, player)
        if game.status != ACTIVE:
            raise ConflictError("Replies are for a running game.", code="game/not_active")
        parsed = parse_replies(game.title, game.seat_count, seat, replies)
        game.set_replies(seat, parsed, self.clock())
        self._save_game(game)
        return game

    def _save_game(self, game: Game) -> list[Any]:
        """Save the game's new events; a concurrent writer that won makes this a stale request."""
        try:
            recordings = self.save(game)
        except IntegrityError:
            raise StaleVersionError(
                "Another decision was recorded first; reload and decide again.",
                current_version=None,
            ) from None
        self._cache(game)
        return recordings

    def _cache(self, game: Game) -> None:
        """Keep (a copy of) the game just saved in the repository's cache: the next load
        fast-forwards it from the store (events other processes wrote), instead of re-applying
        our own events."""
        repository = self.repository
        if isinstance(repository, CopyOnReadRepository):
            repository.put(game)

    def construct_repository(self) -> Repository[UUID]:
        size = self.env.get(self.AGGREGATE_CACHE_MAXSIZE)
        return CopyOnReadRepository(
            event_store=self.events,
            snapshot_store=self.snapshots,
            cache_maxsize=int(size) if size else None,
        )

    def _replay_result(self, game: Game, player: str, first_version: int) -> DecisionResult:
        seats = set(game.seats_of(player))
        effects: list[dict[str, Any]] = []
        last = first_version
        for event in self.events.get(game.id, gt=first_version - 1):
            record = event_record(event)
            if record["version"] > first_version and record["type"] == Game.DecisionRecorded.TOPIC:
                break
            last = record["version"]
            effects.extend(visible_effects(record, seats, game.over))
        # a position the read models reach only once they hold the first answer's events
        position = self.recorder.max_notification_id()
        return DecisionResult(
            game_id=game.id,
            version=last,
            first_version=first_version,
            effects=effects,
            replayed=True,
            position=position,
        )

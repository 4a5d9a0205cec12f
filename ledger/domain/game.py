"""The Game aggregate.

A Game's stream is: created (title, options, rules version, seats, the seed's
commitment) -> seats claimed -> started -> decisions and draws interleaved ->
finished (standings, seed revealed). Each event is sealed into the per-game
hash chain (``ledger.records``). The rules engine's state is never stored in
an event: it is rebuilt by replaying the decisions and draws through the
title's engine (snapshots hold it only as a cache of that replay).

Topics are explicit and stable (STYLE.md item 8): renaming a class must never
change what is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.domain import Snapshot as LibrarySnapshot
from eventsourcing.utils import register_topic

from ledger import records
from ledger.clocks import Clocks
from ledger.engine import Decision, DrawOutcome, Effect, RulesEngine, final_standings
from ledger.records import split_effects
from ledger.registry import engine as title_engine
from ledger.rng import seed_commitment

WAITING, ACTIVE, FINISHED, ABANDONED, ANNULLED = "waiting", "active", "finished", "abandoned", "annulled"
BOT = "bot"  # a seat played by the title's bot (sandbox forks)
ADMIN = "admin"  # the operator, where the record names who acted


def with_status(
    invitations: dict[str, dict[str, Any]], number: int, status: str
) -> dict[str, dict[str, Any]]:
    """A copy of a game's invitations with one's status replaced."""
    return {k: ({**v, "status": status} if k == str(number) else v) for k, v in invitations.items()}


def with_seat(by_seat: dict[str, Any], seat: int, value: Any) -> dict[str, Any]:
    """A copy of a per-seat mapping with the seat's entry replaced (removed when empty)."""
    out = {k: v for k, v in by_seat.items() if k != str(seat)}
    if value:
        out[str(seat)] = value
    return out


@dataclass(frozen=True)
class _Precomputed:
    """The engine's result computed by the command, reused by the event's ``apply``."""

    version: int
    state: Any


class Game(Aggregate):
    TOPIC = "gameledger.game"

    class Snapshot(LibrarySnapshot):
        """Holds the engine state as JSON (via the title's state adapter)."""

        TOPIC = "gameledger.game.snapshot"

        @classmethod
        def take(cls, aggregate: Any) -> Any:
            snap = super().take(aggregate)
            state = dict(snap.state)
            state.pop("_precomputed", None)
            state.pop("_automatic", None)
            for name in (
                "stand_in",
                "orders",
                "replies",
                "private",
                "invitations",
                "opened",
            ):  # absent while empty
                if not state.get(name):
                    state.pop(name, None)
            state["clocks"] = aggregate.clocks.to_dict()
            if state.get("state") is not None:
                eng = title_engine(state["title"])
                state["state"] = eng.state_adapter.dump_python(state["state"], mode="json")
            object.__setattr__(snap, "state", state)
            return snap

        def mutate(self, _: None) -> Any:
            game = cast(Game, super().mutate(_))
            game.clocks = Clocks.from_dict(cast(Any, game.clocks))
            for name, empty in (
                ("stand_in", ()),
                ("orders", {}),
                ("replies", {}),
                ("private", False),
                ("invitations", {}),
                ("opened", ()),
            ):  # older snapshots
                game.__dict__.setdefault(name, empty)
            game.stand_in = tuple(game.stand_in)
            game.opened = tuple(game.opened)
            if game.state is not None:
                game.state = title_engine(game.title).state_adapter.validate_python(game.state)
            return game

    class Created(Aggregate.Created):
        TOPIC = "gameledger.game.created"
        public: dict[str, Any]
        private: dict[str, Any]
        seed: str  # secret until the game is finished
        commitments: dict[str, str]
        prev_hash: str
        hash: str

        def apply_game(self, game: Game) -> None:
            """Nothing more: ``__init__`` has set the game up."""

    class Event(Aggregate.Event):
        """Every later game event: the sealed envelope of ``ledger.records``."""

        public: dict[str, Any]
        private: dict[str, Any]
        commitments: dict[str, str]
        prev_hash: str
        hash: str

        def apply(self, aggregate: Any) -> None:
            game = cast(Game, aggregate)
            if game.status == ACTIVE:  # time passes for the awaited seats (forfeited seats have no clock)
                game.clocks.advance(game.awaiting, self.timestamp, set(game.forfeited))
            game.head_hash = self.hash
            self.apply_game(game)

        def apply_game(self, game: Game) -> None:
            raise NotImplementedError

        def seat_part(self, key: str) -> Any:
            """What the event's private part for its seat holds under ``key`` (nothing: ())."""
            return self.private.get(records.seat_audience(self.public["seat"]), {}).get(key, ())

    class SeatClaimed(Event):
        TOPIC = "gameledger.game.seat_claimed"

        def apply_game(self, game: Game) -> None:
            game.seats[self.public["seat"]] = self.public["player"]
            number = self.public.get("invitation")  # taken by an invitation (private tables)
            if number is not None:
                game.invitations = with_status(game.invitations, number, "accepted")

    class InvitationIssued(Event):
        """The creator reserved a seat for a player named, an address mailed or a link to share.
        The record names the player, or the link's id only: never an address (the accounts
        store keeps the address and the link's secret, for the mail)."""

        TOPIC = "gameledger.game.invitation_issued"

        def apply_game(self, game: Game) -> None:
            p = self.public
            entry: dict[str, Any] = {
                k: p[k] for k in ("seat", "kind", "expires_at", "player", "link") if k in p
            }
            entry["by"] = p["invited_by"]
            game.invitations = {**game.invitations, str(p["invitation"]): {**entry, "status": "pending"}}

    class InvitationWithdrawn(Event):
        TOPIC = "gameledger.game.invitation_withdrawn"

        def apply_game(self, game: Game) -> None:
            game.invitations = with_status(game.invitations, self.public["invitation"], "withdrawn")

    class SeatOpened(Event):
        """The creator opened a seat to anyone with the table's address (an invitation that held
        it is withdrawn with it)."""

        TOPIC = "gameledger.game.seat_opened"

        def apply_game(self, game: Game) -> None:
            seat = self.public["seat"]
            for number, inv in game.invitations.items():
                if inv["seat"] == seat and inv["status"] == "pending":
                    game.invitations = with_status(game.invitations, int(number), "withdrawn")
            game.opened = tuple(sorted({*game.opened, seat}))

    class Started(Event):
        TOPIC = "gameledger.game.started"

        def apply_game(self, game: Game) -> None:
            game.status = ACTIVE
            state = game.take_precomputed(self.originator_version)
            stored = self.private.get(records.SERVER, {}).get("state")
            if state is None and stored is not None:  # a fork starts from its origin's position
                state = game.engine.state_adapter.validate_python(stored)
            game.state = state or game.engine.new_game(
                game.engine.meta.options.model_validate(game.options), game.seat_count
            )
            game.draws = self.public.get("draws", 0)
            game.awaiting = list(self.public["awaiting"])
            game.clocks.start(game.seat_count, self.timestamp)
            game.undoable = {}

    class DrawRecorded(Event):
        TOPIC = "gameledger.game.draw_recorded"

        def apply_game(self, game: Game) -> None:
            state = game.take_precomputed(self.originator_version)
            if state is None:
                values = self.public.get("outcome")
                if values is None:
                    values = self.private[records.SERVER]["outcome"]
                state, _ = game.engine.apply_draw(game.state, DrawOutcome(self.public["key"], tuple(values)))
            game.state = state
            game.draws += 1
            game.awaiting = list(self.public["awaiting"])

    class DecisionRecorded(Event):
        TOPIC = "gameledger.game.decision_recorded"

        def apply_game(self, game: Game) -> None:
            state = game.take_precomputed(self.originator_version)
            if state is None:
                decision = game.engine.decision_adapter.validate_python(self.public["decision"])
                state, _ = game.engine.apply(game.state, self.public["seat"], decision)
            game.state = state
            game.awaiting = list(self.public["awaiting"])
            by = self.public.get("by")  # absent: the seat's player; "order", "reply" or "bot" (stand-in)
            made_for = bool(self.public.get("forced")) or by == BOT
            game.clocks.moved(self.public["seat"], forced=made_for)
            if not made_for and not by and self.public["seat"] in game.stand_in:  # the player is back
                game.stand_in = tuple(s for s in game.stand_in if s != self.public["seat"])
            if game.orders or game.replies:
                game.after_decision(self.public["seat"], self.public["decision"], by, made_for, self.public)
            undoable = getattr(game, "undoable", None)  # None: restored from an older snapshot
            if undoable is not None and not made_for:
                game.undoable = {**undoable, str(self.public["seat"]): self.originator_version}
            request = self.private.get(records.SERVER, {}).get("request")
            if request:
                game.requests[request["key"]] = [request["hash"], self.originator_version]

    class TimedOut(Event):
        """A seat's clock ran out; the consequence chosen at creation follows."""

        TOPIC = "gameledger.game.timed_out"

        def apply_game(self, game: Game) -> None:
            if self.public["consequence"] == "forfeit" and self.public["seat"] not in game.forfeited:
                game.forfeited.append(self.public["seat"])
            if self.public["consequence"] == BOT and self.public["seat"] not in game.stand_in:
                game.stand_in = (*game.stand_in, self.public["seat"])  # the stand-in plays it
            game.undoable = {}  # nothing before a timeout can be taken back

    class OrdersSet(Event):
        """A seat's standing orders (the rules in its private part), replacing its earlier ones."""

        TOPIC = "gameledger.game.orders_set"

        def apply_game(self, game: Game) -> None:
            game.orders = with_seat(game.orders, self.public["seat"], tuple(self.seat_part("orders")))

    class OrdersDropped(Event):
        """Rules of a seat's standing order dropped, with a note to the seat (its private part)."""

        TOPIC = "gameledger.game.orders_dropped"

        def apply_game(self, game: Game) -> None:
            game.drop_rules(self.public["seat"], {d["order"] for d in self.seat_part("dropped")})

    class RepliesSet(Event):
        """A seat's conditional replies (private), replacing its earlier ones."""

        TOPIC = "gameledger.game.replies_set"

        def apply_game(self, game: Game) -> None:
            replies = tuple(self.seat_part("replies"))
            pending = {"pending": replies} if replies else None
            game.replies = with_seat(game.replies, self.public["seat"], pending)

    class ReplyDropped(Event):
        """A seat's armed reply was not legal when due: dropped, with a note to the seat."""

        TOPIC = "gameledger.game.reply_dropped"

        def apply_game(self, game: Game) -> None:
            game.replies = with_seat(game.replies, self.public["seat"], None)

    class PlayerReturned(Event):
        """The seat's player is back: the stand-in stops playing the seat."""

        TOPIC = "gameledger.game.player_returned"

        def apply_game(self, game: Game) -> None:
            game.stand_in = tuple(s for s in game.stand_in if s != self.public["seat"])

    class ClockPaused(Event):
        """The seat's player is on vacation from ``from`` until ``until``: the clock stops."""

        TOPIC = "gameledger.game.clock_paused"

        def apply_game(self, game: Game) -> None:
            game.clocks.paused[self.public["seat"]] = (self.public["from"], self.public["until"])

    class ClockResumed(Event):
        """A vacation ended early."""

        TOPIC = "gameledger.game.clock_resumed"

        def apply_game(self, game: Game) -> None:
            pause = game.clocks.paused.get(self.public["seat"])
            if pause:
                game.clocks.paused[self.public["seat"]] = (pause[0], self.public["at"])

    class UndoRequested(Event):
        """A seat asks every other player's consent to take back its decision at ``target_version``."""

        TOPIC = "gameledger.game.undo_requested"

        def apply_game(self, game: Game) -> None:
            game.undo_request = {
                "seat": self.public["seat"],
                "player": self.public["player"],
                "target_version": self.public["target_version"],
                "requested_at": self.timestamp.isoformat(),
                "answers": {},
            }

    class UndoAnswered(Event):
        TOPIC = "gameledger.game.undo_answered"

        def apply_game(self, game: Game) -> None:
            if game.undo_request is None:
                return
            if self.public["accept"]:
                game.undo_request["answers"][str(self.public["seat"])] = True
            else:
                game.undo_request = None  # declined: the request is closed

    class DecisionUndone(Event):
        """A compensating event: the game continues from the position before ``target_version``
        (recorded in the server's private part; its digests are those of that position).
        Nothing is deleted; the events from the target on stay in the record, undone."""

        TOPIC = "gameledger.game.decision_undone"

        def apply_game(self, game: Game) -> None:
            state = game.take_precomputed(self.originator_version)
            if state is None:
                state = game.engine.state_adapter.validate_python(self.private[records.SERVER]["state"])
            game.state = state
            game.draws = self.public["draws"]
            game.awaiting = list(self.public["awaiting"])
            game.undo_request = None
            game.undoable = {}  # nothing before an undo can be taken back again

    class Finished(Event):
        TOPIC = "gameledger.game.finished"

        def apply_game(self, game: Game) -> None:
            game.status = FINISHED
            game.awaiting = []
            game.standings = self.public["standings"]

    class Abandoned(Event):
        """The game ends without a result (operator's decision); the seed is revealed."""

        TOPIC = "gameledger.game.abandoned"

        def apply_game(self, game: Game) -> None:
            game.status = ABANDONED
            game.awaiting = []

    class DisputeOpened(Event):
        """A player disputes what events ``versions`` recorded; the organiser of the game's
        league (or the operator) adjudicates."""

        TOPIC = "gameledger.game.dispute_opened"

        def apply_game(self, game: Game) -> None:
            game.disputes[str(self.public["dispute"])] = {
                "dispute": self.public["dispute"],
                "seat": self.public["seat"],
                "player": self.public["player"],
                "versions": list(self.public["versions"]),
                "text": self.public["text"],
                "messages": list(self.public.get("messages", [])),  # the table talk it cites
                "opened_at": self.timestamp.isoformat(),
                "status": "open",
                "version": self.originator_version,  # the event that opened it
            }

    class DisputeResolved(Event):
        """The adjudication, naming who ruled (``by``: the league's organiser, or ``admin``, the
        operator): no change, a correction (by compensating events that follow this one) or the
        annulment of the game."""

        TOPIC = "gameledger.game.dispute_resolved"

        def apply_game(self, game: Game) -> None:
            d = game.disputes.get(str(self.public["dispute"]))
            if d is not None:
                d.update(
                    status="resolved",
                    outcome=self.public["outcome"],
                    note=self.public["note"],
                    resolved_at=self.timestamp.isoformat(),
                    by=self.public.get("by"),  # who ruled: the operator or the league's organiser
                    resolved_version=self.originator_version,
                )

    class RulesMigrated(Event):
        """An administrator moved the game to the rules this server runs, after a re-simulation."""

        TOPIC = "gameledger.game.rules_migrated"

        def apply_game(self, game: Game) -> None:
            game.rules_version = self.public["to"]

    class Annulled(Event):
        """The game is void (an adjudication): no result counts; the seed is revealed."""

        TOPIC = "gameledger.game.annulled"

        def apply_game(self, game: Game) -> None:
            game.status = ANNULLED
            game.awaiting = []

    def __init__(
        self,
        public: dict[str, Any],
        private: dict[str, Any],
        seed: str,
        commitments: dict[str, str],
        prev_hash: str,
        hash: str,
    ) -> None:
        self.title: str = public["title"]
        self.options: dict[str, Any] = public["options"]
        self.rules_version: str = public["rules_version"]
        self.seat_count: int = public["seat_count"]
        self.seats: list[str | None] = list(public["seats"])
        self.created_by: str = public["created_by"]
        self.private: bool = bool(public.get("private"))  # joined only by invitation
        # invitations by number: the seat each holds, its kind (player, email, link), its player
        # or its link's id, when it expires, and its status (pending, accepted, withdrawn);
        # seats the creator opened to anyone with the address (a private table's)
        self.invitations: dict[str, dict[str, Any]] = {}
        self.opened: tuple[int, ...] = ()
        self.league: str | None = public.get("league")
        self.seed_commitment: str = public["seed_commitment"]
        self.seed: str = seed
        self.head_hash: str = hash
        self.status: str = WAITING
        self.state: Any = None
        self.draws: int = 0
        self.awaiting: list[int] = []
        self.standings: list[dict[str, Any]] = []
        self.requests: dict[str, list[Any]] = {}  # idempotency: key -> [request hash, version]
        self.time_control: dict[str, Any] = public.get("time_control") or {"kind": "none"}
        self.clocks = Clocks(self.time_control)
        self.forfeited: list[int] = []
        self.undo_request: dict[str, Any] | None = None
        # each seat's last decision that can still be taken back, by version (replaced, never
        # changed in place; None when restored from a snapshot taken before it was kept)
        self.undoable: dict[str, int] | None = {}
        self.disputes: dict[str, dict[str, Any]] = {}
        self.sandbox: bool = bool(public.get("sandbox"))
        self.origin: dict[str, Any] | None = public.get("origin")
        # Seats the stand-in bot plays (their clock ran out under ``on_expiry: "bot"``) until their
        # player returns; standing orders by seat ("0": its rules, each with its id); conditional
        # replies by the replying seat ({"pending": replies} until the next decision, then
        # {"armed": reply}). Each replaced, never changed in place (``ledger.orders``).
        self.stand_in: tuple[int, ...] = ()
        self.orders: dict[str, tuple[dict[str, Any], ...]] = {}
        self.replies: dict[str, dict[str, Any]] = {}
        self._precomputed: _Precomputed | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        """A copy for the repository's cache: the engine state is immutable, so it is shared."""
        clone = object.__new__(type(self))
        d = dict(self.__dict__)
        d["seats"] = list(self.seats)
        d["awaiting"] = list(self.awaiting)
        d["requests"] = dict(self.requests)
        d["clocks"] = Clocks.from_dict(self.clocks.to_dict())
        d["forfeited"] = list(self.forfeited)
        d["disputes"] = {k: dict(v) for k, v in self.disputes.items()}
        d["invitations"] = dict(self.invitations)  # each entry replaced, never changed in place
        d["undo_request"] = (
            None
            if self.undo_request is None
            else {
                **self.undo_request,
                "answers": dict(self.undo_request["answers"]),
            }
        )
        d["_pending_events"] = []
        d["_precomputed"] = None
        d["_automatic"] = 0
        clone.__dict__.update(d)
        return clone

    # -- helpers ------------------------------------------------------------

    @property
    def engine(self) -> RulesEngine:
        return title_engine(self.title)

    @property
    def seed_bytes(self) -> bytes:
        return bytes.fromhex(self.seed)

    @property
    def automatic_decisions(self) -> int:
        """The automatic decisions (orders, replies, bots, defaults) made on this copy of the game
        since it was loaded: what the request that set them off is charged."""
        return int(self.__dict__.get("_automatic", 0))

    def count_automatic(self, n: int) -> None:
        self.__dict__["_automatic"] = self.automatic_decisions + n

    def take_precomputed(self, version: int) -> Any:
        pre = self.__dict__.get("_precomputed")
        self._precomputed = None
        if pre is not None and pre.version == version:
            return pre.state
        return None

    def seats_of(self, player: str) -> list[int]:
        return [i for i, p in enumerate(self.seats) if p == player]

    @property
    def over(self) -> bool:
        """Finished or abandoned: nothing is hidden any more."""
        return self.status in (FINISHED, ABANDONED, ANNULLED)

    @property
    def full(self) -> bool:
        return all(p is not None for p in self.seats)

    # -- commands -----------------------------------------------------------

    @classmethod
    def create(
        cls,
        *,
        game_id: UUID,
        title: str,
        options: dict[str, Any],
        rules_version: str,
        seat_count: int,
        seats: list[str | None],
        created_by: str,
        seed: bytes,
        timestamp: datetime,
        league: str | None = None,
        time_control: dict[str, Any] | None = None,
        origin: dict[str, Any] | None = None,
        private: bool = False,
    ) -> Game:
        public = {
            "title": title,
            "options": options,
            "rules_version": rules_version,
            "seat_count": seat_count,
            "seats": seats,
            "created_by": created_by,
            "seed_commitment": seed_commitment(seed),
        }
        if league:
            public["league"] = league
        if private:  # only when set: the creation of every other game is recorded as before
            public["private"] = True
        if time_control and time_control.get("kind") != "none":
            public["time_control"] = time_control
        if origin is not None:  # a what-if fork: a sandbox never counted in leagues or ratings
            public["origin"] = origin
            public["sandbox"] = True
        header = records.Header(
            str(game_id), 1, cls.Created.TOPIC, records.timestamp_text(timestamp), records.GENESIS
        )
        sealed = records.seal(seed, header, public, {})
        return cast(
            Game,
            cls._create(
                cls.Created,
                id=game_id,
                timestamp=timestamp,
                public=public,
                private={},
                seed=seed.hex(),
                commitments=sealed.commitments,
                prev_hash=sealed.prev_hash,
                hash=sealed.hash,
            ),
        )

    def _record(
        self,
        event_class: Any,
        timestamp: datetime,
        public: dict[str, Any],
        private: dict[str, Any] | None = None,
        state: Any = None,
    ) -> None:
        version = self.version + 1
        header = records.Header(
            str(self.id), version, event_class.TOPIC, records.timestamp_text(timestamp), self.head_hash
        )
        sealed = records.seal(self.seed_bytes, header, public, private or {})
        if state is not None:
            self._precomputed = _Precomputed(version, state)
        self.trigger_event(
            event_class,
            timestamp=timestamp,
            public=sealed.public,
            private=sealed.private,
            commitments=sealed.commitments,
            prev_hash=sealed.prev_hash,
            hash=sealed.hash,
        )

    def _digests(self, state: Any) -> dict[str, str]:
        eng = self.engine
        return {
            "state_digest": records.state_digest(
                self.seed_bytes, eng.state_adapter.dump_python(state, mode="json")
            ),
            "public_digest": records.public_digest(eng.view(state, None)),
        }

    def claim_seat(self, seat: int, player: str, timestamp: datetime, invitation: int | None = None) -> None:
        public: dict[str, Any] = {"seat": seat, "player": player}
        if invitation is not None:
            public["invitation"] = invitation
        self._record(self.SeatClaimed, timestamp, public)

    # -- invitations ------------------------------------------------------------

    def reserved(self, now: str | None = None) -> dict[int, int]:
        """Free seats held by a pending invitation (not expired at ``now``, an ISO time):
        seat -> the invitation's number."""
        return {
            inv["seat"]: int(number)
            for number, inv in self.invitations.items()
            if inv["status"] == "pending"
            and self.seats[inv["seat"]] is None
            and (now is None or inv["expires_at"] > now)
        }

    def invite(
        self,
        seat: int,
        kind: str,
        by: str,
        expires_at: str,
        timestamp: datetime,
        *,
        player: str | None = None,
        link: str | None = None,
    ) -> int:
        number = len(self.invitations) + 1
        public: dict[str, Any] = {
            "invitation": number,
            "seat": seat,
            "kind": kind,
            "invited_by": by,  # not "by": that names what made a decision for a seat
            "expires_at": expires_at,
        }
        if player is not None:
            public["player"] = player
        if link is not None:
            public["link"] = link
        self._record(self.InvitationIssued, timestamp, public)
        return number

    def withdraw_invitation(self, number: int, by: str, timestamp: datetime) -> None:
        self._record(self.InvitationWithdrawn, timestamp, {"invitation": number, "withdrawn_by": by})

    def open_seat(self, seat: int, by: str, timestamp: datetime) -> None:
        self._record(self.SeatOpened, timestamp, {"seat": seat, "opened_by": by})

    def start(self, timestamp: datetime, state: Any = None, draws: int = 0) -> None:
        """Start from the title's setup, or (a fork) from a given position."""
        eng = self.engine
        private: dict[str, Any] = {}
        if state is None:
            state = eng.new_game(eng.meta.options.model_validate(self.options), self.seat_count)
        else:
            private = {records.SERVER: {"state": eng.state_adapter.dump_python(state, mode="json")}}
        pending = eng.pending(state)
        public: dict[str, Any] = {"awaiting": list(pending.seats), **self._digests(state)}
        if draws:
            public["draws"] = draws
        self._record(self.Started, timestamp, public, private, state=state)

    def record_draw(self, outcome: DrawOutcome, timestamp: datetime) -> tuple[Effect, ...]:
        eng = self.engine
        request = eng.pending(self.state).draw
        assert request is not None
        state, effects = eng.apply_draw(self.state, outcome)
        pending = eng.pending(state)
        public_fx, private = split_effects(effects)
        public: dict[str, Any] = {
            "counter": self.draws,
            "key": request.key,
            "kind": request.kind,
            "label": request.label,
            "size": len(request.items),
            "effects": public_fx,
            "awaiting": list(pending.seats),
            **self._digests(state),
        }
        if request.hidden:
            private.setdefault(records.SERVER, {})["outcome"] = list(outcome.values)
            private[records.SERVER]["items"] = list(request.items)
        else:
            public["outcome"] = list(outcome.values)
            public["items"] = list(request.items)
        self._record(self.DrawRecorded, timestamp, public, private, state=state)
        return effects

    def record_decision(
        self,
        seat: int,
        player: str,
        decision: Decision,
        timestamp: datetime,
        request: dict[str, str] | None = None,
        forced: str | None = None,
        by: str | None = None,
        made_by: dict[str, Any] | None = None,
    ) -> tuple[Effect, ...]:
        eng = self.engine
        state, effects = eng.apply(self.state, seat, decision)
        pending = eng.pending(state)
        public_fx, private = split_effects(effects)
        public = {
            "seat": seat,
            "player": player,
            "decision": decision.model_dump(mode="json"),
            "effects": public_fx,
            "awaiting": list(pending.seats),
            **self._digests(state),
        }
        if forced:  # made for the seat: "timeout" (its clock ran out) or "forfeit"
            public["forced"] = forced
        if by:  # made for the seat by its standing order or conditional reply, or by the stand-in
            public["by"] = by
            public.update(made_by or {})
        if request:
            private.setdefault(records.SERVER, {})["request"] = request
        self._record(self.DecisionRecorded, timestamp, public, private, state=state)
        return effects

    def finish(self, timestamp: datetime) -> None:
        """Final standings by the title's rules; seats that forfeited rank last (tied)."""
        standings = [
            {"player": self.seats[s["seat"]], **s}
            for s in final_standings(self.engine.standings(self.state), self.forfeited)
        ]
        self._record(self.Finished, timestamp, {"standings": standings, "seed": self.seed})

    def time_out(self, seat: int, consequence: str, overdue: float, timestamp: datetime) -> None:
        public = {
            "seat": seat,
            "player": self.seats[seat],
            "consequence": consequence,
            "overdue_seconds": round(overdue),
        }
        self._record(self.TimedOut, timestamp, public)

    def after_decision(
        self, seat: int, decision: dict[str, Any], by: str | None, made_for: bool, public: dict[str, Any]
    ) -> None:
        """Orders and replies after a decision: an order's uses counted, orders cancelled by the
        player's own decision, replies armed by the decision they waited for and dropped when
        anything else was decided first."""
        from ledger.orders import reply_matches

        rules = self.orders.get(str(seat))
        if rules:
            if by == "order":
                kept = []
                for r in rules:
                    if r["id"] == public.get("order") and "uses" in r:
                        if r["uses"] <= 1:
                            continue
                        r = {**r, "uses": r["uses"] - 1}
                    kept.append(r)
                self.orders = with_seat(self.orders, seat, tuple(kept))
            elif not by and not made_for:
                kept = [r for r in rules if not r.get("cancel_on_own_decision")]
                self.orders = with_seat(self.orders, seat, tuple(kept))
        replies: dict[str, dict[str, Any]] = {}
        for owner, r in self.replies.items():
            if "pending" in r and int(owner) != seat:
                match = [x for x in r["pending"] if reply_matches(x, seat, decision)]
                if match:
                    replies[owner] = {"armed": match[0]}
            # an armed reply ends with its owner's next decision; any other decision drops it
        self.replies = replies

    def drop_rules(self, seat: int, gone: set[str]) -> None:
        kept = tuple(r for r in self.orders.get(str(seat), ()) if r["id"] not in gone)
        self.orders = with_seat(self.orders, seat, kept)

    def _private_to(self, seat: int, part: dict[str, Any]) -> dict[str, Any]:
        return {records.seat_audience(seat): part}

    def set_orders(self, seat: int, rules: list[dict[str, Any]], timestamp: datetime) -> None:
        """Replace the seat's standing order (an empty list removes it); each rule gets its id."""
        ids = [{"id": f"o{self.version + 1}.{n}", **r} for n, r in enumerate(rules, start=1)]
        public = {"seat": seat, "player": self.seats[seat]}  # how many rules, too, is the seat's own
        self._record(self.OrdersSet, timestamp, public, self._private_to(seat, {"orders": ids}))

    def drop_orders(self, seat: int, dropped: tuple[tuple[str, str], ...], timestamp: datetime) -> None:
        notes = [{"order": o, "note": note} for o, note in dropped]
        public = {"seat": seat, "player": self.seats[seat]}
        self._record(self.OrdersDropped, timestamp, public, self._private_to(seat, {"dropped": notes}))

    def set_replies(self, seat: int, replies: list[dict[str, Any]], timestamp: datetime) -> None:
        ids = [{"id": f"r{self.version + 1}.{n}", **r} for n, r in enumerate(replies, start=1)]
        public = {"seat": seat, "player": self.seats[seat]}
        self._record(self.RepliesSet, timestamp, public, self._private_to(seat, {"replies": ids}))

    def drop_reply(self, seat: int, reply: str, note: str, timestamp: datetime) -> None:
        public = {"seat": seat, "player": self.seats[seat]}
        self._record(
            self.ReplyDropped, timestamp, public, self._private_to(seat, {"reply": reply, "note": note})
        )

    def player_returned(self, seat: int, timestamp: datetime) -> None:
        self._record(self.PlayerReturned, timestamp, {"seat": seat, "player": self.seats[seat]})

    def pause_clock(self, seat: int, start: datetime, until: datetime, timestamp: datetime) -> None:
        public = {
            "seat": seat,
            "player": self.seats[seat],
            "from": start.isoformat(),
            "until": until.isoformat(),
        }
        self._record(self.ClockPaused, timestamp, public)

    def resume_clock(self, seat: int, at: datetime, timestamp: datetime) -> None:
        self._record(
            self.ClockResumed, timestamp, {"seat": seat, "player": self.seats[seat], "at": at.isoformat()}
        )

    def request_undo(self, seat: int, target_version: int, timestamp: datetime) -> None:
        public = {"seat": seat, "player": self.seats[seat], "target_version": target_version}
        self._record(self.UndoRequested, timestamp, public)

    def answer_undo(self, seat: int, accept: bool, timestamp: datetime) -> None:
        self._record(
            self.UndoAnswered, timestamp, {"seat": seat, "player": self.seats[seat], "accept": accept}
        )

    def undo(
        self,
        seat: int,
        target_version: int,
        state: Any,
        draws: int,
        consent: list[int],
        timestamp: datetime,
        dispute: int | None = None,
    ) -> None:
        """Back to the position before ``target_version``; ``seat`` -1 is the administrator
        correcting the record after a dispute."""
        eng = self.engine
        public = {
            "seat": seat,
            "player": self.seats[seat] if seat >= 0 else "admin",
            "target_version": target_version,
            "undone_versions": [target_version, self.version],
            "consent": consent,
            "draws": draws,
            "awaiting": list(eng.pending(state).seats),
            **self._digests(state),
        }
        if dispute is not None:
            public["dispute"] = dispute
        private = {records.SERVER: {"state": eng.state_adapter.dump_python(state, mode="json")}}
        self._record(self.DecisionUndone, timestamp, public, private, state=state)

    def open_dispute(
        self,
        seat: int,
        versions: list[int],
        text: str,
        timestamp: datetime,
        messages: list[int] | None = None,
    ) -> int:
        number = len(self.disputes) + 1
        public: dict[str, Any] = {
            "dispute": number,
            "seat": seat,
            "player": self.seats[seat],
            "versions": versions,
            "text": text,
        }
        if messages:  # only when cited: the events of disputes that cite none are unchanged
            public["messages"] = messages
        self._record(self.DisputeOpened, timestamp, public)
        return number

    def resolve_dispute(self, number: int, outcome: str, note: str, by: str, timestamp: datetime) -> None:
        public = {"dispute": number, "outcome": outcome, "note": note, "by": by}
        self._record(self.DisputeResolved, timestamp, public)

    def migrate_rules(self, to: str, outcome: dict[str, Any], by: str, timestamp: datetime) -> None:
        public = {"from": self.rules_version, "to": to, "by": by, "resimulation": outcome}
        self._record(self.RulesMigrated, timestamp, public)

    def annul(self, by: str, reason: str, timestamp: datetime) -> None:
        self._record(self.Annulled, timestamp, {"by": by, "reason": reason, "seed": self.seed})

    def abandon(self, by: str, reason: str, timestamp: datetime) -> None:
        self._record(self.Abandoned, timestamp, {"by": by, "reason": reason, "seed": self.seed})


GAME_TOPICS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            Game.Created.TOPIC,
            *(
                cls.TOPIC  # type: ignore[attr-defined]
                for cls in vars(Game).values()
                if isinstance(cls, type) and issubclass(cls, Game.Event) and cls is not Game.Event
            ),
        ]
    )
)


# A nested snapshot class's explicit topic is not registered by the library when the
# class is defined (only when a snapshot is taken): register it so that a fresh
# process can load snapshots it did not write.
register_topic(Game.Snapshot.TOPIC, Game.Snapshot)

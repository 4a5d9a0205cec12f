"""The running service's parts: settings, the ledger and its read models."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from api.accounts import AccountService, AccountStore
from api.channels import Channels, ChannelStore, ChatTransport
from api.idempotency import Idempotency, IdempotencyStore
from api.mail import MailDelivery, MailOutbox, transport_for
from api.migrations import migrate, pending
from api.pgguard import GuardedPostgresDatastore
from api.readmodels import PROJECTIONS, STORES, init_views
from api.settings import Settings
from api.storage import build_ledger
from ledger.application import Ledger
from ledger.storage import Database, parse_database_url
from projections.base import BatchProjection, Catchup, build_view, views_datastore
from projections.digests import DigestsView
from projections.game_index import GameIndex

log = logging.getLogger("gameledger.projections")
STOP_CHECK_BATCHES = 4  # batches a background catch-up applies before it looks for a stop

__all__ = ["PROJECTIONS", "STORES", "Services", "init_views", "initialise"]


def count_discarded_snapshot(found: dict[str, Any]) -> None:
    from api.observability import SNAPSHOTS_DISCARDED

    SNAPSHOTS_DISCARDED.inc()


def initialise(settings: Settings) -> Database:
    """Apply the pending schema migrations (under the lock; see api/migrations.py)."""
    db = parse_database_url(
        settings.effective_database_url, pool_size=settings.pool_size, pre_ping=settings.pg_pre_ping
    )
    migrate(db, log=logging.getLogger("gameledger.migrations").info)
    return db


@dataclass
class Services:
    settings: Settings
    db: Database
    ledger: Ledger
    projections: dict[str, BatchProjection[Any]]
    catchups: dict[str, Catchup] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _workers: list[threading.Thread] = field(default_factory=list)
    webhooks: Any = None
    outbound: Any = None  # api.outbound.OutboundPolicy: what user-given URLs may reach
    digests: Any = None
    mail: MailDelivery | None = None  # the mail outbox and its drain
    accounts: AccountService | None = None  # sessions, links, passwords
    idempotency: Idempotency | None = None  # the answers kept for Idempotency-Keys
    channels: Channels | None = None  # notifications by mail, Discord and Slack
    _signer: Any = None
    schema_pending: list[int] = field(default_factory=list)
    changes: Any = None  # the live updates' change feed (api.changefeed), made at the first stream

    @classmethod
    def start(cls, settings: Settings, *, background: bool = False) -> Services:
        if settings.init_db:
            db = initialise(settings)
        else:
            db = parse_database_url(
                settings.effective_database_url, pool_size=settings.pool_size, pre_ping=settings.pg_pre_ping
            )
        ledger = build_ledger(db)
        ledger.vacation_days_per_year = settings.vacation_days_per_year
        shared = views_datastore(db, GuardedPostgresDatastore)
        projections = {
            name: projection_class(build_view(view_class, db, create_table=db.is_memory, datastore=shared))
            for name, (projection_class, view_class) in PROJECTIONS.items()
        }
        services = cls(settings=settings, db=db, ledger=ledger, projections=projections)
        ledger.repository.on_discarded.append(count_discarded_snapshot)  # type: ignore[attr-defined]
        if not settings.init_db:
            services.schema_pending = pending(db)  # /ready says so until `db migrate` has run
        services.catchups = {
            name: Catchup(ledger, p, settings.projection_batch) for name, p in projections.items()
        }
        from api.notify import WebhookDelivery
        from api.outbound import OutboundPolicy

        services.outbound = OutboundPolicy.from_settings(settings)
        services.webhooks = WebhookDelivery(services.view("notifications"), ledger, services.outbound)
        services.digests = build_view(DigestsView, db, create_table=db.is_memory, datastore=shared)
        services.mail = MailDelivery(
            build_view(MailOutbox, db, create_table=db.is_memory, datastore=shared),
            transport_for(settings.smtp_url, settings.smtp_timeout),
            settings.mail_from,
            chat=ChatTransport(services.outbound),
        )
        services.channels = Channels(
            build_view(ChannelStore, db, create_table=db.is_memory, datastore=shared),
            services.view("notifications"),
            ledger,
            services.mail,
            settings,
            services.outbound,
        )
        services.channels.timed_games = services._timed_games
        services.accounts = AccountService(
            ledger,
            build_view(AccountStore, db, create_table=db.is_memory, datastore=shared),
            services.mail,
            settings,
        )
        services.channels.turn_link = services.accounts.turn_link
        services.idempotency = Idempotency(
            build_view(IdempotencyStore, db, create_table=db.is_memory, datastore=shared)
        )
        if background:
            services.start_background()
            services.start_workers()
        return services

    # -- clocks and vacations ----------------------------------------------------------

    def _timed_games(self) -> list[str]:
        self.refresh("gameindex")
        return list(self.game_index.view.timed_active_games())

    def tick_clocks(self, now: Any = None) -> dict[str, list[int]]:
        """Record the timeouts that are due (the scheduler's one round); returns them by game."""
        self.refresh("gameindex")
        out: dict[str, list[int]] = {}
        for gid in self.game_index.view.timed_active_games():
            try:
                seats = self.ledger.expire(gid, now)
            except Exception:  # one broken game must not stop the scheduler
                log.exception("clock check of game %s failed", gid)
                continue
            if seats:
                out[gid] = seats
        try:  # seasons' deadlines and rounds whose games are over (bounded: see ledger/application/seasons.py)
            self.ledger.settle_seasons(now)
        except Exception:
            log.exception("season deadline check failed")
        return out

    # -- digests and integrity -------------------------------------------------------------

    @property
    def signer(self) -> Any:
        from ledger.digest import Signer

        if self._signer is None:
            key = self.settings.signing_key or self.digests.development_key(
                lambda: Signer.new_seed(self.ledger.entropy(32))
            )
            self._signer = Signer.from_seed(key)
        return self._signer

    def digest(self, game: str | None = None, *, fresh: bool = True) -> dict[str, Any]:
        """The latest signed digest of all games' heads (a new one if the ledger moved on),
        with the inclusion proof of ``game`` when asked."""
        from datetime import UTC, datetime

        from ledger.digest import leaf, make_digest, proof_for

        latest = self.digests.latest()
        if fresh or latest is None:
            self.refresh("gameindex")
            position = self.game_index.view.position(self.ledger.name)
            if latest is None or latest[0]["position"] != position:
                leaves = [
                    leaf(h["game_id"], h["version"], h["hash"], h["talk_version"], h["talk_hash"])
                    for h in self.game_index.view.heads()
                ]
                doc = make_digest(leaves, self.signer, datetime.now(UTC).isoformat(), position)
                self.digests.store(doc, leaves)
                latest = (doc, leaves)
        doc, leaves = latest
        out = dict(doc)
        if game is not None:
            out["proof"] = proof_for(leaves, game)
        return out

    def resimulate(self, title: str | None = None) -> dict[str, Any]:
        """Every stored game replayed under the current rules, and what would change in the
        standings and the league ratings."""
        from ledger.resimulate import resimulate_game
        from projections.league_stats import rate_in_order

        self.refresh()
        games = []
        offset = 0
        while True:
            page = self.game_index.view.list_games(title=title, limit=200, offset=offset)
            games += [g for g in page if g["status"] != "waiting"]
            if len(page) < 200:
                break
            offset += 200
        reports = [
            resimulate_game(self.ledger, g["game_id"]) for g in sorted(games, key=lambda g: g["game_id"])
        ]
        changed = {
            r["game_id"]: {s["seat"]: s["rank"] for s in r["standings"]["now"]}
            for r in reports
            if r.get("standings", {}).get("changed")
        }
        leagues = []
        for league_id, results in self.view("leaguestats").league_results().items():
            if not changed.keys() & results.keys():
                continue

            def final(games: dict[str, list[tuple[str, int]]]) -> dict[str, float]:
                return {p: round(r.ordinal(), 3) for _, _, p, r in rate_in_order(games)}

            before = final({g: [(x["player_id"], x["rank"]) for x in rs] for g, rs in results.items()})
            after = final(
                {
                    g: [(x["player_id"], changed.get(g, {}).get(x["seat"], x["rank"])) for x in rs]
                    for g, rs in results.items()
                }
            )
            leagues.append(
                {
                    "league_id": league_id,
                    "ratings": {
                        p: {"before": before[p], "after": after.get(p)}
                        for p in before
                        if before[p] != after.get(p)
                    },
                }
            )
        counts: dict[str, int] = {}
        for r in reports:
            counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
        return {"games": reports, "summary": counts, "leagues": leagues}

    def integrity(self, limit: int = 20) -> dict[str, Any]:
        """The most recently active games read straight from the store (hash chains, private
        parts, latest snapshots), and the snapshots this process threw away when loading."""
        from ledger.audit import integrity

        self.refresh("gameindex")
        problems = []
        games = self.game_index.view.list_games(limit=limit)
        for g in games:
            ok, detail, version = integrity(self.ledger, g["game_id"])
            if not ok:
                problems.append({"game_id": g["game_id"], "version": version, "problem": detail})
        for found in getattr(self.ledger.repository, "discarded", ()):
            problems.append(
                {
                    "game_id": found["game_id"],
                    "version": found["version"],
                    "problem": f"snapshot discarded at load, replayed from the events: {found['problem']}",
                }
            )
        return {"checked_games": len(games), "ok": not problems, "problems": problems}

    def follow_vacation(self, player_id: str) -> int:
        """Pause (or resume) the player's clocks in every active game, after a vacation change."""
        from ledger.errors import StaleVersionError

        self.refresh("gameindex")
        changed = 0
        for gid in self.game_index.view.active_games_of(player_id):
            for _ in range(5):
                try:
                    changed += self.ledger.apply_vacation(gid, player_id)
                    break
                except StaleVersionError:
                    continue
        return changed

    @property
    def game_index(self) -> GameIndex:
        return self.projections["gameindex"]  # type: ignore[return-value]

    def view(self, name: str) -> Any:
        return self.projections[name].view

    def refresh(self, *names: str) -> None:
        """Bring read models up to date now (read-your-writes for the caller)."""
        head = self.ledger.recorder.max_notification_id() or 0  # read once for all the views
        for name in names or tuple(self.catchups):
            self.catchups[name].run(head=head)

    def wait_for(self, name: str, position: int | None, timeout: float = 2.0) -> bool:
        """Read-your-writes across processes: wait (bounded) until the view has ``position``."""
        if position is None:
            self.catchups[name].run()
            return True
        return self.catchups[name].wait_for(position, timeout)

    def lags(self) -> dict[str, int]:
        return {name: c.lag() for name, c in self.catchups.items()}

    # -- the in-process runner (polling: SQLite cannot subscribe) -----------------

    def start_background(self, interval: float = 0.25) -> None:
        def loop() -> None:
            while not self._stop.wait(interval):
                for name, catchup in self.catchups.items():
                    if self._stop.is_set():  # a few batches at a time: shutdown never waits long
                        break
                    try:
                        catchup.run(max_batches=STOP_CHECK_BATCHES)
                    except Exception:  # keep polling; the error is logged
                        log.exception("projection %s failed", name)

        self._thread = threading.Thread(target=loop, name="projections", daemon=True)
        self._thread.start()

    def start_workers(self) -> None:
        """The clock scheduler and the webhook sender, as threads of this process. Several
        processes may run them: a timeout is written once (optimistic concurrency) and a
        delivery is claimed before it is sent."""

        def every(interval: float, name: str, fn: Any) -> None:
            def loop() -> None:
                while not self._stop.wait(interval):
                    try:
                        fn()
                    except Exception:
                        log.exception("%s failed", name)

            thread = threading.Thread(target=loop, name=name, daemon=True)
            thread.start()
            self._workers.append(thread)

        if self.settings.clock_interval > 0:
            every(self.settings.clock_interval, "clocks", self.tick_clocks)
        if self.settings.webhook_interval > 0:
            every(self.settings.webhook_interval, "webhooks", self.webhooks.run_once)
            if self.channels is not None:  # mail, Discord and Slack: into the mail outbox
                every(self.settings.webhook_interval, "channels", self.channels.run_once)
        if self.settings.digest_interval > 0:
            every(self.settings.digest_interval, "digests", self.digest)
        if self.settings.mail_interval > 0 and self.mail is not None:
            mail = self.mail
            thread = threading.Thread(
                target=mail.loop, args=(self._stop, self.settings.mail_interval), name="mail", daemon=True
            )
            thread.start()
            self._workers.append(thread)

    def close(self) -> None:
        self._stop.set()
        if self.mail is not None:
            self.mail.wake.set()  # the mail drain waits on it
        if self.changes is not None:
            self.changes.close()
        for worker in self._workers:
            worker.join(timeout=10)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.ledger.close()
        for p in self.projections.values():
            p.view.datastore.close()
        stores = [self.digests]
        stores += [self.mail.outbox] if self.mail is not None else []
        stores += [self.accounts.store] if self.accounts is not None else []
        stores += [self.idempotency.store] if self.idempotency is not None else []
        for store in stores:
            if store is not None:
                store.datastore.close()

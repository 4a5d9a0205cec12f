"""Versioned schema migrations of the event store and the read models.

The table ``gameledger_migrations`` (in the PostgreSQL schema, or the main SQLite file)
records the versions applied. ``gameledger db init`` and ``db migrate`` apply the pending
ones in order under the initialisation lock (a PostgreSQL advisory lock, or a file lock
for SQLite), so several hosts may run them at once: the first applies, the others find
nothing left to do. Every migration is idempotent DDL (``IF NOT EXISTS``), which is what
lets a database made before this table existed be adopted, and a migration interrupted
half-way be run again.

Migrations only add (tables, columns with defaults, indexes): the previous release keeps
running against the new schema, so an upgrade migrates first and then rolls the servers.
A view's ``TABLES`` always holds its current shape too (a new database, or an in-memory
one, gets it whole); its migration brings an existing database to the same shape.

After the numbered migrations, every run also replays the event store's and the views'
own ``CREATE ... IF NOT EXISTS`` statements (as ``db init`` always did), so a release that
adds a whole new read model needs no numbered migration; a change to an existing table
(a column, an index, a backfill) does.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from api.readmodels import init_views
from api.storage import init_lock
from ledger.application import Ledger
from ledger.storage import Database
from projections.base import SqlView, build_view

TABLE = "gameledger_migrations"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: Callable[[Database], None]


def _event_store(db: Database) -> None:
    Ledger(env=db.ledger_env(create_table=True)).close()


def _read_models(db: Database) -> None:
    init_views(db)


def _view_ddl(view_class: type[SqlView], *statements: str) -> Callable[[Database], None]:
    def apply(db: Database) -> None:
        view = build_view(view_class, db)
        try:
            names = {n: view.t(n) for n in view.TABLE_NAMES}
            with view.datastore.transaction(commit=True) as c:
                for statement in statements:
                    c.execute(statement.format(**names))
        finally:
            view.datastore.close()

    return apply


def _channels(db: Database) -> None:
    """The notification channels' tables, and their scan's cursor at the notifications written so
    far: a server upgraded to mail notifications mails none from before it was."""
    from api.channels import ChannelStore
    from projections.notifications import NotificationsView

    store = build_view(ChannelStore, db, create_table=True)
    notes = build_view(NotificationsView, db, create_table=True)
    try:
        rows = notes.rows(f"SELECT MAX(position) AS p FROM {notes.t('outbox')}")  # noqa: S608 - the view's table
        store.start_cursor("channels", int(rows[0]["p"] or 0) if rows else 0)
    finally:
        store.datastore.close()
        notes.datastore.close()


def _talk_heads(db: Database) -> None:
    """The game index learns every game's table-talk head (the digest's leaves sign it): its
    new table, then the index rebuilt from the log (readers keep the old rows until it commits)."""
    from api.storage import build_ledger
    from projections.base import Catchup
    from projections.game_index import GameIndex, GameIndexView

    init_views(db)
    view = build_view(GameIndexView, db)
    ledger = build_ledger(db)
    try:
        Catchup(ledger, GameIndex(view)).rebuild()
    finally:
        ledger.close()
        view.datastore.close()


def _new_unsubscribe_secrets(db: Database) -> None:
    """Every player's unsubscribe secret anew: the mails before this release carried it in their
    links (and access logs kept those); the mails since carry a token signed with it."""
    import secrets

    from api.channels import ChannelStore

    store = build_view(ChannelStore, db, create_table=True)
    try:
        players = [r["player_id"] for r in store.rows(f"SELECT player_id FROM {store.t('prefs')}")]  # noqa: S608
        with store.datastore.transaction(commit=True) as c:
            for player_id in players:
                store.execute(
                    c,
                    f"UPDATE {store.t('prefs')} SET unsubscribe = %s WHERE player_id = %s",  # noqa: S608
                    [secrets.token_urlsafe(32), player_id],
                )
    finally:
        store.datastore.close()


def _disputes(db: Database) -> None:
    """The disputes queue's tables; the projection then catches up from the start of the log."""
    from projections.disputes import DisputeQueueView

    build_view(DisputeQueueView, db, create_table=True).datastore.close()


def _league_figures(db: Database) -> None:
    """League statistics recomputed (issue 27): each result's outcome (played, forfeited,
    eliminated) beside its final value in the title's unit, the start position for every title,
    what each seat did, ratings per title and the published figures; the view rebuilt from the
    log (readers keep the old rows until it commits), since the old rows held wrong values."""
    from api.storage import build_ledger
    from projections.base import Catchup
    from projections.league_stats import LeagueStats, LeagueStatsView

    init_views(db)
    view = build_view(LeagueStatsView, db)
    ledger = build_ledger(db)
    try:
        results = view.t("results")
        with view.datastore.transaction(commit=True) as c:
            if view.dialect == "postgres":
                c.execute(
                    f"ALTER TABLE {results} ADD COLUMN IF NOT EXISTS outcome TEXT NOT NULL DEFAULT 'played'"
                )
            else:
                c.execute(f"PRAGMA table_info({results})")
                if "outcome" not in {row[1] for row in c.fetchall()}:
                    c.execute(f"ALTER TABLE {results} ADD COLUMN outcome TEXT NOT NULL DEFAULT 'played'")
        Catchup(ledger, LeagueStats(view)).rebuild()
    finally:
        ledger.close()
        view.datastore.close()


def _signin_links(db: Database) -> None:
    """The players' choice of "your turn" mail links that sign in: a column of their channel
    choices, off for everyone (a database made since has it already)."""
    from api.channels import ChannelStore

    store = build_view(ChannelStore, db, create_table=True)
    try:
        table = store.t("prefs")
        try:
            store.rows(f"SELECT signin_links FROM {table} LIMIT 1")  # noqa: S608 - the view's table
            return
        except Exception:  # noqa: S110 - the column is missing: added below
            pass
        with store.datastore.transaction(commit=True) as c:
            c.execute(f"ALTER TABLE {table} ADD COLUMN signin_links INTEGER NOT NULL DEFAULT 0")
    finally:
        store.datastore.close()


def _migrations() -> list[Migration]:
    from projections.game_index import GameIndexView

    return [
        Migration(1, "event store: stored events, snapshots, notification ids", _event_store),
        Migration(2, "read models: every projection's tables and tracking, digests", _read_models),
        Migration(
            3,
            "game index: index on (status, updated_at) for the lobby's filters",
            _view_ddl(
                GameIndexView,
                "CREATE INDEX IF NOT EXISTS gameindex_games_status ON {games} (status, updated_at)",
            ),
        ),
        Migration(
            4,
            "notification channels: mail preferences, unsubscribe tokens, Discord and Slack hooks, digests",
            _channels,
        ),
        Migration(
            5,
            "read models: a quarantine table per view, for the events it set aside",
            _read_models,
        ),
        Migration(6, "game index: each game's table-talk head, signed in the digest", _talk_heads),
        Migration(
            7,
            "notification channels: new unsubscribe secrets, mails carry signed tokens",
            _new_unsubscribe_secrets,
        ),
        Migration(
            8,
            "disputes: the queue of every game's disputes (a read model, caught up from the log)",
            _disputes,
        ),
        Migration(
            9,
            "league statistics: final values in the title's unit, start positions, outcomes, measures,"
            " ratings per title and the published figures (the view rebuilt from the log)",
            _league_figures,
        ),
        Migration(
            10,
            "game index: private tables and their invited players, listed to them only",
            _view_ddl(
                GameIndexView,
                "CREATE TABLE IF NOT EXISTS {private} (game_id TEXT PRIMARY KEY)",
                "CREATE TABLE IF NOT EXISTS {invited} (game_id TEXT NOT NULL, player_id TEXT NOT NULL,"
                " PRIMARY KEY (game_id, player_id))",
            ),
        ),
        Migration(
            11,
            "notification channels: your-turn mail links that sign in, if the player chooses",
            _signin_links,
        ),
    ]


MIGRATIONS = _migrations()
LATEST = MIGRATIONS[-1].version


class _Table:
    """The migrations table, in either dialect."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _pg(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self.db.conninfo(), autocommit=True, connect_timeout=10)

    def _name(self) -> sql.Composed:
        return sql.SQL("{}.{}").format(sql.Identifier(self.db.schema), sql.Identifier(TABLE))

    def ensure(self) -> None:
        ddl = "CREATE TABLE IF NOT EXISTS {} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        if self.db.kind == "postgres":
            with self._pg() as conn:
                conn.execute(sql.SQL(ddl).format(self._name()))  # type: ignore[arg-type]
        else:
            with contextlib.closing(self._sqlite()) as conn:
                conn.execute(ddl.format(TABLE))

    def _sqlite(self) -> sqlite3.Connection:
        Path(self.db.sqlite_path).parent.mkdir(parents=True, exist_ok=True)
        return sqlite3.connect(self.db.sqlite_path, timeout=30, isolation_level=None)

    def applied(self) -> dict[int, tuple[str, str]]:
        """version -> (name, applied_at); empty when the table does not exist yet."""
        query = "SELECT version, name, applied_at FROM {} ORDER BY version"
        try:
            if self.db.kind == "postgres":
                with self._pg() as conn:
                    rows = conn.execute(sql.SQL(query).format(self._name())).fetchall()  # type: ignore[arg-type]
            else:
                if not Path(self.db.sqlite_path).exists():
                    return {}
                with contextlib.closing(self._sqlite()) as conn:
                    rows = conn.execute(query.format(TABLE)).fetchall()
        except (psycopg.errors.UndefinedTable, sqlite3.OperationalError):
            return {}
        return {int(v): (str(n), str(at)) for v, n, at in rows}

    def record(self, m: Migration) -> None:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        insert = "INSERT INTO {} (version, name, applied_at) VALUES ({})"
        if self.db.kind == "postgres":
            with self._pg() as conn:
                conn.execute(
                    sql.SQL(insert).format(self._name(), sql.SQL("%s, %s, %s")),  # type: ignore[arg-type]
                    (m.version, m.name, now),
                )
        else:
            with contextlib.closing(self._sqlite()) as conn:
                conn.execute(insert.format(TABLE, "?, ?, ?"), (m.version, m.name, now))


def status(db: Database) -> list[dict[str, Any]]:
    """Every known migration, applied (with its time) or pending."""
    if db.is_memory:
        return [{"version": m.version, "name": m.name, "applied_at": "(in memory)"} for m in MIGRATIONS]
    done = _Table(db).applied()
    return [
        {
            "version": m.version,
            "name": m.name,
            "applied_at": done[m.version][1] if m.version in done else None,
        }
        for m in MIGRATIONS
    ]


def pending(db: Database) -> list[int]:
    return [row["version"] for row in status(db) if row["applied_at"] is None]


def migrate(db: Database, *, log: Callable[[str], None] | None = None) -> list[int]:
    """Apply the pending migrations in order, under the lock; returns the versions applied here."""
    if db.is_memory:
        return []  # its tables are made by the objects that use it
    applied_now: list[int] = []
    with init_lock(db):
        table = _Table(db)
        table.ensure()
        done = table.applied()
        for m in MIGRATIONS:
            if m.version in done:
                continue
            m.apply(db)
            table.record(m)
            applied_now.append(m.version)
            if log:
                log(f"applied migration {m.version}: {m.name}")
        if 1 not in applied_now:
            _event_store(db)  # new tables of this release, if any (idempotent)
        if 2 not in applied_now:
            _read_models(db)
    return applied_now

"""The projection pattern of eventsourcing 9.5, applied in batches.

A projection (``eventsourcing.projection.Projection``) picks its event topics
and turns events into view updates. Its view is a tracking recorder —
SQLite's or PostgreSQL's — that writes the rows and the tracking position in
one transaction, so every event is applied exactly once, a crash loses
nothing, and a view can be rebuilt from scratch.

Unlike the library's ``ProjectionRunner`` (one commit per event), ``Catchup``
applies a batch of notifications per transaction, guarded by a compare-and-set
on the position, so that concurrent catch-ups (several API processes, a
worker) never apply a batch twice. Projections reduce a batch in memory
(``DocTable``: load the touched rows, change them, write them back once).
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, ClassVar, Generic, TypeVar

import orjson
from eventsourcing.application import Application
from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import DataError, IntegrityError, OperationalError, PersistenceError, Tracking
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.projection import Projection
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder
from psycopg.sql import SQL

from ledger.storage import Database
from projections.topics import UNDONE

CHUNK = 400  # ids per IN (...) list: well under SQLite's variable limit
log = logging.getLogger("gameledger.projections")

# Every view has this table beside its own: the events it could not read or apply, set aside.
QUARANTINE_DDL = (
    "CREATE TABLE IF NOT EXISTS {quarantine} (position BIGINT PRIMARY KEY, originator_id TEXT NOT NULL, "
    "version BIGINT NOT NULL, topic TEXT NOT NULL, error TEXT NOT NULL, quarantined_at TEXT NOT NULL)"
)


ATTEMPTS = 3  # an event that fails this many times in a row on its own is set aside


def poisoned(exc: BaseException) -> bool:
    """Whether an error is of the event's own making (the same event fails the same way every
    time: set it aside and go on), rather than the store's (down, locked, busy, its schema not
    migrated: try again later, and set nothing aside)."""
    if isinstance(exc, DataError):  # a value the table cannot hold
        return True
    return not isinstance(exc, PersistenceError | PositionMovedError | MemoryError)


@dataclass(frozen=True, slots=True)
class Quarantined:
    """An event a view set aside: where it is, and why."""

    position: int
    originator_id: str
    version: int
    topic: str
    error: str


@dataclass(frozen=True, slots=True)
class Fact:
    """A stored event as the read side sees it: its topic and its JSON payload.

    Decoding a notification straight to a dict (no object hooks, no event
    object) is what lets a projection keep up with the log; projections
    dispatch on the topic.
    """

    topic: str
    originator_id: str
    version: int
    at: str  # ISO 8601 time of the event
    data: dict[str, Any]
    position: int = 0  # the notification id (0 when unknown)

    @property
    def public(self) -> dict[str, Any]:
        return self.data.get("public") or {}

    @classmethod
    def from_notification(cls, n: Any) -> Fact:
        data = orjson.loads(n.state)
        ts = data.get("timestamp")
        at = ts["_data_"] if isinstance(ts, dict) else str(ts)
        return cls(n.topic, str(n.originator_id), n.originator_version, at, data, getattr(n, "id", 0) or 0)

    @classmethod
    def from_event(cls, e: Any) -> Fact:
        data = {k: v for k, v in vars(e).items() if k not in ("originator_id", "originator_version")}
        return cls(type(e).TOPIC, str(e.originator_id), e.originator_version, e.timestamp.isoformat(), data)


class PositionMovedError(Exception):
    """Another catch-up applied this batch first."""


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class SqlView:
    """Dialect-neutral part of a view: table names, statements, batch writes.

    Concrete views list their DDL in ``TABLES`` with ``{name}`` placeholders for
    their tables (``TABLE_NAMES``) and write SQL with ``%s`` parameters; ``t()``
    and ``q()`` adapt both to the dialect.
    """

    view_name: ClassVar[str] = ""
    TABLES: ClassVar[tuple[str, ...]] = ()
    TABLE_NAMES: ClassVar[tuple[str, ...]] = ()
    dialect: ClassVar[str] = ""
    datastore: Any

    def t(self, name: str) -> str:
        raise NotImplementedError

    def q(self, statement: str) -> str:
        return statement

    def ddl(self) -> list[str]:
        names = {n: self.t(n) for n in (*self.TABLE_NAMES, "quarantine")}
        return [stmt.format(**names) for stmt in (*self.TABLES, QUARANTINE_DDL)]

    def _position(self, c: Any, application_name: str) -> int:
        raise NotImplementedError

    def _reset_tracking(self, c: Any, application_name: str) -> None:
        raise NotImplementedError

    def _lock(self, c: Any) -> None:
        """Serialise writers of this view across processes (PostgreSQL)."""

    def write(self, tracking: Tracking, fn: Callable[[Any], None], expected: int | None = None) -> bool:
        """Run ``fn(cursor)`` and record ``tracking`` in one transaction.

        With ``expected``, the batch applies only if the view is still at that
        position; otherwise nothing is written and False is returned.
        """
        try:
            with self.datastore.transaction(commit=True) as c:
                self._lock(c)
                if expected is not None and self._position(c, tracking.application_name) != expected:
                    raise PositionMovedError
                fn(c)
                self._insert_tracking(c, tracking)  # type: ignore[attr-defined]
        except (PositionMovedError, IntegrityError, OperationalError):
            return False
        return True

    def clear(self, c: Any, application_name: str) -> None:
        """Empty every table of the view, its quarantine included, and forget its position
        (inside a rebuild, which tries the events set aside again)."""
        for name in (*self.TABLE_NAMES, "quarantine"):
            c.execute(f"DELETE FROM {self.t(name)}")
        self._reset_tracking(c, application_name)

    def quarantine(self, c: Any, items: Sequence[Quarantined]) -> None:
        """Set events aside, each once (a batch applied again finds them there)."""
        at = datetime.now(UTC).isoformat()
        self.executemany(
            c,
            f"INSERT INTO {self.t('quarantine')} (position, originator_id, version, topic, error, "
            "quarantined_at) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (position) DO NOTHING",
            [(q.position, q.originator_id, q.version, q.topic, q.error[:500], at) for q in items],
        )

    def quarantined(self, limit: int = 20) -> tuple[int, list[dict[str, Any]]]:
        """How many events the view set aside, and the latest ``limit`` of them."""
        table = self.t("quarantine")
        count = self.rows(f"SELECT COUNT(*) AS n FROM {table}")[0]["n"]
        latest = self.rows(f"SELECT * FROM {table} ORDER BY position DESC LIMIT %s", (limit,))
        return int(count), latest

    def execute(self, c: Any, statement: str, params: Sequence[Any] = ()) -> None:
        c.execute(self.q(statement), tuple(params))

    def executemany(self, c: Any, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            c.executemany(self.q(statement), [tuple(r) for r in rows])

    def fetch(self, c: Any, statement: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        c.execute(self.q(statement), tuple(params))
        return [dict(r) for r in c.fetchall()]

    def rows(self, statement: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.datastore.transaction(commit=False) as c:
            return self.fetch(c, statement, params)

    def position(self, application_name: str) -> int:
        return self.max_tracking_id(application_name) or 0  # type: ignore[attr-defined]


class SQLiteSqlView(SqlView, SQLiteTrackingRecorder):
    dialect = "sqlite"

    def __init__(self, datastore: SQLiteDatastore) -> None:
        super().__init__(datastore)
        self.create_table_statements.extend(self.ddl())

    def t(self, name: str) -> str:
        return name

    def q(self, statement: str) -> str:
        return statement.replace("%s", "?")

    def _position(self, c: Any, application_name: str) -> int:
        c.execute("SELECT notification_id FROM tracking WHERE application_name = ?", (application_name,))
        row = c.fetchone()
        return int(row[0]) if row else 0

    def _reset_tracking(self, c: Any, application_name: str) -> None:
        c.execute("DELETE FROM tracking WHERE application_name = ?", (application_name,))


class PostgresSqlView(SqlView, PostgresTrackingRecorder):
    dialect = "postgres"

    def __init__(self, datastore: PostgresDatastore) -> None:
        super().__init__(datastore, tracking_table_name=f"{self.view_name}_tracking")
        self.sql_create_statements.extend(SQL(s) for s in self.ddl())  # type: ignore[misc]

    def t(self, name: str) -> str:
        return f'"{self.datastore.schema}".{self.view_name}_{name}'

    def _lock(self, c: Any) -> None:
        key = int.from_bytes(hashlib.sha256(self.view_name.encode()).digest()[:8], "big", signed=True)
        c.execute("SELECT pg_advisory_xact_lock(%s)", (key,))

    def _tracking_table(self) -> str:
        return f'"{self.datastore.schema}".{self.tracking_table_name}'

    def rows(self, statement: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """One statement on a pooled connection in its autocommit mode: a transaction around it
        (BEGIN, then ROLLBACK) took two more round trips, and psycopg forgets the connection's
        prepared statements at every rollback (DEALLOCATE ALL: one more)."""
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            return self.fetch(c, statement, params)

    def _position(self, c: Any, application_name: str) -> int:
        c.execute(
            SQL(f"SELECT notification_id FROM {self._tracking_table()} WHERE application_name = %s"),
            (application_name,),
        )
        row = c.fetchone()
        return int(row["notification_id"]) if row else 0

    def _reset_tracking(self, c: Any, application_name: str) -> None:
        c.execute(
            SQL(f"DELETE FROM {self._tracking_table()} WHERE application_name = %s"),
            (application_name,),
        )


V = TypeVar("V", bound=SqlView)


def views_datastore(db: Database, datastore_class: type[Any] | None = None) -> Any:
    """One PostgreSQL pool for all of a process's read models (None for SQLite, where each
    view has a file of its own): small, because a view writes in batches and reads briefly,
    and every server process holds one (5 views with their own pools of 2 held 10 idle
    connections per process, and a few replicas exhausted PostgreSQL's 100).
    ``datastore_class`` replaces eventsourcing's ``PostgresDatastore`` if given."""
    if db.kind == "sqlite":
        return None
    where = {name: getattr(db, name) for name in ("dbname", "host", "port", "user", "password", "schema")}
    return (datastore_class or PostgresDatastore)(
        **where, pool_size=2, max_overflow=6, pre_ping=db.pre_ping, connect_timeout=5
    )


def build_view(view_class: type[V], db: Database, *, create_table: bool = False, datastore: Any = None) -> V:
    """An instance of ``view_class`` over the database's dialect (on PostgreSQL, over the
    shared ``datastore`` when given)."""
    if db.kind == "sqlite":
        datastore = SQLiteDatastore(
            db_name=db.view_sqlite_path(view_class.view_name), pool_size=2, max_overflow=4
        )
        concrete: type[Any] = type(f"SQLite{view_class.__name__}", (view_class, SQLiteSqlView), {})
    else:
        datastore = datastore or views_datastore(db)
        concrete = type(f"Postgres{view_class.__name__}", (view_class, PostgresSqlView), {})
    view = concrete(datastore)
    if create_table:
        view.create_table()
    return view  # type: ignore[no-any-return]


class DocTable:
    """A table of JSON documents keyed by id, read and written once per batch."""

    def __init__(self, view: SqlView, table: str, key: str = "game_id") -> None:
        self.view = view
        self.table = table
        self.key = key

    def load(self, c: Any, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        wanted = sorted(set(ids))
        for part in chunks(wanted):
            marks = ", ".join(["%s"] * len(part))
            rows = self.view.fetch(
                c,
                f"SELECT {self.key} AS k, doc FROM {self.view.t(self.table)} WHERE {self.key} IN ({marks})",
                part,
            )
            out.update({r["k"]: orjson.loads(r["doc"]) for r in rows})
        return out

    def save(
        self,
        c: Any,
        docs: dict[str, dict[str, Any]],
        extra: Callable[[dict[str, Any]], Sequence[Any]] | None = None,
        columns: Sequence[str] = (),
    ) -> None:
        """Upsert the documents (with optional extra indexed columns derived from each)."""
        cols = [self.key, "doc", *columns]
        marks = ", ".join(["%s"] * len(cols))
        updates = ", ".join(f"{col} = excluded.{col}" for col in cols[1:])
        rows = [
            [key, orjson.dumps(doc).decode(), *(extra(doc) if extra else ())] for key, doc in docs.items()
        ]
        self.view.executemany(
            c,
            f"INSERT INTO {self.view.t(self.table)} ({', '.join(cols)}) VALUES ({marks}) "
            f"ON CONFLICT ({self.key}) DO UPDATE SET {updates}",
            rows,
        )


def effective(facts: Iterable[Fact]) -> list[Fact]:
    """A game's events in force: an undo (a compensating event) sets aside the events
    from its target version on; nothing is deleted from the ledger."""
    kept: list[Fact] = []
    for f in facts:
        if f.topic == UNDONE:
            target = f.public["target_version"]
            kept = [k for k in kept if k.version < target]
        kept.append(f)
    return kept


class BatchProjection(Projection[Any], Generic[V]):
    """A projection that reduces a batch of events inside one view transaction.

    ``history(game_id, before_version)`` (set by ``Catchup``) reads a game's earlier
    events, for projections that recompute a game after an undo."""

    history: Callable[[str, int], list[Fact]] | None = None

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """The library's per-event entry point (``ProjectionRunner``): a batch of one."""

        def one(c: Any) -> None:
            self.process_batch(c, [Fact.from_event(domain_event)])
            self.settle(c)

        self.view.write(tracking, one)

    def process_batch(self, c: Any, events: list[Fact]) -> None:
        raise NotImplementedError

    def settle(self, c: Any) -> None:
        """What a projection defers to the end of a catch-up (the last batch's transaction, or a
        rebuild's): work that many batches would otherwise each redo. None by default."""


def share_read(catchups: Sequence[Catchup], head: int) -> None:
    """Read the log once, up to ``head``, for several read models brought up together (the
    worker's round): each then takes its topics from that read instead of a query of its own.
    Only when the read is whole (under one batch); ``unshare`` after the round."""
    if not catchups:
        return
    after = min(
        c._known if c._known is not None else c.projection.view.position(c.app.name) for c in catchups
    )
    if after >= head:
        return
    limit = min(c.batch_size for c in catchups)
    rows = catchups[0].app.recorder.select_notifications(
        start=after, limit=limit, stop=head, inclusive_of_start=False
    )
    if len(rows) >= limit:
        return  # more than a batch: each reads its own, as ever
    for c in catchups:
        c._shared = (after, head, rows)


def unshare(catchups: Sequence[Catchup]) -> None:
    for c in catchups:
        c._shared = None


class Catchup:
    """Brings one projection up to date with the ledger, a batch per transaction."""

    def __init__(
        self, app: Application[Any], projection: BatchProjection[Any], batch_size: int | None = None
    ) -> None:
        self.app = app
        self.projection = projection
        self.batch_size = batch_size or int(os.environ.get("GAMELEDGER_PROJECTION_BATCH", "2000"))
        projection.history = self.history
        self._known: int | None = None  # the view's position after this process's last write
        # every notification in (after, upto], read once for several read models (``share_read``)
        self._shared: tuple[int, int, Sequence[Any]] | None = None
        # the view's position when this process last read or wrote it: a committed position never
        # goes back (a rebuild replaces the rows and the position in one transaction)
        self._seen = 0

    def history(self, game_id: str, before_version: int) -> list[Fact]:
        """The game's events before ``before_version``, as facts (for recomputing after an undo)."""
        from uuid import UUID

        mapper = self.app.mapper
        stored = self.app.recorder.select_events(UUID(game_id), lte=before_version - 1)
        out = []
        for s in stored:
            if getattr(mapper, "cipher", None) or getattr(mapper, "compressor", None):
                out.append(Fact.from_event(mapper.to_domain_event(s)))
                continue
            data = orjson.loads(s.state)
            ts = data.get("timestamp")
            at = ts["_data_"] if isinstance(ts, dict) else str(ts)
            out.append(Fact(s.topic, game_id, s.originator_version, at, data))
        return out

    @property
    def name(self) -> str:
        return self.projection.name

    def head(self) -> int:
        return self.app.recorder.max_notification_id() or 0

    def lag(self) -> int:
        """Notifications in the log that the view has not yet looked at."""
        return max(0, self.head() - self.projection.view.position(self.app.name))

    def decode(self, notifications: Sequence[Any]) -> tuple[list[Fact], list[Quarantined]]:
        """The notifications as facts, and those that cannot be read (set aside, not retried)."""
        mapper = self.app.mapper
        whole = getattr(mapper, "cipher", None) or getattr(mapper, "compressor", None)
        facts: list[Fact] = []
        unreadable: list[Quarantined] = []
        for n in notifications:
            try:
                fact = Fact.from_event(mapper.to_domain_event(n)) if whole else Fact.from_notification(n)
            except Exception as exc:  # the record itself is bad: nothing will ever read it
                unreadable.append(self._aside(n.id, str(n.originator_id), n.originator_version, n.topic, exc))
                continue
            facts.append(replace(fact, position=n.id) if whole else fact)
        return facts, unreadable

    def _aside(
        self, position: int, originator: str, version: int, topic: str, exc: BaseException
    ) -> Quarantined:
        error = f"{type(exc).__name__}: {exc}"
        log.error(
            "projection %s set aside event %s (game %s version %s, %s): %s",
            self.name,
            position,
            originator,
            version,
            topic,
            error[:300],
        )
        return Quarantined(position, originator, version, topic, error)

    def _apply_one(self, c: Any, fact: Fact) -> None:
        """Apply one event behind a savepoint; one that fails ``ATTEMPTS`` times in a row for a
        reason of its own is set aside (a passing fault, such as a crash in the middle, is not)."""
        view = self.projection.view
        for attempt in range(1, ATTEMPTS + 1):
            view.execute(c, "SAVEPOINT one")
            try:
                self.projection.process_batch(c, [fact])
            except Exception as exc:
                if not poisoned(exc):
                    raise
                view.execute(c, "ROLLBACK TO SAVEPOINT one")
                if attempt == ATTEMPTS:
                    aside = self._aside(fact.position, fact.originator_id, fact.version, fact.topic, exc)
                    view.quarantine(c, [aside])
            else:
                view.execute(c, "RELEASE SAVEPOINT one")
                return

    def apply(
        self, c: Any, facts: list[Fact], unreadable: Sequence[Quarantined] = (), last: bool = True
    ) -> None:
        """Apply a batch inside the view's transaction; an event the projection cannot apply (an
        error of the event's own making, not the store's) is set aside and the others applied,
        one at a time behind savepoints, so that one bad event never stops a read model."""
        view = self.projection.view
        view.quarantine(c, unreadable)
        view.execute(c, "SAVEPOINT batch")
        try:
            self.projection.process_batch(c, facts)
        except Exception as exc:
            if not poisoned(exc):
                raise
            view.execute(c, "ROLLBACK TO SAVEPOINT batch")
            for fact in facts:
                self._apply_one(c, fact)
        view.execute(c, "RELEASE SAVEPOINT batch")
        if last:  # the catch-up's last batch: what the projection deferred
            self.projection.settle(c)

    def _select(self, start: int, stop: int) -> Sequence[Any]:
        shared = self._shared
        if shared is not None and shared[0] <= start and stop <= shared[1]:
            topics = self.projection.topics
            mine = [n for n in shared[2] if start < n.id <= stop and (not topics or n.topic in topics)]
            return mine[: self.batch_size]
        return self.app.recorder.select_notifications(
            start=start,
            limit=self.batch_size,
            stop=stop,
            inclusive_of_start=False,
            topics=self.projection.topics,
        )

    def _read(self, start: int, stop: int) -> tuple[int, list[Fact], list[Quarantined]]:
        notifications = self._select(start, stop)
        end = notifications[-1].id if len(notifications) == self.batch_size else stop
        return end, *self.decode(notifications)

    def _batches(self, start: int, head: int) -> Iterator[tuple[int, list[Fact], list[Quarantined]]]:
        """(end position, facts, unreadable) per batch up to ``head``. The first batch is read
        here (most catch-ups are one batch: no thread to start); when there are more, each next
        batch is read and decoded in a second thread while the caller applies this one."""
        end, facts, unreadable = self._read(start, head)
        yield end, facts, unreadable
        if end >= head:
            return
        with ThreadPoolExecutor(1, thread_name_prefix="prefetch") as pool:
            pending = pool.submit(self._read, end, head)
            while True:
                end, facts, unreadable = pending.result()
                if end < head:
                    pending = pool.submit(self._read, end, head)
                yield end, facts, unreadable
                if end >= head:
                    return

    def run(self, max_batches: int | None = None, head: int | None = None) -> int:
        """Apply batches until the view is current (or another process keeps winning); ``head``,
        the log's last id if the caller has just read it (several views brought up at once)."""
        view = self.projection.view
        total = batches = contended = 0
        while max_batches is None or batches < max_batches:
            if head is None:
                head = self.head()  # every id up to here is committed (ids commit in order)
            if head <= self._seen:
                break  # the view held all of it already when last looked at: no need to read again
            # where this process last left the view (its write checks it under the view's lock;
            # another process having moved it on makes that write fail, and it is read again)
            start = self._known if self._known is not None else view.position(self.app.name)
            self._seen = max(self._seen, start)
            if head <= start:
                break
            moved = False
            for end, facts, unreadable in self._batches(start, head):
                tracking = Tracking(self.app.name, end)
                if not view.write(
                    tracking,
                    lambda c, f=facts, u=unreadable, last=end >= head: self.apply(c, f, u, last),
                    expected=start,
                ):
                    moved = True
                    self._known = None
                    break
                self._known = end
                self._seen = max(self._seen, end)
                total += len(facts)
                batches += 1
                start = end
                if max_batches is not None and batches >= max_batches:
                    break
            if not moved:
                break  # up to the head it set out for: the caller asks again for more
            contended += 1
            if contended > 50:
                break
            time.sleep(0.005)
            head = None  # read again: more may have been written meanwhile
        return total

    def wait_for(self, position: int, timeout: float = 2.0) -> bool:
        """Read-your-writes: catch up, then wait (bounded) until the view has ``position``."""
        deadline = time.monotonic() + timeout
        view = self.projection.view
        while True:
            if view.position(self.app.name) >= position:
                return True
            self.run()
            if view.position(self.app.name) >= position:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def rebuild(self) -> int:
        """Recompute the view from the first event in one transaction: readers keep
        seeing the old rows until it commits."""
        view = self.projection.view
        head = self.head()
        applied = 0
        self._known = None
        with view.datastore.transaction(commit=True) as c:
            view._lock(c)
            view.clear(c, self.app.name)
            if head:
                for _, facts, unreadable in self._batches(0, head):
                    self.apply(c, facts, unreadable, last=False)
                    applied += len(facts)
                self.projection.settle(c)
                view._insert_tracking(c, Tracking(self.app.name, head))  # type: ignore[attr-defined]
        return applied

"""The projection pattern of eventsourcing 9.5, applied in batches.

A projection (``eventsourcing.projection.Projection``) picks its event topics
and turns events into view updates. Its view is a tracking recorder —
SQLite's or PostgreSQL's — that writes the rows and the tracking position in
one transaction, so every event is applied exactly once, a crash loses
nothing, and a view can be rebuilt from scratch.

Unlike the library's ``ProjectionRunner`` (one commit per event) ``Catchup``
applies a batch of notifications per transaction, guarded by a compare-and-set
on the position, so that concurrent catch-ups (several API processes, a
worker) never apply a batch twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from eventsourcing.application import Application
from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import IntegrityError, OperationalError, Tracking
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.projection import Projection
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder
from psycopg.sql import SQL

from ledger.storage import Database


class PositionMovedError(Exception):
    """Another catch-up applied this batch first."""


class SqlView:
    """Dialect-neutral part of a view: table names, statements, batch writes.

    Concrete views list their DDL in ``TABLES`` with ``{name}`` placeholders for
    their tables and write SQL with ``%s`` parameters; ``t()`` and ``q()`` adapt
    both to the dialect.
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
        names = {n: self.t(n) for n in self.TABLE_NAMES}
        return [stmt.format(**names) for stmt in self.TABLES]

    def _position(self, c: Any, application_name: str) -> int:
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

    def rows(self, statement: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(self.q(statement), tuple(params))
            return [dict(r) for r in c.fetchall()]

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

    def _position(self, c: Any, application_name: str) -> int:
        c.execute(
            SQL(
                f'SELECT notification_id FROM "{self.datastore.schema}".{self.tracking_table_name} '
                "WHERE application_name = %s"
            ),
            (application_name,),
        )
        row = c.fetchone()
        return int(row["notification_id"]) if row else 0


V = TypeVar("V", bound=SqlView)


def build_view(view_class: type[V], db: Database, *, create_table: bool = False) -> V:
    """An instance of ``view_class`` over the database's dialect."""
    if db.kind == "sqlite":
        datastore: Any = SQLiteDatastore(
            db_name=db.view_sqlite_path(view_class.view_name), pool_size=2, max_overflow=4
        )
        concrete: type[Any] = type(f"SQLite{view_class.__name__}", (view_class, SQLiteSqlView), {})
    else:
        datastore = PostgresDatastore(
            dbname=db.dbname,
            host=db.host,
            port=db.port,
            user=db.user,
            password=db.password,
            schema=db.schema,
            pool_size=2,
            max_overflow=4,
            pre_ping=True,
            connect_timeout=5,
        )
        concrete = type(f"Postgres{view_class.__name__}", (view_class, PostgresSqlView), {})
    view = concrete(datastore)
    if create_table:
        view.create_table()
    return view  # type: ignore[no-any-return]


class BatchProjection(Projection[Any], Generic[V]):
    """A projection that applies events inside a view transaction it is given."""

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """The library's per-event entry point (``ProjectionRunner``): a batch of one."""
        self.view.write(tracking, lambda c: self.apply(c, domain_event))

    def apply(self, c: Any, event: Any) -> None:
        raise NotImplementedError


class Catchup:
    """Brings one projection up to date with the ledger, a batch per transaction."""

    def __init__(
        self, app: Application[Any], projection: BatchProjection[Any], batch_size: int = 1000
    ) -> None:
        self.app = app
        self.projection = projection
        self.batch_size = batch_size

    def step(self) -> int:
        """Apply one batch: its size, 0 when current, -1 when another catch-up moved first."""
        view = self.projection.view
        start = view.position(self.app.name)
        notifications = self.app.recorder.select_notifications(
            start=start, limit=self.batch_size, inclusive_of_start=False, topics=self.projection.topics
        )
        if not notifications:
            return 0
        events = [self.app.mapper.to_domain_event(n) for n in notifications]

        def apply_all(c: Any) -> None:
            for event in events:
                self.projection.apply(c, event)

        tracking = Tracking(self.app.name, notifications[-1].id)
        return len(events) if view.write(tracking, apply_all, expected=start) else -1

    def run(self, max_batches: int | None = None) -> int:
        """Apply batches until the view is current (or another process got there)."""
        total = batches = contended = 0
        while max_batches is None or batches < max_batches:
            n = self.step()
            if n == 0:
                break
            if n < 0:
                contended += 1
                if contended > 20:
                    break
                continue
            total += n
            batches += 1
        return total

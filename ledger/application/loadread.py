"""A load's reads in one statement: an aggregate's latest snapshot (at or before a version) and
its events after the snapshot's version less a few (all its events when it has no snapshot).

The library reads the snapshot, then the events after it; the ledger's snapshot check
(ledger/snapshots.py) reads back the records at and just before the snapshot's version. On
PostgreSQL each is a round trip; here the three are one statement, the same on SQLite. The
rows are the library's own ``StoredEvent``s, decoded by the caller with the stores' mappers.
Any other store (or stores on two databases) gets None: the caller reads the library's way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.persistence import EventStore, InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder
from eventsourcing.utils import retry

Rows = tuple[StoredEvent | None, list[StoredEvent]]
OneRead = Callable[[UUID, "int | None"], Rows]

_TEMPLATE = (
    "WITH s AS (SELECT originator_version AS v FROM {snapshots} WHERE originator_id = {id}{lte}"
    " ORDER BY originator_version DESC LIMIT 1)"
    " SELECT 0 AS k, originator_id, originator_version, topic, state FROM {snapshots}"
    " WHERE originator_id = {id} AND originator_version = (SELECT v FROM s)"
    " UNION ALL"
    " SELECT 1 AS k, originator_id, originator_version, topic, state FROM {events}"
    " WHERE originator_id = {id} AND originator_version > COALESCE((SELECT v FROM s) - {back}, 0){lte}"
    " ORDER BY 1, 3"
)


def one_read(events: EventStore[Any], snapshots: EventStore[Any] | None, back: int) -> OneRead | None:
    """The one-statement read for these stores, or None when they are not both in one SQLite or
    one PostgreSQL database."""
    if snapshots is None or not 0 <= back <= 1_000:
        return None
    er, sr = events.recorder, snapshots.recorder
    if getattr(er, "datastore", None) is not getattr(sr, "datastore", sr):
        return None
    if isinstance(er, PostgresAggregateRecorder) and isinstance(sr, PostgresAggregateRecorder):
        return _postgres(er, sr, back)
    if isinstance(er, SQLiteAggregateRecorder) and isinstance(sr, SQLiteAggregateRecorder):
        return _sqlite(er, sr, back)
    return None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _postgres(er: PostgresAggregateRecorder, sr: PostgresAggregateRecorder, back: int) -> OneRead:
    schema = _quoted(er.datastore.schema)

    def statement(lte: str) -> str:
        return _TEMPLATE.format(
            snapshots=f"{schema}.{_quoted(sr.events_table_name)}",
            events=f"{schema}.{_quoted(er.events_table_name)}",
            id="%(id)s",
            lte=lte,
            back=int(back),
        )

    latest, at_most = statement(""), statement(" AND originator_version <= %(lte)s")

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def read(aggregate_id: UUID, version: int | None) -> Rows:
        params: dict[str, Any] = {"id": aggregate_id, "lte": version}
        with er.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(latest if version is None else at_most, params, prepare=True)
            return _split(
                (r["k"], r["originator_id"], r["originator_version"], r["topic"], bytes(r["state"]))
                for r in curs.fetchall()
            )

    return read


def _sqlite(er: SQLiteAggregateRecorder, sr: SQLiteAggregateRecorder, back: int) -> OneRead:
    def statement(lte: str) -> str:
        return _TEMPLATE.format(
            snapshots=sr.events_table_name, events=er.events_table_name, id=":id", lte=lte, back=int(back)
        )

    latest, at_most = statement(""), statement(" AND originator_version <= :lte")

    def read(aggregate_id: UUID, version: int | None) -> Rows:
        params = {"id": aggregate_id.hex if isinstance(aggregate_id, UUID) else aggregate_id, "lte": version}
        with er.datastore.transaction(commit=False) as c:
            c.execute(latest if version is None else at_most, params)
            return _split(
                (
                    r["k"],
                    er.convert_originator_id(r["originator_id"]),
                    r["originator_version"],
                    r["topic"],
                    r["state"],
                )
                for r in c.fetchall()
            )

    return read


def _split(rows: Any) -> Rows:
    snapshot: StoredEvent | None = None
    events: list[StoredEvent] = []
    for kind, originator_id, version, topic, state in rows:
        stored = StoredEvent(
            originator_id=originator_id, originator_version=version, topic=topic, state=state
        )
        if kind == 0:
            snapshot = stored
        else:
            events.append(stored)
    return snapshot, events

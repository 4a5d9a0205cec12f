"""A pool of migrated PostgreSQL schemas, one pool a test process (each pytest-xdist worker).

Migrating a new schema creates about 70 tables and 90 indexes: 1 to 2 s a test on this machine,
against 0.1 s for a SQLite file. A test that starts the service on a schema gets one from the
pool when it can: a schema a finished test had migrated, put back as the migrations left it.

Putting a schema back (``release``):
- its shape (tables, columns, indexes) must be the migrated shape, else it is dropped (a test
  that altered or half-migrated it leaves nothing behind);
- in one transaction every table with rows is emptied, the rows the migrations wrote (their
  record, the read models' first tracking rows) are copied back from the reference taken once
  a process (a schema of copies of those tables), and every sequence is set to where the
  reference left it: the emptying, the copies and the sequences in one round trip, on a
  connection the pool keeps (38 ms a test, from 98 ms with a statement a table and a
  connection a release). A table of more than
  ``SMALL`` rows is truncated (DELETE would leave dead rows that slow every later test, with
  autovacuum off as on these machines); a smaller one is deleted from: TRUNCATE makes new files
  for a table and its indexes, 7 ms a table, and every test's tracking rows alone made 14 such
  tables (0.1 s a test), where a DELETE of a few rows leaves a few dead ones that the next
  reads prune. The transaction commits without waiting for its WAL to be flushed (a crash of
  the test server can only lose a test schema's emptying);
- any failure drops the schema instead.

A test that needs an empty schema (a migration's own test) asks for one by not using the
service's fixtures: only the ``services`` fixture's tests (and those built on it) are handed a
migrated schema; the rest get a new one. GAMELEDGER_TEST_SCHEMA_POOL=0 turns the pool off.
"""

from __future__ import annotations

import atexit
import uuid
from dataclasses import dataclass

import psycopg
from psycopg import sql

SHAPE = """
SELECT coalesce(string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod),
                           ',' ORDER BY c.relname, a.attname), '')
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = %(s)s AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT coalesce(string_agg(t.relname || '.' || i.relname, ',' ORDER BY t.relname, i.relname), '')
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace
 WHERE n.nspname = %(s)s
"""  # the catalogue itself: information_schema's views of it took 20-40 ms a schema, this 7


SMALL = 100  # rows: a table with more is truncated, one with fewer deleted from (see the top)


@dataclass(frozen=True)
class Reference:
    """A freshly migrated schema, as the migrations left it."""

    shape: tuple[str, ...]
    tables: tuple[str, ...]
    rows: tuple[str, ...]  # the tables with rows: a copy of each is kept in ``kept``
    sequences: dict[str, tuple[int, bool]]  # sequence: (last value, called)
    kept: str  # the schema holding those rows (CREATE TABLE ... AS), dropped with the pool


class SchemaPool:
    def __init__(self, conninfo: str, migrate: object, enabled: bool = True) -> None:
        self.conninfo = conninfo
        self.enabled = enabled  # off: a new schema for every test, dropped after it
        self.migrate = migrate  # callable(schema name): migrates a new schema
        self.free: list[str] = []
        self.made: set[str] = set()
        self.reference: Reference | None = None
        self.reused = 0
        self._conn: psycopg.Connection | None = None  # kept open between releases
        atexit.register(self.close)

    def new_name(self) -> str:
        name = "t_" + uuid.uuid4().hex[:12]
        self.made.add(name)
        return name

    def acquire(self, migrated: bool) -> str:
        if migrated and self.free:
            self.reused += 1
            return self.free.pop()
        return self.new_name()

    def _connection(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed:
            self._conn = psycopg.connect(self.conninfo, autocommit=True)
        return self._conn

    def release(self, schema: str) -> None:
        try:
            conn = self._connection()
            if self.enabled and self._put_back(conn, schema):
                self.free.append(schema)
                return
            self._drop(conn, schema)
        except psycopg.Error:
            if self._conn is not None:
                self._conn.close()
            self._conn = None
            self._drop_quietly(schema)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        names, self.made, self.free = list(self.made), set(), []
        if not names:
            return
        try:
            with psycopg.connect(self.conninfo, autocommit=True) as conn:
                for name in names:
                    self._drop(conn, name)
        except psycopg.Error:
            pass

    # -- inside

    @staticmethod
    def _shape(conn: psycopg.Connection, schema: str) -> tuple[str, ...]:
        return tuple(row[0] for row in conn.execute(SHAPE, {"s": schema}))

    @staticmethod
    def _tables(conn: psycopg.Connection, schema: str) -> tuple[str, ...]:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename", (schema,)
        )
        return tuple(r[0] for r in rows)

    def _snapshot(self, conn: psycopg.Connection, schema: str) -> Reference:
        tables = self._tables(conn, schema)
        kept = self.new_name()
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(kept)))
        rows: list[str] = []
        for table in tables:
            target = sql.Identifier(schema, table)
            if conn.execute(sql.SQL("SELECT EXISTS (SELECT 1 FROM {})").format(target)).fetchone()[0]:  # type: ignore[index]
                copy = sql.SQL("CREATE TABLE {} AS SELECT * FROM {}")
                conn.execute(copy.format(sql.Identifier(kept, table), target))
                rows.append(table)
        sequences = {
            name: (int(last or 1), last is not None)
            for name, last in conn.execute(
                "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = %s", (schema,)
            )
        }
        return Reference(self._shape(conn, schema), tables, tuple(rows), sequences, kept)

    def _ensure_reference(self, conn: psycopg.Connection) -> Reference:
        if self.reference is None:
            fresh = self.new_name()
            self.migrate(fresh)  # type: ignore[operator]
            self.reference = self._snapshot(conn, fresh)
            self.free.append(fresh)  # as clean as a schema gets
        return self.reference

    def _put_back(self, conn: psycopg.Connection, schema: str) -> bool:
        shape = self._shape(conn, schema)
        if not any(shape):
            return False  # never migrated (or gone): nothing worth keeping
        ref = self._ensure_reference(conn)
        if shape != ref.shape:
            return False
        written = sql.SQL(" UNION ALL ").join(
            sql.SQL("SELECT {}, (SELECT count(*) FROM (SELECT 1 FROM {} LIMIT {}) AS r) AS n").format(
                sql.Literal(table), sql.Identifier(schema, table), sql.Literal(SMALL + 1)
            )
            for table in ref.tables
        )
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = '3s'; SET LOCAL synchronous_commit = off")
            counts = [(row[0], int(row[1])) for row in conn.execute(written)]
            large = [t for t, n in counts if n > SMALL]
            emptying = [
                sql.SQL("DELETE FROM {}").format(sql.Identifier(schema, t))
                for t, n in counts
                if 0 < n <= SMALL
            ]
            if large:  # TRUNCATE, not DELETE: no dead rows pile up in a schema used again and again
                targets = sql.SQL(", ").join(sql.Identifier(schema, t) for t in large)
                emptying.append(sql.SQL("TRUNCATE {}").format(targets))
            refill = [
                sql.SQL("INSERT INTO {} OVERRIDING SYSTEM VALUE SELECT * FROM {}").format(
                    sql.Identifier(schema, table), sql.Identifier(ref.kept, table)
                )
                for table in ref.rows
            ]
            restart = [
                sql.SQL("SELECT setval({}, {}, {})").format(
                    sql.Literal(sql.Identifier(schema, name).as_string(conn)),
                    sql.Literal(value),
                    sql.Literal(called),
                )
                for name, (value, called) in ref.sequences.items()
            ]
            # in one round trip: statements without parameters go together
            conn.execute(sql.SQL("; ").join([*emptying, *refill, *restart]))
        return True

    @staticmethod
    def _drop(conn: psycopg.Connection, schema: str) -> None:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))

    def _drop_quietly(self, schema: str) -> None:
        self.made.discard(schema)
        try:
            with psycopg.connect(self.conninfo, autocommit=True) as conn:
                self._drop(conn, schema)
        except psycopg.Error:
            pass

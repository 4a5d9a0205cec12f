"""Where the ledger lives: database URLs, table creation under a lock, app construction.

- ``sqlite:///path/to/ledger.sqlite3`` (the embedded default, in the data dir);
  projections keep their own SQLite files beside it (``<stem>.<view>.sqlite3``),
  because SQLite's tracking table is shared per file.
- ``postgresql://user:password@host:port/dbname?schema=name``: events, snapshots,
  projections and their tracking tables in one schema.

Tables are created once, by ``gameledger db init`` or by ``serve`` at start,
under a lock (a PostgreSQL advisory lock, or a file lock for SQLite); every
application object is then built with ``CREATE_TABLE=n`` so that several
processes can start against one database without racing (notes §7).
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from ledger.application import Ledger
from ledger.storage import Database, parse_database_url

__all__ = ["Database", "build_ledger", "init_db", "init_lock", "parse_database_url"]

INIT_LOCK_KEY = 0x6761_6D65  # "game"


@contextlib.contextmanager
def init_lock(db: Database) -> Iterator[None]:
    """One initialiser at a time, across processes."""
    if db.kind == "postgres":
        with psycopg.connect(db.conninfo(), autocommit=True, connect_timeout=10) as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (INIT_LOCK_KEY,))
            try:
                conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(db.schema)))
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (INIT_LOCK_KEY,))
        return
    if db.is_memory:
        yield
        return
    path = Path(db.sqlite_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_name(path.name + ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def init_db(db: Database, view_initialisers: list[Callable[[Database], None]] | None = None) -> None:
    """Create the ledger's tables and every projection's, once, under the lock.

    An in-memory database lives only as long as a connection to it: its tables
    are created by the objects that use it (``build_ledger``, ``build_view``).
    """
    if db.is_memory:
        return
    with init_lock(db):
        Ledger(env=db.ledger_env(create_table=True)).close()
        for init in view_initialisers or []:
            init(db)


def build_ledger(
    db: Database,
    *,
    clock: Callable[[], datetime] | None = None,
    entropy: Callable[[int], bytes] | None = None,
    **extra_env: Any,
) -> Ledger:
    env = db.ledger_env(create_table=db.is_memory) | {k: str(v) for k, v in extra_env.items()}
    if db.kind == "postgres":  # fail fast (503) while the server is away, recover by itself
        env.setdefault("PERSISTENCE_MODULE", "eventsourcing.postgres")
        if env["PERSISTENCE_MODULE"] == "eventsourcing.postgres":
            env["PERSISTENCE_MODULE"] = "api.pgguard:GuardedPostgresFactory"
    return Ledger(env=env, clock=clock, entropy=entropy)

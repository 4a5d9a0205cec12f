"""PostgreSQL persistence that fails fast while the server is away and recovers by itself.

eventsourcing's PostgreSQL recorders retry a failed call ten times, and each try waits
for a pooled connection up to the connect timeout: while the server is down (restarted,
failed over) a request would hang for about 50 seconds before failing. Here the
datastore remembers a failure; until a direct connection succeeds again, every request
for a connection first probes the server (``connect_timeout`` of a second or two; a
refused connection answers at once) and fails immediately if it is still away. A request
then fails in about two seconds (the retries' pauses) with eventsourcing's
``OperationalError``, which the API answers with 503. When the probe succeeds again, the
pool's idle connections are checked (broken ones replaced) so that requests succeed at
once instead of waiting out the pool's reconnection backoff; the server process never
needs restarting.

The service's ledger uses it through ``PERSISTENCE_MODULE=api.pgguard:GuardedPostgresFactory``
(``api.storage.build_ledger``), its read models through ``GuardedPostgresDatastore``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
from eventsourcing import postgres
from eventsourcing.persistence import InterfaceError, OperationalError

log = logging.getLogger("gameledger.storage")

PROBE_TIMEOUT = 2  # seconds for the probe's connection (libpq's minimum useful value)
RECONNECT_TIMEOUT = 15.0  # the pool gives up a reconnection chain after this; a new one starts on demand


class GuardedPostgresDatastore(postgres.PostgresDatastore):
    """A ``PostgresDatastore`` with a circuit breaker on getting connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _guard(self)

    @contextlib.contextmanager
    def get_connection(self) -> Iterator[psycopg.Connection[Any]]:
        guard: _Breaker = self._breaker  # type: ignore[attr-defined]
        guard.check(self)
        try:
            with super().get_connection() as conn:
                yield conn
        except (OperationalError, InterfaceError) as exc:
            guard.trip(exc)
            raise


class _Breaker:
    def __init__(self) -> None:
        self.tripped_at: float | None = None
        self.lock = threading.Lock()

    def trip(self, exc: Exception) -> None:
        with self.lock:
            if self.tripped_at is None:
                log.warning("database connection failed; probing before every use until it answers: %s", exc)
                self.tripped_at = time.monotonic()

    def check(self, store: postgres.PostgresDatastore) -> None:
        """Nothing while all is well; after a failure, a direct connection first."""
        if self.tripped_at is None:
            return
        kwargs: dict[str, Any] = dict(store.pool.kwargs) if isinstance(store.pool.kwargs, dict) else {}
        kwargs.pop("row_factory", None)
        try:
            with psycopg.connect(**kwargs, connect_timeout=PROBE_TIMEOUT, autocommit=True) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error as exc:
            raise OperationalError(f"the database is unavailable: {exc}") from exc
        with self.lock:
            if self.tripped_at is None:
                return
            down = time.monotonic() - self.tripped_at
            self.tripped_at = None
        log.warning("database answers again after %.1fs; refreshing the pool", down)
        with contextlib.suppress(Exception):  # a pool not yet opened has nothing to check
            store.pool.check()


def _guard(store: postgres.PostgresDatastore) -> None:
    store._breaker = _Breaker()  # type: ignore[attr-defined]
    store.pool.reconnect_timeout = RECONNECT_TIMEOUT


class GuardedPostgresFactory(postgres.PostgresFactory):
    """eventsourcing's PostgreSQL factory, with the guarded datastore."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.datastore.__class__ = GuardedPostgresDatastore
        _guard(self.datastore)

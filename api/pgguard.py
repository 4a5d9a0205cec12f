"""PostgreSQL persistence that fails fast while the server is away and recovers by itself.

eventsourcing's PostgreSQL recorders retry a failed call ten times, and each try waits
for a pooled connection up to the connect timeout: while the server is down (restarted,
failed over) a request would hang for about 50 seconds before failing. Here the
datastore remembers a failure; until a direct connection succeeds again, every request
for a connection first probes the server (``connect_timeout`` of a second or two; a
refused connection answers at once) and fails immediately if it is still away. A request
then fails in about two seconds (the retries' pauses) with eventsourcing's
``OperationalError``, which the API answers with 503. What one datastore learns (the
server failed, the server is back) every datastore of the process on the same server knows.
When the probe succeeds again, each datastore starts a fresh connection pool at its next
use (the old one, with its dead connections and its reconnection attempts waiting out
their backoff, is closed), so requests succeed at once; the server process never needs
restarting.

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
POOL_TIMEOUT = 2.0  # seconds a request waits for a pooled connection before the try fails (and is retried)
RECONNECT_TIMEOUT = 3.0  # the pool gives up a reconnection chain (its backoff grows) after this;
# a new one starts on demand, so that the pool reconnects promptly once the server is back


class GuardedPostgresDatastore(postgres.PostgresDatastore):
    """A ``PostgresDatastore`` with a circuit breaker on getting connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _guard(self)

    @contextlib.contextmanager
    def get_connection(self) -> Iterator[psycopg.Connection[Any]]:
        server: _Server = self._server  # type: ignore[attr-defined]
        server.check(self)
        if self._pool_epoch != server.epoch:  # type: ignore[has-type]
            # the server came back since this pool was made: its connections are dead
            with self._swap_lock:  # type: ignore[attr-defined]
                if self._pool_epoch != server.epoch:  # type: ignore[has-type]
                    self._pool_epoch = server.epoch
                    old, self.pool = self.pool, _fresh_pool(self.pool)
                    threading.Thread(target=_close_quietly, args=(old,), daemon=True, name="old-pool").start()
        try:
            with super().get_connection() as conn:
                yield conn
        except (OperationalError, InterfaceError) as exc:
            server.trip(exc)
            raise


class _Server:
    """What this process knows of one PostgreSQL server, shared by all its datastores:
    whether it failed (then every use probes first) and how many times it came back."""

    def __init__(self) -> None:
        self.tripped_at: float | None = None
        self.epoch = 0
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
            self.epoch += 1
        log.warning("database answers again after %.1fs; connection pools start afresh", down)


_SERVERS: dict[tuple[Any, ...], _Server] = {}
_SERVERS_LOCK = threading.Lock()


def _server_of(store: postgres.PostgresDatastore) -> _Server:
    kwargs = store.pool.kwargs if isinstance(store.pool.kwargs, dict) else {}
    key = tuple(str(kwargs.get(k)) for k in ("host", "port", "dbname", "user"))
    with _SERVERS_LOCK:
        return _SERVERS.setdefault(key, _Server())


# What a pool is built with, copied from the old pool by name (its callbacks are kept in
# private attributes of the same names).
_POOL_SETTINGS = (
    "connection_class",
    "kwargs",
    "min_size",
    "max_size",
    "timeout",
    "max_waiting",
    "max_lifetime",
    "max_idle",
    "reconnect_timeout",
    "num_workers",
)
_POOL_CALLBACKS = ("configure", "check", "reset")


def _fresh_pool(old: Any) -> Any:
    """A new, empty pool configured like ``old``: none of the old one's dead connections or
    reconnection attempts waiting out their backoff."""
    return type(old)(
        old.conninfo,
        open=False,
        get_password_func=getattr(old, "get_password_func", None),
        **{name: getattr(old, name) for name in _POOL_SETTINGS},
        **{name: getattr(old, f"_{name}") for name in _POOL_CALLBACKS},
    )


def _close_quietly(pool: Any) -> None:
    with contextlib.suppress(Exception):
        pool.close(timeout=5.0)


def _guard(store: postgres.PostgresDatastore) -> None:
    server = _server_of(store)
    store._server = server  # type: ignore[attr-defined]
    store._pool_epoch = server.epoch  # type: ignore[attr-defined]
    store._swap_lock = threading.Lock()  # type: ignore[attr-defined]
    store.pool.timeout = POOL_TIMEOUT
    store.pool.reconnect_timeout = RECONNECT_TIMEOUT


class GuardedPostgresFactory(postgres.PostgresFactory):
    """eventsourcing's PostgreSQL factory, with the guarded datastore."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.datastore.__class__ = GuardedPostgresDatastore
        _guard(self.datastore)

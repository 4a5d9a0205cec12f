"""One Idempotency-Key mechanism for every POST that takes the header.

A client that sends ``Idempotency-Key: K`` with a write may send the same request again (a
lost answer, a second tab) and gets the first answer again, with ``replayed: true`` and
otherwise equal to it; the same key with another request (another body, another route) is
refused with 409 ``request/idempotency_key_reused``. Keys are the caller's own: one player's
key never meets another's.

The first request with a key reserves it (a row: the caller, the key, the request's
fingerprint) before it runs, and stores its answer once it succeeded; a twin arriving
meanwhile waits for that answer instead of running too. A request that fails (a refusal,
an error) gives its key back, so a corrected request may use it. A twin that has waited
``PATIENCE_SECONDS`` in vain (the first request died with its process, or its database
went away) runs after all: the ledger's own protection (a decision's key recorded in the
game's stream, a game's id derived from the key) keeps the write single, and its answer
says ``replayed`` when it found the write. Answers are kept ``KEEP_SECONDS`` (a day) at least.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from pydantic import BaseModel

from api.mail import rowcount
from ledger.canonical import canonical, sha256_hex
from ledger.errors import ConflictError
from projections.base import SqlView

log = logging.getLogger("gameledger.api")
PENDING, ANSWERED = 0, 1  # a reservation's status: its answer not stored yet, or stored
KEEP_SECONDS = 86_400.0
PATIENCE_SECONDS = 5.0  # how long a twin waits for the first request's answer
PRUNE_EVERY = 500  # reservations between two clear-outs of expired answers


class IdempotencyStore(SqlView):
    """Requests made with an Idempotency-Key, and their answers (not a read model: a rebuild
    never touches it)."""

    view_name = "idempotency"
    TABLE_NAMES = ("requests",)
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {requests} ("
        " caller TEXT NOT NULL, idem_key TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER NOT NULL,"
        " answer TEXT, at DOUBLE PRECISION NOT NULL, PRIMARY KEY (caller, idem_key))",
        "CREATE INDEX IF NOT EXISTS idempotency_requests_at ON {requests} (at)",
    )

    def find(self, caller: str, key: str) -> dict[str, Any] | None:
        rows = self.rows(
            f"SELECT * FROM {self.t('requests')} WHERE caller = %s AND idem_key = %s", [caller, key]
        )
        return rows[0] if rows else None

    def reserve(self, caller: str, key: str, fingerprint: str, now: float) -> bool:
        """Take the key for this request (False: another request holds it)."""
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"INSERT INTO {self.t('requests')} (caller, idem_key, fingerprint, status, answer, at)"
                " VALUES (%s, %s, %s, %s, NULL, %s) ON CONFLICT (caller, idem_key) DO NOTHING",
                [caller, key, fingerprint, PENDING, now],
            )
            return rowcount(c) == 1

    def answer(self, caller: str, key: str, answer: dict[str, Any]) -> None:
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"UPDATE {self.t('requests')} SET status = %s, answer = %s WHERE caller = %s AND idem_key = %s"
                " AND status = %s",
                [ANSWERED, json.dumps(answer, separators=(",", ":")), caller, key, PENDING],
            )

    def release(self, caller: str, key: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"DELETE FROM {self.t('requests')} WHERE caller = %s AND idem_key = %s AND status = %s",
                [caller, key, PENDING],
            )

    def prune(self, before: float) -> None:
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c, f"DELETE FROM {self.t('requests')} WHERE at < %s AND status <> %s", [before, PENDING]
            )


class Idempotency:
    """Runs keyed requests once (see the module's docstring)."""

    def __init__(self, store: IdempotencyStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self._reservations = 0

    @staticmethod
    def fingerprint(request: Request, body: BaseModel | None) -> str:
        """The request as the service understood it: method, path and parsed body (defaults
        filled in, so that leaving out a default is the same request)."""
        parsed = body.model_dump(mode="json") if body is not None else None
        return sha256_hex(canonical({"method": request.method, "path": request.url.path, "body": parsed}))

    def run(
        self,
        caller: str,
        key: str | None,
        request: Request,
        body: BaseModel | None,
        answer: Callable[[], dict[str, Any]],
    ) -> dict[str, Any]:
        """``answer()`` once per (caller, key); its JSON answer, with ``replayed``."""
        if not key:
            out = answer()
            return {**out, "replayed": bool(out.get("replayed"))}
        fingerprint = self.fingerprint(request, body)
        deadline = time.monotonic() + PATIENCE_SECONDS
        while not self.store.reserve(caller, key, fingerprint, self.clock()):
            seen = self.store.find(caller, key)  # None: given back (its request failed) just now
            if seen is not None:
                if seen["fingerprint"] != fingerprint:
                    raise ConflictError(
                        "This Idempotency-Key was used for a different request.",
                        code="request/idempotency_key_reused",
                    )
                if seen["status"] != PENDING:
                    return {**json.loads(seen["answer"]), "replayed": True}
            if time.monotonic() > deadline:
                break  # the first request died or hangs: run, the ledger keeps the write single
            time.sleep(0.02)
        self._prune_now_and_then()
        try:
            out = jsonable_encoder(answer())
        except BaseException:
            try:
                self.store.release(caller, key)
            except Exception:  # the database went away too: the twin's patience covers it
                log.warning("could not give back Idempotency-Key %r of %s", key, caller)
            raise
        out["replayed"] = bool(out.get("replayed"))  # the ledger's own replay (a taken-over key) says so
        self.store.answer(caller, key, out)
        return dict(out)

    def _prune_now_and_then(self) -> None:
        self._reservations += 1
        if self._reservations % PRUNE_EVERY == 0:
            self.store.prune(self.clock() - KEEP_SECONDS)

"""Optimistic concurrency, one way for every aggregate: a use case that loads, decides and saves
is run again when another writer saved the same aggregate first (the store refuses the second
save's versions: eventsourcing's ``IntegrityError``), as long as the command is safe to re-run on
the new version; when the clash persists, or the command is not safe to re-run, the caller gets
a 409 with a stable code, never the store's error."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from eventsourcing.persistence import IntegrityError

from ledger.errors import ConflictError

T = TypeVar("T")

ATTEMPTS = 12  # a dozen writers on one aggregate at once all get through (tests/test_trust_review_writes.py)
_jitter = random.Random()  # spreads the retries of writers that clashed (not a game's randomness)


def retrying(
    attempt: Callable[[], T],
    *,
    code: str = "request/write_conflict",
    message: str = "Another request changed this at the same moment; try again.",
    clashes: tuple[type[Exception], ...] = (IntegrityError,),
    attempts: int = ATTEMPTS,
) -> T:
    """Run ``attempt`` (load, decide, save) again after a version clash, with a short random
    pause that grows; a ``ConflictError`` with ``code`` once ``attempts`` have all clashed."""
    for n in range(attempts):
        try:
            return attempt()
        except clashes:
            if n + 1 < attempts:
                time.sleep(_jitter.uniform(0, 0.002 * 2 ** min(n, 6)))
    raise ConflictError(message, code=code)

"""Per-client rate limits on sign-up and on decisions: token buckets, in each server process.

A bucket holds up to ``burst`` requests and refills at ``rate`` per second; a request that
finds it empty is refused before anything is read or written, with 429, the code
``request/rate_limited`` and ``Retry-After`` (whole seconds until one request is allowed
again). Sign-ups are counted per client address (as the server sees it: behind a proxy run
uvicorn with ``--proxy-headers``), by this middleware, and so are the reads of the public
digest endpoints (``/ledger/digest``, ``/ledger/digests``, ``/ledger/public-key``); decisions per authenticated player, by
``limit_decisions`` (a dependency of the decision route, after authentication: however the
``Authorization`` header is spelt and whichever of the player's tokens or sessions is used, one
bucket). With several server processes each keeps its own buckets, so the effective limit is that
many times the setting. A rate of 0 turns a limit off.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from api.deps import Caller, CallerDep
from api.errors import error_body
from api.limits import ASGIApp, Receive, Scope, Send
from ledger.errors import RateLimitedError

MAX_KEYS = 50_000  # beyond this, buckets that have refilled completely are forgotten


@dataclass
class TokenBucket:
    rate: float  # requests per second
    burst: int
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, key: str) -> float:
        """Take one request from ``key``'s bucket: 0 if allowed, else the seconds to wait."""
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1:
                self._buckets[key] = (tokens - 1, now)
                if len(self._buckets) > MAX_KEYS:
                    self._forget_full(now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate

    def charge(self, key: str, n: int) -> None:
        """Take ``n`` more from ``key``'s bucket after the fact (it may go into debt, which the
        rate pays back before the next request is allowed)."""
        if n <= 0:
            return
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            self._buckets[key] = (tokens - n, now)

    def _forget_full(self, now: float) -> None:
        full = [k for k, (t, last) in self._buckets.items() if t + (now - last) * self.rate >= self.burst]
        for k in full:
            del self._buckets[k]


SIGNUP = re.compile(r"^/api/v1/players/?$")
PUBLIC_LEDGER = re.compile(r"^/api/v1/ledger/(digest|digests|public-key)/?$")


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return f"addr:{client[0]}" if client else "addr:?"


def retry_after(wait: float) -> int:
    return max(1, math.ceil(wait))


@dataclass
class DecisionLimit:
    """Decisions per authenticated player (the operator has one bucket of its own)."""

    rate: float
    burst: int
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self.bucket = TokenBucket(self.rate, max(1, self.burst), self.clock) if self.rate > 0 else None

    def take(self, caller: Caller) -> None:
        wait = self.bucket.take(f"player:{caller.player_id}") if self.bucket else 0.0
        if wait > 0:
            retry = retry_after(wait)
            raise RateLimitedError(f"Too many decisions by this player; try again in {retry} s.", retry)

    def charge(self, caller: Caller, n: int) -> None:
        """Count ``n`` decisions the caller's request set off (standing orders, replies, bots)."""
        if self.bucket is not None:
            self.bucket.charge(f"player:{caller.player_id}", n)


async def limit_decisions(request: Request, caller: CallerDep) -> None:
    """The limit of the routes that decide, or set off automatic decisions (a decision, standing
    orders, a join that starts a game, a fork, a return from the stand-in), counted before the
    request is read (the app's DecisionLimit); ``charge_automatic`` counts what it set off."""
    limit: DecisionLimit | None = getattr(request.app.state, "decision_limit", None)
    if limit is not None:
        limit.take(caller)


def charge_automatic(request: Request, caller: Caller, game: Any) -> None:
    """Count the automatic decisions a request set off against the player who sent it: a join
    that starts a game whose seats all hold standing orders plays it all in one request."""
    limit: DecisionLimit | None = getattr(request.app.state, "decision_limit", None)
    n = getattr(game, "automatic_decisions", 0)
    if limit is not None and n:
        limit.charge(caller, n)


@dataclass
class ForkLimit:
    """Forks per player: each is a new game, and with bots a whole game played at once."""

    per_hour: float
    burst: int
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        rate = self.per_hour / 3600
        self.bucket = TokenBucket(rate, max(1, self.burst), self.clock) if rate > 0 else None

    def take(self, caller: Caller) -> None:
        wait = self.bucket.take(f"player:{caller.player_id}") if self.bucket else 0.0
        if wait > 0:
            retry = retry_after(wait)
            raise RateLimitedError(f"Too many forks by this player; try again in {retry} s.", retry)


async def limit_forks(request: Request, caller: CallerDep) -> None:
    limit: ForkLimit | None = getattr(request.app.state, "fork_limit", None)
    if limit is not None:
        limit.take(caller)


class RateLimits:
    """ASGI middleware, per client address: sign-ups, and reads of the public digests
    (decisions: ``limit_decisions``)."""

    def __init__(
        self,
        app: ASGIApp,
        signup_per_minute: float,
        signup_burst: int,
        public_reads_per_second: float = 0,
        public_read_burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.rules: list[tuple[tuple[str, ...], re.Pattern[str], TokenBucket, str]] = []
        if signup_per_minute > 0:
            bucket = TokenBucket(signup_per_minute / 60, max(1, signup_burst), clock)
            self.rules.append((("POST",), SIGNUP, bucket, "sign-ups from this address"))
        if public_reads_per_second > 0:
            bucket = TokenBucket(public_reads_per_second, max(1, public_read_burst), clock)
            self.rules.append(
                (("GET", "HEAD"), PUBLIC_LEDGER, bucket, "reads of the digests from this address")
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope.get("path", "")
            for methods, pattern, bucket, what in self.rules:
                if scope["method"] in methods and pattern.match(path):
                    wait = bucket.take(_client(scope))
                    if wait > 0:
                        await self._refuse(send, wait, what)
                        return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(send: Send, wait: float, what: str) -> None:
        retry = retry_after(wait)
        body = json.dumps(
            error_body("request/rate_limited", f"Too many {what}; try again in {retry} s.")
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", str(retry).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

"""Webhook delivery of the notifications outbox: signed, retried with backoff, logged.

Each notification for a player whose settings want it and who set a webhook becomes
a delivery. A delivery is claimed before it is sent (so two server processes do not
both send it), posted as JSON with an HMAC-SHA256 signature of ``<timestamp>.<body>``
under the player's webhook secret, and retried after 10 s, 30 s, 90 s … up to
``MAX_ATTEMPTS``; every attempt is logged. Receivers deduplicate on the delivery id
(delivery is at least once).

Every send goes through ``api.outbound``: the URL is vetted again after resolution and the post
goes to a vetted address, without following redirects. A refused URL fails at once; the log keeps
a short reason (a status, "timed out", "refused: ..."), never what the target answered.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from api.outbound import OutboundPolicy, OutboundRefused, describe_failure
from ledger.application import NOTIFICATION_KINDS, Ledger
from projections.notifications import NotificationsView

log = logging.getLogger("gameledger.webhooks")

MAX_ATTEMPTS = 8
BACKOFF = (10, 30, 90, 270, 810, 2430, 7290)  # seconds before attempt 2, 3, ...
STUCK = timedelta(seconds=60)  # a claimed delivery not finished by then is retried
Sender = Callable[[str, bytes, dict[str, str]], int]


def sign(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify_signature(
    secret: str, header: str, body: bytes, tolerance: int = 300, now: float | None = None
) -> bool:
    """What a receiver does: recompute the signature and check the timestamp is fresh."""
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    try:
        ts = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs((now or time.time()) - ts) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, ts, body), header)


def wanted_kinds(player: Any) -> list[str]:
    return list(NOTIFICATION_KINDS) if player.notify_kinds is None else list(player.notify_kinds)


class WebhookDelivery:
    def __init__(
        self,
        view: NotificationsView,
        ledger: Ledger,
        policy: OutboundPolicy | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.view = view
        self.ledger = ledger
        self.policy = policy or OutboundPolicy()
        self.sender: Sender = self.policy.post  # vets the URL again, posts to a vetted address
        self.now = now

    # -- from the outbox to deliveries --------------------------------------------

    def scan(self, limit: int = 500) -> int:
        """Turn new outbox rows into deliveries for players with a webhook that want them."""
        rows = self.view.outbox_after(self.view.webhook_cursor(), limit)
        if not rows:
            return 0
        players: dict[str, Any] = {}
        now = self.now().isoformat()
        new = []
        for r in rows:
            pid = r["player_id"]
            if pid not in players:
                try:
                    players[pid] = self.ledger.get_player(pid)
                except Exception:  # an unknown player gets nothing
                    players[pid] = None
            p = players[pid]
            if p is None or not p.webhook_url or r["kind"] not in wanted_kinds(p):
                continue
            new.append(
                [
                    r["game_id"],
                    r["version"],
                    pid,
                    r["kind"],
                    r["position"],
                    p.webhook_url,
                    "pending",
                    0,
                    now,
                    now,
                ]
            )
        self.view.add_deliveries(new, max(int(r["position"]) for r in rows))
        return len(new)

    # -- sending ---------------------------------------------------------------------

    def deliver_due(self, limit: int = 20) -> int:
        now = self.now()
        due = self.view.due_deliveries(now.isoformat(), (now - STUCK).isoformat(), limit)
        sent = 0
        for d in due:
            if self.view.claim(d, now.isoformat(), secrets.token_hex(6)):  # else another process has it
                sent += self._send(d, now)
        return sent

    def _send(self, d: dict[str, Any], now: datetime) -> int:
        player = self.ledger.get_player(d["player_id"])
        delivery_id = f"{d['pos']}:{d['game_id']}:{d['version']}:{d['kind']}"
        attempt = int(d["attempts"]) + 1
        url = player.webhook_url or d["url"]
        code: int | None = None
        error: str | None = None
        duration = 0
        if not url or d["kind"] not in wanted_kinds(player) or not player.webhook_secret:
            result, error = "skipped", "webhook removed or kind switched off"
        else:
            body = json.dumps({"id": delivery_id, "attempt": attempt, **json.loads(d["payload"])}).encode()
            headers = {
                "Content-Type": "application/json",
                "User-Agent": "gameledger-webhooks/1",
                "X-Gameledger-Delivery": delivery_id,
                "X-Gameledger-Event": d["kind"],
                "X-Gameledger-Signature": sign(player.webhook_secret, int(now.timestamp()), body),
            }
            t0 = time.perf_counter()
            refused = False
            try:
                code = self.sender(url, body, headers)
            except Exception as exc:  # the network failed: retry later; a refused address: never
                refused = isinstance(exc, OutboundRefused)
                error = describe_failure(exc)[:300]
            duration = round((time.perf_counter() - t0) * 1000)
            ok = code is not None and 200 <= code < 300
            result = "delivered" if ok else "failed" if attempt >= MAX_ATTEMPTS or refused else "pending"
            if code is not None and not ok:
                error = f"HTTP {code}"
            if not ok:
                from api.observability import WEBHOOK_FAILURES

                WEBHOOK_FAILURES.labels(str(result == "failed").lower()).inc()
        delay = BACKOFF[min(attempt - 1, len(BACKOFF) - 1)]
        self.view.record_attempt(
            d,
            {
                "result": result,
                "attempt": attempt,
                "status": code,
                "error": error,
                "at": now.isoformat(),
                "url": url or "",
                "duration_ms": duration,
            },
            (now + timedelta(seconds=delay)).isoformat(),
        )
        if result == "failed":
            log.warning(
                "webhook delivery %s to %s failed after %s attempts: %s", delivery_id, url, attempt, error
            )
        return 1 if result == "delivered" else 0

    def run_once(self) -> int:
        self.scan()
        return self.deliver_due()

"""Operations: JSON logs with request ids, Prometheus metrics, the request middleware.

- Every log record is one JSON object per line (``time``, ``level``, ``logger``,
  ``message``, and ``request_id`` while a request is being served); the access line of
  each request adds ``method``, ``path``, ``route``, ``status`` and ``duration_ms``.
- A request keeps the ``X-Request-ID`` it came with (when it looks like an id), else
  gets a new one; the response echoes it.
- ``/metrics`` (Prometheus text format): request latency by route template, decisions
  accepted/refused, optimistic-concurrency conflicts, webhook failures, and each
  projection's lag measured when scraped. With ``PROMETHEUS_MULTIPROC_DIR`` set (``serve
  --workers N`` sets it), the worker processes' counters are added up.
"""

from __future__ import annotations

import contextlib
import json
import logging
import logging.config
import os
import re
import time
import uuid
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from api.limits import ASGIApp, Message, Receive, Scope, Send

disable_created_metrics()  # no *_created series: they double the output and nobody graphs them

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
ACCESS = logging.getLogger("gameledger.access")
QUIET_PATHS = frozenset({"/live", "/ready", "/metrics", "/health"})  # probes: logged at debug
DECISIONS_ROUTE = "/api/v1/games/{game_id}/decisions"

HTTP_LATENCY = Histogram(
    "gameledger_http_request_duration_seconds",
    "Time to answer an HTTP request, by route template.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
DECISIONS = Counter(
    "gameledger_decisions_total",
    "Decisions submitted, by outcome: accepted, refused (illegal or not the caller's turn), conflict (stale version).",
    ["outcome"],
)
CONFLICTS = Counter(
    "gameledger_conflicts_total",
    "Optimistic-concurrency conflicts (answered 409), by route template.",
    ["route"],
)
WEBHOOK_FAILURES = Counter(
    "gameledger_webhook_failures_total",
    "Webhook delivery attempts that failed; final=true when the delivery was given up.",
    ["final"],
)
SNAPSHOTS_DISCARDED = Counter(
    "gameledger_snapshots_discarded_total",
    "Stored game snapshots that disagreed with the record when loaded (thrown away, the game replayed).",
)


# -- logs ----------------------------------------------------------------------------------

ACCESS_FIELDS = ("method", "path", "route", "status", "duration_ms", "client")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or REQUEST_ID.get()
        if request_id:
            out["request_id"] = request_id
        for name in ACCESS_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                out[name] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        request_id = getattr(record, "request_id", None) or REQUEST_ID.get()
        return f"{line} [{request_id}]" if request_id else line


def logging_config(log_format: str = "json", level: str = "info") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the service and uvicorn alike (one handler, stderr)."""
    formatter: dict[str, Any] = (
        {"()": "api.observability.JsonFormatter"}
        if log_format == "json"
        else {
            "()": "api.observability.TextFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s: %(message)s",
        }
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["default"], "level": level.upper()},
        "loggers": {
            "uvicorn": {"handlers": [], "propagate": True},
            "uvicorn.error": {"handlers": [], "propagate": True},
            "uvicorn.access": {"handlers": [], "propagate": False, "level": "WARNING"},  # ours replaces it
        },
    }


def configure_logging(log_format: str = "json", level: str = "info") -> None:
    logging.config.dictConfig(logging_config(log_format, level))


# -- the request middleware -------------------------------------------------------------------


def _route_template(scope: Scope) -> str:
    """The matched route as a template (``/api/v1/games/{game_id}``), rebuilt from the
    path and its parameters, so that metrics have one series per route, not per game."""
    if scope.get("route") is None and scope.get("endpoint") is None:
        return "<unmatched>"
    path = str(scope["path"])
    params = scope.get("path_params") or {}
    for name, value in params.items():
        value = str(value)
        if "/" in value and path.endswith("/" + value):  # a {name:path} parameter
            path = path[: -len(value)] + "{" + name + "}"
    segments = path.split("/")
    for name, value in params.items():
        segments = ["{" + name + "}" if seg == str(value) else seg for seg in segments]
    return "/".join(segments)


_SECRET_IN_PATH = re.compile(r"^(/unsubscribe/glu_)[^/]*")


class RequestContext:
    """Request id, access log line and metrics for every HTTP request (pure ASGI, so
    streamed responses pass through untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = next(
            (v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-request-id"), ""
        )
        request_id = incoming if _ID_RE.match(incoming) else uuid.uuid4().hex
        token = REQUEST_ID.set(request_id)
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"]
                headers.append((b"x-request-id", request_id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            self._record(scope, status, time.perf_counter() - started, request_id)
            REQUEST_ID.reset(token)

    @staticmethod
    def _record(scope: Scope, status: int, seconds: float, request_id: str) -> None:
        method = scope["method"]
        route = _route_template(scope)
        HTTP_LATENCY.labels(method, route, str(status)).observe(seconds)
        if status == 409:
            CONFLICTS.labels(route).inc()
        if route == DECISIONS_ROUTE and method == "POST":
            outcome = "accepted" if status < 400 else "conflict" if status == 409 else "refused"
            if status < 500:
                DECISIONS.labels(outcome).inc()
        client = scope.get("client")
        path = _SECRET_IN_PATH.sub(r"\1…", scope["path"])  # a link's token never reaches the log
        ACCESS.log(
            logging.DEBUG if scope["path"] in QUIET_PATHS and status < 400 else logging.INFO,
            "%s %s %s",
            method,
            path,
            status,
            extra={
                "request_id": request_id,
                "method": method,
                "path": path,
                "route": route,
                "status": status,
                "duration_ms": round(seconds * 1000, 2),
                "client": client[0] if client else None,
            },
        )


# -- /metrics --------------------------------------------------------------------------------


class ProjectionLagCollector:
    """Each projection's position and lag, read from the database when scraped (the same
    for every process, so it is not kept per process)."""

    def __init__(self, services: Any) -> None:
        self.services = services

    def collect(self) -> Iterator[GaugeMetricFamily]:
        lag = GaugeMetricFamily(
            "gameledger_projection_lag_events",
            "Events in the log that the projection has not applied yet.",
            labels=["projection"],
        )
        position = GaugeMetricFamily(
            "gameledger_projection_position", "The last notification id applied.", labels=["projection"]
        )
        head = GaugeMetricFamily("gameledger_ledger_head", "The last notification id in the event log.")
        aside = GaugeMetricFamily(
            "gameledger_projection_quarantined_events",
            "Events the projection could not apply and set aside (see /health).",
            labels=["projection"],
        )
        try:
            top = self.services.ledger.recorder.max_notification_id() or 0
        except Exception:  # the database is down: /ready says so; no lag to report
            return
        head.add_metric([], top)
        for name, catchup in self.services.catchups.items():
            try:
                at = catchup.projection.view.position(self.services.ledger.name)
            except Exception:  # a view's store failed on its own: leave it out
                logging.getLogger("gameledger.metrics").warning("projection %s unreadable", name)
                continue
            position.add_metric([name], at)
            lag.add_metric([name], max(0, top - at))
            with contextlib.suppress(Exception):  # the same view just answered
                aside.add_metric([name], catchup.projection.view.quarantined(limit=0)[0])
        yield head
        yield position
        yield lag
        yield aside


def metrics_text(services: Any) -> bytes:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        processes = generate_latest(registry)
    else:
        processes = generate_latest(REGISTRY)
    live = CollectorRegistry(auto_describe=False)
    live.register(ProjectionLagCollector(services))  # type: ignore[arg-type]
    return processes + generate_latest(live)


router = APIRouter(tags=["health"])


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    services = request.app.state.services
    if not services.settings.metrics:
        return Response(status_code=404)
    return Response(metrics_text(services), media_type="text/plain; version=0.0.4; charset=utf-8")

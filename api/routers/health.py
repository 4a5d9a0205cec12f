from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import ServicesDep

router = APIRouter(tags=["health"])
probes = APIRouter(tags=["health"])  # /live and /ready: served at the root only


@router.get("/health")
def health(services: ServicesDep) -> JSONResponse:
    """Liveness, database reachability, each projection's lag (notifications not yet applied),
    the events a projection could not apply and set aside (``quarantined``: the latest 20 of
    each, status ``degraded``), and tamper evidence: the most recently active games re-read from the store (hash chains,
    private parts against their commitments, latest snapshots against the record) and the
    snapshots thrown away at load; ``reasons`` says what was found, one line each."""
    try:
        services.ledger.recorder.max_notification_id()
    except Exception as exc:  # any storage failure means not ready
        return JSONResponse({"status": "unavailable", "database": str(exc)[:200]}, status_code=503)
    lags: dict[str, int | None] = {}
    for name, catchup in services.catchups.items():
        try:
            lags[name] = catchup.lag()
        except Exception:  # a view's store may fail on its own
            lags[name] = None
    quarantined: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for name, catchup in services.catchups.items():
        try:
            counts[name], latest = catchup.projection.view.quarantined()
        except Exception:  # noqa: S112 - a view's store may fail on its own (its lag says so)
            continue
        quarantined += [
            {
                "projection": name,
                "position": int(q["position"]),
                "game_id": q["originator_id"],
                "version": int(q["version"]),
                "topic": q["topic"],
                "error": q["error"],
                "quarantined_at": q["quarantined_at"],
            }
            for q in latest
        ]
    try:
        integrity = services.integrity()
    except Exception as exc:  # the check itself failed: say so, do not hide it
        integrity = {"ok": False, "problems": [{"problem": f"{type(exc).__name__}: {exc}"[:200]}]}
    status = "tampered" if not integrity["ok"] else "degraded" if quarantined else "ok"
    return JSONResponse(
        {
            "status": status,
            "database": services.db.kind,
            "projections_lag": lags,
            "ledger_integrity": integrity,
            "quarantined_counts": {k: v for k, v in counts.items() if v},
            "quarantined": quarantined,
            "reasons": [
                f"game {p.get('game_id', '?')} version {p.get('version')}: {p['problem']}"
                for p in integrity["problems"]
            ]
            + [
                f"game {q['game_id']} version {q['version']}: projection {q['projection']} set it aside "
                f"({q['error'][:120]}); after fixing the cause, `gameledger projections rebuild` applies it"
                for q in quarantined
            ],
        }
    )


@probes.get("/live")
def live() -> dict[str, str]:
    """Liveness: the process answers. Nothing else is checked, so that an outage of the
    database does not make an orchestrator restart every server at once."""
    return {"status": "alive"}


@probes.get("/ready")
def ready(services: ServicesDep) -> JSONResponse:
    """Readiness: the schema is migrated, the database answers and every projection is
    within ``GAMELEDGER_READY_MAX_LAG`` events of the log (503 with the reasons otherwise)."""
    reasons: list[str] = []
    lags: dict[str, int | None] = {}
    head: int | None = None
    try:
        if services.schema_pending:  # known at start; re-read until `db migrate` has run
            from api.migrations import pending

            services.schema_pending = pending(services.db)
        if services.schema_pending:
            reasons.append(
                "schema migrations pending: "
                + ", ".join(map(str, services.schema_pending))
                + " (run gameledger db migrate)"
            )
        else:
            head = services.ledger.recorder.max_notification_id() or 0
    except Exception as exc:  # any storage failure means not ready
        reasons.append(f"database unreachable: {type(exc).__name__}: {exc}"[:300])
    limit = services.settings.ready_max_lag
    if head is not None:
        for name, catchup in services.catchups.items():
            try:
                lag = max(0, head - catchup.projection.view.position(services.ledger.name))
            except Exception as exc:  # a view's store may fail on its own
                lags[name] = None
                reasons.append(f"projection {name} unreadable: {type(exc).__name__}"[:300])
                continue
            lags[name] = lag
            if limit and lag > limit:
                reasons.append(f"projection {name} is {lag} events behind (limit {limit})")
    body = {
        "status": "ready" if not reasons else "not ready",
        "database": services.db.kind,
        "head": head,
        "projections_lag": lags,
        "max_lag": limit,
        "reasons": reasons,
    }
    return JSONResponse(body, status_code=503 if reasons else 200)

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import ServicesDep

router = APIRouter(tags=["health"])


@router.get("/health")
def health(services: ServicesDep) -> JSONResponse:
    """Liveness, database reachability, each projection's lag (notifications not yet applied)
    and tamper evidence: the hash chains of the most recently active games, re-read from the store."""
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
    try:
        integrity = services.integrity()
    except Exception as exc:  # the check itself failed: say so, do not hide it
        integrity = {"ok": False, "problems": [{"problem": f"{type(exc).__name__}: {exc}"[:200]}]}
    return JSONResponse(
        {
            "status": "ok" if integrity["ok"] else "tampered",
            "database": services.db.kind,
            "projections_lag": lags,
            "ledger_integrity": integrity,
        }
    )

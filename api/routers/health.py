from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import ServicesDep

router = APIRouter(tags=["health"])


@router.get("/health")
def health(services: ServicesDep) -> JSONResponse:
    """Liveness, database reachability and each projection's lag (notifications not yet applied)."""
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
    return JSONResponse({"status": "ok", "database": services.db.kind, "projections_lag": lags})

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import ServicesDep

router = APIRouter(tags=["health"])


@router.get("/health")
def health(services: ServicesDep) -> JSONResponse:
    """Liveness and database reachability."""
    try:
        services.ledger.recorder.max_notification_id()
    except Exception as exc:  # any storage failure means not ready
        return JSONResponse({"status": "unavailable", "database": str(exc)[:200]}, status_code=503)
    return JSONResponse({"status": "ok", "database": services.db.kind})

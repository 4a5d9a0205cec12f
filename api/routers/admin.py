"""The operator's levers (admin token only)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter

from api.deps import CallerDep, ServicesDep
from api.schemas import ErrorOut
from ledger.errors import ForbiddenError

router = APIRouter(prefix="/admin", tags=["admin"])


@router.post("/clocks/tick", responses={401: {"model": ErrorOut}, 403: {"model": ErrorOut}})
def tick_clocks(caller: CallerDep, services: ServicesDep, at: datetime | None = None) -> dict[str, Any]:
    """Run the clock scheduler's round now (``at``: as if it were that time, for drills)."""
    if not caller.is_admin:
        raise ForbiddenError("Only the operator runs the scheduler by hand.", code="auth/admin_only")
    return {"timed_out": services.tick_clocks(at)}


@router.post("/webhooks/run", responses={401: {"model": ErrorOut}, 403: {"model": ErrorOut}})
def run_webhooks(caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Deliver the due webhooks now."""
    if not caller.is_admin:
        raise ForbiddenError("Only the operator runs deliveries by hand.", code="auth/admin_only")
    services.refresh("notifications")
    return {"delivered": services.webhooks.run_once()}


@router.post("/resimulate", responses={401: {"model": ErrorOut}, 403: {"model": ErrorOut}})
def resimulate(caller: CallerDep, services: ServicesDep, title: str | None = None) -> dict[str, Any]:
    """Replay every stored game (of ``title``) under the current rules: identical, diverged at
    event N with the first differing effect, or illegal at event N; standings and league
    ratings that would change."""
    if not caller.is_admin:
        raise ForbiddenError("Only the operator re-simulates.", code="auth/admin_only")
    return services.resimulate(title)


@router.post(
    "/games/{game_id}/migrate",
    responses={401: {"model": ErrorOut}, 403: {"model": ErrorOut}, 409: {"model": ErrorOut}},
)
def migrate(game_id: str, caller: CallerDep, services: ServicesDep, force: bool = False) -> dict[str, Any]:
    """Move a game to the current rules version (a recorded event), after re-simulating it."""
    if not caller.is_admin:
        raise ForbiddenError("Only the operator migrates games.", code="auth/admin_only")
    return services.ledger.migrate(game_id, force=force)

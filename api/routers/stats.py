from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import CallerDep, PathId, Position, ServicesDep
from api.schemas import ErrorOut
from ledger import registry

router = APIRouter(tags=["statistics"])
ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (401, 404, 422)}


@router.get("/players/{player_id}/stats", responses=ERRORS)
def player_stats(
    player_id: PathId,
    caller: CallerDep,
    services: ServicesDep,
    position: Position = None,
) -> dict[str, Any]:
    """Games, wins, average rank and average final value, overall, per title and per player
    count; ``bot``: a simulated player, played by a program; ``pace``: per title, the median and
    90th-percentile seconds to decide (from the moment the seat is awaited to its decision,
    vacations excluded), timeouts, forfeits and abandoned games."""
    if player_id == "me":
        player_id = caller.player_id
    player = services.ledger.get_player(player_id)
    services.wait_for("leaguestats", position)
    services.wait_for("pace", position)
    stats = services.view("leaguestats").player_stats(str(player.id))
    return {
        "name": player.name,
        "bot": player.bot,
        **stats,
        "pace": services.view("pace").pace(str(player.id)),
    }


@router.get("/titles/{title}/stats", responses=ERRORS)
def title_stats(
    title: PathId,
    _: CallerDep,
    services: ServicesDep,
    position: Position = None,
) -> dict[str, Any]:
    """Seat-order win rates, score distribution, and game length in decisions and in days."""
    registry.meta(title)
    services.wait_for("leaguestats", position)
    return services.view("leaguestats").title_stats(title)  # type: ignore[no-any-return]

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, status

from api.deps import CallerDep, ServicesDep
from api.schemas import MAX_INDEX, ErrorOut, LeagueGameIn, LeagueIn
from ledger.errors import NotFoundError

router = APIRouter(prefix="/leagues", tags=["leagues"])
ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422)}
LeagueRef = Annotated[str, Path(description="League id or name", min_length=1, max_length=80)]
Position = Annotated[
    int | None, Query(ge=0, le=MAX_INDEX, description="Wait until the read model includes this position")
]


def _league_out(
    services: ServicesDep, league_ref: str, as_of: datetime | None, position: int | None
) -> dict[str, Any]:
    league = services.ledger.get_league(league_ref)
    services.wait_for("leaguestats", position)
    services.wait_for("gameindex", None)
    out = services.view("leaguestats").league(str(league.id), as_of)
    if out is None:
        raise NotFoundError(f"No league {league_ref}.", code="league/not_found")
    ids = [r["player_id"] for r in out["standings"]]
    names = services.game_index.view.player_names(ids)
    for row in (*out["standings"], *out["ratings"]):
        row["name"] = names.get(row["player_id"])
    return out


@router.post("", status_code=status.HTTP_201_CREATED, responses=ERRORS)
def create_league(body: LeagueIn, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Create a league; its creator is its organiser. Names are unique."""
    league = services.ledger.create_league(creator=caller.player_id, name=body.name, title=body.title)
    return {
        "league_id": str(league.id),
        "name": league.name,
        "title": league.title,
        "organiser": league.created_by,
    }


@router.get("", responses=ERRORS)
def list_leagues(_: CallerDep, services: ServicesDep, position: Position = None) -> dict[str, Any]:
    """All leagues, oldest first, with their number of games."""
    services.wait_for("leaguestats", position)
    return {"leagues": services.view("leaguestats").leagues()}


@router.get("/{league}", responses=ERRORS)
def get_league(
    league: LeagueRef,
    _: CallerDep,
    services: ServicesDep,
    as_of: Annotated[
        datetime | None, Query(description="Standings and ratings as they were at this time")
    ] = None,
    position: Position = None,
) -> dict[str, Any]:
    """Standings (wins, average rank, final value) and openskill ratings (Plackett-Luce)."""
    return _league_out(services, league, as_of, position)


@router.post("/{league}/games", responses=ERRORS)
def add_game(
    league: LeagueRef, body: LeagueGameIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """The organiser adds an existing game (running or finished) to the league."""
    found = services.ledger.add_game_to_league(league, body.game_id, caller.player_id)
    return {"league_id": str(found.id), "games": found.games}


@router.post("/{league}/close", responses=ERRORS)
def close_league(league: LeagueRef, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The organiser closes the league: no more games join it."""
    found = services.ledger.close_league(league, caller.player_id)
    return {"league_id": str(found.id), "closed": found.closed}

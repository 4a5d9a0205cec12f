from __future__ import annotations

from fastapi import APIRouter, status

from api.deps import CallerDep, ServicesDep
from api.schemas import ErrorOut, PlayerCreated, PlayerIn, PlayerOut

router = APIRouter(tags=["players"])


@router.post(
    "/players",
    status_code=status.HTTP_201_CREATED,
    response_model=PlayerCreated,
    responses={422: {"model": ErrorOut}},
)
def register_player(body: PlayerIn, services: ServicesDep) -> PlayerCreated:
    """Register a player. The token is shown once and stored only as a hash."""
    player_id, token = services.ledger.register_player(body.name)
    return PlayerCreated(player_id=player_id, name=body.name.strip(), token=token)


@router.get("/me", response_model=PlayerOut, responses={401: {"model": ErrorOut}})
def me(caller: CallerDep) -> PlayerOut:
    """Who the bearer token belongs to."""
    return PlayerOut(player_id=caller.player_id, name=caller.name, is_admin=caller.is_admin)


@router.get("/me/turns", responses={401: {"model": ErrorOut}})
def my_turns(caller: CallerDep, services: ServicesDep) -> dict[str, object]:
    """Games waiting on the caller's decision, most recently moved first."""
    services.wait_for("gameindex", None)
    games = services.game_index.view.list_games(status="active", awaiting_player=caller.player_id, limit=200)
    return {"games": games}

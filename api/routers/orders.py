"""A seat's standing orders and conditional replies, and its return from the stand-in.

Orders and replies are the caller's own: private to their seat until one of them decides (the
decision is then the seat's, recorded with ``by: "order"`` or ``by: "reply"`` and the rule's id).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import CallerDep, ServicesDep
from api.presenters import game_out
from api.routers.games import ERRORS, GameId
from api.schemas import GameOut

router = APIRouter(prefix="/games", tags=["games"])


@router.post("/{game_id}/return", response_model=GameOut, responses=ERRORS)
def return_to_game(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Take your seat back from the stand-in bot (which plays a seat whose clock ran out under
    ``on_expiry: "bot"``); any decision of yours does the same. 409 ``game/not_away`` when no
    stand-in plays your seat."""
    game = services.ledger.return_to_game(game_id, caller.player_id)
    return game_out(services, game, caller)

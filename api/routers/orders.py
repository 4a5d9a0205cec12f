"""A seat's standing orders and conditional replies, and its return from the stand-in.

Orders and replies are the caller's own: private to their seat until one of them decides (the
decision is then the seat's, recorded with ``by: "order"`` or ``by: "reply"`` and the rule's id).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi import Request as HTTPRequest
from pydantic import Field

from api.deps import CallerDep, ServicesDep
from api.presenters import game_out
from api.ratelimit import charge_automatic, limit_decisions
from api.routers.games import ERRORS, GameId
from api.schemas import GameOut, Request
from ledger.domain import Game
from ledger.errors import ForbiddenError
from ledger.orders import MAX_RULES

router = APIRouter(prefix="/games", tags=["games"])


@router.post(
    "/{game_id}/return", response_model=GameOut, responses=ERRORS, dependencies=[Depends(limit_decisions)]
)
def return_to_game(
    game_id: GameId, request: HTTPRequest, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """Take your seat back from the stand-in bot (which plays a seat whose clock ran out under
    ``on_expiry: "bot"``); any decision of yours does the same. 409 ``game/not_away`` when no
    stand-in plays your seat."""
    game = services.ledger.return_to_game(game_id, caller.player_id)
    charge_automatic(request, caller, game)
    return game_out(services, game, caller)


class OrdersIn(Request):
    rules: list[dict[str, Any]] = Field(
        max_length=MAX_RULES,
        description="In order: the first rule that applies decides. Each names decision kinds and how "
        "to choose among the legal ones (see ledger/orders.py)",
        examples=[[{"kinds": ["pass_bid"], "note": "pass in share auctions"}]],
    )


class RepliesIn(Request):
    replies: list[dict[str, Any]] = Field(
        max_length=MAX_RULES,
        description="If the next decision of seat X is D, reply E: {seat, decision | kind + where, reply}",
    )


def _mine(game: Game, caller_id: str, what: str) -> dict[str, Any]:
    seats = game.seats_of(caller_id)
    if not seats:
        raise ForbiddenError(f"Only a player of the game has {what} in it.", code="game/not_seated")
    seat = seats[0]
    if what == "orders":
        rules = list(game.orders.get(str(seat), ()))
        return {"game_id": str(game.id), "seat": seat, "version": game.version, "rules": rules}
    mine = game.replies.get(str(seat), {})
    return {
        "game_id": str(game.id),
        "seat": seat,
        "version": game.version,
        "replies": list(mine.get("pending", ())),
        "armed": mine.get("armed"),
    }


@router.get("/{game_id}/orders", responses=ERRORS)
def get_orders(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Your seat's standing order: its rules, each with its id (private to your seat)."""
    return _mine(services.ledger.get_game(game_id), caller.player_id, "orders")


@router.put("/{game_id}/orders", responses=ERRORS, dependencies=[Depends(limit_decisions)])
def put_orders(
    game_id: GameId, body: OrdersIn, request: HTTPRequest, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """Replace your seat's standing order (an event: who, when, what; what is private to your seat
    until a rule decides). A rule that applies now decides at once, and what it decides counts as
    your decisions in the decision limit. 422 ``orders/invalid``."""
    game = services.ledger.set_orders(game_id, caller.player_id, body.rules)
    charge_automatic(request, caller, game)
    return _mine(game, caller.player_id, "orders")


@router.delete("/{game_id}/orders", responses=ERRORS)
def delete_orders(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Withdraw your seat's standing order."""
    game = services.ledger.set_orders(game_id, caller.player_id, [])
    return _mine(game, caller.player_id, "orders")


@router.get("/{game_id}/replies", responses=ERRORS)
def get_replies(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Your seat's conditional replies (private to your seat until used)."""
    return _mine(services.ledger.get_game(game_id), caller.player_id, "replies")


@router.put("/{game_id}/replies", responses=ERRORS)
def put_replies(game_id: GameId, body: RepliesIn, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Replace your conditional replies: each waits for the next decision of the game; if it is
    seat X's decision D, your seat answers E when next awaited; anything else drops them."""
    game = services.ledger.set_replies(game_id, caller.player_id, body.replies)
    return _mine(game, caller.player_id, "replies")


@router.delete("/{game_id}/replies", responses=ERRORS)
def delete_replies(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Withdraw your conditional replies."""
    return put_replies(game_id, RepliesIn(replies=[]), caller, services)

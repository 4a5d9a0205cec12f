"""A game's table talk: its players' messages (and spectators', if its creator allows them)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, status

from api.deps import Caller, CallerDep, ServicesDep
from api.routers.games import ERRORS, GameId
from api.schemas import MAX_INDEX, HideMessageIn, MessageIn, TalkSettingsIn
from ledger.domain import Conversation
from ledger.errors import ForbiddenError

router = APIRouter(prefix="/games", tags=["table talk"])
Number = Annotated[int, Path(ge=1, le=MAX_INDEX, description="The message's number in the game's talk")]


def message_out(message: dict[str, Any], operator: bool = False) -> dict[str, Any]:
    """A message as served: a hidden one without its text (but to the operator)."""
    hidden = message.get("hidden")
    return {
        "number": message["number"],
        "player_id": message["player"],
        "name": message["name"],
        "seat": message["seat"],
        "text": message["text"] if operator or not hidden else None,
        "game_version": message["game_version"],
        "at": message["at"],
        "hidden": {"reason": hidden["reason"]} if hidden else None,
    }


def messages_out(
    talk: Conversation | None, caller: Caller, after: int = 0, limit: int = 1000
) -> list[dict[str, Any]]:
    messages = talk.messages[after : after + limit] if talk else []
    return [message_out(m, caller.is_admin) for m in messages]


@router.get("/{game_id}/messages", responses=ERRORS)
def list_messages(
    game_id: GameId,
    caller: CallerDep,
    services: ServicesDep,
    after: Annotated[int, Query(ge=0, le=MAX_INDEX, description="Only messages after this number")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> dict[str, Any]:
    """The game's table talk, oldest first: for its players (and the operator), and for
    everyone once its creator allows spectators. Each message names the game version it was
    written at; a message the operator hid comes without its text, with the reason."""
    game, talk = services.ledger.read_talk(game_id, caller.player_id)
    return {
        "game_id": str(game.id),
        "spectators_allowed": bool(talk and talk.spectators),
        "count": len(talk.messages) if talk else 0,
        "head_hash": talk.head_hash if talk else None,
        "messages": messages_out(talk, caller, after, limit),
    }


@router.post(
    "/{game_id}/messages", status_code=status.HTTP_201_CREATED, responses={**ERRORS, 429: ERRORS[422]}
)
def post_message(
    game_id: GameId, body: MessageIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """Write to the game's table talk (a seated player, or a spectator if allowed): 1 to 1,000
    characters of plain text, at most 5 messages in 30 s (then 429 with ``Retry-After``).
    It is pushed at once on the game's stream (``event: talk``) to those who may read it."""
    talk, number = services.ledger.post_message(game_id, caller.player_id, body.text)
    return message_out(talk.messages[number - 1])


@router.put("/{game_id}/messages/settings", responses=ERRORS)
def talk_settings(
    game_id: GameId, body: TalkSettingsIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """The game's creator lets spectators read and write its table talk (or stops them)."""
    talk = services.ledger.allow_spectators(game_id, caller.player_id, body.spectators)
    return {"game_id": game_id, "spectators_allowed": talk.spectators}


@router.post("/{game_id}/messages/{number}/hide", responses=ERRORS)
def hide_message(
    game_id: GameId, number: Number, body: HideMessageIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """The operator hides a message: an event of the talk with the reason; the players then see
    that a message was hidden, and why, but not its text."""
    if not caller.is_admin:
        raise ForbiddenError("Only the operator hides a message.", code="auth/admin_only")
    talk = services.ledger.hide_message(game_id, number, body.reason)
    return message_out(talk.messages[number - 1], operator=True)

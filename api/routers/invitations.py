"""Private tables and invitations: the creator invites players by name, by address or with a
link to share, withdraws an invitation or opens a seat; the invited take their seats."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, status

from api.deps import CallerDep, ServicesDep
from api.invitations import Invitations
from api.presenters import game_out
from api.ratelimit import charge_automatic, limit_decisions
from api.schemas import (
    ErrorOut,
    GameOut,
    InvitationAcceptIn,
    InvitationIn,
    InvitationListOut,
    InvitationOut,
)
from ledger.errors import ForbiddenError, InvalidRequestError

router = APIRouter(prefix="/games", tags=["invitations"])

GameId = Annotated[str, Path(description="The game's id", min_length=1, max_length=64)]
Number = Annotated[int, Path(description="The invitation's number in its game", ge=1, le=100)]
Seat = Annotated[int, Path(description="A seat of the game (0 is the first)", ge=0, le=7)]
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 403, 404, 409, 422, 429)
}


def _creator(services: Any, caller: Any, game_id: str) -> Any:
    game = services.ledger.get_game(game_id)
    if not caller.is_admin and game.created_by != caller.player_id:
        raise ForbiddenError("Only the game's creator manages its invitations.", code="game/not_creator")
    return game


@router.post(
    "/{game_id}/invitations",
    status_code=status.HTTP_201_CREATED,
    response_model=InvitationOut,
    responses=ERRORS,
)
def invite(game_id: GameId, body: InvitationIn, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Hold a free seat for a player (``player``: an id or a name), for an address (``email``:
    mailed a link that signs up or in and takes the seat) or for a link to share (``link``: its
    address is in the answer, this once). The creator only, before the game starts; at most two
    invitations per seat in all, and 20 an hour per creator (429 ``invitation/rate_limited``)."""
    _creator(services, caller, game_id)
    given = [x for x in (body.player, body.email) if x] + (["link"] if body.link else [])
    if len(given) != 1:
        raise InvalidRequestError("Give one of player, email or link.", code="invitation/invalid")
    inv = Invitations(services)
    if body.link:
        from api.invitations import Invitee

        who = Invitee("link")
    elif body.email:
        who = inv.invitee(body.email)
        if who.kind != "email":
            raise InvalidRequestError("That is not an email address.", code="request/invalid_email")
    else:
        who = inv.invitee(str(body.player))
        if who.kind != "player":
            raise InvalidRequestError(
                "A player is named by id or name; an address goes in email.", code="invitation/invalid"
            )
    return inv.issue(game_id, caller, who, seat=body.seat)


@router.get("/{game_id}/invitations", response_model=InvitationListOut, responses=ERRORS)
def invitations(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The game's invitations, for its creator: pending, accepted and withdrawn."""
    game = _creator(services, caller, game_id)
    return {
        "game_id": str(game.id),
        "private": game.private,
        "invitations": Invitations(services).listed(game),
    }


@router.delete("/{game_id}/invitations/{number}", response_model=GameOut, responses=ERRORS)
def withdraw(game_id: GameId, number: Number, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Withdraw an invitation: its seat is free again and its link stops working."""
    _creator(services, caller, game_id)
    game = services.ledger.withdraw_invitation(game_id, caller.player_id, number)
    return game_out(services, game, caller)


@router.post("/{game_id}/seats/{seat}/open", response_model=GameOut, responses=ERRORS)
def open_seat(game_id: GameId, seat: Seat, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Open a free seat to anyone with the table's address (a private table stays unlisted);
    an invitation holding it is withdrawn."""
    _creator(services, caller, game_id)
    game = services.ledger.open_seat(game_id, caller.player_id, seat)
    return game_out(services, game, caller)


@router.post(
    "/{game_id}/invitations/accept",
    response_model=GameOut,
    responses=ERRORS,
    dependencies=[Depends(limit_decisions)],  # the start may set off the seats' standing orders
)
def accept(
    game_id: GameId, body: InvitationAcceptIn, request: Request, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """Take the seat an invitation holds: yours by name (no token), or a link's (``token``, from
    the part of the link after ``#token=``). A link works once, in its own game only, until it
    expires or is withdrawn; the game starts when the last seat is taken."""
    if caller.is_admin:
        raise InvalidRequestError("The operator does not take seats.", code="request/admin_cannot_join")
    game = Invitations(services).accept(game_id, caller, body.token)
    charge_automatic(request, caller, game)
    return game_out(services, game, caller)

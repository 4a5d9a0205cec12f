"""The ledger's invitation use cases: a private table, joined only by invitation.

The creator of a waiting game reserves seats: for a player named, for an address mailed a link,
or for a link to share. Each invitation is an event of the game (it changes who may sit), and
so are its withdrawal, a seat opened to anyone with the table's address, and the seat taken by
an invitation. The record names an invited player, or a link's id only: the address and the
link's secret stay in the accounts store (``api/invitations.py``), never in the record.

An invitation holds one free seat until it is taken, withdrawn or expires; a link works once,
in its own game only. Every count is bounded: pending invitations by the free seats, all the
invitations a game ever had by ``MAX_INVITATIONS_PER_SEAT`` times its seats.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import Application

from ledger.domain import ADMIN, WAITING, Game, Player
from ledger.errors import (
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    StaleVersionError,
)
from ledger.retry import retrying

KINDS = ("player", "email", "link")
MAX_INVITATIONS_PER_SEAT = 2  # all a game's invitations ever, withdrawn ones included


class InvitationUseCases(Application[UUID]):
    """A part of the ``Ledger``: private tables and their invitations."""

    if TYPE_CHECKING:  # what they use of the rest of the ledger
        clock: Callable[[], datetime]

        def get_game(self, game_id: UUID | str, version: int | None = None) -> Game: ...
        def get_player(self, player_id: UUID | str) -> Player: ...
        def _save_game(self, game: Game) -> list[Any]: ...
        def _start(self, game: Game) -> None: ...

    def _creators_waiting_game(self, game_id: UUID | str, by: str) -> Game:
        game = self.get_game(game_id)
        if by not in (game.created_by, ADMIN):
            raise ForbiddenError("Only the game's creator invites players to it.", code="game/not_creator")
        if game.status != WAITING:
            raise ConflictError("The game has already started.", code="game/already_started")
        return game

    def invite(
        self,
        game_id: UUID | str,
        by: str,
        *,
        kind: str,
        expires_at: datetime,
        player: str | None = None,
        link: str | None = None,
        seat: int | None = None,
    ) -> tuple[Game, int]:
        """Reserve a free seat (the first one, or ``seat``) for an invitation; its number."""
        if (
            kind not in KINDS
            or (kind == "player") != (player is not None)
            or (kind != "player") != bool(link)
        ):
            raise InvalidRequestError("An invitation names a player, or a link.", code="invitation/invalid")

        def attempt() -> tuple[Game, int]:
            game = self._creators_waiting_game(game_id, by)
            now = self.clock()
            if len(game.invitations) >= MAX_INVITATIONS_PER_SEAT * game.seat_count:
                raise ConflictError(
                    f"A game has at most {MAX_INVITATIONS_PER_SEAT * game.seat_count} invitations "
                    f"({MAX_INVITATIONS_PER_SEAT} per seat), withdrawn ones included.",
                    code="invitation/too_many",
                )
            invitee = None
            if player is not None:
                invitee = str(self.get_player(player).id)
                if invitee in game.seats:
                    raise ConflictError(f"{invitee} already holds a seat.", code="invitation/already_seated")
                if any(
                    inv.get("player") == invitee and inv["status"] == "pending"
                    for inv in game.invitations.values()
                ):
                    raise ConflictError("That player is invited already.", code="invitation/already_invited")
            held = game.reserved(now.isoformat())
            free = [i for i, p in enumerate(game.seats) if p is None and i not in held]
            if seat is not None:
                if not 0 <= seat < game.seat_count:
                    raise InvalidRequestError(
                        f"Seats are numbered 0 to {game.seat_count - 1}.", code="request/invalid_seat"
                    )
                if seat not in free:
                    raise ConflictError("That seat is taken or held.", code="invitation/no_free_seat")
                chosen = seat
            elif free:
                chosen = free[0]
            else:
                raise ConflictError(
                    "Every free seat is held by an invitation already: withdraw one first.",
                    code="invitation/no_free_seat",
                )
            number = game.invite(chosen, kind, by, expires_at.isoformat(), now, player=invitee, link=link)
            self._save_game(game)
            return game, number

        return retrying(
            attempt,
            code="game/stale_version",
            message="The table changed at the same moment; try again.",
            clashes=(StaleVersionError,),
        )

    def withdraw_invitation(self, game_id: UUID | str, by: str, number: int) -> Game:
        game = self._creators_waiting_game(game_id, by)
        inv = game.invitations.get(str(number))
        if inv is None:
            raise NotFoundError(f"This game has no invitation {number}.", code="invitation/not_found")
        if inv["status"] != "pending":
            raise ConflictError(f"The invitation was {inv['status']} already.", code="invitation/not_pending")
        game.withdraw_invitation(number, by, self.clock())
        self._save_game(game)
        return game

    def open_seat(self, game_id: UUID | str, by: str, seat: int) -> Game:
        """Open a free seat to anyone with the table's address (withdrawing its invitation)."""
        game = self._creators_waiting_game(game_id, by)
        if not 0 <= seat < game.seat_count:
            raise InvalidRequestError(
                f"Seats are numbered 0 to {game.seat_count - 1}.", code="request/invalid_seat"
            )
        if game.seats[seat] is not None:
            raise ConflictError("That seat is taken.", code="game/seat_taken")
        if seat in game.opened and seat not in game.reserved():
            raise ConflictError("That seat is open already.", code="game/seat_open")
        game.open_seat(seat, by, self.clock())
        self._save_game(game)
        return game

    def accept_invitation(self, game_id: UUID | str, player: str, *, link: str | None = None) -> Game:
        """Take the seat an invitation holds: the caller's own (by name), or a link's."""
        return retrying(
            lambda: self._accept(game_id, player, link),
            code="game/stale_version",
            message="Others joined at the same moment; try again.",
            clashes=(StaleVersionError,),
        )

    def _accept(self, game_id: UUID | str, player: str, link: str | None) -> Game:
        game = self.get_game(game_id)
        if link is not None:
            found = [(int(n), inv) for n, inv in game.invitations.items() if inv.get("link") == link]
        else:
            found = [(int(n), inv) for n, inv in game.invitations.items() if inv.get("player") == player]
            found = [x for x in found if x[1]["status"] == "pending"] or found
        if not found:
            raise NotFoundError("No invitation to this game for you.", code="invitation/not_found")
        number, inv = found[-1]
        if inv["status"] == "accepted":
            raise ConflictError("This invitation was used already: it works once.", code="invitation/used")
        if inv["status"] == "withdrawn":
            raise ConflictError("The creator withdrew this invitation.", code="invitation/withdrawn")
        if game.status != WAITING:
            raise ConflictError("The game has already started.", code="game/already_started")
        now = self.clock()
        if inv["expires_at"] <= now.isoformat():
            raise ConflictError("This invitation has expired: ask for a new one.", code="invitation/expired")
        if player in game.seats:
            raise ConflictError("You already hold a seat in this game.", code="game/already_seated")
        game.claim_seat(inv["seat"], player, now, invitation=number)
        if game.full:
            self._start(game)
        self._save_game(game)
        return game

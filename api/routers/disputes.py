"""Disputes: a player disputes events of a game (citing its table talk), and the game's
adjudicator rules on it — the organiser of the game's league, or the operator for a game in no
league or one its organiser plays in (``ledger/application/disputes.py``).

Opening a dispute is limited per player and per game (token buckets in each server process,
``GAMELEDGER_DISPUTE_RATE`` and ``GAMELEDGER_DISPUTE_BURST``; a game takes twice a player's):
over a limit the answer is 429 ``request/rate_limited`` with ``Retry-After``, and nothing is
written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response, status

from api.deps import Caller, CallerDep, ServicesDep
from api.presenters import game_out
from api.ratelimit import TokenBucket, retry_after
from api.routers.games import ERRORS, GameId
from api.routers.keyed import OnceDep
from api.schemas import MAX_INDEX, DisputeIn, GameOut, ResolveIn
from ledger.domain import Game
from ledger.errors import RateLimitedError

router = APIRouter(tags=["disputes"])
Number = Annotated[int, Path(ge=1, le=MAX_INDEX, description="The dispute's number in its game")]
LIMITED = {**ERRORS, 429: ERRORS[422]}
GAME_FACTOR = 2  # a game takes this many times a player's disputes, from all its players together


@dataclass
class DisputeLimit:
    """Disputes opened per player and per game (``rate`` an hour after ``burst``)."""

    rate_per_hour: float
    burst: int

    def __post_init__(self) -> None:
        on = self.rate_per_hour > 0
        rate = self.rate_per_hour / 3600
        self.players = TokenBucket(rate, max(1, self.burst)) if on else None
        self.games = TokenBucket(rate * GAME_FACTOR, max(1, self.burst * GAME_FACTOR)) if on else None

    def take(self, caller: Caller, game_id: str) -> None:
        """One dispute from the caller's bucket, then from the game's."""
        if self.players is None or self.games is None:
            return
        wait = self.players.take(f"player:{caller.player_id}")
        what = "disputes opened by you"
        if not wait:
            wait = self.games.take(f"game:{game_id.lower()}")
            what = "disputes opened in this game"
        if wait > 0:
            retry = retry_after(wait)
            raise RateLimitedError(f"Too many {what}; try again in {retry} s.", retry)


def limit_disputes(request: Request, caller: Caller) -> Callable[[Game], None]:
    """The app's DisputeLimit, counted when a new dispute is about to be written (a bad request
    is refused before, and a repeat answered with the seat's open dispute, using nothing up)."""
    limit: DisputeLimit | None = getattr(request.app.state, "dispute_limit", None)
    return lambda game: limit.take(caller, str(game.id)) if limit is not None else None


@router.post(
    "/games/{game_id}/disputes",
    status_code=status.HTTP_201_CREATED,
    responses={**LIMITED, 200: {"description": "The seat's open dispute about these events, already there"}},
)
def open_dispute(
    game_id: GameId,
    body: DisputeIn,
    caller: CallerDep,
    services: ServicesDep,
    once: OnceDep,
    request: Request,
    response: Response,
) -> dict[str, Any]:
    """Dispute what some events recorded (a player of the game), citing table-talk messages by
    number; the dispute is an event of the game, and the other seats, the league's organiser
    and the operator are told. One open dispute per seat per event: a submission about events
    you already dispute is answered with that dispute (200, ``existing: true``), never a second
    one; one naming some of them among others is 409 ``dispute/already_open``."""

    def answer() -> dict[str, Any]:
        opened = services.ledger.open_dispute(
            game_id,
            caller.player_id,
            body.versions,
            body.text,
            body.messages,
            before_write=limit_disputes(request, caller),
        )
        return {
            "dispute": opened.number,
            "existing": opened.existing,
            "url": f"/games/{opened.game.id}/disputes/{opened.number}",
            "game": game_out(services, opened.game, caller),
        }

    out = once(body, answer)
    if out.get("existing"):
        response.status_code = status.HTTP_200_OK
    return out


@router.get("/games/{game_id}/disputes", responses=ERRORS)
def list_disputes(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The game's disputes, open and resolved (each also an event of the game's public record)."""
    game = services.ledger.get_game(game_id)
    return {"disputes": sorted(game.disputes.values(), key=lambda d: d["dispute"])}


@router.post("/games/{game_id}/disputes/{number}/resolve", response_model=GameOut, responses=ERRORS)
def resolve_dispute(
    game_id: GameId,
    number: Number,
    body: ResolveIn,
    caller: CallerDep,
    services: ServicesDep,
) -> dict[str, Any]:
    """The adjudication, by the organiser of the game's league (or the operator: a game in no
    league, or one its organiser plays in; the operator may rule on any): no change, a
    correction (the game goes back to the position before event ``rewind_to`` by a compensating
    event) or annulment. Nobody rules on a game they play in (403 ``dispute/plays_in_game``);
    anyone else gets 403 ``dispute/not_adjudicator``. The ruling is an event naming who ruled;
    every party is told it, with its note."""
    game = services.ledger.resolve_dispute(
        game_id, number, body.outcome, body.note, body.rewind_to, by=caller.player_id
    )
    return game_out(services, game, caller)

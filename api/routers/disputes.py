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

from api.audits import stretch_of
from api.deps import Caller, CallerDep, ServicesDep
from api.presenters import game_out, names_for, seat_names
from api.ratelimit import TokenBucket, retry_after
from api.routers.games import ERRORS, GameId
from api.routers.keyed import OnceDep
from api.routers.talk import message_out
from api.schemas import MAX_INDEX, DisputeIn, GameOut, ResolveIn
from api.services import Services
from ledger.domain import ACTIVE, ADMIN, Game
from ledger.errors import ForbiddenError, NotFoundError, RateLimitedError

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


# -- one dispute, and the queues -------------------------------------------------------------


def player_name(services: Services, player_id: str | None) -> str:
    """A player's name (the operator: "the operator")."""
    if not player_id or player_id == ADMIN:
        return "the operator"
    names = services.game_index.view.player_names([player_id])
    if player_id in names:
        return str(names[player_id])
    try:
        return str(services.ledger.get_player(player_id).name)
    except NotFoundError:
        return f"player {player_id[:8]}"


def signed_digest(services: Services, game: Game, through: int) -> dict[str, Any]:
    """The latest signed digest with the game's proof; a new one if it does not hold the game up
    to event ``through`` yet."""
    digest = services.digest(str(game.id), fresh=False)
    leaf = (digest.get("proof") or {}).get("leaf") or {}
    if int(leaf.get("version") or 0) < through:
        digest = services.digest(str(game.id), fresh=True)
    return digest


def dispute_view(services: Services, game_id: str, number: int, caller: Caller) -> dict[str, Any]:
    """A dispute as its page shows it: for the players of its game, whoever rules on it and the
    operator (anyone else: 403 ``dispute/not_a_party``). The dispute, who rules, the cited table
    talk, and the audit of the disputed events in words."""
    ledger = services.ledger
    game = ledger.get_game(game_id)
    d = game.disputes.get(str(number))
    if d is None:
        raise NotFoundError(f"The game has no dispute {number}.", code="dispute/not_found")
    adjudicator = ledger.adjudicator(game)
    if not (game.seats_of(caller.player_id) or caller.is_admin or caller.player_id == adjudicator):
        raise ForbiddenError(
            "A dispute is for the players of its game and whoever rules on it.", code="dispute/not_a_party"
        )
    names = seat_names(game, names_for(services, game))
    talk = ledger.conversation(game.id)
    held = talk.messages if talk else []
    cited = [message_out(held[n - 1], caller.is_admin) for n in d.get("messages", []) if 1 <= n <= len(held)]
    versions = [int(v) for v in d["versions"]]
    stretch = stretch_of(
        services, game, versions, caller, names, signed_digest(services, game, max(versions))
    )
    league = ledger.league_of(game)
    first = ledger.correctable_from(game)
    return {
        "game_id": str(game.id),
        "title": game.title,
        "title_name": game.engine.meta.name,
        "status": game.status,
        "version": game.version,
        "my_seats": game.seats_of(caller.player_id),
        "dispute": {
            **d,
            "name": names.get(d["seat"], f"Seat {d['seat']}"),
            "ruled_by_name": player_name(services, d.get("by")) if d["status"] != "open" else None,
        },
        "league": None
        if league is None
        else {"league_id": str(league.id), "name": league.name, "organiser": league.created_by},
        "adjudicator": {"player_id": adjudicator, "name": player_name(services, adjudicator)},
        "may_rule": d["status"] == "open" and ledger.may_rule(game, caller.player_id),
        "correction": {
            "possible": game.status == ACTIVE and first is not None,
            "first": first,
            "last": game.version,
        },
        "cited": cited,
        "stretch": stretch,
    }


@router.get("/games/{game_id}/disputes/{number}", responses=ERRORS)
def get_dispute(game_id: GameId, number: Number, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """One dispute, for the players of its game, whoever rules on it and the operator: what is
    disputed and why, who rules, the table talk it cites, and the audit of the disputed events
    in words (the record unchanged through each, a draw the one the seed gives, a move among
    those the rules offered). Anyone else: 403 ``dispute/not_a_party``."""
    return dispute_view(services, game_id, number, caller)


def queue_view(services: Services, caller: Caller) -> dict[str, Any]:
    """The disputes the caller rules on (open first), and those of the games they play in; the
    operator's: those no organiser rules on, then the organisers' (the operator may rule on any)."""
    services.wait_for("disputes", None)
    view = services.view("disputes")
    if caller.is_admin:
        every = view.for_operator()
        rules = [r for r in every if r["rules"] == ADMIN]
        others = [r for r in every if r["rules"] != ADMIN]
        mine: list[dict[str, Any]] = []
    else:
        rules, others, mine = view.for_organiser(caller.player_id), [], view.in_games_of(caller.player_id)
    rows = [*rules, *others, *mine]
    names = services.game_index.view.player_names(
        sorted(
            {r["player_id"] for r in rows} | {r["rules"] for r in rows} | {r["ruled_by"] or "" for r in rows}
        )
    )
    for r in rows:
        r["name"] = names.get(r["player_id"], f"player {r['player_id'][:8]}")
        r["rules_name"] = "the operator" if r["rules"] == ADMIN else names.get(r["rules"], "the organiser")
        by = r["ruled_by"]
        r["ruled_by_name"] = (
            None if not by else "the operator" if by == ADMIN else names.get(by, "the organiser")
        )
    return {
        "to_rule": [r for r in rules if r["status"] == "open"],
        "ruled": [r for r in rules if r["status"] != "open"],
        "others": others,
        "in_my_games": mine,
    }


@router.get("/disputes", responses=ERRORS)
def dispute_queue(caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """My queue: the open disputes I rule on (a league's organiser: its games but those I play
    in; the operator: the games in no league, or whose organiser plays in them), those I ruled
    on, and the disputes of the games I play in; the operator also sees every organiser's."""
    return queue_view(services, caller)

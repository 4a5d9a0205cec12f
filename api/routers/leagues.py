from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query, Response, status

from api.deps import CallerDep, PathId, Position, ServicesDep
from api.routers.keyed import OnceDep
from api.schemas import ErrorOut, LeagueAdmissionIn, LeagueGameIn, LeagueIn, LeagueMemberIn
from ledger.application import ADMIN
from ledger.domain import League
from ledger.errors import NotFoundError

router = APIRouter(prefix="/leagues", tags=["leagues"])
ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422)}
LeagueRef = Annotated[str, Path(description="League id or name", min_length=1, max_length=80)]


def organiser_name(created_by: str, names: dict[str, str]) -> str:
    return "the operator" if created_by == ADMIN else names.get(created_by, "?")


def league_out(
    services: ServicesDep, league_ref: str, as_of: datetime | None, position: int | None
) -> dict[str, Any]:
    league = services.ledger.get_league(league_ref)
    services.wait_for("leaguestats", position)
    services.wait_for("gameindex", None)
    out = services.view("leaguestats").league(str(league.id), as_of)
    if out is None:
        raise NotFoundError(f"No league {league_ref}.", code="league/not_found")
    ids = [r["player_id"] for r in out["standings"]]
    names = services.game_index.view.player_names([*ids, *league.members, league.created_by])
    for row in (*out["standings"], *out["ratings"]):
        row["name"] = names.get(row["player_id"])
    out["organiser_name"] = organiser_name(league.created_by, names)
    out["members_only"] = league.members_only
    out["members"] = [{"player_id": m, "name": names.get(m)} for m in league.members]
    from api.routers.seasons import league_seasons_out  # the latest seasons, in full

    out["seasons"] = league_seasons_out(services, league.id)
    return out


def _admission_out(league: League) -> dict[str, Any]:
    return {
        "league_id": str(league.id),
        "name": league.name,
        "title": league.title,
        "organiser": league.created_by,
        "members_only": league.members_only,
        "members": list(league.members),
        "for_bots": getattr(league, "for_bots", False),
    }


@router.post("", status_code=status.HTTP_201_CREATED, responses=ERRORS)
def create_league(
    body: LeagueIn,
    caller: CallerDep,
    services: ServicesDep,
    once: OnceDep,
) -> dict[str, Any]:
    """Create a league; its creator is its organiser. Names are unique. A members-only league
    takes games and seats only from its organiser and its members."""

    def answer() -> dict[str, Any]:
        # LeagueIn's fields are create_league's keywords, one for one
        return _admission_out(services.ledger.create_league(creator=caller.player_id, **body.model_dump()))

    return once(body, answer)


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
) -> Response:
    """Standings (wins, average rank, final value) and openskill ratings (Plackett-Luce), the
    ratings' history (each player's ordinal after each rated game) and the league's games."""
    # a big league's figure is a large document: written straight, not through the encoder
    return Response(
        orjson.dumps(league_out(services, league, as_of, position)), media_type="application/json"
    )


@router.post("/{league}/games", responses=ERRORS)
def add_game(
    league: LeagueRef,
    body: LeagueGameIn,
    caller: CallerDep,
    services: ServicesDep,
    once: OnceDep,
) -> dict[str, Any]:
    """The organiser adds an existing game (running or finished) to the league: one of its
    title, in no other league, and in a members-only league one whose every seat is a member."""

    def answer() -> dict[str, Any]:
        found = services.ledger.add_game_to_league(league, body.game_id, caller.player_id)
        return {"league_id": str(found.id), "games": found.games}

    return once(body, answer)


@router.post("/{league}/close", responses=ERRORS)
def close_league(league: LeagueRef, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The organiser closes the league: no more games join it."""
    found = services.ledger.close_league(league, caller.player_id)
    return {"league_id": str(found.id), "closed": found.closed}


@router.post("/{league}/admission", responses=ERRORS)
def set_admission(
    league: LeagueRef, body: LeagueAdmissionIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """The organiser makes the league members-only, or open to every player again."""
    return _admission_out(services.ledger.set_league_admission(league, body.members_only, caller.player_id))


@router.post("/{league}/members", responses=ERRORS)
def add_member(
    league: LeagueRef,
    body: LeagueMemberIn,
    caller: CallerDep,
    services: ServicesDep,
    once: OnceDep,
) -> dict[str, Any]:
    """The organiser admits a player: they may open games in the league and take seats in them."""

    def answer() -> dict[str, Any]:
        return _admission_out(services.ledger.add_league_member(league, body.player_id, caller.player_id))

    return once(body, answer)


@router.delete("/{league}/members/{player_id}", responses=ERRORS)
def remove_member(
    league: LeagueRef,
    player_id: PathId,
    caller: CallerDep,
    services: ServicesDep,
) -> dict[str, Any]:
    """The organiser takes a member out: no new games or seats; games already in the league stay."""
    return _admission_out(services.ledger.remove_league_member(league, player_id, caller.player_id))

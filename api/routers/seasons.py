"""A league's seasons: created by its organiser, players signed up or enrolled, rounds seated by
the published procedure, standings with points and tie-breaks; and the league's record, signed,
for ``gameledger verify-league``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, status
from pydantic import Field, StrictInt

from api.deps import CallerDep, ServicesDep
from api.routers.keyed import OnceDep
from api.schemas import ErrorOut, Request
from ledger.domain.season import Season
from ledger.season_standings import TIE_BREAKS

router = APIRouter(prefix="/leagues", tags=["seasons"])
ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422)}
LeagueRef = Annotated[str, Path(description="League id or name", min_length=1, max_length=80)]
SeasonNo = Annotated[int, Path(description="The season's number in its league", ge=1, le=100)]
TieBreak = Literal[
    "points", "wins", "average_place", "score_ratio", "opponents_points", "head_to_head", "rating"
]
assert set(TIE_BREAKS) == set(TieBreak.__args__)  # type: ignore[attr-defined]


class SeasonIn(Request):
    format: Literal["swiss", "round_robin", "open"] = Field(
        "swiss",
        description="swiss: grouped by points; round_robin: by the lot, meeting new players; open: games added",
    )
    rounds: StrictInt | None = Field(None, ge=0, le=50, description="Rounds (1-50; default 3; open: 0)")
    table_min: StrictInt | None = Field(
        None, ge=1, le=6, description="Fewest players at a table (default: table_max)"
    )
    table_max: StrictInt | None = Field(
        None, ge=1, le=6, description="Most players at a table (default 4, or the title's most)"
    )
    points: (
        dict[Annotated[str, Field(pattern=r"^[1-6]$")], Annotated[list[StrictInt], Field(max_length=6)]]
        | None
    ) = Field(
        None,
        max_length=6,
        description='Points by place for each table size, e.g. {"4": [4, 2, 1, 0], "3": [3, 1, 0]} (the defaults)',
    )
    tie_breaks: list[TieBreak] | None = Field(
        None,
        max_length=7,
        description="In order, after points (default: wins, opponents_points, average_place)",
    )
    options: dict[str, Any] | None = Field(None, description="The games' options (the title's variants)")
    time_control: dict[str, Any] | None = Field(None, description="The games' clocks, as for a new game")
    round_hours: StrictInt | None = Field(
        None,
        ge=1,
        le=24 * 90,
        description="A round's deadline, hours after it is seated: the longest a game may run (default 168)",
    )
    on_deadline: Literal["bot", "forfeit"] | None = Field(
        None,
        description="A game unfinished at the deadline: bot (the stand-in plays every seat to the end, the default) "
        "or forfeit (the seats it waits for forfeit; the stand-in plays the others to the end)",
    )
    title: str | None = Field(
        None, max_length=40, description="The title, for a league that counts every title"
    )


class EnrolIn(Request):
    player_id: str = Field(min_length=1, max_length=64)


LABELS = {
    "points": "Points",
    "wins": "Wins",
    "average_place": "Average place",
    "score_ratio": "Score ratio to the winner",
    "opponents_points": "Opponents' points",
    "head_to_head": "Head to head",
    "rating": "Rating",
}
SHOWN_SEASONS = 5  # the league's page and GET /leagues/{id} show the latest seasons in full


def league_seasons_out(services: ServicesDep, league_id: Any) -> list[dict[str, Any]]:
    """The league's latest seasons, newest first, as ``GET .../seasons/{n}`` gives them."""
    seasons = services.ledger.league_seasons(league_id)
    return [season_out(services, s) for s in reversed(seasons[-SHOWN_SEASONS:])]


def _names(services: ServicesDep, ids: list[str]) -> dict[str, str]:
    services.wait_for("gameindex", None)
    return services.game_index.view.player_names(ids)  # type: ignore[no-any-return]


def season_out(services: ServicesDep, season: Season) -> dict[str, Any]:
    ids = list(season.players)
    names = _names(services, ids)
    table = services.ledger.season_standings(season)
    for row in table:
        row["name"] = names.get(row["player_id"])
    rounds = []
    for rnd in season.rounds:
        rounds.append(
            {
                "round": rnd["round"],
                "deadline": rnd["deadline"],
                "closed": bool(rnd.get("closed")),
                "deadline_games": rnd.get("deadline_games", []),
                "tables": [
                    {
                        "table": i + 1,
                        "game": t["game"],
                        "seats": [{"player_id": p, "name": names.get(p)} for p in t["seats"]],
                        "start_positions": t["turn"],
                        "turn_order": t["order"],
                    }
                    for i, t in enumerate(rnd["tables"])
                ],
            }
        )
    columns = ["points", *[t for t in season.spec["tie_breaks"] if t != "points"]]
    return {
        "league_id": season.league_id,
        "season": season.number,
        "title": season.title,
        **season.spec,
        "organiser": season.created_by,
        "players": [{"player_id": p, "name": names.get(p)} for p in season.players],
        "seed_commitment": season.seed_commitment,
        "seed": season.seed if season.ended else None,
        "ended": season.ended,
        "rounds_played": len(season.rounds),
        "round": rounds,
        "standings": table,
        "columns": columns,
        "column_labels": [LABELS[c] for c in columns],
    }


@router.post("/{league}/seasons", status_code=status.HTTP_201_CREATED, responses=ERRORS)
def create_season(
    league: LeagueRef, body: SeasonIn, caller: CallerDep, services: ServicesDep, once: OnceDep
) -> dict[str, Any]:
    """The organiser opens a season: its format, rounds, table sizes, points by place,
    tie-breaks, the games' options and clocks, and the round's deadline with its rule. The
    season's secret seed is committed now (its SHA-256 is ``seed_commitment``) and revealed when
    it ends: every round's seating follows from it and the standings."""

    def answer() -> dict[str, Any]:
        raw = body.model_dump(exclude_none=True)
        return season_out(services, services.ledger.create_season(league, caller.player_id, raw))

    return once(body, answer)


@router.get("/{league}/seasons", responses=ERRORS)
def list_seasons(league: LeagueRef, _: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The league's seasons, first first."""
    seasons = services.ledger.league_seasons(league)
    return {
        "seasons": [
            {
                "season": s.number,
                "format": s.spec["format"],
                "rounds": s.spec["rounds"],
                "rounds_played": len(s.rounds),
                "players": len(s.players),
                "ended": s.ended,
            }
            for s in seasons
        ]
    }


@router.get("/{league}/seasons/{number}", responses=ERRORS)
def get_season(league: LeagueRef, number: SeasonNo, _: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The season: its rules, players, rounds with their tables, and standings with points and
    each tie-break column."""
    return season_out(services, services.ledger.get_season(league, number))


@router.post("/{league}/seasons/{number}/signup", responses=ERRORS)
def sign_up(league: LeagueRef, number: SeasonNo, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The caller signs up for the season (before its first round; in a members-only league,
    members only)."""
    season = services.ledger.enrol(league, number, caller.player_id, caller.player_id)
    return season_out(services, season)


@router.post("/{league}/seasons/{number}/players", responses=ERRORS)
def enrol(
    league: LeagueRef, number: SeasonNo, body: EnrolIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """The organiser enrols a player in the season."""
    season = services.ledger.enrol(league, number, body.player_id, caller.player_id, as_organiser=True)
    return season_out(services, season)


@router.post("/{league}/seasons/{number}/rounds", status_code=status.HTTP_201_CREATED, responses=ERRORS)
def start_round(
    league: LeagueRef, number: SeasonNo, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """The organiser starts the next round: everyone is seated by the published procedure, and
    the round's games are created and started (their players are told, as for any game)."""
    return season_out(services, services.ledger.start_round(league, number, caller.player_id))


@router.get("/{league}/export", responses=ERRORS)
def export_league(league: LeagueRef, _: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The league's record: its events, its seasons' events, every game's public export, the
    standings and rating inputs it publishes, and a digest signed with the ledger's key.
    ``gameledger verify-league FILE`` checks it offline."""
    from ledger.league_export import league_record

    return league_record(services.ledger, league, services.signer, datetime.now(UTC).isoformat())

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, status
from fastapi.responses import Response, StreamingResponse

from api.charts import share_value_svg
from api.deps import Caller, CallerDep, ServicesDep
from api.presenters import (
    Answer,
    describer,
    events_out,
    game_out,
    names_for,
    preview_out,
    scoreboard_out,
    seat_names,
)
from api.ratelimit import charge_automatic, limit_decisions, limit_forks
from api.routers.keyed import Once, OnceDep
from api.schemas import (
    MAX_INDEX,
    AbandonIn,
    DecisionIn,
    DecisionOut,
    ErrorOut,
    EventsOut,
    ForkIn,
    GameIn,
    GameListOut,
    GameOut,
    PreviewOut,
    StateOut,
    UndoAnswerIn,
    VersionIn,
)
from api.services import Services
from ledger.errors import ConflictError, ForbiddenError, InvalidRequestError, NotFoundError
from ledger.export import game_export
from ledger.preview import preview_decision
from ledger.registry import TITLES
from projections.share_values import POINT_COLUMNS

router = APIRouter(prefix="/games", tags=["games"])

GameId = Annotated[str, Path(description="The game's id", min_length=1, max_length=64)]
Position = Annotated[
    int | None,
    Query(
        ge=0, le=MAX_INDEX, description="Wait (up to 2 s) until the read model includes this ledger position"
    ),
]
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 403, 404, 409, 413, 422, 503)
}


@router.post("", status_code=status.HTTP_201_CREATED, response_model=GameOut, responses=ERRORS)
def create_game(
    body: GameIn,
    caller: CallerDep,
    services: ServicesDep,
    once: OnceDep,
) -> dict[str, Any]:
    """Create a game: either open seats (``seats``, the creator joining seat 0 unless
    ``join`` is false) or a full table (``players``: the operator only, since it seats other
    people). It starts when every seat is filled."""
    if body.seats is not None and body.players is not None:
        raise InvalidRequestError("Give either seats or players, not both.", code="request/seats_or_players")
    if body.players is not None and not caller.is_admin:
        # seating other people (their clocks running, their ranks counted) without their consent
        # is acting for them: a player opens seats and the others join
        raise ForbiddenError(
            "Only the operator seats a full table; open seats and let the players join.",
            code="auth/admin_only",
        )
    meta = TITLES.get(body.title)  # an unknown title is refused by the ledger
    from api.invitations import Invitations

    inviting = Invitations(services)
    invitees = [inviting.invitee(who) for who in body.invite]  # every name checked before anything is made
    if invitees:
        named = [w.player or w.email for w in invitees]
        if len(set(named)) != len(named):
            raise InvalidRequestError("Each player or address is invited once.", code="invitation/duplicate")
        if body.join and not caller.is_admin and caller.player_id in named:
            raise ConflictError("You take the first seat yourself.", code="invitation/already_seated")
        free = (body.seats if body.seats is not None else meta.min_players if meta else 2) - (
            1 if body.join and not caller.is_admin else 0
        )
        if body.players is not None or len(invitees) > free:
            raise ConflictError(
                f"{len(invitees)} invitations for {max(free, 0)} free seats.", code="invitation/no_free_seat"
            )
        inviting._budget(caller.player_id, len(invitees))

    def answer() -> dict[str, Any]:
        game = services.ledger.create_game(
            creator=caller.player_id,
            title=body.title,
            options=meta.options.for_new_game(body.options) if meta else body.options,
            seats=body.seats,
            players=[str(p) for p in body.players] if body.players else None,
            join=body.join and not caller.is_admin,
            idempotency_key=once.key,
            league=body.league,
            time_control=body.time_control.model_dump() if body.time_control else None,
            private=body.private,
        )
        if invitees and game.status == "waiting" and not game.invitations:  # not again on a retry
            for who in invitees:
                inviting.issue(str(game.id), caller, who)
            game = services.ledger.get_game(game.id)
        return game_out(services, game, caller)

    return once(body, answer)


@router.get("", response_model=GameListOut, responses=ERRORS)
def list_games(
    caller: CallerDep,
    services: ServicesDep,
    status_: Annotated[
        str | None, Query(alias="status", pattern="^(waiting|active|finished|abandoned|annulled)$")
    ] = None,
    title: str | None = None,
    player: Annotated[str | None, Query(description="A player id, or 'me'")] = None,
    open_: Annotated[bool, Query(alias="open", description="Only games with a free seat")] = False,
    league: Annotated[str | None, Query(description="A league id")] = None,
    position: Position = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_INDEX)] = 0,
) -> dict[str, Any]:
    """Games, newest activity first, filtered by status, title, player and league."""
    services.wait_for("gameindex", position)
    if player == "me":
        player = caller.player_id
    games = services.game_index.view.list_games(
        status=status_,
        title=title,
        player=player,
        open_seats=open_,
        league=league,
        limit=limit,
        offset=offset,
        viewer=None if caller.is_admin else caller.player_id,  # private tables: their own people's
    )
    return {"games": games}


@router.get("/{game_id}", response_model=GameOut, responses=ERRORS)
def get_game(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The game as the caller may see it, with the caller's legal decisions."""
    return game_answer(services, game_id, caller)  # type: ignore[return-value]


def game_answer(services: Services, game_id: str, caller: Caller) -> Answer:
    """GET /games/{game_id}'s answer (also the hot route's: api/hotroutes.py)."""
    view = game_out(services, services.ledger.get_game(game_id), caller)
    return Answer({**view, "replayed": None})


@router.post(
    "/{game_id}/join",
    response_model=GameOut,
    responses=ERRORS,
    dependencies=[Depends(limit_decisions)],  # the start may set off the seats' standing orders
)
def join_game(
    game_id: GameId,
    request: Request,
    caller: CallerDep,
    services: ServicesDep,
    once: OnceDep,
) -> dict[str, Any]:
    """Take the first free seat; the game starts when the last seat is taken. The decisions
    standing orders make at the start count as yours in the decision limit."""
    if caller.is_admin:
        raise InvalidRequestError("The operator does not take seats.", code="request/admin_cannot_join")

    def answer() -> dict[str, Any]:
        game = services.ledger.join(game_id, caller.player_id)
        charge_automatic(request, caller, game)
        return game_out(services, game, caller)

    return once(None, answer)


@router.post(
    "/{game_id}/decisions",
    response_model=DecisionOut,
    responses=ERRORS,
    dependencies=[Depends(limit_decisions)],  # per player, 429 request/rate_limited
)
def decide(
    game_id: GameId,
    body: DecisionIn,
    request: Request,
    caller: CallerDep,
    services: ServicesDep,
    once: OnceDep,
) -> dict[str, Any]:
    """Make a decision on the version you saw. A stale version is refused with 409,
    an illegal decision with 422 and its rule code; nothing is written then. The decisions
    that standing orders and replies make after it count as yours in the decision limit."""
    return decision_answer(services, request, caller, once, game_id, body)  # type: ignore[return-value]


def decision_answer(
    services: Services, request: Request, caller: Caller, once: Once, game_id: str, body: DecisionIn
) -> Answer:
    """POST /games/{game_id}/decisions's answer (also the hot route's: api/hotroutes.py)."""

    def answer() -> dict[str, Any]:
        result = services.ledger.decide(
            game_id,
            caller.player_id,
            body.expected_version,
            body.decision,
            seat=body.seat,
            idempotency_key=once.key,
        )
        charge_automatic(request, caller, result.game)  # what orders and replies decided after it
        game = result.game or services.ledger.get_game(game_id)  # only the seats and the rules are read
        say = describer(services, game)
        return {
            "game_id": str(result.game_id),
            "version": result.version,
            "first_version": result.first_version,
            "effects": result.effects,
            "log": [say(e) for e in result.effects],
            "replayed": result.replayed,
            "position": result.position,
        }

    return Answer(once(body, answer))


@router.post("/{game_id}/decisions/preview", response_model=PreviewOut, responses=ERRORS)
def preview(game_id: GameId, body: DecisionIn, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """What a decision would do, stored nowhere: refused exactly as the decision would be (the
    same seat, turn, version and rule checks), otherwise its cost, its effects as its own answer
    would show them to you (in words too), the share values and scoreboard after it, and your
    view of the position afterwards. A decision that leads to a random draw is previewed up to
    the draw, which is named but never made."""
    game = services.ledger.get_game(game_id)
    result = preview_decision(game, caller.player_id, body.expected_version, body.decision, body.seat)
    return preview_out(services, game, result)


@router.get("/{game_id}/events", response_model=EventsOut, responses=ERRORS)
def game_events(
    game_id: GameId,
    caller: CallerDep,
    services: ServicesDep,
    after: Annotated[int, Query(ge=0, le=MAX_INDEX, description="Only events after this version")] = 0,
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
) -> dict[str, Any]:
    """The game's record after a version, redacted for the caller, with the log in words."""
    game = services.ledger.get_game(game_id)
    return {
        "game_id": game_id,
        "version": game.version,
        "events": events_out(services, game, caller, after, limit),
    }


@router.get("/{game_id}/state", response_model=StateOut, responses=ERRORS)
def game_state(
    game_id: GameId,
    caller: CallerDep,
    services: ServicesDep,
    version: Annotated[
        int | None, Query(ge=1, le=MAX_INDEX, description="The position after this event")
    ] = None,
) -> dict[str, Any]:
    """The position after event ``version`` (default: now), as the caller may see it."""
    current = services.ledger.get_game(game_id)
    game = current if version is None else services.ledger.get_game(game_id, version=version)
    my_seats = current.seats_of(caller.player_id)
    state = None
    if game.state is not None:
        state = game.engine.view(game.state, my_seats[0] if my_seats else None)
    return {"game_id": game_id, "version": game.version, "status": game.status, "state": state}


@router.get(
    "/{game_id}/export",
    responses={**ERRORS, 200: {"content": {"application/x-ndjson": {}}, "description": "JSON lines"}},
)
def export_game(game_id: GameId, caller: CallerDep, services: ServicesDep) -> StreamingResponse:
    """The game's record as JSON lines for ``gameledger verify``: before the end hidden
    parts stay hidden (the caller's own parts come with their salts); after it, everything."""
    game = services.ledger.get_game(game_id)
    lines = game_export(services.ledger, game, game.seats_of(caller.player_id), talk=caller.is_admin or None)

    def body() -> Iterator[bytes]:
        for line in lines:
            yield (line + "\n").encode()

    filename = json.dumps(f"{game.title}-{game.id}.jsonl")
    return StreamingResponse(
        body(),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f"attachment; filename={filename}"},
    )


@router.post("/{game_id}/abandon", response_model=GameOut, responses=ERRORS)
def abandon_game(
    game_id: GameId, body: AbandonIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """The operator ends a game without a result; its seed is revealed and it counts nowhere."""
    if not caller.is_admin:
        raise ForbiddenError("Only the operator may abandon a game.", code="auth/admin_only")
    game = services.ledger.abandon(game_id, caller.player_id, body.reason)
    return game_out(services, game, caller)


def _require_board(services: ServicesDep, name: str, game_id: str, position: int | None) -> None:
    services.ledger.get_game(game_id)  # 404 for an unknown game
    services.wait_for(name, position)


@router.get("/{game_id}/scoreboard", responses=ERRORS)
def scoreboard(
    game_id: GameId, _: CallerDep, services: ServicesDep, position: Position = None
) -> dict[str, Any]:
    """Every seat's cash, shares, share value, portfolio value, loans and rank (public facts only)."""
    _require_board(services, "scoreboard", game_id, position)
    board = scoreboard_out(services, services.ledger.get_game(game_id))
    if board is None:
        raise NotFoundError("This game has no scoreboard.", code="game/no_scoreboard")
    return board


def _points(services: ServicesDep, game_id: str, position: int | None) -> list[dict[str, Any]]:
    _require_board(services, "sharevalues", game_id, position)
    return services.view("sharevalues").points(game_id)  # type: ignore[no-any-return]


@router.get(
    "/{game_id}/share-values",
    responses={**ERRORS, 200: {"content": {"application/json": {}, "text/csv": {}}}},
)
def share_values(
    game_id: GameId,
    _: CallerDep,
    services: ServicesDep,
    format_: Annotated[str, Query(alias="format", pattern="^(json|csv)$")] = "json",
    position: Position = None,
) -> Any:
    """One point per change of a company's share value: version, period, cause and time.
    ``?format=csv`` for a spreadsheet."""
    points = _points(services, game_id, position)
    if format_ == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        cols = [c for c in POINT_COLUMNS if c != "game_id"]
        writer.writerow(cols)
        for p in points:
            writer.writerow(
                [
                    ";".join(f"{k}={v}" for k, v in p["period"].items()) if k == "period" else p[k]
                    for k in cols
                ]
            )
        return Response(
            out.getvalue(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="share-values-{game_id}.csv"'},
        )
    return {"game_id": game_id, "points": [{k: v for k, v in p.items() if k != "game_id"} for p in points]}


@router.get("/{game_id}/share-values.svg", responses={**ERRORS, 200: {"content": {"image/svg+xml": {}}}})
def share_values_svg(
    game_id: GameId, _: CallerDep, services: ServicesDep, position: Position = None
) -> Response:
    """The share values as a line chart to look at in a browser."""
    points = _points(services, game_id, position)
    game = services.ledger.get_game(game_id)
    names = seat_names(game, names_for(services, game))
    svg = share_value_svg(f"{game.engine.meta.name}: share values", points, names, game.version)
    return Response(svg, media_type="image/svg+xml")


@router.post("/{game_id}/undo", response_model=GameOut, responses=ERRORS)
def undo(game_id: GameId, body: VersionIn, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Take back your last decision, alone: only while no other player has decided since and it
    revealed nothing hidden (no draw, no hidden card). Otherwise 409 ``undo/needs_consent``:
    ask everyone with ``/undo/request``. Undo is a compensating event; nothing is deleted."""
    game = services.ledger.undo(game_id, caller.player_id, body.expected_version)
    return game_out(services, game, caller)


@router.post("/{game_id}/undo/request", response_model=GameOut, responses=ERRORS)
def request_undo(
    game_id: GameId, body: VersionIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """Ask every other player's consent to take back your last decision (and what followed it)."""
    game = services.ledger.request_undo(game_id, caller.player_id, body.expected_version)
    return game_out(services, game, caller)


@router.post("/{game_id}/undo/answer", response_model=GameOut, responses=ERRORS)
def answer_undo(
    game_id: GameId, body: UndoAnswerIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """Consent to (or refuse) the open undo request; with everyone's consent it takes effect."""
    game = services.ledger.answer_undo(game_id, caller.player_id, body.accept)
    return game_out(services, game, caller)


@router.get("/{game_id}/audit", responses=ERRORS)
def audit(game_id: GameId, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """The game's audit: hash chain, commitments, every draw re-derived from the seed, every
    stored digest reproduced by the rules, conservation at every position (all checked by the
    server over the full record), and the record and log in words as the caller may see them.
    Each check also says what it is about (``title``) and its result in a sentence
    (``sentence``); a failed one names its first event at fault (``at``, and ``event`` in
    words); ``summary`` is the outcome in one sentence: what the audit page shows."""
    from api.audits import audit_of

    return audit_of(services, game_id, caller)


@router.post(
    "/{game_id}/forks",
    status_code=status.HTTP_201_CREATED,
    response_model=GameOut,
    responses=ERRORS,
    dependencies=[Depends(limit_forks), Depends(limit_decisions)],  # per player, 429 request/rate_limited
)
def fork(
    game_id: GameId,
    body: ForkIn,
    request: Request,
    caller: CallerDep,
    services: ServicesDep,
    once: OnceDep,
) -> dict[str, Any]:
    """A what-if sandbox from the position after event ``version``: played hotseat by you (the
    title's bot on ``bots`` seats), recording its origin, never counted in leagues or ratings.
    A running game's position is forked only if it hides nothing from anyone. Forks are limited
    per player (``GAMELEDGER_FORK_RATE`` an hour), and the bots' decisions count as yours in the
    decision limit."""
    if caller.is_admin:
        raise InvalidRequestError(
            "The operator does not play; fork as a player.", code="request/admin_cannot_join"
        )

    def answer() -> dict[str, Any]:
        game = services.ledger.fork(game_id, caller.player_id, body.version, body.bots)
        charge_automatic(request, caller, game)
        return game_out(services, game, caller)

    return once(body, answer)

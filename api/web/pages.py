"""The web pages: sign up and in, lobby, create a game, a game seen by its seat, replay, settings.

Pages are rendered on the server from the same presenters as the REST API (a plain
reload always shows the current position); the small script in static/app.js sends
the state-changing calls to the REST API, signed in by the HttpOnly session cookie with
the page's anti-forgery proof (``X-CSRF-Token``, from the page's ``csrf-token`` meta), and
swaps in the re-rendered parts when the game changes (server-sent events, or polling).
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import ChainableUndefined, Environment, FileSystemLoader, select_autoescape

from api.deps import Caller, get_caller
from api.presenters import events_out, game_out, names_for, seat_names
from api.routers.accounts import account_out
from api.routers.games import scoreboard as scoreboard_of
from api.routers.leagues import league_out, organiser_name
from api.services import Services
from api.web.features import features
from api.web.forms import decision_forms, human, option_fields, value_text
from ledger.accounts import PlayerAccounts
from ledger.errors import AuthError, LedgerError, NotFoundError
from ledger.registry import TITLES
from ledger.registry import engine as title_engine

HERE = Path(__file__).parent
STATIC_DIR = HERE / "static"
LOG_EVENTS = 40  # the game page's log: the latest events (the replay has them all)
BOARDS = {"cotton-trade", "water-frame"}  # the others: boards/generic.html
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

SAFE_NEXT = re.compile(r"/(?![/\\])[\w\-./?=&%]*")  # a path on this site: no "//host", no "/\\host"

router = APIRouter(include_in_schema=False)


def _when(value: Any) -> str:
    try:
        return datetime.fromisoformat(str(value)).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return str(value or "")


def _duration(seconds: Any) -> str:
    try:
        total = max(0, int(float(seconds)))
    except (TypeError, ValueError):
        return str(seconds)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    return f"{days}d {hours}h {minutes:02d}m" if days else f"{hours}h {minutes:02d}m"


templates = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=ChainableUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
templates.filters.update(human=human, value_text=value_text, when=_when, duration=_duration)
templates.globals.update(TITLES=TITLES, BOARDS=BOARDS)


def _static_version() -> str:
    return str(max(int(p.stat().st_mtime) for p in STATIC_DIR.iterdir()))


STATIC_VERSION = _static_version()


def _services(request: Request) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


def page_caller(request: Request) -> Caller | None:
    """The signed-in player from the session cookie (or the older pages' ``gl_token`` cookie: a
    GET, the API's own rule), or None."""
    try:
        return get_caller(request, _services(request), None)
    except AuthError:
        return None


def render(
    request: Request, template: str, caller: Caller | None, status: int = 200, **context: Any
) -> HTMLResponse:
    html = templates.get_template(template).render(
        request_path=request.url.path,
        caller=caller,
        features=features(request.app),
        static_version=STATIC_VERSION,
        **context,
    )
    return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)


def _sign_up_first(request: Request) -> RedirectResponse:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/signup?next={quote(target, safe='')}", status_code=303)


def _not_found(request: Request, caller: Caller | None, message: str) -> HTMLResponse:
    return render(request, "message.html", caller, status=404, heading="Not found", message=message)


@router.get("/")
def home(request: Request) -> Response:
    return RedirectResponse("/lobby" if page_caller(request) else "/signup", status_code=303)


@router.get("/signup")
def signup(request: Request, next: str = "/lobby") -> Response:
    safe_next = next if SAFE_NEXT.fullmatch(next) else "/lobby"
    return render(request, "signup.html", page_caller(request), next=safe_next)


@router.get("/lobby")
def lobby(request: Request) -> Response:
    caller = page_caller(request)
    if caller is None:
        return _sign_up_first(request)
    services = _services(request)
    services.wait_for("gameindex", None)
    view = services.game_index.view
    me = caller.player_id
    waiting_on_me = view.list_games(status="active", awaiting_player=me, limit=100)
    mine = view.list_games(player=me, limit=100)
    open_games = [
        g
        for g in view.list_games(status="waiting", open_seats=True, limit=100)
        if not any(s["player_id"] == me for s in g["seats"])
    ]
    return render(
        request,
        "lobby.html",
        caller,
        waiting_on_me=_with_winner(waiting_on_me),
        mine=_with_winner(mine),
        open_games=_with_winner(open_games),
    )


def _with_winner(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each listed game with ``winner``: the name of the first-ranked seat of a finished game."""
    for g in games:
        names = {s["seat"]: s.get("name") for s in g.get("seats", [])}
        first = next(iter(g.get("standings") or []), None)
        g["winner"] = names.get(first["seat"]) if first and g.get("status") == "finished" else None
    return games


@router.get("/games/new")
def new_game(request: Request, title: str = "cotton-trade") -> Response:
    caller = page_caller(request)
    if caller is None:
        return _sign_up_first(request)
    titles = [{"meta": meta, "fields": option_fields(meta.options_schema())} for meta in TITLES.values()]
    services = _services(request)
    services.wait_for("leaguestats", None)
    leagues = services.view("leaguestats").leagues()
    chosen = title if title in TITLES else next(iter(TITLES))
    return render(request, "new_game.html", caller, titles=titles, chosen=chosen, leagues=leagues)


@router.get("/leagues")
def leagues_page(request: Request) -> Response:
    caller = page_caller(request)
    if caller is None:
        return _sign_up_first(request)
    services = _services(request)
    services.wait_for("leaguestats", None)
    services.wait_for("gameindex", None)
    leagues = services.view("leaguestats").leagues()
    names = services.game_index.view.player_names([lg["created_by"] for lg in leagues])
    for lg in leagues:
        lg["organiser"] = organiser_name(lg["created_by"], names)
    return render(request, "leagues.html", caller, leagues=leagues)


@router.get("/leagues/{league}")
def league_page(request: Request, league: str) -> Response:
    """A league's standings, ratings, members and games: what its organiser publishes."""
    caller = page_caller(request)
    if caller is None:
        return _sign_up_first(request)
    services = _services(request)
    try:
        out = league_out(services, league, None, None)
    except NotFoundError:
        return _not_found(request, caller, f"There is no league {league}.")
    # the league's games, whether opened in it or added by its organiser afterwards
    ids = [g["game_id"] for g in out["games"]][-200:]
    games = services.game_index.view.list_games(game_ids=ids, limit=200)
    return render(request, "league.html", caller, league=out, games=_with_winner(games))


def _log(events: list[dict[str, Any]], names: dict[int, str]) -> list[dict[str, Any]]:
    """Each event as a log entry in words (the title's own sentences, or what the event was)."""
    out = []
    for event in events:
        public = event.get("public", {})
        lines = list(event.get("log") or [])
        seat = public.get("seat")
        if not lines:
            kind = str(event.get("type", "")).rsplit(".", 1)[-1]
            if isinstance(public.get("decision"), dict):
                kind = str(public["decision"].get("type", kind))
            who = names.get(seat, "") if isinstance(seat, int) else ""
            lines = [f"{who}: {human(kind).lower()}." if who else f"{human(kind)}."]
        out.append(
            {
                "version": event["version"],
                "at": event.get("timestamp"),
                "who": names.get(seat) if isinstance(seat, int) else None,
                "decision": public.get("decision"),
                "lines": lines,
            }
        )
    return out


def _scoreboard(services: Services, game_id: str, caller: Caller) -> dict[str, Any] | None:
    try:
        return scoreboard_of(game_id, caller, services, None)
    except NotFoundError:
        return None


def _game_context(request: Request, caller: Caller, game_id: str) -> dict[str, Any]:
    services = _services(request)
    game = services.ledger.get_game(game_id)
    out = game_out(services, game, caller)
    names = seat_names(game, names_for(services, game))
    schema = decision_schema(game.title)
    events = events_out(services, game, caller, max(0, game.version - LOG_EVENTS), LOG_EVENTS)
    return {
        "game": out,
        "names": names,
        "forms": decision_forms(schema, out["legal_decisions"]),
        "log": list(reversed(_log(events, names))),
        "scoreboard": _scoreboard(services, game_id, caller) if game.state is not None else None,
        "free_seats": sum(1 for s in game.seats if s is None),
    }


@router.get("/games/{game_id}")
def game_page(request: Request, game_id: str) -> Response:
    caller = page_caller(request)
    if caller is None:
        return _sign_up_first(request)
    try:
        context = _game_context(request, caller, game_id)
    except NotFoundError:
        return _not_found(request, caller, f"There is no game {game_id}.")
    return render(request, "game.html", caller, **context)


@router.get("/games/{game_id}/replay")
def replay_page(request: Request, game_id: str, v: int | None = None) -> Response:
    """The game after event ``v``, as the caller may see it (their seat's view, or a spectator's)."""
    caller = page_caller(request)
    if caller is None:
        return _sign_up_first(request)
    services = _services(request)
    try:
        current = services.ledger.get_game(game_id)
    except NotFoundError:
        return _not_found(request, caller, f"There is no game {game_id}.")
    last = current.version
    version = min(max(1, v if v is not None else last), last)
    try:
        game = current if version == last else services.ledger.get_game(game_id, version=version)
    except LedgerError:
        return _not_found(request, caller, f"Game {game_id} has no version {version}.")
    my_seats = current.seats_of(caller.player_id)
    names = seat_names(current, names_for(services, current))
    state = None
    prompt = "waiting for players to join"
    if game.state is not None:
        state = game.engine.view(game.state, my_seats[0] if my_seats else None)
        state.pop("private", None)
        prompt = game.engine.pending(game.state).prompt
    event = _log(events_out(services, current, caller, version - 1, 1), names)
    return render(
        request,
        "replay.html",
        caller,
        game={
            "game_id": str(current.id),
            "title": current.title,
            "title_name": current.engine.meta.name,
            "status": current.status,
            "version": last,
        },
        version=version,
        state=state,
        status_then=game.status,
        awaiting_then=list(game.awaiting) if game.state is not None else [],
        prompt=prompt,
        event=event[0] if event else None,
        names=names,
        my_seats=my_seats,
        standings=game.standings or None,
    )


@router.get("/settings")
def settings_page(request: Request) -> Response:
    caller = page_caller(request)
    if caller is None:
        return _sign_up_first(request)
    services = _services(request)
    account = tokens = sessions = None
    if services.accounts is not None:
        sessions = services.accounts.sessions_of(caller.player_id, caller.session_id)
        if not caller.is_admin:
            account = account_out(services, caller.player_id)
            tokens = [
                t | {"current": t["token_id"] == caller.token_id}
                for t in PlayerAccounts.tokens_of(services.ledger.get_player(caller.player_id))
            ]
    recovering = services.accounts is not None and services.accounts.recovering(caller)
    return render(
        request, "settings.html", caller, account=account, tokens=tokens, sessions=sessions, recovering=recovering
    )


@router.get("/account/confirm")
def confirm_page(request: Request) -> Response:
    """A mailed link confirming an address lands here; its token (after #) never reaches the server
    until the person presses the button (a mail scanner that opens links confirms nothing)."""
    return render(request, "account_link.html", page_caller(request), kind="confirm", heading="Confirm your address")


@router.get("/account/recover")
def recover_page(request: Request) -> Response:
    """A mailed sign-in link lands here; the button signs this browser in, once."""
    return render(request, "account_link.html", page_caller(request), kind="recover", heading="Sign in with your link")


@cache
def decision_schema(title: str) -> dict[str, Any]:
    """A title's decision union as JSON schema (the forms' source; computed once per title)."""
    return title_engine(title).decision_adapter.json_schema()  # type: ignore[no-any-return]

"""The web pages: sign up and in, lobby, create a game, a game seen by its seat, replay, a
player's results and pace, settings.

Pages are rendered on the server from the same presenters as the REST API (a plain
reload always shows the current position); the small script in static/app.js sends
the state-changing calls to the REST API, signed in by the HttpOnly session cookie with
the page's anti-forgery proof (``X-CSRF-Token``, from the page's ``csrf-token`` meta), and
swaps in the re-rendered parts when the game changes (server-sent events, or polling).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from datetime import datetime
from functools import cache, wraps
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import ChainableUndefined, Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from api import words as counts
from api.charts import share_value_svg
from api.deps import Caller, get_caller
from api.presenters import events_out, game_out, names_for, scoreboard_out, seat_names
from api.routers.accounts import account_out
from api.routers.leagues import organiser_name
from api.routers.players import vacation_out, waiting_out
from api.routers.talk import messages_out
from api.services import Services
from api.web import table as tables
from api.web.features import features
from api.web.forms import decision_forms, decision_schemas, human, option_fields, value_text
from api.web.seat_controls import seat_controls
from api.web.table.base import quoted
from ledger.accounts import PlayerAccounts
from ledger.domain import ADMIN, Game
from ledger.errors import AuthError, ConflictError, LedgerError, NotFoundError
from ledger.registry import TITLES
from ledger.registry import engine as title_engine
from projections.figures import count_words, days_words, value_words

HERE = Path(__file__).parent
STATIC_DIR = HERE / "static"
LOG_EVENTS = 15  # the game page's log: the latest events (the replay has them all)
BOARDS = {"cotton-trade"}  # HTML boards of the titles without a drawn one yet; the others: generic.html
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
templates.filters.update(days=days_words, count=count_words, final_value=value_words)
templates.filters.update(plural=counts.plural, signed=counts.signed, decisions_in_words=counts.decisions)
templates.filters.update(money=counts.money)


def _single_quoted(value: Any) -> Markup:
    """A value for a single-quoted attribute (``value='{{ x | sq }}'``): JSON's double quotes
    stay as they are instead of five bytes each."""
    return Markup(quoted(str(value)))  # noqa: S704 (escaped by quoted: &, <, >, and the quote)


templates.filters.update(sq=_single_quoted)
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
        waiting=_waiting(request, caller),
        features=features(request.app),
        static_version=STATIC_VERSION,
        **context,
    )
    return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)


def _waiting(request: Request, caller: Caller | None) -> dict[str, Any] | None:
    """The header's "next game waiting on you": how many, and the one waiting longest."""
    if caller is None or caller.is_admin:
        return None
    return waiting_out(_services(request), caller.player_id)


def _sign_up_first(request: Request) -> RedirectResponse:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/signup?next={quote(target, safe='')}", status_code=303)


def _not_found(request: Request, caller: Caller | None, message: str) -> HTMLResponse:
    return render(request, "message.html", caller, status=404, heading="Not found", message=message)


def signed_in(not_found: str = "") -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """A page for signed-in people, called with the caller after the request; anyone else is sent
    to sign up first (and brought back). A NotFoundError is the page's 404, in the words of
    ``not_found`` filled in with the path's parameters."""

    def decorate(page: Callable[..., Response]) -> Callable[..., Response]:
        @wraps(page)
        def signed_in_page(request: Request, **params: Any) -> Response:
            caller = page_caller(request)
            if caller is None:
                return _sign_up_first(request)
            try:
                return page(request, caller, **params)
            except NotFoundError:
                if not not_found:
                    raise
                return _not_found(request, caller, not_found.format(**params))

        shown = inspect.signature(page)  # what FastAPI reads: the page's parameters but the caller
        signed_in_page.__signature__ = shown.replace(  # type: ignore[attr-defined]
            parameters=[p for name, p in shown.parameters.items() if name != "caller"]
        )
        return signed_in_page

    return decorate


@router.get("/")
def home(request: Request) -> Response:
    return RedirectResponse("/lobby" if page_caller(request) else "/signup", status_code=303)


@router.get("/signup")
def signup(request: Request, next: str = "/lobby") -> Response:
    safe_next = next if SAFE_NEXT.fullmatch(next) else "/lobby"
    return render(request, "signup.html", page_caller(request), next=safe_next)


@router.get("/lobby")
@signed_in()
def lobby(request: Request, caller: Caller) -> Response:
    services = _services(request)
    services.wait_for("gameindex", None)
    view = services.game_index.view
    me = caller.player_id
    waits = waiting_out(services, me)["games"]  # the longest waiting first
    rank = {w["game_id"]: i for i, w in enumerate(waits)}
    since = {w["game_id"]: w["waiting_since"] for w in waits}
    waiting_on_me = view.list_games(status="active", awaiting_player=me, limit=100)
    mine = view.list_games(player=me, limit=100)
    for g in [*waiting_on_me, *mine]:
        g["waiting_since"] = since.get(g["game_id"])
    # my games by how long they have waited on me, then the others by their last move
    waiting_on_me.sort(key=lambda g: rank.get(g["game_id"], len(rank)))
    mine.sort(key=lambda g: rank.get(g["game_id"], len(rank)))
    open_games = [
        g
        for g in view.list_games(status="waiting", open_seats=True, limit=100, viewer=me)
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
@signed_in()
def new_game(request: Request, caller: Caller, title: str = "cotton-trade") -> Response:
    titles = [
        {"meta": meta, "fields": tables.options.in_words(meta.id, option_fields(meta.options_schema()))}
        for meta in TITLES.values()
    ]
    services = _services(request)
    services.wait_for("leaguestats", None)
    leagues = services.view("leaguestats").leagues()
    chosen = title if title in TITLES else next(iter(TITLES))
    return render(request, "new_game.html", caller, titles=titles, chosen=chosen, leagues=leagues)


@router.get("/leagues")
@signed_in()
def leagues_page(request: Request, caller: Caller) -> Response:
    services = _services(request)
    services.wait_for("leaguestats", None)
    services.wait_for("gameindex", None)
    leagues = services.view("leaguestats").leagues()
    names = services.game_index.view.player_names([lg["created_by"] for lg in leagues])
    for lg in leagues:
        lg["organiser"] = organiser_name(lg["created_by"], names)
    return render(request, "leagues.html", caller, leagues=leagues)


def _log(events: list[dict[str, Any]], names: dict[int, str], words: tables.Words) -> list[dict[str, Any]]:
    """Each event as a log entry in words (the title's own sentences, or what the event was)."""
    out = []
    for event in events:
        public = event.get("public", {})
        lines = list(event.get("log") or [])
        seat = public.get("seat")
        if not lines:
            lines = [words.text(_event_words(event, names))]
        if public.get("by"):  # made for the seat: say by what, before what it did
            lines.insert(0, made_by_words(public, names))
        out.append(
            {
                "version": event["version"],
                "at": event.get("timestamp"),
                "who": names.get(seat) if isinstance(seat, int) else None,
                "seat": seat if isinstance(seat, int) else None,
                "decision": public.get("decision"),
                "lines": lines,
            }
        )
    return out


EVENT_WORDS = {
    "created": "The game was created.",
    "seat_claimed": "{who} took a seat.",
    "started": "The game started.",
    "finished": "The game is over.",
    "timed_out": "{who}'s clock ran out.",
    "clock_paused": "{who}'s clock was paused (vacation).",
    "clock_resumed": "{who}'s clock runs again.",
    "undo_requested": "{who} asked to take back a decision.",
    "undo_answered": "{who} answered the take-back request.",
    "decision_undone": "A decision was taken back.",
    "abandoned": "The game was abandoned.",
    "dispute_opened": "{who} opened a dispute.",
    "dispute_resolved": "A dispute was resolved.",
    "rules_migrated": "The game moved to the current rules.",
    "invitation_issued": "A seat was held for an invited player.",
    "invitation_withdrawn": "An invitation was withdrawn: its seat is free again.",
    "seat_opened": "A seat was opened to anyone with the table's address.",
    "annulled": "The game was annulled.",
    "orders_set": "{who} set standing orders.",
    "orders_dropped": "{who}'s standing order dropped rules that could no longer act.",
    "replies_set": "{who} left conditional replies.",
    "reply_dropped": "{who}'s conditional reply was dropped: not legal when due.",
    "player_returned": "{who} is back: the stand-in stops.",
}


MADE_BY = {
    "bot": "The stand-in bot decided for {who} (away).",
    "order": "{who}'s standing order {order} decided.",
    "reply": "{who}'s conditional reply {reply} decided.",
}


def made_by_words(public: dict[str, Any], names: dict[int, str]) -> str:
    """Who made a decision recorded for a seat that was not its player's own click."""
    seat = public.get("seat")
    who = names.get(seat, "A player") if isinstance(seat, int) else "A player"
    return MADE_BY.get(str(public["by"]), "{who}'s decision was made for them.").format(
        who=who, order=public.get("order", ""), reply=public.get("reply", "")
    )


def _event_words(event: dict[str, Any], names: dict[int, str]) -> str:
    """An event without the title's own sentences: what it was, in words."""
    public = event.get("public", {})
    seat = public.get("seat")
    who = names.get(seat, "A player") if isinstance(seat, int) else "A player"
    kind = str(event.get("type", "")).rsplit(".", 1)[-1]
    if kind == "draw_recorded" or "label" in public:
        label = public.get("label", "a draw")
        if public.get("kind") == "shuffle":
            return f"The {label} were shuffled." if label.endswith("s") else f"The {label} was shuffled."
        return f"The {label} was drawn."
    if isinstance(public.get("decision"), dict):
        return f"{who}: {human(public['decision'].get('type')).lower()}."
    snake = re.sub(r"(?<!^)([A-Z])", r"_\1", kind).lower()
    return EVENT_WORDS.get(snake, f"{human(kind)}.").format(who=who)


UNDO_CHECKS: dict[tuple[str, int, int], str | None] = {}  # (game, version, seat) -> why not alone
UNDO_CHECKS_MAX = 10_000


def _undo_offer(services: Services, game: Game, caller: Caller) -> dict[str, Any] | None:
    """What the caller may take back now: alone (nothing followed, nothing hidden revealed),
    only with everyone's consent, or nothing. The ledger's judgement of a position never
    changes: it is kept, so that only the first page of a version pays for it (it reads the
    position before the decision)."""
    seats = game.seats_of(caller.player_id)
    if game.status != "active" or not seats:
        return None
    try:
        target = services.ledger.undo_target(game, seats[0])
    except ConflictError:
        return {"alone": False, "ask": False, "reason": "you have no decision to take back"}
    key = (str(game.id), game.version, seats[0])
    if key not in UNDO_CHECKS:
        if len(UNDO_CHECKS) >= UNDO_CHECKS_MAX:
            UNDO_CHECKS.clear()
        UNDO_CHECKS[key] = services.ledger.undo_check(game, seats[0], target)
    reason = UNDO_CHECKS[key]
    return {"alone": reason is None, "ask": True, "reason": reason, "target": target}


def _board(
    game: Game,
    view: dict[str, Any] | None,
    names: dict[int, str],
    me: int | None,
    decisions: list[dict[str, Any]],
    actor: int | None,
    *,
    mode: tables.base.Mode = "play",
    private: dict[str, Any] | None = None,
) -> tables.Drawn | None:
    if view is None:
        return None
    return tables.render_board(
        tables.renderer_for(game.title),
        title=game.title,
        view=view,
        names=names,
        me=me,
        awaiting=list(game.awaiting) if game.state is not None else [],
        decisions=decisions,
        mode=mode,
        actor=actor,
        private=private,
    )


CHARTS: dict[tuple[Any, ...], str] = {}  # (game, version, names, points' count and last) -> SVG
CHARTS_MAX = 256  # at most about 4 MB


def _chart(services: Services, game: Game, names: dict[int, str]) -> str:
    """The share-value chart drawn into the page (so that its points tell their values on hover).
    The same for every reader (share values are public): drawn once per version of the game and
    of its points, and kept."""
    points = services.view("sharevalues").points(str(game.id))
    last = points[-1] if points else {}
    key = (
        id(services),
        str(game.id),
        game.version,
        tuple(sorted(names.items())),
        len(points),
        last.get("version"),
        last.get("company"),
        last.get("value_to"),
    )
    svg = CHARTS.get(key)
    if svg is None:
        if len(CHARTS) >= CHARTS_MAX:
            CHARTS.clear()
        title = f"{game.engine.meta.name}: share values"
        svg = CHARTS[key] = share_value_svg(title, points, names, game.version, inline=True)
    return svg


LOG_ENTRIES: dict[tuple[Any, ...], dict[str, Any]] = {}  # see _page_log
LOG_ENTRIES_MAX = 10_000  # at most about 10 MB


def _page_log(
    services: Services, game: Game, caller: Caller, names: dict[int, str], words: tables.Words
) -> list[dict[str, Any]]:
    """The game page's log: its last ``LOG_EVENTS`` events in words, oldest first. An event's
    entry never changes for the same reader: it is kept by the game, the event, what the
    reader may see of it (their seats, and whether the game is over: the redaction's only
    inputs), the rules and the seats' names; so a new version reads and describes only the
    events not seen before. No reader is given an entry made for other seats."""
    seen = (
        id(services),
        str(game.id),
        tuple(game.seats_of(caller.player_id)),
        game.over,
        game.rules_version,
        tuple(sorted(names.items())),
    )
    first = max(0, game.version - LOG_EVENTS) + 1
    versions = range(first, game.version + 1)
    kept = {v: LOG_ENTRIES.get((v, *seen)) for v in versions}
    missing = [v for v, entry in kept.items() if entry is None]
    if missing:
        fresh = _log(
            events_out(services, game, caller, missing[0] - 1, game.version - missing[0] + 1), names, words
        )
        if len(LOG_ENTRIES) + len(fresh) > LOG_ENTRIES_MAX:
            LOG_ENTRIES.clear()
        for entry in fresh:
            LOG_ENTRIES[(entry["version"], *seen)] = entry
            kept[entry["version"]] = entry
    return [entry for entry in (kept.get(v) for v in versions) if entry is not None]


def _game_context(request: Request, caller: Caller, game_id: str) -> dict[str, Any]:
    services = _services(request)
    game = services.ledger.get_game(game_id)
    out = game_out(services, game, caller)
    names = seat_names(game, names_for(services, game))
    mine = out["my_seats"]
    actor = next((s for s in mine if s in game.awaiting), None) if game.state is not None else None
    me = actor if actor is not None else (mine[0] if mine else None)
    words = tables.renderer_for(game.title).words
    out["prompt"] = words.prompt(out["prompt"], names)
    return {
        "game": out,
        "names": names,
        "drawn": _board(game, out["state"], names, me, out["legal_decisions"], actor, private=out["private"]),
        # the power users' forms are fetched when opened (``decision_forms_page``): here only
        # whether there is one to write
        "forms": _writable(game.title, out["legal_decisions"]),
        "log": list(reversed(_page_log(services, game, caller, names, words))),
        "scoreboard": scoreboard_out(services, game) if game.state is not None else None,
        "chart": _chart(services, game, names) if game.state is not None else None,
        "undo": _undo_offer(services, game, caller),
        "free_seats": sum(1 for s in game.seats if s is None),
        "talk": _talk(services, game, caller),
        "seat": seat_controls(services, game, caller.player_id, names, out["state"]),
        "table": _waiting_table(services, game, caller) if game.status == "waiting" else None,
    }


def _waiting_table(services: Services, game: Game, caller: Caller) -> dict[str, Any]:
    """A waiting table's seats in words: which are held for an invited player (by name, by mail
    or by a shared link), which are open; the invitations for its creator to manage, and the
    caller's own invitation to take."""
    from api.invitations import Invitations

    now = services.ledger.clock().isoformat()
    held = game.reserved(now)
    pending = {int(n): inv for n, inv in game.invitations.items() if inv["status"] == "pending"}
    invited = [inv["player"] for inv in pending.values() if inv.get("player")]
    who = services.game_index.view.player_names(invited) if invited else {}
    creator = caller.is_admin or caller.player_id == game.created_by
    listed = Invitations(services).listed(game) if creator else []
    for inv in listed:
        inv["who"] = (
            who.get(inv["player_id"] or "", "a player")
            if inv["kind"] == "player"
            else inv["email"] or "a link to share"
        )
        inv["expired"] = inv["status"] == "pending" and inv["expires_at"] <= now
    mine = next(
        (n for n, inv in pending.items() if inv.get("player") == caller.player_id and inv["seat"] in held),
        None,
    )
    free = [i for i, p in enumerate(game.seats) if p is None]
    return {
        "private": game.private,
        "creator": creator,
        "held": held,
        "opened": list(game.opened),
        "invitations": [i for i in listed if i["status"] == "pending"],
        "mine": mine,
        "joinable": [i for i in free if i not in held and (not game.private or i in game.opened)],
        "free": free,
    }


@router.get("/invitation/{game_id}")
def invitation_page(request: Request, game_id: str) -> Response:
    """An invitation link lands here: its token (after #) never reaches the server until the
    visitor, signed up or signed in, presses the button that takes the seat."""
    services = _services(request)
    caller = page_caller(request)
    try:
        game = services.ledger.get_game(game_id)
    except (NotFoundError, ValueError):
        return render(
            request,
            "message.html",
            caller,
            status=404,
            heading="No such game",
            message="There is no game here: check the link.",
        )
    names = names_for(services, game)
    return render(
        request,
        "invitation.html",
        caller,
        game_id=str(game.id),
        title_name=game.engine.meta.name,
        creator=names.get(game.created_by, "A player"),
        seat_count=game.seat_count,
        seated=[names.get(p, "a player") for p in game.seats if p],
        game_status=game.status,
    )


def _talk(services: Services, game: Game, caller: Caller, version: int | None = None) -> dict[str, Any]:
    """The game's table talk as the caller may see it (``version``: only what was written at
    that version of the game, for the replay)."""
    ledger = services.ledger
    conversation = ledger.conversation(game.id)
    readable = ledger.may_read_talk(game, caller.player_id, conversation)
    messages = messages_out(conversation, caller) if readable else []
    if version is not None:
        messages = [m for m in messages if m["game_version"] == version]
    return {
        "readable": readable,
        "writable": readable and not caller.is_admin,
        "creator": caller.player_id == game.created_by,
        "spectators": bool(conversation and conversation.spectators),
        "messages": messages,
    }


@router.get("/games/{game_id}")
@signed_in(not_found="There is no game {game_id}.")
def game_page(request: Request, caller: Caller, game_id: str) -> Response:
    return render(request, "game.html", caller, **_game_context(request, caller, game_id))


def _writable(title: str, legal: list[dict[str, Any]]) -> bool:
    """Whether a power users' form would have a field to write: a listed decision type whose
    schema has properties besides its type."""
    schemas = type_schemas(title)
    types = {str(d.get("type")) for d in legal}
    return any(set(schemas.get(t, {}).get("properties", {})) - {"type"} for t in types)


@router.get("/games/{game_id}/forms")
@signed_in(not_found="There is no game {game_id}.")
def decision_forms_page(request: Request, caller: Caller, game_id: str) -> Response:
    """The power users' forms of the caller's listed decisions now (those with a field to
    write), as a piece of the game page: its script fetches them when "Write a decision
    yourself" opens. The same decisions the game page lists for the caller, and no other seat's."""
    services = _services(request)
    game = services.ledger.get_game(game_id)
    out = game_out(services, game, caller)
    words = tables.renderer_for(game.title).words
    schema = decision_schema(game.title)
    forms = [
        words.form(f)
        for f in decision_forms(schema, out["legal_decisions"], type_schemas(game.title))
        if f.fields
    ]
    html = templates.get_template("_power_forms.html").render(forms=forms)
    return HTMLResponse(html, headers=SECURITY_HEADERS)


def replay_at(
    services: Services,
    current: Game,
    caller: Caller,
    version: int,
    names: dict[int, str],
    *,
    both: bool = False,
) -> dict[str, Any]:
    """The game after event ``version`` as the caller may see it (their seat's view, or a
    spectator's): the event in words, and the board as the replay draws it: the position the
    event's decision was made on with the decision marked (``marked``), else the position after
    it (``drawn``); ``both``: the position after it too (``after``), for the dispute page."""
    game = current if version == current.version else services.ledger.get_game(current.id, version=version)
    my_seats = current.seats_of(caller.player_id)
    state = None
    prompt = "waiting for players to join"
    me = my_seats[0] if my_seats else None
    if game.state is not None:
        state = game.engine.view(game.state, me)
        state.pop("private", None)
        prompt = game.engine.pending(game.state).prompt
    words = tables.renderer_for(current.title).words
    prompt = words.prompt(prompt, names)
    event = _log(events_out(services, current, caller, version - 1, 1), names, words)
    shown = event[0] if event else None
    # the board after the event, with the event's decision highlighted where it acted
    before = None
    if shown and shown["decision"] and shown["seat"] is not None and version > 1:
        before = services.ledger.get_game(current.id, version=version - 1)
    marked = None
    if before is not None and before.state is not None and shown is not None:
        then = before.engine.view(before.state, me)
        then.pop("private", None)
        marked = _board(before, then, names, me, [shown["decision"]], shown["seat"], mode="replay")
        if not marked or not marked.highlighted:  # a decision on nothing drawn
            marked = None
    after = _board(game, state, names, me, [], None, mode="replay") if both or marked is None else None
    return {
        "game_at": game,
        "state": state,
        "prompt": prompt,
        "event": shown,
        "marked": marked,
        "after": after,
        "drawn": marked or after,
        "decided_on": marked is not None,
        "my_seats": my_seats,
    }


def dispute_offer(services: Services, game: Game, caller: Caller) -> dict[str, Any] | None:
    """What the replay offers a seated player to dispute with (the talk to cite is read by the
    page's script when the form opens): the player's open disputes and who rules. None: not a
    player of the game, or a game that cannot be disputed (a sandbox, an annulled game)."""
    seats = game.seats_of(caller.player_id)
    if not seats or game.sandbox or game.status == "annulled":
        return None
    return {
        "open": [d for d in game.disputes.values() if d["status"] == "open" and d["seat"] in seats],
        "ruler": "the operator" if services.ledger.adjudicator(game) == ADMIN else "the league's organiser",
    }


def what_if(services: Services, game: Game, caller: Caller, version: int) -> str | None:
    """Why no what-if sandbox can start after event ``version`` (None: one can)."""
    if caller.is_admin:
        return "the operator does not play; a player forks it."
    try:
        services.ledger.forkable_at(game, version)
    except LedgerError as refused:
        return refused.message
    return None


@router.get("/games/{game_id}/replay")
@signed_in(not_found="There is no game {game_id}.")
def replay_page(
    request: Request, caller: Caller, game_id: str, v: int | None = None, dispute: int = 0
) -> Response:
    """The game after event ``v``, as the caller may see it (their seat's view, or a spectator's);
    a seated player disputes events from here (``dispute=1``: the form open, event ``v`` chosen)."""
    services = _services(request)
    current = services.ledger.get_game(game_id)
    last = current.version
    version = min(max(1, v if v is not None else last), last)
    names = seat_names(current, names_for(services, current))
    try:
        at = replay_at(services, current, caller, version, names)
    except LedgerError:
        return _not_found(request, caller, f"Game {game_id} has no version {version}.")
    game = at["game_at"]
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
        state=at["state"],
        drawn=at["drawn"],
        decided_on=at["decided_on"],
        status_then=game.status,
        awaiting_then=list(game.awaiting) if game.state is not None else [],
        prompt=at["prompt"],
        event=at["event"],
        names=names,
        my_seats=at["my_seats"],
        standings=game.standings or None,
        talk=_talk(services, current, caller, version),
        offer=dispute_offer(services, current, caller),
        preselect=version if dispute else None,
        what_if=what_if(services, current, caller, version),
    )


KIND_WORDS = {  # the notifications one may have mailed (api/channels.py CHANNEL_KINDS), in words
    "your_turn": "it is your turn",
    "game_started": "a game of yours starts",
    "game_finished": "a game of yours is over",
    "timed_out": "a clock runs out",
    "dispute_opened": "a dispute is opened",
    "dispute_resolved": "a dispute is resolved",
    "clock_low": "your clock is running low",
}


@router.get("/settings")
@signed_in()
def settings_page(request: Request, caller: Caller) -> Response:
    services = _services(request)
    vacation = None if caller.is_admin else vacation_out(services, caller.player_id)
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
    channels = None
    if not caller.is_admin and services.channels is not None:  # mail, Discord and Slack (api/channels.py)
        channels = services.channels.settings_of(caller.player_id)
    return render(
        request,
        "settings.html",
        caller,
        vacation=vacation,
        account=account,
        tokens=tokens,
        sessions=sessions,
        recovering=recovering,
        channels=channels,
        kind_words=KIND_WORDS,
    )


@router.get("/account/confirm")
def confirm_page(request: Request) -> Response:
    """A mailed link confirming an address lands here; its token (after #) never reaches the server
    until the person presses the button (a mail scanner that opens links confirms nothing)."""
    return render(
        request, "account_link.html", page_caller(request), kind="confirm", heading="Confirm your address"
    )


@router.get("/account/recover")
def recover_page(request: Request) -> Response:
    """A mailed sign-in link lands here; the button signs this browser in, once."""
    return render(
        request, "account_link.html", page_caller(request), kind="recover", heading="Sign in with your link"
    )


@cache
def decision_schema(title: str) -> dict[str, Any]:
    """A title's decision union as JSON schema (the forms' source; computed once per title)."""
    return title_engine(title).decision_adapter.json_schema()  # type: ignore[no-any-return]


@cache
def type_schemas(title: str) -> dict[str, dict[str, Any]]:
    """The schema of each of a title's decision types (computed once per title)."""
    return decision_schemas(decision_schema(title))

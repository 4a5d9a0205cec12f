"""The two routes every player calls hundreds of times a game, answered without FastAPI's
routing and dependency solving: ``GET /api/v1/games/{game_id}`` and ``POST
/api/v1/games/{game_id}/decisions``.

A profile of a decision (``python -m tests.benchmarks.profile_decision``) found most of the
server's CPU in the framework, not in the game: matching the path against the routes,
solving each route's dependencies (a thread-pool hop for the caller's authentication, another
for the endpoint) and validating parameters, for two routes whose work is small. Here, inside
the same middleware (request id, access log and metrics, rate and body limits) and the same
exception handlers, a request of that shape with a player's bearer token (verified from
this process's memory when it verified it moments ago, else from the store as FastAPI's
dependency does) and, for a decision, whose body is a valid ``DecisionIn`` sent as JSON, is
answered by the very functions the FastAPI routes call (``game_answer``,
``decision_answer``), the endpoint in one thread-pool hop. Anything else (no credential, a
session or the operator's token, a bad body, a query string, an Idempotency-Key too long) goes
to FastAPI unchanged, with the body given back as it was read: the answers, errors and
their codes are FastAPI's own. ``tests/test_hotroutes.py`` holds the two ways to the same
answers.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from api.deps import Caller, caller_for_token, known_caller, player_token
from api.limits import replaying
from api.ratelimit import limit_decisions
from api.routers import games
from api.routers.games import decision_answer, game_answer
from api.routers.keyed import Once
from api.schemas import DecisionIn
from api.services import Services

PREFIX = "/api/v1/games/"
_GAME = re.compile(r"/api/v1/games/([^/]{1,64})")
_DECISIONS = re.compile(r"/api/v1/games/([^/]{1,64})/decisions")
MAX_IDEMPOTENCY_KEY = 200  # the Idempotency-Key header's max_length (api/routers/keyed.py)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _is_json(content_type: str | None) -> bool:
    return content_type is not None and content_type.split(";", 1)[0].strip().lower() == "application/json"


class HotRoutes:
    """ASGI: the hot routes' short way, in front of FastAPI's router (``install``)."""

    def __init__(self, app: ASGIApp, services: Services, routes: dict[Any, Any]) -> None:
        self.app = app
        self.services = services
        self.routes = routes  # endpoint -> its APIRoute, set in the scope as FastAPI does

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("query_string") and scope["path"].startswith(PREFIX):
            method = scope["method"]
            if method == "GET" and (m := _GAME.fullmatch(scope["path"])):
                if await self._game(scope, receive, send, m.group(1)):
                    return
            elif method == "POST" and (m := _DECISIONS.fullmatch(scope["path"])):
                await self._decision(scope, receive, send, m.group(1))
                return
        await self.app(scope, receive, send)

    async def _caller(self, scope: Scope) -> Caller | None:
        """The caller of a player's bearer token (verified again from the store, in the thread
        pool, when this process has not verified it lately), or None for any other credential."""
        authorization = _header(scope, b"authorization")
        token = player_token(self.services, authorization) if authorization else None
        if token is None:
            return None
        return await self._verified(token)

    async def _verified(self, token: str) -> Caller:
        known = known_caller(self.services, token)
        if known is not None:
            return known
        caller: Caller = await run_in_threadpool(caller_for_token, self.services, token)
        return caller

    def _select(self, scope: Scope, endpoint: Any, game_id: str) -> None:
        """What FastAPI's router leaves in the scope for a matched route (read by the metrics)."""
        scope["endpoint"] = endpoint
        scope["route"] = self.routes.get(endpoint)
        scope["path_params"] = {**scope.get("path_params", {}), "game_id": game_id}

    async def _game(self, scope: Scope, receive: Receive, send: Send, game_id: str) -> bool:
        caller = await self._caller(scope)
        if caller is None:
            return False
        self._select(scope, games.get_game, game_id)
        response = await run_in_threadpool(game_answer, self.services, game_id, caller)
        await response(scope, receive, send)
        return True

    async def _decision(self, scope: Scope, receive: Receive, send: Send, game_id: str) -> None:
        authorization = _header(scope, b"authorization")
        token = player_token(self.services, authorization) if authorization else None
        key = _header(scope, b"idempotency-key")
        if (
            token is None
            or not _is_json(_header(scope, b"content-type"))
            or len(key or "") > MAX_IDEMPOTENCY_KEY
        ):
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        raw = await request.body()
        try:
            body = DecisionIn.model_validate_json(raw)
        except ValidationError:
            await self.app(scope, replaying(raw, receive), send)  # FastAPI's own answer to a bad body
            return
        caller = await self._verified(token)
        self._select(scope, games.decide, game_id)
        await limit_decisions(request, caller)
        once = Once(self.services, caller, key, request)
        response = await run_in_threadpool(
            decision_answer, self.services, request, caller, once, game_id, body
        )
        await response(scope, receive, send)


def install(app: Any, services: Services) -> None:
    """Put the hot routes in front of the app's router, inside its middleware and exception
    handlers (after the routes are included)."""
    routes = {
        endpoint: r
        for r in games.router.routes
        if (endpoint := getattr(r, "endpoint", None)) in (games.get_game, games.decide)
    }
    app.router.middleware_stack = HotRoutes(app.router.middleware_stack, services, routes)

"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI
from starlette.routing import BaseRoute

from api import errors, hotroutes, web
from api.changefeed import end_streams_on_exit
from api.limits import BodyLimits
from api.observability import RequestContext
from api.observability import router as metrics_router
from api.ratelimit import DecisionLimit, ForkLimit, RateLimits
from api.routers import accounts, admin, games, health, leagues, ledger, players, stats, streams, talk, titles
from api.routers import disputes as disputes_routes
from api.routers import invitations as invitations_routes
from api.routers import orders as orders_routes
from api.routers import seasons as seasons_routes
from api.routers.channels import router as channels_router
from api.routers.channels import unsubscribe_router
from api.services import Services
from api.settings import Settings

API_PREFIX = "/api/v1"


def create_app(settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    owned = services is None
    services = services or Services.start(settings, background=settings.projections == "inline")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        restore = end_streams_on_exit(services)  # a shutdown ends the live updates at once
        yield
        restore()
        if owned:
            services.close()

    app = FastAPI(
        title="gameledger",
        version="0.1.0",
        summary="Asynchronous play, replay and audit of the industrial revolution's economic board games.",
        openapi_url="/openapi.json",
        docs_url=None,  # served below, from this machine
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.services = services
    errors.install(app)
    include(app, health.router)
    include(app, health.probes)
    include(app, metrics_router)
    for router in (
        players.router,
        accounts.router,
        titles.router,
        games.router,
        invitations_routes.router,
        disputes_routes.router,
        orders_routes.router,
        streams.router,
        talk.router,
        leagues.router,
        seasons_routes.router,
        stats.router,
        admin.router,
        ledger.router,
        channels_router,
    ):
        include(app, router, prefix=API_PREFIX)
    include(app, health.router, prefix=API_PREFIX, include_in_schema=False)
    include(app, web.router)
    include(app, unsubscribe_router)
    app.mount(web.STATIC_PATH, web.static_files(), name="static")
    hotroutes.install(app, services)  # the game and the decision without FastAPI's routing
    install_docs(app)
    share_openapi(app)
    app.add_middleware(BodyLimits, max_bytes=settings.max_body_bytes, max_depth=settings.max_json_depth)
    app.add_middleware(
        RateLimits,
        signup_per_minute=settings.signup_rate,
        signup_burst=settings.signup_burst,
        public_reads_per_second=settings.public_read_rate,
        public_read_burst=settings.public_read_burst,
    )
    app.state.decision_limit = DecisionLimit(settings.decision_rate, settings.decision_burst)
    app.state.fork_limit = ForkLimit(settings.fork_rate, settings.fork_burst)
    app.state.stream_slots = streams.StreamSlots(settings.streams_per_player, settings.streams_per_client)
    app.state.dispute_limit = disputes_routes.DisputeLimit(settings.dispute_rate, settings.dispute_burst)
    app.add_middleware(RequestContext)  # outermost: request id, access log, metrics
    return app


# What FastAPI builds for an included router's routes (each route's parameters, dependencies and
# response models, as pydantic validators) is built on the router's first request, for each app
# instance: about 0.25 s of processor time for this app's routes. A server process makes one app,
# but the tests make one a test (hundreds a run). The routers, their prefixes and the app's
# settings that shape a route (response class, unique ids) are the same in every app made here,
# and no app here overrides a dependency, so the first app's built routes serve every later app of
# the process.
_BUILT_ROUTES: dict[tuple[int, str, bool], BaseRoute] = {}


def include(app: FastAPI, router: APIRouter, prefix: str = "", include_in_schema: bool = True) -> None:
    """``app.include_router``, sharing the routes this process has already built for the router."""
    app.include_router(router, prefix=prefix, include_in_schema=include_in_schema)
    key = (id(router), prefix, include_in_schema)
    added = app.router.routes[-1]
    built = _BUILT_ROUTES.setdefault(key, added)
    if (
        built is not added
        and type(built) is type(added)
        and getattr(added, "original_router", None) is router
    ):
        app.router.routes[-1] = built


_OPENAPI: dict[str, dict[str, Any]] = {}


def share_openapi(app: FastAPI) -> None:
    """The OpenAPI document, generated once a process (0.15 s of processor time; the pages read it
    for the optional calls, api/web/features.py): every app made here has the same routes."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            if "schema" not in _OPENAPI:
                _OPENAPI["schema"] = FastAPI.openapi(app)
            app.openapi_schema = _OPENAPI["schema"]
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


DOCS_STATIC = "/docs-static"


def install_docs(app: FastAPI) -> None:
    """The interactive API documentation (Swagger UI) at /docs, its script and style served from
    this machine (the copy the fastapi-offline package ships) rather than a CDN, under a Content-Security-Policy
    that lets only those and the page's own initialising script (by its hash) run."""
    import base64
    import hashlib
    import re
    from pathlib import Path

    import fastapi_offline
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles

    page = get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="gameledger API",
        swagger_js_url=f"{DOCS_STATIC}/swagger-ui-bundle.js",
        swagger_css_url=f"{DOCS_STATIC}/swagger-ui.css",
        swagger_favicon_url=f"{DOCS_STATIC}/favicon.png",
    ).body
    inline = re.findall(rb"<script>(.*?)</script>", page, re.S)
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s).digest()).decode()}'" for s in inline)
    headers = {
        "Content-Security-Policy": (
            f"default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'"
        ),
        "X-Content-Type-Options": "nosniff",
    }

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(page, headers=headers)

    assets = Path(fastapi_offline.__file__).parent / "static"
    app.mount(DOCS_STATIC, StaticFiles(directory=assets), name="docs-static")


def app_from_env() -> FastAPI:
    """Entry point for ``uvicorn --factory api.app:app_from_env``."""
    return create_app(Settings.from_env())

"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from api import errors, web
from api.changefeed import end_streams_on_exit
from api.limits import BodyLimits
from api.observability import RequestContext
from api.observability import router as metrics_router
from api.ratelimit import DecisionLimit, RateLimits
from api.routers import accounts, admin, games, health, leagues, ledger, players, stats, streams, talk, titles
from api.routers import disputes as disputes_routes
from api.routers import orders as orders_routes
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
        docs_url="/docs",
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.services = services
    errors.install(app)
    app.include_router(health.router)
    app.include_router(health.probes)
    app.include_router(metrics_router)
    for router in (
        players.router,
        accounts.router,
        titles.router,
        games.router,
        disputes_routes.router,
        orders_routes.router,
        streams.router,
        talk.router,
        leagues.router,
        stats.router,
        admin.router,
        ledger.router,
        channels_router,
    ):
        app.include_router(router, prefix=API_PREFIX)
    app.include_router(health.router, prefix=API_PREFIX, include_in_schema=False)
    app.include_router(web.router)
    app.include_router(unsubscribe_router)
    app.mount(web.STATIC_PATH, web.static_files(), name="static")
    app.add_middleware(BodyLimits, max_bytes=settings.max_body_bytes, max_depth=settings.max_json_depth)
    app.add_middleware(
        RateLimits,
        signup_per_minute=settings.signup_rate,
        signup_burst=settings.signup_burst,
        public_reads_per_second=settings.public_read_rate,
        public_read_burst=settings.public_read_burst,
    )
    app.state.decision_limit = DecisionLimit(settings.decision_rate, settings.decision_burst)
    app.state.dispute_limit = disputes_routes.DisputeLimit(settings.dispute_rate, settings.dispute_burst)
    app.add_middleware(RequestContext)  # outermost: request id, access log, metrics
    return app


def app_from_env() -> FastAPI:
    """Entry point for ``uvicorn --factory api.app:app_from_env``."""
    return create_app(Settings.from_env())

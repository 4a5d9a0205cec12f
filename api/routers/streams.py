"""Server-sent events: a game's changes, and a player's notifications, while a page is open.

Both streams poll (SQLite cannot push, and several server processes may write), send
a comment every 15 s to keep proxies from closing them, end after ``max_seconds``
(the browser's EventSource reconnects by itself, resuming a player's stream from the
``Last-Event-ID`` it saw) and stop as soon as the client goes away.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from api.deps import CallerDep, ServicesDep
from api.notify import wanted_kinds
from api.routers.games import ERRORS, GameId
from api.schemas import MAX_INDEX

router = APIRouter(tags=["streams"])

MaxSeconds = Annotated[float, Query(gt=0, le=3600, description="Close the stream after this long")]
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
HEARTBEAT = 15.0


def sse(event: str, data: dict[str, Any], event_id: str | None = None) -> str:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


@router.get("/games/{game_id}/stream", responses=ERRORS, response_class=StreamingResponse)
async def game_stream(
    game_id: GameId,
    request: Request,
    caller: CallerDep,
    services: ServicesDep,
    max_seconds: MaxSeconds = 300,
    interval: Annotated[float, Query(ge=0.1, le=30)] = 1.0,
) -> StreamingResponse:
    """``event: game`` with ``{game_id, version, status, awaiting, prompt}`` now and on every change."""
    await run_in_threadpool(services.ledger.get_game, game_id)  # 404 before the stream opens

    def snapshot() -> dict[str, Any]:
        g = services.ledger.get_game(game_id)
        prompt = g.engine.pending(g.state).prompt if g.state is not None else "waiting for players"
        return {
            "game_id": str(g.id),
            "version": g.version,
            "status": g.status,
            "awaiting": g.awaiting,
            "prompt": prompt,
        }

    async def events() -> AsyncIterator[str]:
        yield "retry: 3000\n\n"
        last = -1
        started = beat = time.monotonic()
        while time.monotonic() - started < max_seconds:
            if await request.is_disconnected():
                return
            data = await run_in_threadpool(snapshot)
            if data["version"] != last:
                last = data["version"]
                yield sse("game", data, str(last))
                beat = time.monotonic()
                if data["status"] in ("finished", "abandoned"):
                    return
            elif time.monotonic() - beat > HEARTBEAT:
                yield ": keep-alive\n\n"
                beat = time.monotonic()
            await asyncio.sleep(interval)

    return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)


@router.get("/me/stream", responses=ERRORS, response_class=StreamingResponse)
async def my_stream(
    request: Request,
    caller: CallerDep,
    services: ServicesDep,
    max_seconds: MaxSeconds = 300,
    interval: Annotated[float, Query(ge=0.1, le=30)] = 1.0,
    after: Annotated[
        int | None, Query(ge=0, le=MAX_INDEX, description="Resume after this notification position")
    ] = None,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> StreamingResponse:
    """``event: notification`` for each of the caller's notifications the settings want."""
    view = services.view("notifications")
    player = caller.player_id
    if after is None and last_event_id and last_event_id.isascii() and last_event_id.isdigit():
        after = min(int(last_event_id), MAX_INDEX)  # ASCII digits only: "²".isdigit() is true
    if after is None:
        await run_in_threadpool(services.refresh, "notifications")
        after = await run_in_threadpool(view.latest_position, player)

    def fetch(position: int) -> list[dict[str, Any]]:
        services.refresh("notifications")
        kinds = wanted_kinds(services.ledger.get_player(player)) if not caller.is_admin else []
        return view.outbox(player, after=position, kinds=kinds)  # type: ignore[no-any-return]

    async def events() -> AsyncIterator[str]:
        yield "retry: 3000\n\n"
        position = after or 0
        started = beat = time.monotonic()
        while time.monotonic() - started < max_seconds:
            if await request.is_disconnected():
                return
            for item in await run_in_threadpool(fetch, position):
                position = max(position, int(item["id"].split(":", 1)[0]))
                yield sse("notification", item, str(position))
                beat = time.monotonic()
            if time.monotonic() - beat > HEARTBEAT:
                yield ": keep-alive\n\n"
                beat = time.monotonic()
            await asyncio.sleep(interval)

    return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)

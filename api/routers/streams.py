"""Server-sent events: a game's changes, and a player's notifications, while a page is open.

Changes are pushed: each stream waits on the process's change feed (api/changefeed.py),
which wakes it when its game or its player's notifications move on (a decision through any
server process reaches it in milliseconds), and then sends what is new, exactly as a fresh
read would show it to its caller. A comment every 15 s keeps proxies from closing an idle
stream; it ends after ``max_seconds`` (the browser's EventSource reconnects by itself,
sending the ``Last-Event-ID`` it saw: a player's stream resumes after it, a game's stream
sends the game's summary only if it moved on); it stops as soon as the client goes away,
and a client that reads nothing for ``SEND_TIMEOUT`` seconds is dropped. Access is checked
again at every wake-up and heartbeat: once the caller's session has ended or token was
revoked, the stream sends ``event: end`` with the code and closes (a reconnection gets 401),
and a game's stream sends table talk only while its caller may read it. ``interval`` is
kept for old clients: it bounds how long a change made by another process may wait for the
feed's periodic check should a notification be lost.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from prometheus_client import Counter
from starlette.types import Message, Receive, Scope, Send

from api.changefeed import ChangeFeed, feed_of
from api.deps import Caller, CallerDep, ServicesDep, access_ended
from api.notify import wanted_kinds
from api.routers.games import ERRORS, GameId
from api.routers.talk import messages_out
from api.schemas import MAX_INDEX
from ledger.application import Ledger
from ledger.errors import RateLimitedError

router = APIRouter(tags=["streams"])
log = logging.getLogger("gameledger.streams")

MaxSeconds = Annotated[float, Query(gt=0, le=3600, description="Close the stream after this long")]
Interval = Annotated[
    float | None,
    Query(
        ge=0.1,
        le=30,
        description="Kept for old clients (changes are pushed at once): the longest a change made "
        "through another server process may wait should its notification be lost",
    ),
]
LastEventId = Annotated[str | None, Header(alias="Last-Event-ID")]
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
HEARTBEAT = 15.0
SEND_TIMEOUT = 10.0  # a client that takes no data for this long is dropped
ENDED = ("finished", "abandoned")
PAGE = 100  # notifications read at a time


def sse(event: str, data: dict[str, Any], event_id: str | None = None) -> str:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def event_id(value: str | None) -> int | None:
    """A ``Last-Event-ID`` the server could have sent: ASCII digits ("²".isdigit() is true)."""
    if value and value.isascii() and value.isdigit():
        return min(int(value), MAX_INDEX)
    return None


def game_summary(ledger: Ledger, game_id: str) -> dict[str, Any]:
    """What a game's stream sends: the same for every caller, nothing hidden in it."""
    g = ledger.get_game(game_id)
    prompt = g.engine.pending(g.state).prompt if g.state is not None else "waiting for players"
    return {
        "game_id": str(g.id),
        "version": g.version,
        "status": g.status,
        "awaiting": g.awaiting,
        "prompt": prompt,
    }


def new_messages(ledger: Ledger, game_id: str, after: int, caller: Any) -> list[dict[str, Any]]:
    """The game's table talk after message ``after``, as the caller is served it."""
    return messages_out(ledger.conversation(game_id), caller, after)


def game_feed(services: Any) -> ChangeFeed:
    feed = feed_of(services)
    feed.loader("game", lambda gid: game_summary(services.ledger, gid))
    return feed


class SlowClient(Exception):
    """The client took nothing for ``SEND_TIMEOUT`` seconds."""


STREAMS_DROPPED = Counter("gameledger_streams_dropped_total", "Streams dropped: their client read nothing.")
DROPPED: contextvars.ContextVar[bool] = contextvars.ContextVar("stream_dropped", default=False)


class _DroppedStreamFilter(logging.Filter):
    """uvicorn reports a response it had to cut short as an error; a stream dropped on
    purpose (its client stopped reading) is logged here instead, as a warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (DROPPED.get() and "without completing response" in str(record.msg))


logging.getLogger("uvicorn.error").addFilter(_DroppedStreamFilter())


class StreamSlots:
    """The streams open in this process, per player and per client address: a stream takes a
    place in both when it opens (429 ``request/too_many_streams`` when either is full) and gives
    them back when it ends, however it ends."""

    def __init__(self, per_player: int, per_client: int) -> None:
        self.per_player = per_player
        self.per_client = per_client
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def take(self, request: Request, caller: Caller) -> Callable[[], None]:
        client = request.client.host if request.client else "?"
        keys = [
            (f"player:{caller.player_id}", self.per_player, "this player"),
            (f"addr:{client}", self.per_client, "your address"),
        ]
        with self._lock:
            for key, limit, who in keys:
                if limit and self._open.get(key, 0) >= limit:
                    raise RateLimitedError(
                        f"{who.capitalize()} has {limit} live-update streams open already; close one.",
                        5,
                        "request/too_many_streams",
                    )
            for key, _, _ in keys:
                self._open[key] = self._open.get(key, 0) + 1
        released = False

        def release() -> None:
            nonlocal released
            with self._lock:
                if released:
                    return
                released = True
                for key, _, _ in keys:
                    left = self._open.get(key, 1) - 1
                    if left > 0:
                        self._open[key] = left
                    else:
                        self._open.pop(key, None)

        return release


def stream_slot(request: Request, caller: Caller) -> Callable[[], None] | None:
    """A place for a new stream in the app's ``StreamSlots`` (none kept without them)."""
    slots: StreamSlots | None = getattr(request.app.state, "stream_slots", None)
    return slots.take(request, caller) if slots is not None else None


class EventStream(StreamingResponse):
    """A ``text/event-stream`` response that drops a client which stops reading: a send that
    cannot complete in ``SEND_TIMEOUT`` seconds ends the response and the server closes the
    connection (the other streams never wait on it: each has its own task). ``release`` gives
    back the stream's places when it ends."""

    media_type = "text/event-stream"

    def __init__(self, content: AsyncIterator[str], release: Callable[[], None] | None = None) -> None:
        super().__init__(content, headers=SSE_HEADERS)
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_or_drop(message: Message) -> None:
            try:
                async with asyncio.timeout(SEND_TIMEOUT):
                    await send(message)
            except TimeoutError:
                raise SlowClient from None

        try:
            await super().__call__(scope, receive, send_or_drop)
        except SlowClient:
            DROPPED.set(True)
            STREAMS_DROPPED.inc()
            client = scope.get("client")
            log.warning(
                "dropped a stream of %s whose client read nothing for %g s",
                scope.get("path"),
                SEND_TIMEOUT,
                extra={"client": client[0] if client else None},
            )
        finally:  # a stream left at a yield (its send failed) leaves the change feed now
            if self.release is not None:
                self.release()
            close = getattr(self.body_iterator, "aclose", None)
            if close is not None:
                await close()


def _remaining(loop: asyncio.AbstractEventLoop, started: float, max_seconds: float) -> float:
    return max_seconds - (loop.time() - started)


async def _ended(services: Any, caller: Caller) -> str | None:
    """The stream's closing event if the caller's sign-in or token no longer works: asked at every
    wake-up and heartbeat, so that a revocation (by any process) ends the streams it opened."""
    why = await run_in_threadpool(access_ended, services, caller)
    if why is None:
        return None
    return sse("end", {"code": why, "message": "This sign-in or token no longer works: sign in again."})


@router.get("/games/{game_id}/stream", responses=ERRORS, response_class=StreamingResponse)
async def game_stream(
    game_id: GameId,
    request: Request,
    caller: CallerDep,
    services: ServicesDep,
    max_seconds: MaxSeconds = 300,
    interval: Interval = None,
    last_event_id: LastEventId = None,
) -> StreamingResponse:
    """``event: game`` with ``{game_id, version, status, awaiting, prompt}`` now (unless
    ``Last-Event-ID`` names the current version) and on every change, pushed as it happens;
    ``event: talk`` with each table-talk message written while the stream is open, to
    those who may read the game's talk."""
    game = await run_in_threadpool(services.ledger.get_game, game_id)  # 404 before the stream opens
    ledger = services.ledger
    talk = await run_in_threadpool(ledger.conversation, game.id)
    feed = game_feed(services)

    def may_read(gid: str) -> bool:
        """Whether the caller reads the talk now (the creator may have stopped spectators)."""
        return ledger.may_read_talk(ledger.get_game(gid), caller.player_id, ledger.conversation(gid))

    await run_in_threadpool(feed.start)
    gid = str(game_id)
    seen = event_id(last_event_id)

    async def events() -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        sub = feed.subscribe(("game", gid), interval)
        try:
            yield "retry: 3000\n\n"
            # read after subscribing: whatever is stored from here on wakes this stream
            data = await run_in_threadpool(game_summary, services.ledger, gid)
            last = data["version"] if seen == data["version"] else -1  # the client has this one
            said = len(talk.messages) if talk else 0  # table talk from here on (the page has the rest)
            sub.talk_moved = True  # what was said between the page's read and the subscription
            ended = False
            started = beat = loop.time()
            check = False  # access was checked when the stream opened
            while True:
                if check:
                    closing = await _ended(services, caller)
                    if closing is not None:
                        yield closing
                        return
                if data["version"] > last:
                    last = data["version"]
                    yield sse("game", data, str(last))
                    beat = loop.time()
                    ended = data["status"] in ENDED
                if sub.talk_moved:  # the talk is read only when it moved on, and who reads it with it
                    sub.talk_moved = False
                    if await run_in_threadpool(may_read, gid):
                        for message in await run_in_threadpool(new_messages, ledger, gid, said, caller):
                            said = message["number"]
                            yield sse("talk", message)
                            beat = loop.time()
                if ended:
                    return
                left = _remaining(loop, started, max_seconds)
                if left <= 0 or feed.ending:
                    return
                check = True
                if await sub.wait(min(left, HEARTBEAT - (loop.time() - beat))):
                    if feed.ending:
                        return
                    data = sub.value or await run_in_threadpool(game_summary, services.ledger, gid)
                elif loop.time() - beat >= HEARTBEAT:
                    closing = await _ended(services, caller)
                    if closing is not None:
                        yield closing
                        return
                    yield ": keep-alive\n\n"
                    beat = loop.time()
        finally:
            feed.unsubscribe(sub)

    return EventStream(events(), stream_slot(request, caller))  # 429 when too many are open


@router.get("/me/stream", responses=ERRORS, response_class=StreamingResponse)
async def my_stream(
    request: Request,
    caller: CallerDep,
    services: ServicesDep,
    max_seconds: MaxSeconds = 300,
    interval: Interval = None,
    after: Annotated[
        int | None, Query(ge=0, le=MAX_INDEX, description="Resume after this notification position")
    ] = None,
    last_event_id: LastEventId = None,
) -> StreamingResponse:
    """``event: notification`` for each of the caller's notifications the settings want,
    pushed as it happens; resumes after ``Last-Event-ID`` (or ``after``)."""
    view = services.view("notifications")
    player = caller.player_id
    if after is None:
        after = event_id(last_event_id)
    if after is None:
        await run_in_threadpool(services.refresh, "notifications")
        after = await run_in_threadpool(view.latest_position, player)
    feed = feed_of(services)
    await run_in_threadpool(feed.start)

    def fetch(position: int, refresh: bool) -> list[dict[str, Any]]:
        if refresh:
            services.refresh("notifications")
        kinds = wanted_kinds(services.ledger.get_player(player)) if not caller.is_admin else []
        return view.outbox(player, after=position, kinds=kinds, limit=PAGE)  # type: ignore[no-any-return]

    async def events() -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        sub = feed.subscribe(("player", player), interval)
        try:
            yield "retry: 3000\n\n"
            position = after or 0
            started = beat = loop.time()
            woke, first = True, True
            while True:
                while woke:  # the first read brings the notifications up to date; the feed does after
                    items = await run_in_threadpool(fetch, position, first)
                    for item in items:
                        position = max(position, int(item["id"].split(":", 1)[0]))
                        yield sse("notification", item, str(position))
                        beat = loop.time()
                    first, woke = False, len(items) == PAGE  # a full page: there may be more
                left = _remaining(loop, started, max_seconds)
                if left <= 0 or feed.ending:
                    return
                woke = await sub.wait(min(left, HEARTBEAT - (loop.time() - beat)))
                if feed.ending:
                    return
                if woke or loop.time() - beat >= HEARTBEAT:
                    closing = await _ended(services, caller)
                    if closing is not None:
                        yield closing
                        return
                if not woke and loop.time() - beat >= HEARTBEAT:
                    yield ": keep-alive\n\n"
                    beat = loop.time()
        finally:
            feed.unsubscribe(sub)

    return EventStream(events(), stream_slot(request, caller))  # 429 when too many are open

"""The one source of change of a server process, fanned out to its open streams.

Open server-sent-event streams (api/routers/streams.py) no longer poll the store each on a
timer of its own: one ``ChangeFeed`` per process learns that the ledger moved on and wakes
exactly the streams the change is for (a game's streams also when its table talk moves on).

- This process's saves: the ledger tells the feed after every save (``Ledger.on_saved``).
- Other processes' saves, PostgreSQL: eventsourcing's recorder sends ``NOTIFY`` on the
  channel named after the events table (``recorder.channel_name``: ``ledger_events``) in
  every insert transaction, delivered when it commits. One connection per process LISTENs
  to it; when that connection breaks (the server restarted, failed over) it reconnects with
  a growing pause and then reads whatever it missed. NOTIFY belongs to a database, not a
  schema: ledgers in other schemas of the same database wake the feed too, which then
  reads nothing new.
- Other processes' saves, SQLite (and a safety net for PostgreSQL): one light check per
  process while streams are open, every ``CHECK_SECONDS`` (sooner when a stream asked for a
  shorter ``interval``): the events after the last one seen, one indexed query.

On a wake the feed's thread reads the events after the last one it saw (one query for the
process, not one per stream). For each game among them that streams watch it loads the
game's stream summary once and hands it to all of them; when players' notification streams
are open it brings the notifications read model up to date once and wakes the streams of
the players with new rows, which then read their own rows. A stream waits on an
``asyncio.Event`` of its own, so a client that reads slowly holds up nobody but itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import psycopg
from prometheus_client import Gauge
from psycopg import sql

from ledger.domain import conversation_id

if TYPE_CHECKING:
    from api.services import Services
    from ledger.application import Ledger
    from ledger.storage import Database

log = logging.getLogger("gameledger.streams")

CHECK_SECONDS = {"sqlite": 0.25, "postgres": 2.0}  # the light check, while streams are open
READ_BATCH = 1000  # events read per query when catching up
LISTEN_TIMEOUT = 1.0  # the LISTEN loop looks for a stop this often
RECONNECT_FIRST, RECONNECT_MAX = 0.2, 5.0  # the pause before a new LISTEN connection, doubling

STREAMS_OPEN = Gauge(
    "gameledger_streams_open",
    "Server-sent-event streams open (game and player streams).",
    multiprocess_mode="livesum",
)

Key = tuple[str, str]  # ("game", game id) or ("player", player id)
Loader = Callable[[str], Any]


@dataclass(eq=False)
class Subscription:
    """One open stream's place in the feed: woken on a change to its game or player."""

    key: Key
    loop: asyncio.AbstractEventLoop
    interval: float | None = None
    event: asyncio.Event = field(default_factory=asyncio.Event)
    value: Any = None  # the latest summary loaded for the key (games)
    talk_moved: bool = False  # the game's table talk moved on since the stream last looked

    async def wait(self, timeout: float) -> bool:
        """Until woken (True) or ``timeout`` seconds (False)."""
        if not self.event.is_set():
            try:
                async with asyncio.timeout(max(0.0, timeout)):
                    await self.event.wait()
            except TimeoutError:
                return False
        self.event.clear()
        return True


def _wake(subs: list[Subscription], value: Any, talk: bool = False) -> None:
    for sub in subs:
        if value is not None:
            sub.value = value
        if talk:
            sub.talk_moved = True
        sub.event.set()


class OutboxCursor:
    """Which players have new notifications: the notifications read model brought up to
    date, then its rows after the last position this process looked at."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.seen = self.view.position(services.ledger.name)

    @property
    def view(self) -> Any:
        return self.services.view("notifications")

    def new_players(self) -> set[str]:
        self.services.refresh("notifications")
        seen = max(self.seen, 0)
        players: set[str] = set()
        while True:
            rows = self.view.outbox_after(seen, READ_BATCH)
            players.update(str(r["player_id"]) for r in rows)
            last = int(rows[-1]["position"]) if rows else seen
            if len(rows) < READ_BATCH:
                seen = max(seen, last)
                break
            seen = max(seen + 1, last - 1)  # an event's rows (one per player told) may go on
        self.seen = seen
        return players


class ChangeFeed:
    """The process's one source of change (see the module's docstring)."""

    def __init__(
        self,
        ledger: Ledger,
        *,
        listen: Database | None = None,
        check_seconds: float = CHECK_SECONDS["sqlite"],
        outbox: Callable[[], OutboxCursor] | None = None,
    ) -> None:
        self.ledger = ledger
        self.check_seconds = check_seconds
        self.listening = False  # the LISTEN connection is up
        self.reconnects = 0  # LISTEN connections made after a break
        self._listen_db = listen
        self._make_outbox = outbox
        self._outbox: OutboxCursor | None = None
        self._outbox_dirty = False
        self._loaders: dict[str, Loader] = {}
        self._topics: dict[Key, set[Subscription]] = {}
        self._intervals: Counter[float] = Counter()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._head = 0
        self._retry: set[str] = set()  # games whose summary failed to load: tried again
        self._threads: list[threading.Thread] = []
        self._started = False
        self._failing = False  # the last read failed (said once, until one succeeds)
        self.ending = False  # the process is shutting down: streams end

    # -- the streams' side (the event loop) -----------------------------------------------

    def loader(self, kind: str, load: Loader) -> None:
        """How to load the value handed to every stream of ``kind`` when its key changes."""
        self._loaders[kind] = load

    def start(self) -> None:
        """Begin following the ledger (once; blocking: run it off the event loop). Every
        event stored after this returns wakes the streams it concerns."""
        with self._lock:
            if self._started:
                return
            self._head = self.ledger.recorder.max_notification_id() or 0
            if self._make_outbox is not None:
                self._outbox = self._make_outbox()
            self._started = True
            self._spawn(self._run, "changefeed")
            if self._listen_db is not None:
                self._spawn(self._listen, "changefeed-listen")

    def subscribe(self, key: Key, interval: float | None = None) -> Subscription:
        """A stream's subscription (call from its event loop, after ``start``)."""
        sub = Subscription(key, asyncio.get_running_loop(), interval)
        with self._lock:
            self._topics.setdefault(key, set()).add(sub)
            if interval:
                self._intervals[interval] += 1
        STREAMS_OPEN.inc()
        if interval and interval < self.check_seconds:
            self._wake.set()  # the thread's next wait is shorter
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            subs = self._topics.get(sub.key)
            if subs is not None and sub in subs:
                STREAMS_OPEN.dec()
                subs.discard(sub)
                if not subs:
                    del self._topics[sub.key]
                if sub.interval:
                    self._intervals[sub.interval] -= 1
                    if not self._intervals[sub.interval]:
                        del self._intervals[sub.interval]

    def open_streams(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._topics.values())

    # -- the sources of change ----------------------------------------------------------------

    def committed(self, recordings: Any = None) -> None:
        """The ledger stored events (called in the saving thread; never raises)."""
        if self._started:
            self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout=10)

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _period(self) -> float | None:
        with self._lock:
            if not self._topics:
                return None  # nobody to tell: wait for a save or a notification
            return min([self.check_seconds, *self._intervals])

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._period())
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self._step()
            except Exception as exc:  # the database is away: the next wake or check retries
                if not self._failing:
                    log.warning("live updates cannot read the ledger (%s); trying again", exc)
                self._failing = True
                self._stop.wait(self.check_seconds)
                continue
            if self._failing:
                log.warning("live updates read the ledger again")
                self._failing = False

    def _listen(self) -> None:
        """LISTEN to the event store's commits; on a break, reconnect and catch up."""
        assert self._listen_db is not None
        channel = getattr(self.ledger.recorder, "channel_name", None)
        if not channel:
            return
        pause = RECONNECT_FIRST
        broken = False
        while not self._stop.is_set():
            try:
                with listen_connection(self._listen_db) as conn:
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
                    self.listening = True
                    pause = RECONNECT_FIRST
                    if broken:
                        self.reconnects += 1
                        log.warning("live updates listen to the database again; reading what was missed")
                    self._wake.set()  # whatever was committed while nobody listened
                    while not self._stop.is_set():
                        for _ in conn.notifies(timeout=LISTEN_TIMEOUT, stop_after=1):
                            self._wake.set()
            except psycopg.Error as exc:
                if self.listening or not broken:
                    log.warning("live updates lost their database connection (%s); reconnecting", exc)
            self.listening = False
            broken = True
            self._stop.wait(pause)
            pause = min(pause * 2, RECONNECT_MAX)

    # -- reading what is new and fanning it out ----------------------------------------------

    def _step(self) -> None:
        with self._lock:
            watched_games = {k[1] for k in self._topics if k[0] == "game"}
            watched_players = {k[1] for k in self._topics if k[0] == "player"}
        recorder = self.ledger.recorder
        if not watched_games and not watched_players:
            self._head = max(self._head, recorder.max_notification_id() or 0)
            return
        changed: set[str] = set()
        talks = {str(conversation_id(gid)): gid for gid in watched_games}  # a game's table talk
        talked: set[str] = set()
        while True:
            batch = recorder.select_notifications(
                start=self._head, limit=READ_BATCH, inclusive_of_start=False
            )
            changed.update(str(n.originator_id) for n in batch)
            talked.update(talks[str(n.originator_id)] for n in batch if str(n.originator_id) in talks)
            if batch:
                self._head = batch[-1].id
            if len(batch) < READ_BATCH:
                break
        games, self._retry = (changed | talked | self._retry) & watched_games, set()
        load = self._loaders.get("game")
        for gid in games:
            try:
                value = load(gid) if load is not None else None
            except Exception as exc:
                log.warning("live updates could not load game %s: %s", gid, exc)
                self._retry.add(gid)
                continue
            self._deliver(("game", gid), value, talk=gid in talked)
        if watched_players and self._outbox is not None and (changed or self._outbox_dirty):
            self._outbox_dirty = True
            players = self._outbox.new_players()
            self._outbox_dirty = False
            for pid in players & watched_players:
                self._deliver(("player", pid), None)

    def _deliver(self, key: Key, value: Any, talk: bool = False) -> None:
        with self._lock:
            subs = list(self._topics.get(key, ()))
        _wake_all(subs, value, talk)

    def end_streams(self) -> None:
        """The process is shutting down: every stream ends now, so that the server need not
        wait for them (each client reconnects, to another process, with its Last-Event-ID)."""
        self.ending = True
        with self._lock:
            subs = [sub for group in self._topics.values() for sub in group]
        _wake_all(subs, None)


def _wake_all(subs: list[Subscription], value: Any, talk: bool = False) -> None:
    """Wake ``subs`` on their own event loops (one call per loop, from any thread)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[Subscription]] = {}
    for sub in subs:
        by_loop.setdefault(sub.loop, []).append(sub)
    for loop, group in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop has closed
            loop.call_soon_threadsafe(_wake, group, value, talk)


def end_streams_on_exit(services: Services) -> Callable[[], None]:
    """Make SIGTERM and SIGINT end the process's streams before the server's own handling of
    them (a graceful shutdown waits for open responses: without this, for every stream, up
    to its timeout). Only in the main thread, over a handler already there (the server's);
    returns what puts that handler back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    ours: dict[int, Any] = {}
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if not callable(previous):
            continue

        def handler(signum: int, frame: Any, previous: Any = previous) -> None:
            if services.changes is not None:
                services.changes.end_streams()
            previous(signum, frame)

        signal.signal(sig, handler)
        ours[sig] = (handler, previous)

    def restore() -> None:
        for sig, (handler, previous) in ours.items():
            if signal.getsignal(sig) is handler:
                signal.signal(sig, previous)

    return restore


def listen_connection(db: Database) -> psycopg.Connection[Any]:
    """The connection that LISTENs (named, so that an operator can tell it in pg_stat_activity)."""
    return psycopg.connect(
        db.conninfo(),
        autocommit=True,
        connect_timeout=5,
        keepalives=1,  # a server that vanished without a word is noticed within a minute or so
        keepalives_idle=30,
        keepalives_interval=10,
        keepalives_count=3,
        application_name=f"gameledger live updates {db.schema}"[:63],
    )


def feed_of(services: Services) -> ChangeFeed:
    """The process's change feed, made at the first stream (and closed with the services)."""
    feed: ChangeFeed | None = services.changes
    if feed is None:
        with _MAKING:
            feed = services.changes
            if feed is None:
                db = services.db
                feed = ChangeFeed(
                    services.ledger,
                    listen=db if db.kind == "postgres" else None,
                    check_seconds=CHECK_SECONDS["postgres" if db.kind == "postgres" else "sqlite"],
                    outbox=lambda: OutboxCursor(services),
                )
                services.ledger.on_saved.append(feed.committed)
                services.changes = feed
    return feed


_MAKING = threading.Lock()

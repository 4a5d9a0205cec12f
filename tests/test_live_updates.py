"""Live updates pushed, not polled (issue 22): one change feed per server process wakes the
streams a change is for (api/changefeed.py, api/routers/streams.py).

Streams are held open as a browser tab would hold them: in process on the application's own
event loop (tests/sse.py ``LiveStream``), or against real server processes
(tests/loadkit.py, ``SseReader``). Where a test must show that a change was pushed rather than
found by a periodic check, the feed's check is switched off (an hour between checks), so that
only the save's own signal or PostgreSQL's NOTIFY can have woken the stream.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from api import changefeed
from api.changefeed import ChangeFeed, feed_of
from api.routers import streams
from api.services import Services, initialise
from api.settings import Settings
from ledger.storage import parse_database_url
from tests import loadkit as lk
from tests.api_helpers import API, Table
from tests.sse import Event, LiveStream, SseReader

NO_CHECK = 3600.0  # the feed's periodic check, off for the length of a test


def sample(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


def versions(events: list[Event]) -> list[int]:
    return [int(e.data["version"]) for e in events if e.event == "game"]


def reached(version: int) -> Any:
    return lambda events: bool(versions(events)) and versions(events)[-1] >= version


def push_only(services: Services) -> ChangeFeed:
    feed = feed_of(services)
    feed.check_seconds = NO_CHECK
    return feed


def spectator(client: TestClient) -> str:
    return str(client.post(f"{API}/players", json={"name": "Onlooker"}).json()["token"])


@pytest.fixture
def streams_open() -> Iterator[list[LiveStream]]:
    opened: list[LiveStream] = []
    yield opened
    for s in opened:
        if s.stall_after is not None and s.release is not None and not s.done:
            s.client.portal.call(s.release.set)
        s.stop()


# -- in process -------------------------------------------------------------------------------


def test_a_decision_is_pushed_to_every_stream_of_its_game_and_to_no_other(
    client: TestClient, services: Services, streams_open: list[LiveStream]
) -> None:
    feed = push_only(services)
    table, other = Table(client, n=3), Table(client, n=2)
    watcher = spectator(client)
    open_before = sample("gameledger_streams_open")
    here = [
        LiveStream(client, f"{API}/games/{table.game_id}/stream", token, {"max_seconds": 120})
        for token in (watcher, table.players[0]["token"], table.players[2]["token"])
    ]
    old_client = LiveStream(  # an old client's interval is still accepted
        client, f"{API}/games/{table.game_id}/stream", watcher, {"max_seconds": 120, "interval": 1}
    )
    there = LiveStream(client, f"{API}/games/{other.game_id}/stream", watcher, {"max_seconds": 120})
    streams_open += [*here, old_client, there]
    start = table.game()["version"]
    for s in [*here, old_client, there]:
        s.wait_for(lambda evs: len(versions(evs)) == 1)
    assert feed.open_streams() == 5 and sample("gameledger_streams_open") == open_before + 5
    rnd = random.Random(5)
    last = start
    for _ in range(4):
        answer = table.step(rnd)
        assert answer is not None
        last = answer["version"]
        for s in [*here, old_client]:
            s.wait_for(reached(last))
    for s in [*here, old_client]:
        seen = versions(s.events)
        assert seen[0] == start and seen[-1] == last and seen == sorted(set(seen)), seen
        assert {e.id for e in s.events} == {str(v) for v in seen}, "each event's id is its version"
        game = s.events[-1].data
        assert set(game) == {"game_id", "version", "status", "awaiting", "prompt"}
        assert game["awaiting"] == [a["seat"] for a in table.game()["awaiting"]]
    assert versions(there.events) == [other.game()["version"]], "another game's stream was not woken"
    for s in [*here, old_client, there]:
        s.stop()
    assert feed.open_streams() == 0, "a closed stream leaves the feed"
    assert sample("gameledger_streams_open") == open_before


@pytest.mark.parametrize("read_batch", [changefeed.READ_BATCH, 2])
def test_a_players_notifications_are_pushed_to_their_own_stream_as_their_settings_want(
    client: TestClient,
    services: Services,
    streams_open: list[LiveStream],
    monkeypatch: pytest.MonkeyPatch,
    read_batch: int,
) -> None:
    """(Also with the feed and the streams reading two at a time, so that a decision's
    events, one event's rows for several players and a stream's backlog span pages.)"""
    monkeypatch.setattr(changefeed, "READ_BATCH", read_batch)
    monkeypatch.setattr(streams, "PAGE", min(read_batch, streams.PAGE))
    push_only(services)
    table = Table(client, n=3)
    quiet = client.put(
        f"{API}/me/notifications/settings", json={"kinds": ["game_finished"]}, headers=table.auth(1)
    )
    assert quiet.status_code == 200
    mine = [
        LiveStream(client, f"{API}/me/stream", table.players[seat]["token"], {"max_seconds": 120})
        for seat in (0, 1)
    ]
    streams_open += mine
    view = services.view("notifications")
    services.refresh("notifications")
    start = view.latest_position(table.players[0]["player_id"])
    time.sleep(0.2)  # the streams start from the newest notification: nothing old is sent
    rnd = random.Random(11)
    for _ in range(12):
        assert table.step(rnd) is not None
    services.refresh("notifications")
    expected = view.outbox(table.players[0]["player_id"], after=start, limit=1000)
    assert sum(n["kind"] == "your_turn" for n in expected) >= 2
    got = mine[0].wait_for(lambda evs: len(evs) >= len(expected))
    time.sleep(0.3)
    assert [e.data["id"] for e in mine[0].events] == [n["id"] for n in expected], "each once, in order"
    assert all(e.event == "notification" and e.id == e.data["id"].split(":")[0] for e in got)
    assert mine[1].events == [], "the other player wants no 'your turn' and gets none"
    backlog = view.outbox(table.players[0]["player_id"], limit=1000)
    again = LiveStream(
        client, f"{API}/me/stream", table.players[0]["token"], {"max_seconds": 120, "after": 0}
    )
    streams_open.append(again)
    again.wait_for(lambda evs: len(evs) >= len(backlog))
    assert [e.data["id"] for e in again.events] == [n["id"] for n in backlog], "the whole backlog, once"


def test_idle_streams_read_nothing_from_the_store_and_keep_the_connection_alive(
    client: TestClient, services: Services, streams_open: list[LiveStream], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "HEARTBEAT", 0.3)
    table = Table(client, n=2)
    token = spectator(client)
    opened = [
        LiveStream(
            client, f"{API}/games/{table.game_id}/stream", token, {"max_seconds": 120, "interval": 0.1}
        )
        for _ in range(20)
    ]
    streams_open += opened
    for s in opened:
        s.wait_for(lambda evs: len(evs) == 1)
    reads: list[Any] = []
    real = streams.game_summary
    monkeypatch.setattr(streams, "game_summary", lambda *a: reads.append(a) or real(*a))
    for s in opened:  # heartbeats while idle: two on every stream, however long the machine takes
        s.wait_for_text(lambda text: text.count(": keep-alive") >= 2, timeout=60)
    assert reads == [], f"idle streams read the game {len(reads)} times (each used to poll it)"
    assert all(len(s.events) == 1 for s in opened)
    table.step(random.Random(2))
    for s in opened:
        s.wait_for(lambda evs: len(evs) == 2)
    assert len(reads) == 1, "the change is read once for all the game's streams"


def test_a_stalled_client_delays_no_other_stream_and_is_dropped(
    client: TestClient,
    services: Services,
    streams_open: list[LiveStream],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    feed = push_only(services)
    table = Table(client, n=3)
    token = spectator(client)
    path = f"{API}/games/{table.game_id}/stream"
    monkeypatch.setattr(streams, "SEND_TIMEOUT", 600.0)
    stalled = LiveStream(client, path, token, {"max_seconds": 120}, stall_after=1)
    others = [LiveStream(client, path, token, {"max_seconds": 120}) for _ in range(3)]
    streams_open += [stalled, *others]
    for s in others:
        s.wait_for(lambda evs: len(evs) == 1)
    rnd = random.Random(3)
    for _ in range(3):
        answer = table.step(rnd)
        assert answer is not None
        for s in others:
            s.wait_for(reached(answer["version"]))
    # every decision reached the others while the stalled client's first event still waits
    assert not stalled.done and stalled.events == [] and stalled.chunks == 1
    assert feed.open_streams() == 4

    monkeypatch.setattr(streams, "SEND_TIMEOUT", 0.3)
    dropped_before = sample("gameledger_streams_dropped_total")
    with caplog.at_level(logging.WARNING):
        dropped = LiveStream(client, path, token, {"max_seconds": 120}, stall_after=1)
        dropped.future.result(timeout=30)  # ended by the server, not by the client
    assert not dropped.completed and dropped.events == []
    said = [r.getMessage() for r in caplog.records]
    assert any("dropped a stream" in m for m in said), said
    assert not any("without completing response" in m for m in said), "a drop on purpose is no server error"
    assert feed.open_streams() == 4, "the dropped stream left the feed"
    assert sample("gameledger_streams_dropped_total") == dropped_before + 1
    answer = table.step(rnd)
    assert answer is not None
    for s in others:
        s.wait_for(reached(answer["version"]))


def test_a_game_stream_resumed_on_the_version_it_saw_sends_only_what_is_new(
    client: TestClient, streams_open: list[LiveStream]
) -> None:
    table = Table(client, n=2)
    token = spectator(client)
    path = f"{API}/games/{table.game_id}/stream"
    now = table.game()["version"]
    same = LiveStream(client, path, token, {"max_seconds": 120}, headers={"Last-Event-ID": str(now)})
    older = LiveStream(client, path, token, {"max_seconds": 120}, headers={"Last-Event-ID": str(now - 1)})
    junk = LiveStream(client, path, token, {"max_seconds": 120}, headers={"Last-Event-ID": "²"})
    streams_open += [same, older, junk]
    older.wait_for(lambda evs: versions(evs) == [now])
    junk.wait_for(lambda evs: versions(evs) == [now])
    answer = table.step(random.Random(4))
    assert answer is not None
    for s in (same, older, junk):
        s.wait_for(reached(answer["version"]))
    assert versions(same.events) == [answer["version"]], "the version the client had is not sent again"


# -- across processes ----------------------------------------------------------------------------


def _two_processes(url: str) -> tuple[Services, Services]:
    """Two services on one database, standing for two processes (each its own ledger and feed)."""
    settings = Settings(database_url=url, admin_token="test-admin-token-0123456789")
    initialise(settings)
    quiet = settings.model_copy(update={"init_db": False})
    return Services.start(quiet), Services.start(quiet)


def _decider(app: Any, rnd: random.Random) -> tuple[Any, Any]:
    """A started two-player game of ``app``'s and a function that makes its next decision."""
    ids = [str(app.register_player(f"P{i}")[0]) for i in range(2)]
    game = app.create_game(creator=ids[0], title="cotton-trade", players=ids)

    def decide() -> int:
        g = app.get_game(game.id)
        seat = g.awaiting[0]
        decision = rnd.choice(g.engine.legal_decisions(g.state, seat)).model_dump(mode="json")
        return int(app.decide(g.id, ids[seat], g.version, decision).version)

    return game, decide


def test_on_sqlite_another_processs_decision_is_found_by_one_light_check_bounded_by_interval(
    tmp_path: Path,
) -> None:
    """Nothing tells a SQLite process of another's writes: the feed's one periodic check finds
    them. With the check off, a stream waits; a stream that asks for ``interval`` brings the
    check down to it, and the change found wakes every stream of the game."""
    a, b = _two_processes(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    try:
        game, decide = _decider(b.ledger, random.Random(4))
        feed = push_only(a)
        feed.loader("game", lambda gid: streams.game_summary(a.ledger, gid))
        feed.start()

        async def follow() -> None:
            plain = feed.subscribe(("game", str(game.id)))
            try:
                version = await asyncio.to_thread(decide)
                assert not await plain.wait(0.8), "nothing can have told this process yet"
                bounded = feed.subscribe(("game", str(game.id)), interval=0.2)
                try:
                    assert await bounded.wait(20) and await plain.wait(20)
                    assert plain.value["version"] == bounded.value["version"] == version
                finally:
                    feed.unsubscribe(bounded)
            finally:
                feed.unsubscribe(plain)

        asyncio.run(follow())
    finally:
        a.close()
        b.close()


def _listening(feed: ChangeFeed, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not feed.listening:
        assert time.monotonic() < deadline, "the feed did not LISTEN"
        time.sleep(0.02)


@pytest.mark.postgres
def test_another_processs_commit_wakes_the_feed_through_postgres_notify_and_a_broken_listen_catches_up(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two services on one schema stand for two server processes: the feed of one is woken by
    the other's decisions with its periodic check off, so only NOTIFY can have told it. Then
    its LISTEN connection is killed and held off while a decision is made: once it connects
    again it reads what it missed."""
    held = threading.Event()
    real_connect = changefeed.listen_connection

    def connect(db: Any) -> psycopg.Connection[Any]:
        if held.is_set():
            raise psycopg.OperationalError("held off by the test")
        return real_connect(db)

    monkeypatch.setattr(changefeed, "listen_connection", connect)
    monkeypatch.setattr(changefeed, "RECONNECT_FIRST", 0.05)
    a, b = _two_processes(pg_url)
    try:
        game, decide = _decider(b.ledger, random.Random(9))
        feed = push_only(a)
        feed.loader("game", lambda gid: streams.game_summary(a.ledger, gid))
        feed.start()
        _listening(feed)

        async def follow() -> None:
            sub = feed.subscribe(("game", str(game.id)))
            try:
                version = await asyncio.to_thread(decide)
                assert await sub.wait(20), "B's decision did not wake A's stream"
                assert sub.value["version"] == version

                held.set()
                db = parse_database_url(pg_url)
                with psycopg.connect(db.conninfo(), autocommit=True) as conn:
                    conn.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
                        (f"gameledger live updates {db.schema}"[:63],),
                    )
                while feed.listening:
                    await asyncio.sleep(0.02)
                version = await asyncio.to_thread(decide)  # while nobody listens
                assert not await sub.wait(0.5), "nothing can have told the feed yet"
                held.clear()
                assert await sub.wait(20), "the feed did not catch up after listening again"
                assert sub.value["version"] == version and feed.reconnects >= 1
            finally:
                feed.unsubscribe(sub)

        asyncio.run(follow())
    finally:
        a.close()
        b.close()


def _server(url: str, data: Path, port: int | None = None) -> lk.Server:
    server = lk.Server(lk.server_env(url, data), data / "server.log", port=port)
    server.start()
    return server


def _play(api: lk.Api, game_id: str, tokens: list[str], rnd: random.Random) -> int:
    """One random legal decision by the awaited seat, over HTTP; the new version."""
    view = lk.must(api.call("GET", f"/games/{game_id}", tokens[0]))
    seat = view["awaiting"][0]["seat"]
    mine = lk.must(api.call("GET", f"/games/{game_id}", tokens[seat]))
    body = {"expected_version": mine["version"], "decision": rnd.choice(mine["legal_decisions"])}
    return int(lk.must(api.call("POST", f"/games/{game_id}/decisions", tokens[seat], body))["version"])


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
@pytest.mark.postgres
def test_a_decision_made_through_one_server_process_reaches_a_stream_held_by_another(
    pg_url: str, tmp_path: Path
) -> None:
    watched, deciding = _server(pg_url, tmp_path), _server(pg_url, tmp_path)
    try:
        api = lk.Api(deciding.url)
        (table,) = lk.open_tables(api, 1, seats=2)
        reader = SseReader(
            watched.url, f"{API}/games/{table.game_id}/stream?max_seconds=120", table.tokens[1]
        )
        try:
            first = reader.wait_for(lambda evs: len(evs) == 1)
            rnd = random.Random(1)
            for _ in range(3):
                version = _play(api, table.game_id, table.tokens, rnd)
                reader.wait_for(reached(version))
            assert versions(reader.events)[0] == versions(first)[0]
        finally:
            reader.close()
    finally:
        watched.stop()
        deciding.stop()


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
def test_a_stream_resumed_with_last_event_id_after_a_server_restart_misses_nothing(
    database_url: str, tmp_path: Path
) -> None:
    """A player's notification stream and a game's stream are open on a server process; the
    server is stopped, decisions are made while it is away (through another process on the
    same database), it starts again, and the browser reconnects with the last id it saw."""
    server = _server(database_url, tmp_path)
    port = server.port
    api = lk.Api(server.url)
    (table,) = lk.open_tables(api, 1, seats=2)
    me = f"{API}/me/stream?max_seconds=600"
    game = f"{API}/games/{table.game_id}/stream?max_seconds=600"
    rnd = random.Random(21)
    try:
        mine, watching = (
            SseReader(server.url, me, table.tokens[0]),
            SseReader(server.url, game, table.tokens[1]),
        )
        watching.wait_for(lambda evs: len(evs) == 1)
        time.sleep(0.3)
        while len(mine.events) < 2:
            version = _play(api, table.game_id, table.tokens, rnd)
            watching.wait_for(reached(version))
        time.sleep(0.3)
        seen, last_version = mine.events, versions(watching.events)[-1]
    finally:
        api.close()
        stopping = time.monotonic()
        server.stop()  # SIGTERM; after 20 s, SIGKILL
    # the open streams end at once instead of holding the graceful shutdown up to its timeout
    assert time.monotonic() - stopping < 15, "the streams held the server's shutdown up"
    assert mine.ended.wait(20) and watching.ended.wait(20)
    mine.close()
    watching.close()

    other = Services.start(Settings(database_url=database_url, data_dir=tmp_path, init_db=False))
    try:  # another process plays on while the server is away
        app = other.ledger
        player = table.players[0]
        g = app.get_game(table.game_id)
        last_id = str(seen[-1].id)
        made, missed = 0, []
        # at least 6 decisions, and on until the player has been told something (how many
        # decisions that takes depends on where the random game stood when the server stopped)
        while (made < 6 or not missed) and made < 200 and g.status == "active":
            seat = g.awaiting[0]
            decision = rnd.choice(g.engine.legal_decisions(g.state, seat)).model_dump(mode="json")
            app.decide(g.id, table.players[seat], g.version, decision)
            g = app.get_game(g.id)
            made += 1
            other.refresh("notifications")
            missed = other.view("notifications").outbox(player, after=int(last_id), limit=1000)
        current = g.version
    finally:
        other.close()
    assert missed, "the player was told something while the server was away"

    server = _server(database_url, tmp_path, port=port)
    try:
        mine = SseReader(server.url, me, table.tokens[0], headers={"Last-Event-ID": last_id})
        watching = SseReader(server.url, game, table.tokens[1], headers={"Last-Event-ID": str(last_version)})
        try:
            got = mine.wait_for(lambda evs: len(evs) >= len(missed))
            time.sleep(0.3)
            assert [e.data["id"] for e in mine.events] == [n["id"] for n in missed], "each missed one, once"
            assert {e.data["id"] for e in got} & {e.data["id"] for e in seen} == set()
            assert versions(watching.wait_for(lambda evs: len(evs) >= 1)) == [current]
        finally:
            mine.close()
            watching.close()
    finally:
        server.stop()


@pytest.mark.slow
@pytest.mark.skipif(
    lk.private_postgres_problem() is not None, reason="no private PostgreSQL can be made here"
)
def test_streams_held_open_through_postgres_restarts_and_crashes_keep_receiving(tmp_path: Path) -> None:
    """PostgreSQL is stopped cleanly and then crashed while a stream is open on one server
    process; each time it is back, decisions made through another process reach the same
    open stream (its LISTEN connection came back and read what it missed)."""
    with lk.private_postgres() as pg:
        url = pg.url(schema="live")
        watched, deciding = _server(url, tmp_path), _server(url, tmp_path)
        try:
            api = lk.Api(deciding.url, timeout=10)
            (table,) = lk.open_tables(api, 1, seats=2)
            reader = SseReader(
                watched.url, f"{API}/games/{table.game_id}/stream?max_seconds=600", table.tokens[1]
            )
            try:
                reader.wait_for(lambda evs: len(evs) == 1)
                rnd = random.Random(8)
                reader.wait_for(reached(_play(api, table.game_id, table.tokens, rnd)))
                for mode in ("fast", "immediate"):
                    pg.stop(mode)
                    time.sleep(1)
                    pg.start()
                    deadline = time.monotonic() + 60
                    while True:  # the deciding process answers 503 until its pool is back
                        try:
                            version = _play(api, table.game_id, table.tokens, rnd)
                            break
                        except AssertionError:
                            assert time.monotonic() < deadline, "the deciding server did not recover"
                            time.sleep(0.5)
                    reader.wait_for(reached(version), timeout=60)
                    assert not reader.ended.is_set(), "the stream stayed open"
            finally:
                reader.close()
        finally:
            watched.stop()
            deciding.stop()
    assert "live updates listen to the database again" in watched.log.read_text()

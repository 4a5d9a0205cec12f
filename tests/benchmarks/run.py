"""The performance suite: the service measured against this machine's floor, in one run.

    python -m tests.benchmarks.run [--quick] [--database-url postgresql://...] [--only NAME ...]

Prints one table (and writes it as Markdown with ``--markdown FILE``). Every figure is
a median (latencies also p99) of repeated measurements taken in this run, so that the
floor and the service are measured on the same machine in the same minutes:

- floor: a raw psycopg single-row INSERT + COMMIT and a raw SELECT of 500 rows on the
  same PostgreSQL; the same INSERT on a SQLite file; the eventsourcing library's own
  single-event save and aggregate load (a trivial aggregate, no rules);
- decision latency over HTTP on a 500-event Water Frame game (a real ``gameledger serve``
  process, a keep-alive client), PostgreSQL and SQLite;
- throughput: many concurrent games, two server processes on PostgreSQL, against the
  library's own save rate with the same number of threads;
- load time of a game by length (100, 1,000, 10,000 events) through the API, cold (first
  read by a fresh server process) and warm, and in process from the snapshot;
- rules engines in memory (decisions/s, replay µs/event), projection catch-up events/s,
  server RSS with 1,000 active games loaded;
- live updates (``bench_streams``): a decision's event at every one of 200 watchers, on
  SQLite and across two server processes on PostgreSQL, and what 2,000 idle streams cost;
- the game table: the game page and the preview on the server at 10, 300 and 1,000 events,
  the page's weight, click-to-preview in Chromium (``bench_table``);
- the strong bot's decision times (median, p95) in whole games against the greedy bots;
- seating a Swiss round of 200 and 1,000 players (``bench_seasons``), round by round of a season;
- notification mails (``bench_notify``): 1,000 queued mails into a local SMTP server, and a
  decision's time with notifications mailed meanwhile and without;
- league statistics (``bench_leagues``): the league, title and player pages and their API answers
  over 10,000 finished games, and the league statistics' catch-up events/s.

Nothing here asserts a time: the goals are printed beside the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from api.services import Services
from api.settings import Settings
from ledger.storage import parse_database_url
from tests import loadkit as lk

API = "/api/v1"
EXTRA_ENV: dict[str, str] = dict(
    e.split("=", 1) for e in os.environ.get("BENCH_SERVER_ENV", "").split() if "=" in e
)
PG_DEFAULT = os.environ.get("GAMELEDGER_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


# -- figures --------------------------------------------------------------------------


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def p99(xs: list[float]) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.99 * (len(s) - 1))))]


@dataclass
class Row:
    section: str
    what: str
    figure: str
    goal: str = ""
    verdict: str = ""


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    values: dict[str, float] = field(default_factory=dict)

    def add(self, section: str, what: str, figure: str, goal: str = "", verdict: str = "") -> None:
        self.rows.append(Row(section, what, figure, goal, verdict))
        print(f"  {what}: {figure}" + (f"   [goal {goal}: {verdict}]" if goal else ""), flush=True)

    def table(self) -> str:
        lines = ["| section | what | figure | goal | met? |", "|---|---|---|---|---|"]
        lines += [f"| {r.section} | {r.what} | {r.figure} | {r.goal} | {r.verdict} |" for r in self.rows]
        return "\n".join(lines)


def ms(x: float) -> str:
    return f"{x * 1000:.2f} ms"


def verdict(ok: bool, ratio: float | None = None) -> str:
    word = "yes" if ok else "no"
    return f"{word} ({ratio:.1f}×)" if ratio is not None else word


# -- databases --------------------------------------------------------------------------


@contextlib.contextmanager
def pg_schema(base_url: str, prefix: str = "bench_", keep: bool = False) -> Iterator[str]:
    """A PostgreSQL schema of the benchmark's own, dropped afterwards unless ``keep``."""
    schema = prefix + uuid.uuid4().hex[:8]
    db = parse_database_url(base_url)
    with psycopg.connect(db.conninfo(), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield base_url + ("&" if "?" in base_url else "?") + f"schema={schema}"
    finally:
        if not keep:
            with psycopg.connect(db.conninfo(), autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@contextlib.contextmanager
def sqlite_url() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="gl-bench-") as d:
        yield f"sqlite:///{d}/ledger.sqlite3"


def timed(fn: Callable[[], object], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


class Counter(Aggregate):
    """The library's floor: an aggregate with no rules."""

    def __init__(self) -> None:
        self.n = 0

    @event("Counted")
    def count(self, blob: str) -> None:
        self.n += 1


# -- real server processes (the load tests' harness) and keep-alive clients ------------


def start_server(database_url: str, data_dir: str, workers: int = 1, **env: str) -> lk.Server:
    """``gameledger serve`` as the load tests run it, with the default pool size."""
    server = lk.Server(
        lk.server_env(database_url, Path(data_dir), GAMELEDGER_POOL_SIZE="5", **(env | EXTRA_ENV)),
        Path(data_dir) / f"server-{uuid.uuid4().hex[:8]}.log",
        workers=workers,
    )
    server.start()
    return server


def start_worker(database_url: str, data_dir: str) -> lk.ProjectionWorker:
    """``gameledger projections run``: the read models in a process of their own."""
    worker = lk.projection_worker(
        lk.server_env(database_url, Path(data_dir), GAMELEDGER_POOL_SIZE="5"), Path(data_dir) / "worker.log"
    )
    worker.start()
    return worker


def settle(server: lk.Server, timeout: float = 120) -> None:
    """Wait until the read models have caught up with the log (a fresh server catches up
    in the background, which would slow the first requests)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, health = lk.http_get(server.url, "/health")
        lags = (health if isinstance(health, dict) else {}).get("projections_lag") or {}
        if lags and all(v == 0 for v in lags.values()):
            return
        time.sleep(0.2)


def server_pids(server: lk.Server) -> list[int]:
    """The server process and its workers."""
    return sorted({server.pid, *server.worker_pids()})


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# -- games made in process (fast), played over HTTP -----------------------------------


@dataclass
class Made:
    game_id: str
    tokens: dict[int, str]
    ids: dict[int, str]


def make_game(services: Services, title: str, players: int, events: int, seed: int) -> Made:
    """A started game played with random legal decisions to at least ``events`` events
    (or its end): its id, each seat's token and player id."""
    app = services.ledger
    regs = [app.register_player(f"bench {seed}-{i}") for i in range(players)]
    ids = [str(pid) for pid, _ in regs]
    game = app.create_game(creator=ids[0], title=title, players=ids)
    made = Made(str(game.id), {s: tok for s, (_, tok) in enumerate(regs)}, dict(enumerate(ids)))
    play_to(services, made, events, random.Random(seed))
    return made


def play_to(services: Services, made: Made, events: int, rnd: random.Random) -> int:
    """Random legal decisions until the game has ``events`` events (or has ended)."""
    app = services.ledger
    game = app.get_game(made.game_id)
    while game.version < events and game.status == "active":
        seat = rnd.choice(game.awaiting)
        decision = rnd.choice(game.engine.legal_decisions(game.state, seat))
        app.decide(game.id, made.ids[seat], game.version, decision.model_dump(mode="json"))
        game = app.get_game(game.id)
    return game.version


def pad(services: Services, made: Made, events: int) -> int:
    """Lengthen a running game by undo requests refused (two events each, nothing kept in
    the state but the fact that none is open), to ``events`` events."""
    from ledger.errors import LedgerError

    app = services.ledger
    game = app.get_game(made.game_id)
    for seat, asker in made.ids.items():
        try:
            app.request_undo(made.game_id, asker, game.version)
        except LedgerError:
            continue
        other = next(p for s, p in made.ids.items() if s != seat)
        game = app.answer_undo(made.game_id, other, False)
        break
    else:
        raise RuntimeError("no seat could ask for an undo")
    while game.version < events:
        app.request_undo(made.game_id, asker, game.version)
        game = app.answer_undo(made.game_id, other, False)
    return game.version


def play_over_http(
    client: lk.Api, game_id: str, tokens: dict[int, str], decisions: int, rnd: random.Random
) -> list[float]:
    """Time ``decisions`` POSTs of random legal decisions (the GET that finds one is not timed)."""
    by_seat = dict(tokens)
    times: list[float] = []
    while len(times) < decisions:
        status, view = client.call("GET", f"/games/{game_id}", by_seat[0])
        if view["status"] != "active":
            break
        seat = rnd.choice([s["seat"] for s in view["awaiting"]])
        status, mine = client.call("GET", f"/games/{game_id}", by_seat[seat])
        body = {"expected_version": mine["version"], "decision": rnd.choice(mine["legal_decisions"])}
        t = time.perf_counter()
        status, _ = client.call("POST", f"/games/{game_id}/decisions", by_seat[seat], body)
        dt = time.perf_counter() - t
        if status == 200:
            times.append(dt)
        elif status != 409:
            raise RuntimeError(f"decision refused: {status} {_}")
    return times


# -- sections ----------------------------------------------------------------------------


def floor_section(report: Report, pg_url: str, quick: bool) -> None:
    print("floor", flush=True)
    n = 200 if quick else 500
    payload = os.urandom(1000)
    with pg_schema(pg_url) as url:
        db = parse_database_url(url)
        with psycopg.connect(db.conninfo(), autocommit=True) as conn:
            conn.execute(f'SET search_path TO "{db.schema}"')
            conn.execute("CREATE TABLE floor (id bigserial PRIMARY KEY, k uuid, payload bytea)")

            def insert() -> None:
                conn.execute("INSERT INTO floor (k, payload) VALUES (%s, %s)", (uuid.uuid4(), payload))

            ins = timed(insert, n)
            report.values["pg_insert"] = median(ins)
            report.add(
                "floor",
                "PostgreSQL: raw INSERT one 1 KB row + COMMIT",
                f"{ms(median(ins))} (p99 {ms(p99(ins))})",
            )

            def select() -> None:
                conn.execute("SELECT id, k, payload FROM floor ORDER BY id LIMIT 500").fetchall()

            sel = timed(select, 100)
            report.values["pg_select"] = median(sel)
            report.add("floor", "PostgreSQL: raw SELECT of 500 such rows", ms(median(sel)))
        report.values["lib_pg_save"], report.values["lib_pg_load"] = library_floor(
            report, url, "PostgreSQL", n
        )
    with tempfile.TemporaryDirectory() as d:
        sq = sqlite3.connect(f"{d}/floor.sqlite3", isolation_level=None)
        sq.execute("PRAGMA journal_mode=WAL")
        sq.execute("CREATE TABLE floor (id INTEGER PRIMARY KEY, k TEXT, payload BLOB)")

        def sq_insert() -> None:
            sq.execute("BEGIN")
            sq.execute("INSERT INTO floor (k, payload) VALUES (?, ?)", (str(uuid.uuid4()), payload))
            sq.execute("COMMIT")

        ins = timed(sq_insert, n)
        sq.close()
        report.values["sqlite_insert"] = median(ins)
        report.add(
            "floor",
            "SQLite (WAL): raw INSERT one 1 KB row + COMMIT",
            f"{ms(median(ins))} (p99 {ms(p99(ins))})",
        )
    with sqlite_url() as url:
        report.values["lib_sqlite_save"], report.values["lib_sqlite_load"] = library_floor(
            report, url, "SQLite", n
        )


def library_floor(report: Report, url: str, kind: str, n: int) -> tuple[float, float]:
    """The eventsourcing library's own cost: one event saved; a 10-event aggregate loaded."""
    db = parse_database_url(url)
    app: Application[Any] = Application(env=db.ledger_env(create_table=True))
    try:
        blob = "x" * 900
        agg = Counter()
        app.save(agg)

        def save() -> None:
            agg.count(blob)
            app.save(agg)

        saves = timed(save, n)
        ten = Counter()
        for _ in range(9):
            ten.count(blob)
        app.save(ten)
        loads = timed(lambda: app.repository.get(ten.id), 200)
        report.add(
            "floor", f"{kind}: library save of one event", f"{ms(median(saves))} (p99 {ms(p99(saves))})"
        )
        report.add("floor", f"{kind}: library load of a 10-event aggregate", ms(median(loads)))
        return median(saves), median(loads)
    finally:
        app.close()


def latency_section(report: Report, pg_url: str, quick: bool) -> None:
    print("decision latency over HTTP, Water Frame 4p from event 500", flush=True)
    decisions = 100 if quick else 300
    for kind, ctx in (("PostgreSQL", pg_schema(pg_url)), ("SQLite", sqlite_url())):
        with ctx as url, tempfile.TemporaryDirectory() as data:
            services = Services.start(Settings(database_url=url, data_dir=Path(data), projections="off"))
            try:
                games = []
                for seed in range(6):  # random play ends a 4-player game after about 400 events
                    games.append(made := make_game(services, "water-frame", 4, 250, seed))
                    pad(services, made, 500)
            finally:
                services.close()
            for mode, mine in (("worker", games[:3]), ("inline", games[3:])):
                times = http_decisions(url, data, mine, mode, decisions)
                floor = report.values["pg_insert" if kind == "PostgreSQL" else "sqlite_insert"]
                r50, r99 = median(times) / floor, p99(times) / floor
                where = "projections in a worker process" if mode == "worker" else "projections in the server"
                report.add(
                    "latency",
                    f"{kind}, {where}: POST decision p50 / p99 ({len(times)} decisions)",
                    f"{ms(median(times))} / {ms(p99(times))}",
                    "p50 ≤ 4×, p99 ≤ 10× the raw INSERT",
                    verdict(r50 <= 4 and r99 <= 10) + f" ({r50:.1f}× / {r99:.1f}×)",
                )


def http_decisions(url: str, data: str, games: list[Made], mode: str, decisions: int) -> list[float]:
    server = start_server(url, data, GAMELEDGER_PROJECTIONS="off" if mode == "worker" else "inline")
    worker = start_worker(url, data) if mode == "worker" else None
    try:
        if mode == "inline":
            settle(server)
        client = lk.Api(server.url)
        rnd = random.Random(7 if mode == "worker" else 8)
        times: list[float] = []
        for g in games:
            times += play_over_http(client, g.game_id, g.tokens, decisions // len(games), rnd)
        return times
    finally:
        server.stop()
        if worker:
            worker.stop()


def client_process(url: str, games: list[tuple[str, dict[int, str]]], seconds: float, seed: int) -> int:
    """One client process (its own interpreter, so the clients are not the bottleneck): plays
    its games with random legal decisions for ``seconds``; returns the decisions accepted."""
    c = lk.Api(url)
    rnd = random.Random(seed)
    stop = time.monotonic() + seconds
    done = 0
    guess = {gid: 0 for gid, _ in games}  # whose turn it probably is: one GET, not two
    while time.monotonic() < stop and games:
        gid, tokens = games[0]
        status, v = c.call("GET", f"/games/{gid}", tokens[guess[gid]])
        if v["status"] != "active":
            games.pop(0)
            continue
        if not v["legal_decisions"]:
            guess[gid] = v["awaiting"][0]["seat"]
            continue
        seat = guess[gid]
        body = {"expected_version": v["version"], "decision": rnd.choice(v["legal_decisions"])}
        status, _ = c.call("POST", f"/games/{gid}/decisions", tokens[seat], body)
        if status == 200:
            done += 1
        games.append(games.pop(0))  # round robin over this client's games
    return done


def throughput_section(report: Report, pg_url: str, quick: bool) -> None:
    import multiprocessing

    print("throughput, PostgreSQL", flush=True)
    clients, seconds = 6, (8 if quick else 20)
    with pg_schema(pg_url) as url, tempfile.TemporaryDirectory() as data:
        lib_rate = library_rate(url, clients, max(4, seconds // 2))
        services = Services.start(Settings(database_url=url, data_dir=Path(data), projections="off"))
        try:
            games = [make_game(services, "cotton-trade", 3, 0, 100 + i) for i in range(clients * 4)]
        finally:
            services.close()
        server = start_server(url, data, workers=2, GAMELEDGER_PROJECTIONS="off")
        worker = start_worker(url, data)
        try:
            jobs = [
                (server.url, [(g.game_id, g.tokens) for g in games[i::clients]], seconds, i)
                for i in range(clients)
            ]
            pids = [*server_pids(server), worker.pid]
            cpu0 = sum(cpu_seconds(p) for p in pids)
            t0 = time.monotonic()
            with multiprocessing.get_context("spawn").Pool(clients) as pool:
                counts = pool.starmap(client_process, jobs)
            rate = sum(counts) / (time.monotonic() - t0)
            cpu_per_decision = (sum(cpu_seconds(p) for p in pids) - cpu0) / max(1, sum(counts))
        finally:
            server.stop()
            worker.stop()
    ratio = rate / lib_rate
    report.add("throughput", f"library: single-event saves/s, {clients} threads", f"{lib_rate:,.0f}/s")
    report.add(
        "throughput",
        f"decisions/s: 2 server processes + projection worker, {clients} client processes "
        f"on {len(games)} games (a GET and a POST per decision)",
        f"{rate:,.0f}/s",
        "≥ 60% of the library's save rate",
        verdict(ratio >= 0.6) + f" ({ratio:.0%})",
    )
    report.add(
        "throughput",
        "server and worker CPU per decision (its GET and POST, its read models)",
        f"{cpu_per_decision * 1000:.1f} ms: at most {(os.cpu_count() or 1) / cpu_per_decision:,.0f} decisions/s "
        f"on {os.cpu_count()} cores",
    )


def library_rate(url: str, threads: int, seconds: float) -> float:
    db = parse_database_url(url, pool_size=threads)
    app: Application[Any] = Application(env=db.ledger_env(create_table=True))
    counts = [0] * threads
    stop = time.monotonic() + seconds

    def loop(i: int) -> None:
        agg = Counter()
        app.save(agg)
        while time.monotonic() < stop:
            agg.count("x" * 900)
            app.save(agg)
            counts[i] += 1

    try:
        t0 = time.monotonic()
        ts = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return sum(counts) / (time.monotonic() - t0)
    finally:
        app.close()


def load_section(report: Report, pg_url: str, quick: bool) -> None:
    print("load time by length", flush=True)
    lengths = [100, 1000] if quick else [100, 1000, 10000]
    for kind, ctx in (("PostgreSQL", pg_schema(pg_url)), ("SQLite", sqlite_url())):
        with ctx as url, tempfile.TemporaryDirectory() as data:
            services = Services.start(Settings(database_url=url, data_dir=Path(data), projections="off"))
            games: list[tuple[int, str, str]] = []
            try:
                warmup = make_game(services, "water-frame", 4, 20, 39)
                interval = services.ledger.game_snapshot_intervals["water-frame"]
                for length in lengths:
                    # real decisions, padding to the length, then real decisions again up to just
                    # before the next snapshot: the worst case, the longest tail replayed by the rules
                    made = make_game(services, "water-frame", 4, 30, 40 + length)
                    pad(services, made, length - 1)
                    version = play_to(services, made, length + interval - 8, random.Random(length))
                    games.append((version, made.game_id, made.tokens[0]))
                app = services.ledger
                for version, gid, _ in games:
                    cache, app.repository.cache = app.repository.cache, None  # read from the store
                    try:
                        t = timed(lambda gid=gid, app=app: app.get_game(gid), 30)
                    finally:
                        app.repository.cache = cache
                    report.add(
                        "load",
                        f"{kind}: {version} events, in process: snapshot + {version % interval} events replayed",
                        ms(median(t)),
                        "< 5 ms, flat",
                        verdict(median(t) < 0.005),
                    )
            finally:
                services.close()
            server = start_server(url, data)
            try:
                settle(server)
                client = lk.Api(server.url)
                client.call(
                    "GET", f"/games/{warmup.game_id}", warmup.tokens[0]
                )  # the process's first request
                for version, gid, token in games:
                    t = time.perf_counter()
                    client.call("GET", f"/games/{gid}", token)
                    first = time.perf_counter() - t
                    warm = timed(
                        lambda gid=gid, token=token, client=client: client.call(
                            "GET", f"/games/{gid}", token
                        ),
                        30,
                    )
                    report.add(
                        "load",
                        f"{kind}: {version} events, GET /games/{{id}} first read / then (p50)",
                        f"{ms(first)} / {ms(median(warm))}",
                        "< 5 ms, flat",
                        verdict(first < 0.005 and median(warm) < 0.005),
                    )
            finally:
                server.stop()


def engines_section(report: Report, quick: bool) -> None:
    print("rules engines in memory", flush=True)
    from ledger import registry
    from tests.benchmarks.bench_engines import play, replay

    for title, meta in registry.TITLES.items():
        n = meta.max_players
        per_decision, per_event, events = [], [], []
        for seed in range(2 if quick else 4):
            dt, moves, final = play(title, n, seed)
            rt, again = replay(title, n, moves)
            assert again == final, "replay reproduces the game"
            per_decision.append(len(moves) / dt)
            per_event.append(rt / len(moves))
            events.append(len(moves))
        report.add(
            "engines",
            f"{title} {n}p: random game ({median(events):.0f} events): decisions/s; replay µs/event",
            f"{median(per_decision):,.0f}/s; {median(per_event) * 1e6:.0f} µs",
            "replay < 30 µs/event",
            verdict(median(per_event) < 30e-6),
        )


def bots_section(report: Report, quick: bool) -> None:
    print("strong bot decision times", flush=True)
    from ledger import registry
    from ledger.bots.arena import percentile
    from tests.benchmarks.bench_bots import measure

    for title in registry.TITLES:
        wall, cpu, _ = measure(title, 1 if quick else 4)
        mid, tail = median(wall), percentile(wall, 0.95)
        report.add(
            "bots",
            f"{title} 4p: strong bot vs 3 greedy, {len(wall)} decisions: median; p95 (CPU time)",
            f"{mid * 1000:.1f} ms; {tail * 1000:.0f} ms ({median(cpu) * 1000:.1f}; {percentile(cpu, 0.95) * 1000:.0f})",
            "median ≤ 50 ms, p95 ≤ 500 ms",
            verdict(mid <= 0.050 and tail <= 0.500),
        )


def seasons_section(report: Report, quick: bool) -> None:
    """Seating a Swiss round of 200 (and 1,000) players: the pure procedure (bench_seasons)."""
    print("season seating", flush=True)
    from tests.benchmarks.bench_seasons import figures

    for what, figure, goal, met in figures(quick):
        report.add("seasons", what, figure, goal, verdict(met) if goal else "")


def projections_section(report: Report, pg_url: str, quick: bool) -> None:
    print("projection catch-up, PostgreSQL", flush=True)
    from api.services import PROJECTIONS
    from tests.benchmarks.bench_projections import fill

    events = 10_000 if quick else 30_000
    with pg_schema(pg_url) as url, tempfile.TemporaryDirectory() as data:
        services = Services.start(Settings(database_url=url, data_dir=Path(data)))
        try:
            head = fill(services, events)
            for name in PROJECTIONS:
                catchup = services.catchups[name]
                view = catchup.projection.view
                rates = []
                for _ in range(2):
                    with view.datastore.transaction(commit=True) as c:
                        view.clear(c, services.ledger.name)
                    t = time.perf_counter()
                    catchup.run()
                    rates.append(head / (time.perf_counter() - t))
                report.add(
                    "projections",
                    f"{name}: catch-up of {head:,} events",
                    f"{median(rates):,.0f} events/s",
                    "≥ 20,000/s",
                    verdict(median(rates) >= 20_000),
                )
        finally:
            services.close()


def memory_section(report: Report, pg_url: str, quick: bool) -> None:
    print("memory", flush=True)
    n = 200 if quick else 1000
    with sqlite_url() as url, tempfile.TemporaryDirectory() as data:
        services = Services.start(Settings(database_url=url, data_dir=Path(data), projections="off"))
        try:
            games = [make_game(services, "cotton-trade", 3, 12, 1000 + i) for i in range(n)]
        finally:
            services.close()
        server = start_server(url, data)
        try:
            client = lk.Api(server.url)
            before = sum(rss_kib(p) for p in server_pids(server))
            for g in games:
                client.call("GET", f"/games/{g.game_id}", g.tokens[0])
            after = sum(rss_kib(p) for p in server_pids(server))
        finally:
            server.stop()
    report.add(
        "memory",
        f"server RSS: idle → {n:,} active games loaded (Cotton Trade 3p)",
        f"{before / 1024:.0f} MiB → {after / 1024:.0f} MiB ({(after - before) / n:.0f} KiB per game)",
    )


def streams_section(report: Report, pg_url: str, quick: bool) -> None:
    from tests.benchmarks.bench_streams import streams_section as section

    section(report, pg_url, quick)


def mail_section(report: Report, pg_url: str, quick: bool) -> None:
    from tests.benchmarks.bench_notify import mail_section as section

    section(report, pg_url, quick)


def table_section(report: Report, pg_url: str, quick: bool) -> None:
    """The game page, the preview, the page's weight and click-to-preview (bench_table)."""
    from tests.benchmarks.bench_table import table_section as measure

    measure(report, pg_url, quick)


def leagues_section(report: Report, pg_url: str, quick: bool) -> None:
    """League, title and player pages over 10,000 finished games; league statistics' catch-up."""
    from tests.benchmarks.bench_leagues import leagues_section as measure

    measure(report, pg_url, quick)


SECTIONS = {
    "floor": floor_section,
    "latency": latency_section,
    "throughput": throughput_section,
    "load": load_section,
    "engines": lambda r, _url, q: engines_section(r, q),
    "bots": lambda r, _url, q: bots_section(r, q),
    "seasons": lambda r, _url, q: seasons_section(r, q),
    "projections": projections_section,
    "memory": memory_section,
    "streams": streams_section,
    "table": table_section,
    "mail": mail_section,
    "leagues": leagues_section,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--database-url", default=PG_DEFAULT, help="the PostgreSQL to measure on")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    parser.add_argument("--only", nargs="*", choices=sorted(SECTIONS), help="run only these sections")
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args(argv)
    report = Report()
    started = time.perf_counter()
    wanted = args.only or list(SECTIONS)
    if ("latency" in wanted) and "floor" not in wanted:
        wanted.insert(0, "floor")
    for name, section in SECTIONS.items():
        if name in wanted:
            section(report, args.database_url, args.quick)
    took = time.perf_counter() - started
    machine = f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {platform()}"
    text = f"{report.table()}\n\nRun in {took:.0f} s on {machine}."
    print()
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    return 0


def platform() -> str:
    import platform as p

    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()}, {p.system()} {p.release()}"
    return f"{p.system()} {p.release()}"


if __name__ == "__main__":
    raise SystemExit(main())

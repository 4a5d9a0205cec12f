"""Live updates: from a decision's answer to its event at every watcher, and what idle streams cost.

    python -m tests.benchmarks.bench_streams [--quick] [--database-url postgresql://...]

Real ``gameledger serve`` processes; the watchers are server-sent-event clients held by a
process of their own (one asyncio loop, raw sockets, so that the clients are not what is
measured), the decisions are POSTed from this process on a kept-alive connection. Both
processes stamp with the system's monotonic clock, so an arrival minus the decision's
answer is the delay a watcher sees:

- push: 200 watchers of one Cotton Trade game; per decision, the time from its answer
  until the event has reached every watcher (p50 and p95 over the decisions), and every
  single delivery's delay. On SQLite with one server process; on PostgreSQL with two
  server processes, the watchers on one and the decisions on the other.
- idle: 2,000 streams open on one idle game of one server process (SQLite): the server's
  CPU and memory with and without them, and the POST latency of decisions in another game
  with and without them.

``streams_section`` is the ``streams`` section of ``python -m tests.benchmarks.run``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import random
import re
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from api.services import Services
from api.settings import Settings
from tests import loadkit as lk
from tests.benchmarks import run

WATCHERS = 200
IDLE_STREAMS = 2000
EVENT = re.compile(rb"id: (\d+)\nevent: game\n")


def p95(xs: list[float]) -> float:
    if len(xs) < 2:
        return xs[0] if xs else float("nan")
    return statistics.quantiles(xs, n=20, method="inclusive")[18]


# -- the watchers' process -------------------------------------------------------------------


@dataclass
class _Stream:
    arrivals: dict[int, float] = field(default_factory=dict)  # version -> first seen (monotonic)
    latest: int = -1
    open: bool = True


class _Watch:
    """The child's side: opens streams when told, stamps every ``event: game`` it reads."""

    def __init__(self, conn: Connection, host: str, port: int) -> None:
        self.conn = conn
        self.host, self.port = host, port
        self.streams: list[_Stream] = []
        self.tasks: set[asyncio.Task[None]] = set()
        self.changed = asyncio.Event()
        self.done = asyncio.Event()

    async def main(self) -> None:
        loop = asyncio.get_running_loop()
        loop.add_reader(self.conn.fileno(), self._command)
        await self.done.wait()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def _command(self) -> None:
        while self.conn.poll():
            msg = self.conn.recv()
            if msg[0] == "open":
                self._spawn(self._open(*msg[1:]))
            elif msg[0] == "expect":
                self._spawn(self._expect(*msg[1:]))
            elif msg[0] == "count":
                self.conn.send(("count", sum(s.open for s in self.streams)))
            elif msg[0] == "close":
                self.done.set()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _open(self, path: str, token: str, n: int) -> None:
        mine = [_Stream() for _ in range(n)]
        self.streams += mine
        ready = [asyncio.Event() for _ in range(n)]
        failed = 0
        for start in range(0, n, 100):  # a hundred connections at a time: no accept backlog overflow
            for i in range(start, min(n, start + 100)):
                self._spawn(self._read(mine[i], path, token, ready[i]))
            batch = ready[start : start + 100]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(e.wait() for e in batch)), 120)
        failed = sum(not s.open or s.latest < 0 for s in mine)
        self.conn.send(("ready", n - failed, failed))

    async def _read(self, stream: _Stream, path: str, token: str, ready: asyncio.Event) -> None:
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            stream.open = False
            ready.set()
            return
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {token}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        buffer = b""
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                now = time.monotonic()
                buffer += data
                cut = buffer.rfind(b"\n\n")
                if cut < 0:
                    continue
                complete, buffer = buffer[: cut + 2], buffer[cut + 2 :]
                for m in EVENT.finditer(complete):
                    version = int(m.group(1))
                    stream.arrivals.setdefault(version, now)
                    stream.latest = max(stream.latest, version)
                    ready.set()
                    self.changed.set()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            stream.open = False
            ready.set()
            self.changed.set()
            writer.close()

    async def _expect(self, version: int, timeout: float) -> None:
        """Answer when every open stream has seen ``version`` (or later): each one's arrival."""
        deadline = time.monotonic() + timeout
        while True:
            live = [s for s in self.streams if s.open or s.latest >= 0]
            if all(s.latest >= version for s in live) or time.monotonic() > deadline:
                break
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), max(0.0, deadline - time.monotonic()))
        times = [min((t for v, t in s.arrivals.items() if v >= version), default=None) for s in self.streams]
        self.conn.send(("arrived", times))


def _watch_main(conn: Connection, host: str, port: int) -> None:
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    asyncio.run(_Watch(conn, host, port).main())


class Watchers:
    """A process of its own holding server-sent-event streams of one server."""

    def __init__(self, base_url: str) -> None:
        host, _, port = base_url.removeprefix("http://").partition(":")
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_watch_main, args=(child, host, int(port)), daemon=True)
        self.proc.start()

    def _ask(self, msg: tuple[Any, ...], timeout: float) -> Any:
        self.conn.send(msg)
        if not self.conn.poll(timeout):
            raise TimeoutError(f"the watchers did not answer {msg[0]} in {timeout}s")
        return self.conn.recv()

    def open(self, path: str, token: str, n: int) -> int:
        """Open ``n`` streams; returns how many opened and got their first event."""
        _, ok, failed = self._ask(("open", path, token, n), timeout=600)
        if failed:
            raise RuntimeError(f"{failed} of {n} streams did not open")
        return int(ok)

    def expect(self, version: int, timeout: float = 30) -> list[float | None]:
        return list(self._ask(("expect", version, timeout), timeout + 30)[1])

    def count(self) -> int:
        return int(self._ask(("count",), 30)[1])

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(("close",))
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()


@contextlib.contextmanager
def watchers(base_url: str) -> Iterator[Watchers]:
    w = Watchers(base_url)
    try:
        yield w
    finally:
        w.close()


# -- measurements ----------------------------------------------------------------------------


@dataclass
class Push:
    every: list[float] = field(default_factory=list)  # per decision: until the last watcher had it
    each: list[float] = field(default_factory=list)  # every single delivery
    missed: int = 0


def decide_once(client: lk.Api, made: run.Made, rnd: random.Random) -> tuple[float, int] | None:
    """A random legal decision by the awaited seat; (monotonic time of the answer, version)."""
    _, view = client.call("GET", f"/games/{made.game_id}", made.tokens[0])
    if view["status"] != "active":
        return None
    seat = rnd.choice([s["seat"] for s in view["awaiting"]])
    _, mine = client.call("GET", f"/games/{made.game_id}", made.tokens[seat])
    body = {"expected_version": mine["version"], "decision": rnd.choice(mine["legal_decisions"])}
    status, answer = client.call("POST", f"/games/{made.game_id}/decisions", made.tokens[seat], body)
    answered = time.monotonic()
    if status != 200:
        raise RuntimeError(f"decision refused: {status} {answer}")
    return answered, int(answer["version"])


def push_latency(decide_url: str, watch: Watchers, made: run.Made, decisions: int, seed: int) -> Push:
    client = lk.Api(decide_url)
    rnd = random.Random(seed)
    out = Push()
    try:
        for _ in range(decisions):
            done = decide_once(client, made, rnd)
            if done is None:
                break
            answered, version = done
            arrivals = watch.expect(version)
            delays = [t - answered for t in arrivals if t is not None]
            out.missed += sum(t is None for t in arrivals)
            out.each += delays
            out.every.append(max(delays))
            time.sleep(rnd.uniform(0.05, 0.3))  # decisions at no fixed phase to any timer
    finally:
        client.close()
    return out


def prepare(url: str, data: str, games: int, seed: int) -> tuple[list[run.Made], str]:
    """``games`` started Cotton Trade 3p games and a spectator's token, made in process."""
    services = Services.start(Settings(database_url=url, data_dir=Path(data), projections="off"))
    try:
        made = [run.make_game(services, "cotton-trade", 3, 3, seed + i) for i in range(games)]
        _, spectator = services.ledger.register_player(f"spectator {seed}")
        return made, spectator
    finally:
        services.close()


def push(report: run.Report, pg_url: str | None, quick: bool) -> None:
    """Push latency to ``WATCHERS`` watchers: on SQLite one server process; on PostgreSQL
    (``pg_url``) two, the watchers on one and the decisions on the other."""
    decisions = 10 if quick else 30
    where = (
        "PostgreSQL, two server processes (watchers on one, decisions on the other)"
        if pg_url
        else "SQLite, one server process"
    )
    seed = 2300 if pg_url else 2200
    with run.pg_schema(pg_url) if pg_url else run.sqlite_url() as url, tempfile.TemporaryDirectory() as data:
        (made,), spectator = prepare(url, data, 1, seed)
        servers = [run.start_server(url, data) for _ in range(2 if pg_url else 1)]
        watched, deciding = servers[0], servers[-1]
        try:
            run.settle(watched)
            with watchers(watched.url) as watch:
                watch.open(f"{lk.API}/games/{made.game_id}/stream?max_seconds=3600", spectator, WATCHERS)
                measured = push_latency(deciding.url, watch, made, decisions, seed)
        finally:
            for server in servers:
                server.stop()
    add_push(report, where, measured)


def add_push(report: run.Report, where: str, push: Push) -> None:
    every50, every95 = run.median(push.every), p95(push.every)
    report.values[f"push_every_p50 {where}"] = every50
    report.add(
        "streams",
        f"{where}: decision answered → event at every one of {WATCHERS} watchers, p50 / p95 "
        f"({len(push.every)} decisions)",
        f"{run.ms(every50)} / {run.ms(every95)}",
        "p50 ≤ 50 ms, p95 ≤ 150 ms",
        run.verdict(every50 <= 0.050 and every95 <= 0.150 and not push.missed),
    )
    report.add(
        "streams",
        f"{where}: each delivery, p50 / p95 ({len(push.each):,} deliveries"
        + (f", {push.missed} missed" if push.missed else "")
        + ")",
        f"{run.ms(run.median(push.each))} / {run.ms(p95(push.each))}",
    )


def idle_streams(report: run.Report, quick: bool) -> None:
    n = 500 if quick else IDLE_STREAMS
    window = 5.0 if quick else 20.0  # longer than a heartbeat's period
    decisions = 30 if quick else 60
    with run.sqlite_url() as url, tempfile.TemporaryDirectory() as data:
        (idle, busy), spectator = prepare(url, data, 2, 2400)
        server = run.start_server(url, data)
        try:
            run.settle(server)
            client = lk.Api(server.url)
            rnd = random.Random(3)
            timed_decisions(client, busy, 30, rnd)  # warm
            before = timed_decisions(client, busy, decisions, rnd)
            cpu0, rss0 = usage(server, window)
            with watchers(server.url) as watch:
                watch.open(f"{lk.API}/games/{idle.game_id}/stream?max_seconds=3600", spectator, n)
                time.sleep(2)
                cpu1, rss1 = usage(server, window)
                still = watch.count()
                report.values["idle_cpu"], report.values["idle_mib"] = cpu1, (rss1 - rss0) / 1024
                report.add(
                    "streams",
                    f"{n:,} idle streams open on one server process: its CPU (without → with)",
                    f"{cpu0:.1%} → {cpu1:.1%} of a core",
                    "≤ 5 % of a core",
                    run.verdict(cpu1 <= 0.05 and still == n)
                    + ("" if still == n else f" ({n - still} ended)"),
                )
                report.add(
                    "streams",
                    f"{n:,} idle streams open: the server's memory (RSS without → with)",
                    f"{rss0 / 1024:.0f} MiB → {rss1 / 1024:.0f} MiB (+{(rss1 - rss0) / 1024:.0f} MiB)",
                    "≤ +150 MiB",
                    run.verdict(rss1 - rss0 <= 150 * 1024),
                )
                during = timed_decisions(client, busy, decisions, rnd)
            client.close()
        finally:
            server.stop()
    failed = f", {during.failed} of {decisions} failed" if during.failed else ""
    report.add(
        "streams",
        f"POST decision p50 / p95 in another game, without → with the {n:,} streams open{failed}",
        f"{run.ms(run.median(before.times))} / {run.ms(p95(before.times))} → "
        f"{run.ms(run.median(during.times))} / {run.ms(p95(during.times))}",
        "unchanged within noise",
        run.verdict(not during.failed and run.median(during.times) <= 1.3 * run.median(before.times)),
    )


@dataclass
class Timed:
    times: list[float] = field(default_factory=list)
    failed: int = 0


def timed_decisions(client: lk.Api, made: run.Made, n: int, rnd: random.Random) -> Timed:
    """``n`` POSTs of random legal decisions (the GETs that find one are not timed); a read or
    a decision that gets no answer in the client's timeout counts as failed."""
    out = Timed()
    client.close()  # the server closes a kept-alive connection idle for 5 s: start afresh
    client.call("GET", f"/games/{made.game_id}", made.tokens[0])
    while len(out.times) + out.failed < n:
        status, view = client.call("GET", f"/games/{made.game_id}", made.tokens[0])
        if status != 200:
            out.failed += 1
            continue
        if view["status"] != "active":
            break
        seat = rnd.choice([s["seat"] for s in view["awaiting"]])
        status, mine = client.call("GET", f"/games/{made.game_id}", made.tokens[seat])
        if status != 200:
            out.failed += 1
            continue
        body = {"expected_version": mine["version"], "decision": rnd.choice(mine["legal_decisions"])}
        t = time.perf_counter()
        status, _ = client.call("POST", f"/games/{made.game_id}/decisions", made.tokens[seat], body)
        if status == 200:
            out.times.append(time.perf_counter() - t)
        elif status != 409:
            out.failed += 1
    return out


def usage(server: lk.Server, window: float) -> tuple[float, int]:
    """The server's CPU (share of one core) over ``window`` seconds, and its RSS (KiB) after."""
    pids = run.server_pids(server)
    c0, t0 = sum(run.cpu_seconds(p) for p in pids), time.monotonic()
    time.sleep(window)
    cpu = (sum(run.cpu_seconds(p) for p in pids) - c0) / (time.monotonic() - t0)
    return cpu, sum(run.rss_kib(p) for p in pids)


def streams_section(report: run.Report, pg_url: str, quick: bool) -> None:
    print("live updates (server-sent events)", flush=True)
    push(report, None, quick)
    push(report, pg_url, quick)
    idle_streams(report, quick)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--database-url", default=run.PG_DEFAULT)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", choices=["sqlite", "postgres", "idle"], nargs="*")
    args = parser.parse_args(argv)
    report = run.Report()
    parts = args.part or ["sqlite", "postgres", "idle"]
    if "sqlite" in parts:
        push(report, None, args.quick)
    if "postgres" in parts:
        push(report, args.database_url, args.quick)
    if "idle" in parts:
        idle_streams(report, args.quick)
    print()
    print(report.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

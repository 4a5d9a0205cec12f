"""Where a decision's CPU goes: a sampling profile (py-spy) of a real server and its projection
worker while client processes play Cotton Trade over HTTP, each decision a GET (with the legal
decisions) and a POST; the samples are summed by the part of the work they fall in.

    python -m tests.benchmarks.profile_decision [--database-url postgresql://...] [--sqlite] [--seconds 20]
    python -m tests.benchmarks.profile_decision --retally FOLDER SERVER_MS WORKER_MS

(the second counts a kept run's raw samples again, by the parts as they are now defined).

Prints CPU ms per decision by part, for the server and the worker, and writes the raw samples
(py-spy's collapsed stacks) beside the report in a temporary folder. py-spy comes from the
package index (pip install py-spy); the figures go in the README's Performance section.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from api.services import Services
from api.settings import Settings
from tests.benchmarks.run import (
    PG_DEFAULT,
    client_process,
    cpu_seconds,
    make_game,
    pg_schema,
    server_pids,
    sqlite_url,
    start_server,
    start_worker,
)

# The parts a decision's work is counted in: the first rule whose pattern is in a sample's stack
# (innermost first) names it. Order matters: a save inside the ledger is the save, not the rules.
PARTS: list[tuple[str, tuple[str, ...]]] = [
    (
        "save (eventsourcing, the store)",
        (
            "eventsourcing/persistence.py",
            "eventsourcing/postgres.py",
            "eventsourcing/sqlite.py",
            "psycopg",
            "sqlite3",
        ),
    ),
    ("state digest and sealing", ("ledger/records.py", "ledger/digest.py", "ledger/canonical.py")),
    ("legal decisions", ("legal_decisions",)),
    ("rules (apply, automatic procedures)", ("ledger/games/",)),
    (
        "view for the caller (redaction, words)",
        ("api/presenters.py", "ledger/export.py", "vocabulary.py", "_words.py"),
    ),
    (
        "load and fast-forward the game",
        (
            "application/repository.py",
            "eventsourcing/application.py",
            "eventsourcing/domain.py",
            "ledger/domain/",
        ),
    ),
    ("authentication", ("api/deps.py", "api/accounts.py", "verify_token")),
    ("idempotency", ("api/idempotency.py",)),
    ("read models", ("projections/",)),
    ("FastAPI: dependencies and parameters (solve_dependencies)", ("fastapi/dependencies/",)),
    ("FastAPI: routing and dispatch", ("fastapi/routing.py", "starlette/routing.py", "fastapi/_compat")),
    ("request and response validation (pydantic)", ("pydantic",)),
    (
        "middleware: request id, access log, metrics, limits",
        (
            "api/observability.py",
            "api/ratelimit.py",
            "api/limits.py",
            "starlette/middleware",
            "fastapi/middleware",
            "fastapi/telemetry",
            "fastapi/_body_limit",
            "starlette/_exception_handler",
            "prometheus_client",
            "logging/",
        ),
    ),
    ("JSON and the response (orjson, starlette)", ("orjson", "starlette/responses.py", "json/")),
    ("uvicorn: HTTP parsing, sending, connection", ("uvicorn/protocols", "httptools")),
    ("thread-pool hops (anyio)", ("anyio", "starlette/concurrency.py")),
    ("hot routes (api/hotroutes.py)", ("api/hotroutes.py",)),
]
# Counted only where no part above is in the stack: the plumbing around every request.
PLUMBING: list[tuple[str, tuple[str, ...]]] = [
    ("thread-pool hops (anyio)", ("threading.py", "queue.py")),
    ("event loop (asyncio, uvicorn's server)", ("uvicorn", "uvloop", "asyncio/", "starlette")),
    ("FastAPI: application entry", ("fastapi",)),
]


def part_of(stack: str) -> str:
    frames = stack.split(";")[::-1]  # innermost first
    for rules in (PARTS, PLUMBING):
        for frame in frames:
            for name, patterns in rules:
                if any(p in frame for p in patterns):
                    return name
    return "other"


def record(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            "py-spy",
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(int(seconds)),
            "--rate",
            "250",
            "--format",
            "raw",
            "--output",
            str(out),
            "--gil",
            "--subprocesses",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def tally(path: Path) -> Counter[str]:
    parts: Counter[str] = Counter()
    if not path.exists():
        return parts
    for line in path.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if "idle" in stack or "wait (threading.py" in stack or "select (selectors.py" in stack:
            continue
        parts[part_of(stack)] += int(n)
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--database-url", default=PG_DEFAULT)
    parser.add_argument("--sqlite", action="store_true", help="SQLite instead of PostgreSQL")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument(
        "--retally",
        nargs=3,
        metavar=("FOLDER", "SERVER_MS", "WORKER_MS"),
        help="count a kept run's raw samples again (its folder, and its CPU ms per decision)",
    )
    args = parser.parse_args(argv)
    if args.retally:
        folder, server_ms, worker_ms = Path(args.retally[0]), float(args.retally[1]), float(args.retally[2])
        report(folder, server_ms, worker_ms)
        return 0
    if shutil.which("py-spy") is None:
        print("py-spy is not installed: pip install py-spy")
        return 1
    folder = Path(tempfile.mkdtemp(prefix="gl-profile-"))
    ctx = sqlite_url() if args.sqlite else pg_schema(args.database_url)
    with ctx as url, tempfile.TemporaryDirectory() as data:
        services = Services.start(Settings(database_url=url, data_dir=Path(data), projections="off"))
        try:
            games = [make_game(services, "cotton-trade", 3, 0, 300 + i) for i in range(args.clients * 4)]
        finally:
            services.close()
        server = start_server(url, data, workers=1, GAMELEDGER_PROJECTIONS="off")
        worker = start_worker(url, data)
        try:
            pids = [*server_pids(server), worker.pid]
            worker_pid = worker.pid
            jobs = [
                (server.url, [(g.game_id, g.tokens) for g in games[i :: args.clients]], args.seconds, i)
                for i in range(args.clients)
            ]
            spies = [
                record(server.pid, args.seconds + 2, folder / "server.txt"),
                record(worker.pid, args.seconds + 2, folder / "worker.txt"),
            ]
            cpu0 = {p: cpu_seconds(p) for p in pids}
            t0 = time.monotonic()
            with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
                counts = pool.starmap(client_process, jobs)
            wall = time.monotonic() - t0
            cpu = {p: cpu_seconds(p) - cpu0[p] for p in pids}
            for spy in spies:
                spy.wait(60)
        finally:
            server.stop()
            worker.stop()
    decisions = max(1, sum(counts))
    server_cpu = sum(c for p, c in cpu.items() if p != worker_pid)
    worker_cpu = cpu[worker_pid]
    print(
        f"{decisions} decisions in {wall:.1f}s ({decisions / wall:.0f}/s); CPU per decision: "
        f"server {server_cpu / decisions * 1000:.2f} ms, worker {worker_cpu / decisions * 1000:.2f} ms"
    )
    report(folder, server_cpu / decisions * 1000, worker_cpu / decisions * 1000)
    print(f"\nraw samples in {folder}")
    return 0


def report(folder: Path, server_ms: float, worker_ms: float) -> None:
    """Each process's CPU ms per decision shared among the parts as its samples are."""
    for name, path, total in (
        ("server", folder / "server.txt", server_ms),
        ("worker", folder / "worker.txt", worker_ms),
    ):
        parts = tally(path)
        samples = sum(parts.values()) or 1
        print(f"\n{name}: {samples} samples, {total:.2f} ms per decision")
        for part, n in parts.most_common():
            print(f"  {part:<66} {n / samples * total:6.2f} ms  ({n / samples:5.1%})")


if __name__ == "__main__":
    raise SystemExit(main())

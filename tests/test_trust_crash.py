"""Crash safety: kill -9 the server and the projection worker in the middle of a load run,
again and again; then nothing acknowledged is missing, nothing unacknowledged is
half-written, and the read models, caught up incrementally across the crashes, equal a
rebuild from the events.

The server runs with ``GAMELEDGER_PROJECTIONS=off`` and a separate ``gameledger
projections run`` worker keeps the read models (game index, scoreboard, share values,
league statistics, notifications) in small batches (``GAMELEDGER_PROJECTION_BATCH``), so
that a kill is likely to land inside one. The clients behave as careful clients do: a
decision that got no answer (the server died under it) is sent again with the same
Idempotency-Key until it gets one. The games are two-seat Cotton Trade games of a league,
brought close to their end before the run, so that games finish while the processes die
and the league statistics move.

Afterwards (tests/loadkit.py ``check_ledger``): every acknowledged decision is in the store
exactly once; a decision that never got an answer is either absent or written whole,
exactly once; every stream is gapless with its hash chain intact and replays through its
rules with every stored digest; and every read model's rows equal those of
``gameledger projections rebuild``.
"""

from __future__ import annotations

import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests import loadkit as lk

LEAGUE = "crash league"


@dataclass
class Chaos:
    server_kills: int = 0
    worker_kills: int = 0
    uvicorn_worker_kills: int = 0
    log: list[str] = field(default_factory=list)


def crash_run(
    database_url: str,
    tmp_path: Path,
    *,
    seconds: float,
    games: int,
    kill_every: float,
    workers: int = 1,
    seed: int = 7,
    schedule: tuple[str, ...] = (),
    long_games: int = 0,
) -> tuple[lk.LoadResult, lk.LedgerCheck, Chaos, dict[str, Any], dict[str, Any]]:
    # games near their end (they finish during the run: league statistics move) and, for a
    # long run, games that last it out (four seats, the shares trade)
    tables, made = lk.prepare_tables(
        database_url, games, seats=2, max_decisions=60, league=LEAGUE, title="cotton-trade", seed=seed
    )
    if long_games:
        more, made_more = lk.prepare_tables(
            database_url, long_games, seats=4, options={"shares_trade": True}, league=LEAGUE, seed=seed + 1
        )
        tables, made = tables + more, made + made_more
    env = lk.server_env(database_url, tmp_path / "data", GAMELEDGER_PROJECTIONS="off")
    worker_env = env | {"GAMELEDGER_PROJECTION_BATCH": "7"}
    server = lk.Server(env, tmp_path / "server.log", workers=workers)
    worker = lk.projection_worker(worker_env, tmp_path / "worker.log")
    chaos = Chaos()
    rnd = random.Random(seed)
    out: dict[str, lk.LoadResult] = {}
    try:
        server.start()
        worker.start()
        load = threading.Thread(
            target=lambda: out.setdefault(
                "result",
                lk.play([server.url], tables, clients_per_seat=2, seconds=seconds, retry_unanswered=True),
            ),
            daemon=True,
        )
        started = time.monotonic()
        load.start()
        while time.monotonic() - started < seconds - kill_every / 2:
            time.sleep(kill_every * (0.5 + rnd.random()))
            victim = (
                schedule[len(chaos.log) % len(schedule)]
                if schedule
                else rnd.choice(["server", "worker", "worker"] + (["uvicorn"] if workers > 1 else []))
            )
            at = time.monotonic() - started
            if victim == "server":
                server.kill()  # the whole group: supervisor and workers, mid-request
                chaos.server_kills += 1
                server = lk.Server(env, tmp_path / "server.log", workers=workers, port=server.port)
                server.start()
            elif victim == "worker":
                if not worker.alive():
                    worker.start()
                    time.sleep(rnd.random())  # let it start catching up the backlog, then kill it
                worker.kill()
                chaos.worker_kills += 1
                if rnd.random() < 0.6:  # sometimes leave it dead for a while: a backlog builds
                    worker.start(wait=None)
            else:
                server.kill_worker(rnd)
                chaos.uvicorn_worker_kills += 1
            chaos.log.append(f"{at:6.2f}s kill {victim}")
        load.join(seconds + 240)
        assert not load.is_alive(), "the clients never finished"
        if not worker.alive():
            worker.start()
        positions = lk.wait_caught_up(database_url, timeout=90)
        incremental = lk.read_models(database_url)
        head = lk.ledger_head(database_url)
        assert all(p >= head for p in positions.values()), (positions, head, worker.tail())
        assert server.alive(), server.tail()
    finally:
        server.stop()
        worker.stop()
    result = out["result"]
    assert not result.errors, result.errors
    rebuilt_run = lk.run_cli(env, "projections", "rebuild")
    assert rebuilt_run.returncode == 0, rebuilt_run.stdout + rebuilt_run.stderr
    rebuilt = lk.read_models(database_url)
    result.attempts += made
    check = lk.check_ledger(database_url, tables, result, unanswered_may_be_written=True)
    return result, check, chaos, incremental, rebuilt


def assert_survived(
    result: lk.LoadResult,
    check: lk.LedgerCheck,
    chaos: Chaos,
    incremental: dict[str, Any],
    rebuilt: dict[str, Any],
) -> None:
    assert not check.problems, check.problems[:20]
    statuses = result.statuses()
    assert set(statuses) <= {0, 200, 403, 409}, statuses
    # every decision that went unanswered was sent again until it was answered (the clients
    # do not retry their deliberately stale requests)
    answered = {(a.game_id, a.key) for a in result.attempts if a.status != 0}
    unanswered = {
        (a.game_id, a.key) for a in result.attempts if a.status == 0 and not a.key.startswith("stale-")
    }
    assert unanswered <= answered, unanswered - answered
    for name, model in incremental.items():
        for table, rows in model["tables"].items():
            assert rows == rebuilt[name]["tables"][table], (
                f"read model {name}.{table} differs from its rebuild after {chaos.log}"
            )
    assert check.acknowledged > 0


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
@pytest.mark.postgres
def test_kill_9_of_server_and_projection_worker_loses_nothing_and_counts_nothing_twice(
    load_pg: Any, tmp_path: Path
) -> None:
    result, check, chaos, incremental, rebuilt = crash_run(
        load_pg.new_schema_url(),
        tmp_path,
        seconds=9,
        games=3,
        kill_every=1.5,
        schedule=("worker", "server", "worker", "server"),
    )
    assert_survived(result, check, chaos, incremental, rebuilt)
    assert chaos.server_kills + chaos.worker_kills >= 3, chaos.log
    # the games went on across the crashes: decisions were acknowledged after the first kill
    assert check.acknowledged >= 20, (result.statuses(), chaos.log)


@pytest.mark.slow
def test_kill_9_of_a_sqlite_server_and_worker_loses_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    result, check, chaos, incremental, rebuilt = crash_run(
        url, tmp_path, seconds=6, games=2, kill_every=1.5, schedule=("server", "worker")
    )
    assert chaos.server_kills and chaos.worker_kills, chaos.log
    assert_survived(result, check, chaos, incremental, rebuilt)


SLOW_SECONDS = float(os.environ.get("GAMELEDGER_CRASH_SECONDS", "60"))


@pytest.mark.slow
@pytest.mark.postgres
def test_repeated_kills_under_load_on_postgres(load_pg: Any, tmp_path: Path) -> None:
    """The long run: a server of two uvicorn workers; every ~2.5 s one of them, the whole
    server or the projection worker is killed with SIGKILL."""
    result, check, chaos, incremental, rebuilt = crash_run(
        load_pg.new_schema_url(),
        tmp_path,
        seconds=SLOW_SECONDS,
        games=4,
        long_games=int(SLOW_SECONDS // 3),  # enough games to outlast the run, however fast it plays
        kill_every=2.5,
        workers=2,
        seed=11,
    )
    assert_survived(result, check, chaos, incremental, rebuilt)
    kills = chaos.server_kills + chaos.worker_kills + chaos.uvicorn_worker_kills
    assert kills >= SLOW_SECONDS / 5, chaos.log
    assert result.seconds >= SLOW_SECONDS * 0.9, "the games ran out before the time: the kills hit no load"
    print(
        f"\nCRASH postgres {result.seconds:.0f}s: {kills} kills (server {chaos.server_kills}, "
        f"uvicorn worker {chaos.uvicorn_worker_kills}, projection worker {chaos.worker_kills}); "
        f"{check.acknowledged} acknowledged decisions all present ({check.replayed_after_no_answer} written "
        f"unanswered and answered as replays on retry), {check.unanswered_written} unanswered but written "
        f"whole, {check.finished} games finished; read models equal their rebuild"
    )

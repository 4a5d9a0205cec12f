"""Operating the service in process: request ids and JSON logs, Prometheus metrics,
liveness and readiness, and the versioned schema migrations on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from api.app import create_app
from api.migrations import LATEST, MIGRATIONS, migrate, pending, status
from api.observability import REQUEST_ID, JsonFormatter
from api.services import Services, init_views
from api.settings import Settings
from api.storage import init_db
from ledger.storage import parse_database_url
from tests.api_helpers import API, Table

BIN = Path(sys.executable).parent
ADMIN = "test-admin-token-0123456789"


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def sqlite_client(tmp_path: Path) -> Iterator[tuple[TestClient, Services]]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'ledger.sqlite3'}", admin_token=ADMIN)
    services = Services.start(settings)
    with TestClient(create_app(settings, services)) as client:
        yield client, services
    services.close()


# -- request ids and logs ------------------------------------------------------------------


def test_a_request_keeps_its_id_or_gets_one_and_the_response_echoes_it(
    sqlite_client: tuple[TestClient, Services], caplog: pytest.LogCaptureFixture
) -> None:
    client, _ = sqlite_client
    with caplog.at_level(logging.INFO, logger="gameledger.access"):
        given = client.post(f"{API}/players", json={"name": "Ada"}, headers={"X-Request-ID": "req-42.a"})
        made = client.get(f"{API}/titles")
        refused = client.get(f"{API}/titles", headers={"X-Request-ID": "bad id\twith spaces"})
        token = given.json()["token"]
        missing = client.get(
            f"{API}/games/00000000-0000-0000-0000-000000000000", headers={"Authorization": f"Bearer {token}"}
        )
    assert given.status_code == 201 and given.headers["x-request-id"] == "req-42.a"
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers["x-request-id"])
    assert re.fullmatch(r"[0-9a-f]{32}", refused.headers["x-request-id"]), "an unsafe id is replaced"
    assert missing.status_code == 404 and missing.headers["x-request-id"], missing.text
    lines = [json.loads(JsonFormatter().format(r)) for r in caplog.records if r.name == "gameledger.access"]
    by_id = {line["request_id"]: line for line in lines}
    first = by_id["req-42.a"]
    assert {
        "time",
        "level",
        "logger",
        "message",
        "request_id",
        "method",
        "path",
        "status",
        "duration_ms",
    } <= set(first)
    assert first["method"] == "POST" and first["path"] == f"{API}/players" and first["status"] == 201
    assert first["route"] == f"{API}/players" and first["level"] == "info" and first["duration_ms"] >= 0
    assert by_id[missing.headers["x-request-id"]]["route"] == f"{API}/games/{{game_id}}"
    assert by_id[missing.headers["x-request-id"]]["status"] == 404


def test_any_log_line_written_while_serving_a_request_carries_its_id() -> None:
    record = logging.LogRecord(
        "gameledger.projections", logging.ERROR, __file__, 1, "failed %s", ("x",), None
    )
    token = REQUEST_ID.set("abc123")
    try:
        line = json.loads(JsonFormatter().format(record))
    finally:
        REQUEST_ID.reset(token)
    assert line == line | {
        "request_id": "abc123",
        "level": "error",
        "message": "failed x",
        "logger": "gameledger.projections",
    }
    assert "request_id" not in json.loads(JsonFormatter().format(record))


# -- metrics ------------------------------------------------------------------------------


def test_metrics_count_decisions_conflicts_latency_and_projection_lag(
    sqlite_client: tuple[TestClient, Services],
) -> None:
    client, services = sqlite_client
    route = f"{API}/games/{{game_id}}/decisions"
    before = {o: sample("gameledger_decisions_total", outcome=o) for o in ("accepted", "refused", "conflict")}
    conflicts = sample("gameledger_conflicts_total", route=route)
    timed = sample("gameledger_http_request_duration_seconds_count", method="POST", route=route, status="200")
    t = Table(client)
    g = t.game()
    seat = g["awaiting"][0]["seat"]
    mine = t.game(seat)
    assert t.decide(seat, mine["legal_decisions"][0], mine["version"]).status_code == 200
    assert t.decide(seat, mine["legal_decisions"][0], mine["version"]).status_code == 409  # stale
    now = t.game(seat)
    bad = t.decide(seat, {"type": "no_such_decision"}, now["version"])
    assert bad.status_code in (400, 403, 422), bad.text
    assert sample("gameledger_decisions_total", outcome="accepted") == before["accepted"] + 1
    assert sample("gameledger_decisions_total", outcome="conflict") == before["conflict"] + 1
    assert sample("gameledger_decisions_total", outcome="refused") == before["refused"] + 1
    assert sample("gameledger_conflicts_total", route=route) == conflicts + 1
    assert (
        sample("gameledger_http_request_duration_seconds_count", method="POST", route=route, status="200")
        == timed + 1
    )
    services.ledger.register_player("Late")  # an event no projection has seen yet
    text = client.get("/metrics").text
    assert (
        f'gameledger_http_request_duration_seconds_bucket{{le="0.005",method="POST",route="{route}",status="200"}}'
        in text
    )
    head = services.ledger.recorder.max_notification_id()
    assert f"gameledger_ledger_head {float(head)}" in text
    lags = dict(re.findall(r'gameledger_projection_lag_events\{projection="(\w+)"\} (\S+)', text))
    assert set(lags) == set(services.catchups)
    assert float(lags["gameindex"]) >= 1
    services.refresh()
    text = client.get("/metrics").text
    assert re.findall(r'gameledger_projection_lag_events\{projection="gameindex"\} (\S+)', text) == ["0.0"]


def test_webhook_failures_are_counted(sqlite_client: tuple[TestClient, Services]) -> None:
    _, services = sqlite_client

    def unreachable(url: str, body: bytes, headers: dict[str, str]) -> int:
        raise ConnectionRefusedError("nobody listens")

    services.webhooks.sender = unreachable
    a, _ = services.ledger.register_player("A")
    b, _ = services.ledger.register_player("B")
    services.ledger.set_notifications(str(a), ["game_started"], "https://hooks.example.org/a")
    before = sample("gameledger_webhook_failures_total", final="false")
    services.ledger.create_game(creator=str(a), title="cotton-trade", players=[str(a), str(b)])
    services.refresh("notifications")
    services.webhooks.run_once()
    assert sample("gameledger_webhook_failures_total", final="false") == before + 1


# -- liveness and readiness -------------------------------------------------------------------


def test_ready_reports_the_database_and_projection_lag_live_only_the_process(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'l.sqlite3'}", admin_token=ADMIN, ready_max_lag=2
    )
    services = Services.start(settings)
    try:
        with TestClient(create_app(settings, services)) as client:
            assert client.get("/live").json() == {"status": "alive"}
            ready = client.get("/ready")
            assert ready.status_code == 200 and ready.json()["reasons"] == []
            for i in range(3):
                services.ledger.register_player(f"P{i}")  # three events the views have not applied
            ready = client.get("/ready")
            assert ready.status_code == 503
            assert any("is 3 events behind (limit 2)" in r for r in ready.json()["reasons"])
            services.refresh()
            assert client.get("/ready").status_code == 200
            services.ledger.close()  # the database goes away: not ready, but still alive
            ready = client.get("/ready")
            assert ready.status_code == 503 and "database unreachable" in ready.json()["reasons"][0]
            assert client.get("/live").status_code == 200
    finally:
        services.close()


def test_a_server_on_an_unmigrated_database_is_not_ready_until_migrate_runs(database_url: str) -> None:
    settings = Settings(database_url=database_url, admin_token=ADMIN, init_db=False)
    db = parse_database_url(database_url)
    init_db(db, [init_views])  # tables as a release before migrations made them: none recorded
    services = Services.start(settings)
    try:
        with TestClient(create_app(settings, services)) as client:
            ready = client.get("/ready")
            assert ready.status_code == 503
            every = list(range(1, LATEST + 1))
            assert f"schema migrations pending: {', '.join(map(str, every))}" in ready.json()["reasons"][0]
            assert migrate(db) == every  # adopted: every step is idempotent DDL
            assert client.get("/ready").status_code == 200
    finally:
        services.close()


# -- migrations ---------------------------------------------------------------------------


def _indexes(database_url: str) -> set[str]:
    db = parse_database_url(database_url)
    if db.kind == "postgres":
        with psycopg.connect(db.conninfo()) as conn:
            rows = conn.execute(
                "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (db.schema,)
            ).fetchall()
        return {r[0] for r in rows}
    import sqlite3

    conn = sqlite3.connect(db.view_sqlite_path("gameindex"))
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        conn.close()


def test_migrations_apply_in_order_once_and_keep_the_data(database_url: str) -> None:
    db = parse_database_url(database_url)
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST + 1))
    assert pending(db) == list(range(1, LATEST + 1))
    assert migrate(db) == list(range(1, LATEST + 1))
    assert pending(db) == [] and all(row["applied_at"] for row in status(db))
    assert "gameindex_games_status" in _indexes(database_url)
    settings = Settings(database_url=database_url, admin_token=ADMIN)
    services = Services.start(settings)
    try:
        player, _ = services.ledger.register_player("Kept")
    finally:
        services.close()
    assert migrate(db) == [], "a re-run has nothing to do"
    services = Services.start(settings)
    try:
        assert services.ledger.get_player(str(player)).name == "Kept"
    finally:
        services.close()


def db_status_check(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``gameledger db status --check`` as an operator runs it."""
    return subprocess.run(
        [str(BIN / "gameledger"), "db", "status", "--check"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_two_concurrent_migrations_apply_each_version_exactly_once(database_url: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMELEDGER_")}
    env["GAMELEDGER_DATABASE_URL"] = database_url
    runs = [
        subprocess.Popen(
            [str(BIN / "gameledger"), "db", "migrate"],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [r.communicate(timeout=120) for r in runs]
    assert all(r.returncode == 0 for r in runs), outputs
    applied = [
        line for out, _ in outputs for line in out.splitlines() if line.startswith("applied migration")
    ]
    assert sorted(applied) == sorted(f"applied migration {m.version}: {m.name}" for m in MIGRATIONS)
    assert sum("nothing to migrate" in out for out, _ in outputs) == 1
    done = db_status_check(env, tmp_path)
    assert done.returncode == 0 and "0 pending" in done.stdout, done.stdout + done.stderr


def test_db_status_check_fails_while_a_migration_is_pending(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMELEDGER_")}
    env["GAMELEDGER_DATA_DIR"] = str(tmp_path / "data")
    done = db_status_check(env, tmp_path)
    assert done.returncode == 1 and f"{LATEST} pending" in done.stdout and "PENDING" in done.stdout


def test_a_new_read_model_table_appears_on_a_migrated_database(tmp_path: Path) -> None:
    """A release that adds a view's table needs no numbered migration: every run also
    creates whatever the views declare and is missing."""
    import sqlite3

    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    db = parse_database_url(url)
    assert migrate(db) == list(range(1, LATEST + 1))
    path = db.view_sqlite_path("scoreboard")
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE boards")  # as if this release had just added it
    conn.commit()
    conn.close()
    assert migrate(db) == []
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'boards'").fetchone()
    finally:
        conn.close()

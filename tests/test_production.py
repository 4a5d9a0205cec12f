"""The service as deployed, in real processes: `db migrate` (the Job), a server with two
worker processes and the projection worker, all in production mode against PostgreSQL
with the Kubernetes ConfigMap's settings; then graceful shutdown on SIGTERM."""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
API = "/api/v1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def configmap_env() -> dict[str, str]:
    doc = yaml.safe_load((ROOT / "deploy" / "k8s" / "configmap.yaml").read_text())
    return {k: str(v) for k, v in doc["data"].items()}


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMELEDGER_", "PROMETHEUS_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


class Http:
    def __init__(self, url: str) -> None:
        self.url = url

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        request_id: str | None = None,
    ) -> tuple[int, Any, dict[str, str]]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)  # noqa: S310
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        if request_id:
            req.add_header("X-Request-ID", request_id)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310
                raw = r.read()
                status, headers = r.status, dict(r.headers)
        except urllib.error.HTTPError as err:
            raw, status, headers = err.read(), err.code, dict(err.headers)
        ctype = headers.get("content-type", "")
        return status, (json.loads(raw) if "json" in ctype and raw else raw.decode()), headers

    def wait(self, path: str, *, status: int = 200, seconds: float = 60) -> Any:
        deadline = time.monotonic() + seconds
        last: Any = None
        while time.monotonic() < deadline:
            try:
                code, body, _ = self.call("GET", path)
                if code == status:
                    return body
                last = body
            except OSError as exc:
                last = exc
            time.sleep(0.2)
        pytest.fail(f"{path} did not answer {status} in {seconds}s: {last}")


def stop(proc: subprocess.Popen[Any], seconds: float = 40) -> tuple[int, float]:
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"no exit {seconds}s after SIGTERM")
    return code, time.monotonic() - t0


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
@pytest.mark.postgres
def test_production_deployment_on_postgres_with_two_server_processes_and_a_worker(
    pg_url: str, tmp_path: Path
) -> None:
    env = base_env() | configmap_env()
    env |= {
        "GAMELEDGER_DATABASE_URL": pg_url,
        "GAMELEDGER_ADMIN_TOKEN": secrets.token_urlsafe(32),
        "GAMELEDGER_SIGNING_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
        "GAMELEDGER_DIGEST_INTERVAL": "0",
    }
    assert env["GAMELEDGER_ENV"] == "production" and env["GAMELEDGER_INIT_DB"] == "false"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["gameledger", *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )

    job = run("db", "migrate")  # what the Kubernetes Job runs
    assert job.returncode == 0 and "applied migration 3" in job.stdout, job.stdout + job.stderr
    port = free_port()
    server_log = tmp_path / "server.log"
    server = subprocess.Popen(
        ["gameledger", "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "2"],
        env=env,
        cwd=tmp_path,
        stdout=server_log.open("w"),
        stderr=subprocess.STDOUT,
    )
    worker_log = tmp_path / "worker.log"
    worker = subprocess.Popen(
        ["gameledger", "projections", "run"],
        env=env,
        cwd=tmp_path,
        stdout=worker_log.open("w"),
        stderr=subprocess.STDOUT,
    )
    http = Http(f"http://127.0.0.1:{port}")
    try:
        assert http.wait("/live") == {"status": "alive"}
        ready = http.wait("/ready")
        assert ready["database"] == "postgres" and ready["reasons"] == []
        # /ready is answered by whichever process started first: wait (with a deadline) for the
        # second too, so that either may answer what follows (a CI run read the log before the
        # second had started)
        deadline = time.monotonic() + 60
        while server_log.read_text().count("Application startup complete") < 2:
            assert server.poll() is None, server_log.read_text()[-2000:]
            assert time.monotonic() < deadline, "the second server process did not start"
            time.sleep(0.1)

        # a game played over HTTP, every request with our own id
        ids: list[str] = []

        def call(method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
            rid = f"test-{len(ids)}-{secrets.token_hex(4)}"
            ids.append(rid)
            code, out, headers = http.call(method, path, body, token, rid)
            assert headers.get("x-request-id") == rid
            return code, out

        players = [call("POST", f"{API}/players", {"name": f"P{i}"})[1] for i in range(3)]
        code, game = call("POST", f"{API}/games", {"title": "cotton-trade", "seats": 3}, players[0]["token"])
        assert code == 201, game
        for p in players[1:]:
            assert call("POST", f"{API}/games/{game['game_id']}/join", None, p["token"])[0] == 200
        accepted = 0
        stale = None
        for _ in range(12):
            _, g = call("GET", f"{API}/games/{game['game_id']}", None, players[0]["token"])
            seat = g["awaiting"][0]["seat"]
            _, mine = call("GET", f"{API}/games/{game['game_id']}", None, players[seat]["token"])
            body = {"expected_version": mine["version"], "decision": mine["legal_decisions"][0]}
            code, out = call("POST", f"{API}/games/{game['game_id']}/decisions", body, players[seat]["token"])
            assert code == 200, out
            accepted += 1
            stale = (body, players[seat]["token"])
        assert stale is not None
        code, out = call("POST", f"{API}/games/{game['game_id']}/decisions", stale[0], stale[1])
        assert code == 409, out

        # the worker catches the read models up (the servers run none: GAMELEDGER_PROJECTIONS=off)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            lags = http.call("GET", "/ready")[1]["projections_lag"]
            if lags and all(v == 0 for v in lags.values()):
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"the worker did not catch up: {lags}")

        # metrics: the same totals whichever of the two processes answers
        totals = set()
        for _ in range(6):
            code, text, headers = http.call("GET", "/metrics")
            assert code == 200 and headers["content-type"].startswith("text/plain")
            got = re.findall(r'^gameledger_decisions_total\{outcome="(\w+)"\} (\S+)$', text, re.M)
            totals.add(tuple(sorted(got)))
            assert re.search(r'^gameledger_projection_lag_events\{projection="gameindex"\} 0\.0$', text, re.M)
            assert 'route="/api/v1/games/{game_id}/decisions"' in text
        assert totals == {(("accepted", f"{float(accepted)}"), ("conflict", "1.0"))}, totals

        # logs: one JSON object per line, our request ids in the access lines
        lines = [json.loads(line) for line in server_log.read_text().splitlines() if line.strip()]
        access = {x["request_id"]: x for x in lines if x["logger"] == "gameledger.access"}
        assert set(ids) <= set(access), set(ids) - set(access)
        decision = next(
            x for x in access.values() if x["method"] == "POST" and x["path"].endswith("/decisions")
        )
        assert decision["route"] == "/api/v1/games/{game_id}/decisions" and decision["duration_ms"] > 0
        assert {"time", "level", "logger", "message"} <= set(lines[0])
        pids = {x["message"] for x in lines if "Started server process" in x["message"]}
        assert len(pids) == 2, "two server processes"

        # SIGTERM: both stop cleanly within the grace period
        code, seconds = stop(server)
        assert code == 0, server_log.read_text()[-2000:]
        assert seconds < 25
        code, seconds = stop(worker)
        assert code == 0, worker_log.read_text()[-2000:]
        assert seconds < 10
        assert "projections worker stopping" in worker_log.read_text()
        status = run("projections", "status")
        rows = [ln.split() for ln in status.stdout.splitlines()[1:]]
        assert rows and all(r[-1] == "0" for r in rows), status.stdout  # every batch committed
        resumed = run("projections", "run", "--once", "--verbose")
        assert resumed.returncode == 0 and not re.search(r": \+\d+", resumed.stdout), (
            resumed.stdout
        )  # nothing redone
    finally:
        for proc in (server, worker):
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_sigterm_lets_an_in_flight_request_finish_then_exits_zero(tmp_path: Path) -> None:
    port = free_port()
    env = base_env() | {
        "GAMELEDGER_DATA_DIR": str(tmp_path / "data"),
        "GAMELEDGER_SHUTDOWN_TIMEOUT": "15",
        "GAMELEDGER_CLOCK_INTERVAL": "1",
        "GAMELEDGER_WEBHOOK_INTERVAL": "1",
    }
    log = tmp_path / "server.log"
    server = subprocess.Popen(
        ["gameledger", "serve", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    http = Http(f"http://127.0.0.1:{port}")
    try:
        http.wait("/ready")
        body = json.dumps({"name": "Slow Sam"}).encode()
        slow = socket.create_connection(("127.0.0.1", port), timeout=30)
        # a first request answered on this connection: the server has taken it up
        slow.sendall(b"GET /live HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while b"\r\n\r\n" not in first:
            first += slow.recv(65536)
        head, _, rest = first.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
        while len(rest) < length:
            rest += slow.recv(65536)
        assert head.startswith(b"HTTP/1.1 200"), first[:300]
        slow.sendall(
            f"POST {API}/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"X-Request-ID: slow-1\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body[:5]
        )
        time.sleep(0.5)  # the request is in flight: headers in, body half sent
        t0 = time.monotonic()
        server.send_signal(signal.SIGTERM)
        refused = time.monotonic() + 20  # no new connections once shutting down (however loaded the machine)
        while True:
            try:
                http.call("GET", "/live")
            except OSError:
                break
            assert time.monotonic() < refused, "a new connection was still answered 20 s after SIGTERM"
            time.sleep(0.05)
        assert server.poll() is None, "the process waits for the request in flight"
        slow.sendall(body[5:])
        response = b""
        while chunk := slow.recv(65536):
            response += chunk
        slow.close()
        head, _, payload = response.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 201"), response[:300]
        assert b"x-request-id: slow-1" in head.lower()
        assert json.loads(payload)["name"] == "Slow Sam"
        code = server.wait(timeout=20)
        elapsed = time.monotonic() - t0
        assert code == 0 and elapsed < 15, (code, elapsed, log.read_text()[-2000:])
        lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        assert any(x.get("request_id") == "slow-1" and x.get("status") == 201 for x in lines)
        assert lines[-1]["message"] == "stopped"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
def test_a_worker_stopped_by_sigterm_mid_backlog_exits_zero_and_a_restart_double_counts_nothing(
    tmp_path: Path,
) -> None:
    from api.services import Services
    from api.settings import Settings
    from tests.test_projections import dump, dump_after_rebuild, play_league

    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    services = Services.start(Settings(database_url=url, admin_token="x" * 30))
    try:
        play_league(services, games=3)
        env = base_env() | {"GAMELEDGER_DATABASE_URL": url, "GAMELEDGER_PROJECTION_BATCH": "2"}
        before = services.lags()
        worker = subprocess.Popen(
            ["gameledger", "projections", "run", "--interval", "0.05"],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120  # stopped right after its first progress, however late that is
        while not any(services.lags()[n] < before[n] for n in before):
            assert time.monotonic() < deadline and worker.poll() is None, "the worker made no progress"
            time.sleep(0.01)
        code, seconds = stop(worker, seconds=20)
        assert code == 0 and seconds < 5, (code, seconds)
        assert any(lag > 0 for lag in services.lags().values()), "stopped with work left to do"
        done = subprocess.run(
            ["gameledger", "projections", "run", "--once"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert all(lag == 0 for lag in services.lags().values())
        assert dump(services) == dump_after_rebuild(services)
    finally:
        services.close()

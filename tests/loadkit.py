"""Real server processes, a private PostgreSQL, and many HTTP clients: the harness of the
multi-process, crash-safety, database-fault and backup tests.

``Server`` runs ``gameledger serve`` (and ``projection_worker`` runs ``gameledger
projections run``) as a subprocess in its own session (process group), so that a test
can SIGKILL one uvicorn worker (the supervisor respawns it), the whole server, or the
worker. ``PrivatePostgres`` is a throwaway PostgreSQL cluster of the test's own
(initdb in a temporary directory, run as the ``postgres`` OS user), which a test may
stop, crash and restart without touching anybody else's server. ``Api`` is one HTTP
client (its own connection pool) that never raises for a status: every answer is
recorded by the caller. ``play`` drives seats of games from many threads at once and
records every attempt; ``check_ledger`` then proves, from the store itself, that the
streams are gapless, that every acknowledged decision is there exactly once and that
nothing refused was written, and replays every game through its rules.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
API = "/api/v1"
ADMIN_TOKEN = "load-test-admin-token-0123456789abcdef"  # noqa: S105 - a test fixture
DECISION = "gameledger.game.decision_recorded"
PG_BIN = Path(os.environ.get("GAMELEDGER_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(database_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a server or worker: no background schedulers, small pools."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMELEDGER_")}
    env |= {
        "GAMELEDGER_DATABASE_URL": database_url,
        "GAMELEDGER_DATA_DIR": str(data_dir),
        "GAMELEDGER_ADMIN_TOKEN": ADMIN_TOKEN,
        "GAMELEDGER_CLOCK_INTERVAL": "0",
        "GAMELEDGER_WEBHOOK_INTERVAL": "0",
        "GAMELEDGER_DIGEST_INTERVAL": "0",
        "GAMELEDGER_POOL_SIZE": "3",
        "GAMELEDGER_SIGNUP_RATE": "0",  # load from one address and one token per seat
        "GAMELEDGER_DECISION_RATE": "0",
        "GAMELEDGER_STREAMS_PER_PLAYER": "0",  # thousands of watchers with one token ...
        "GAMELEDGER_STREAMS_PER_CLIENT": "0",  # ... from this one address
    }
    return env | extra


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text.rsplit(")", 1)[-1].split()
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


class Process:
    """A subprocess in its own session (process group), its output appended to a log file."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.argv = argv
        self.env = env
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            out.write(f"\n--- start {' '.join(self.argv[1:])} ---\n".encode())
            out.flush()
            self.proc = subprocess.Popen(
                self.argv, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9 the whole process group (the server and every one of its workers)."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc = None

    def stop(self, timeout: float = 20) -> None:
        """SIGTERM, then SIGKILL whatever is left of the group."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout)
        self.kill()

    def wait_for_output(self, text: str, wait: float = 60) -> None:
        """Wait until the process has printed ``text`` (e.g. a worker's ready line)."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"{self.argv[1]} exited:\n{self.tail()}")
            start = self.log.read_text(errors="replace").rfind("--- start ")
            if text in self.log.read_text(errors="replace")[start:]:
                return
            time.sleep(0.05)
        raise RuntimeError(f"{self.argv[1]} did not print {text!r} in {wait}s:\n{self.tail()}")

    def tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class Server(Process):
    """``gameledger serve --workers N`` on a free (or given) port."""

    def __init__(self, env: dict[str, str], log: Path, workers: int = 1, port: int | None = None) -> None:
        self.port = port or free_port()
        self.workers = workers
        argv = [str(BIN / "gameledger"), "serve", "--port", str(self.port), "--workers", str(workers)]
        super().__init__([*argv, "--log-level", "warning"], env, log)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, wait: float | None = 90) -> None:  # type: ignore[override]
        """Start, and (unless ``wait`` is None) wait until it answers /health."""
        super().start()
        if wait is not None:
            self.wait_ready(wait)

    def wait_ready(self, wait: float = 90) -> None:
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"the server exited:\n{self.tail()}")
            status, _ = http_get(self.url, "/health", timeout=5)
            if status == 200 and (self.workers == 1 or len(self.worker_pids()) == self.workers):
                return
            time.sleep(0.1)
        raise RuntimeError(f"the server did not become ready in {wait}s:\n{self.tail()}")

    def worker_pids(self) -> list[int]:
        """The uvicorn worker processes (spawned children of the supervisor)."""
        if not self.alive():
            return []
        if self.workers == 1:
            return [self.pid]
        return [p for p in _children(self.pid) if "spawn_main" in _cmdline(p)]

    def kill_worker(self, rnd: random.Random) -> int:
        """kill -9 one uvicorn worker; the supervisor starts another in its place."""
        pid = rnd.choice(self.worker_pids())
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        return pid


def start_all(servers: list[Server], wait: float = 90) -> None:
    """Start several servers side by side, then wait for each."""
    for s in servers:
        s.start(wait=None)
    for s in servers:
        s.wait_ready(wait)


class ProjectionWorker(Process):
    """``gameledger projections run``; ``start`` waits until it runs (``wait=None``: not)."""

    def start(self, wait: float | None = 60) -> None:  # type: ignore[override]
        super().start()
        if wait is not None:
            self.wait_for_output("projections worker:", wait)


def projection_worker(env: dict[str, str], log: Path) -> ProjectionWorker:
    argv = [str(BIN / "gameledger"), "projections", "run", "--interval", "0.1"]
    return ProjectionWorker(argv, env, log)


def run_cli(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "gameledger"), *args], env=env, capture_output=True, text=True, timeout=timeout
    )


# -- a private PostgreSQL ---------------------------------------------------------------


def private_postgres_problem() -> str | None:
    """Why no private PostgreSQL can be made here (None: it can)."""
    for tool in ("initdb", "pg_ctl", "postgres"):
        if not (PG_BIN / tool).exists():
            return f"no {PG_BIN / tool}"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres OS user to run initdb"
    return None


class PrivatePostgres:
    """A PostgreSQL cluster of our own in a temporary directory (trust auth, loopback only).

    initdb refuses to run as root, so as root the cluster belongs to the ``postgres`` OS user
    and every ``pg_ctl`` runs through ``runuser``. ``stop(mode="immediate")`` is a crash:
    the next start runs WAL recovery.
    """

    def __init__(self, max_connections: int = 200) -> None:
        self.port = free_port()
        self.max_connections = max_connections
        self.root = Path(tempfile.mkdtemp(prefix="gameledger-pg-"))
        self.data = self.root / "data"
        self.logfile = self.root / "postgres.log"
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")

    def _run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        cmd = list(argv)
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=self.root)

    def init(self) -> PrivatePostgres:
        r = self._run(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
            "--no-sync",
        )  # fmt: skip
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed: {r.stdout}\n{r.stderr}")
        return self

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            f"-c max_connections={self.max_connections} -c fsync=off -c full_page_writes=off"
        )
        r = self._run(
            str(PG_BIN / "pg_ctl"), "start", "-D", str(self.data), "-w", "-t", "60",
            "-l", str(self.logfile), "-o", options,
        )  # fmt: skip
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {r.stdout}\n{r.stderr}\n{self.log_tail()}")

    def stop(self, mode: str = "fast") -> None:
        """``fast`` (a clean shutdown, clients disconnected) or ``immediate`` (a crash)."""
        self._run(str(PG_BIN / "pg_ctl"), "stop", "-D", str(self.data), "-m", mode, "-w", "-t", "60")

    def running(self) -> bool:
        return self._run(str(PG_BIN / "pg_ctl"), "status", "-D", str(self.data)).returncode == 0

    def destroy(self) -> None:
        if self.data.exists() and self.running():
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.logfile.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def url(self, dbname: str = "postgres", schema: str | None = None) -> str:
        base = f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"
        return f"{base}?schema={schema}" if schema else base

    def conninfo(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"


@contextlib.contextmanager
def private_postgres(max_connections: int = 200) -> Iterator[PrivatePostgres]:
    pg = PrivatePostgres(max_connections).init()
    try:
        pg.start()
        yield pg
    finally:
        pg.destroy()


@dataclass
class PgTarget:
    """Where the load tests put their schemas and databases: a private cluster, or (without
    PostgreSQL's binaries) the shared server. Everything made here is dropped at the end."""

    host: str
    port: int
    dbname: str
    user: str = "postgres"
    private: PrivatePostgres | None = None
    made_schemas: list[str] = field(default_factory=list)
    made_databases: list[str] = field(default_factory=list)

    def url(self, schema: str | None = None, dbname: str | None = None) -> str:
        base = f"postgresql://{self.user}@{self.host}:{self.port}/{dbname or self.dbname}"
        return f"{base}?schema={schema}" if schema else base

    def conninfo(self, dbname: str | None = None) -> str:
        return f"host={self.host} port={self.port} user={self.user} dbname={dbname or self.dbname}"

    def new_schema_url(self) -> str:
        schema = "load_" + uuid.uuid4().hex[:12]
        self.made_schemas.append(schema)
        return self.url(schema)

    def new_database(self) -> str:
        import psycopg

        name = "gl_restore_" + uuid.uuid4().hex[:10]
        with psycopg.connect(self.conninfo(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self.made_databases.append(name)
        return name

    def cleanup(self) -> None:
        import psycopg

        with contextlib.suppress(psycopg.Error), psycopg.connect(self.conninfo(), autocommit=True) as conn:
            for schema in self.made_schemas:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            for name in self.made_databases:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def postgres_for_load(shared_url: str, shared_problem: str | None, in_ci: bool) -> Iterator[PgTarget]:
    """A private PostgreSQL cluster if this machine has the binaries (the load tests open
    many connections and must not crowd a shared server), else the shared server."""
    import pytest

    if private_postgres_problem() is None:
        with private_postgres() as pg:
            yield PgTarget("127.0.0.1", pg.port, "postgres", private=pg)
        return
    if shared_problem is not None:
        if in_ci:
            pytest.fail(f"PostgreSQL is mandatory under CI and did not answer: {shared_problem}")
        pytest.skip(f"no PostgreSQL: {shared_problem}")
    from ledger.storage import parse_database_url

    db = parse_database_url(shared_url)
    target = PgTarget(db.host, db.port, db.dbname, db.user)
    try:
        yield target
    finally:
        target.cleanup()


# -- clients -------------------------------------------------------------------------


def http_get(base_url: str, path: str, timeout: float = 10) -> tuple[int, Any]:
    """One GET on a fresh connection (status 0: no answer)."""
    api = Api(base_url, timeout=timeout, prefix="")
    try:
        return api.call("GET", path)
    finally:
        api.close()


class Api:
    """One HTTP/1.1 client on one kept-alive connection (the standard library's), for one
    thread. Transport errors come back as status 0 (no answer); the connection is then
    dropped and the next call opens a new one."""

    def __init__(self, base_url: str, timeout: float = 30, prefix: str = API) -> None:
        self.base_url = base_url
        self.prefix = prefix
        host, _, port = base_url.removeprefix("http://").partition(":")
        self.host, self.port = host, int(port or 80)
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.headers: dict[str, str] = {}  # of the last answer

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(
        self, method: str, path: str, token: str | None = None, body: Any = None, key: str | None = None
    ) -> tuple[int, bytes]:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if key:
            headers["Idempotency-Key"] = key
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self.conn.request(method, self.prefix + path, body=data, headers=headers)
            r = self.conn.getresponse()
            payload = r.read()
            self.headers = {k.lower(): v for k, v in r.getheaders()}
            if r.getheader("connection", "").lower() == "close":
                self.close()
            return r.status, payload
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            return 0, json.dumps({"code": "transport", "message": f"{type(exc).__name__}: {exc}"}).encode()

    def call(
        self, method: str, path: str, token: str | None = None, body: Any = None, key: str | None = None
    ) -> tuple[int, Any]:
        status, payload = self.request(method, path, token, body, key)
        try:
            return status, json.loads(payload)
        except ValueError:
            return status, payload.decode(errors="replace")

    def export(self, game_id: str, token: str = ADMIN_TOKEN) -> list[str]:
        status, payload = self.request("GET", f"/games/{game_id}/export", token)
        assert status == 200, payload[:500]
        return payload.decode().splitlines()


def must(answer: tuple[int, Any], status: int = 200) -> Any:
    code, body = answer
    assert code == status, f"{code}: {body}"
    return body


@dataclass
class Table:
    """A game and its players' tokens (seat i holds tokens[i])."""

    game_id: str
    tokens: list[str]
    players: list[str] = field(default_factory=list)


def open_tables(api: Api, n_games: int, seats: int = 3) -> list[Table]:
    """``n_games`` full tables of Cotton Trade through a running server (players registered over
    HTTP, games created by the operator). ``prepare_tables`` makes tables of any title, options
    and league before any server runs."""
    tables = []
    for g in range(n_games):
        people = [must(api.call("POST", "/players", body={"name": f"G{g}P{i}"}), 201) for i in range(seats)]
        body = {"title": "cotton-trade", "players": [p["player_id"] for p in people], "options": {}}
        game = must(api.call("POST", "/games", ADMIN_TOKEN, body=body), 201)
        tables.append(Table(game["game_id"], [p["token"] for p in people], [p["player_id"] for p in people]))
    return tables


# -- many clients at once ------------------------------------------------------------------


@dataclass
class Attempt:
    """One POST of a decision and its answer (status 0: no answer, e.g. the server died)."""

    game_id: str
    seat: int
    player: str
    expected_version: int
    decision: dict[str, Any]
    key: str
    status: int
    code: str = ""
    first_version: int | None = None
    version: int | None = None
    replayed: bool = False
    retry: int = 0  # 0: the first try of this key; n: the n-th retry after no answer
    at: float = field(default_factory=time.monotonic)  # when the answer came
    took: float = 0.0  # seconds from sending to the answer
    retry_after: str = ""  # the answer's Retry-After header


def request_hash(expected_version: int, decision: dict[str, Any]) -> str:
    """What the ledger stores with an Idempotency-Key (ledger.application.Ledger.decide)."""
    from ledger.canonical import canonical, sha256_hex

    return sha256_hex(canonical({"v": expected_version, "d": decision, "s": None}))


AUCTION = ("bid", "pass_bid")


def prepare_tables(
    database_url: str,
    n_games: int,
    *,
    seats: int = 3,
    title: str = "cotton-trade",
    options: dict[str, Any] | None = None,
    until: tuple[str, ...] = (),
    max_decisions: int | None = None,
    league: str | None = None,
    seed: int = 1,
) -> tuple[list[Table], list[Attempt]]:
    """Full tables made in this process, straight through the ledger (fast, before any server
    runs), each played with random legal decisions until a decision of a type in ``until``
    is legal for the awaited seat (e.g. an auction is open) or ``max_decisions`` were made,
    then handed to the clients.
    The decisions made here carry Idempotency-Keys too, returned as acknowledged attempts."""
    from api.services import initialise
    from api.settings import Settings
    from api.storage import build_ledger
    from ledger.storage import parse_database_url

    settings = Settings(database_url=database_url, admin_token=ADMIN_TOKEN)
    db = initialise(settings)
    ledger = build_ledger(parse_database_url(database_url, pool_size=2))
    rnd = random.Random(seed)
    tables: list[Table] = []
    made: list[Attempt] = []
    try:
        if league:
            from ledger.errors import NotFoundError

            try:
                ledger.get_league(league)
            except NotFoundError:
                ledger.create_league(creator="admin", name=league, title=title)
        for g in range(n_games):
            people = [ledger.register_player(f"G{g}P{i}") for i in range(seats)]
            ids = [str(pid) for pid, _ in people]
            game = ledger.create_game(
                creator="admin", title=title, options=options or {}, players=ids, join=False, league=league
            )
            for _ in range(max_decisions if max_decisions is not None else (2000 if until else 0)):
                game = ledger.get_game(game.id)
                if game.status != "active":
                    break
                seat = rnd.choice(game.awaiting)
                legal = [d.model_dump(mode="json") for d in game.engine.legal_decisions(game.state, seat)]
                if until and any(d["type"] in until for d in legal):
                    break
                decision = rnd.choice(legal)
                key = f"prep-{uuid.uuid4().hex}"
                res = ledger.decide(game.id, ids[seat], game.version, decision, idempotency_key=key)
                made.append(
                    Attempt(
                        str(game.id), seat, ids[seat], res.first_version - 1, decision, key, 200,
                        first_version=res.first_version, version=res.version,
                    )
                )  # fmt: skip
            tables.append(Table(str(game.id), [t for _, t in people], ids))
    finally:
        ledger.close()
    del db
    return tables, made


@dataclass
class LoadResult:
    attempts: list[Attempt] = field(default_factory=list)
    reads: Counter[int] = field(default_factory=Counter)  # status of every GET of a game
    # every GET of a game: (when answered, status, error code, seconds taken, Retry-After)
    read_log: list[tuple[float, int, str, float, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def statuses(self) -> Counter[int]:
        return Counter(a.status for a in self.attempts)

    def accepted(self) -> list[Attempt]:
        return [a for a in self.attempts if 200 <= a.status < 300]


def play(
    urls: list[str],
    tables: list[Table],
    *,
    clients_per_seat: int = 2,
    seconds: float = 10.0,
    max_attempts: int = 100_000,
    same_share: float = 0.5,
    shared_key_share: float = 0.5,
    stale_share: float = 0.05,
    retry_unanswered: bool = False,
    seed: int = 1,
) -> LoadResult:
    """Every seat of every table played by ``clients_per_seat`` threads at once (two browser
    tabs of one player), each on a random server of ``urls``, until the time or the attempts
    run out or every game is over.

    A client reads the game; when its seat is awaited it sends a legal decision: half of the
    time the *same* one as its twin tab (identical requests at one version), sometimes even
    with the same Idempotency-Key; otherwise one of its own choosing. Now and then a client
    sends a decision on a version it knows is stale. Every POST carries an Idempotency-Key,
    so that each event in the store can be traced back to the request that wrote it. With
    ``retry_unanswered`` a POST that got no answer (the server was killed) is sent again
    with the same key until it gets one, as a careful client would.
    """
    result = LoadResult()
    lock = threading.Lock()
    stop = threading.Event()
    deadline = time.monotonic() + seconds
    budget = [max_attempts]
    started = time.monotonic()

    def record(a: Attempt) -> None:
        with lock:
            result.attempts.append(a)
            budget[0] -= 1
            if budget[0] <= 0:
                stop.set()

    def client(table: Table, seat: int, twin: int) -> None:
        rnd = random.Random(f"{seed}:{table.game_id}:{seat}:{twin}")
        apis = {u: Api(u, timeout=30) for u in urls}
        token = table.tokens[seat]
        player = table.players[seat]
        try:
            while not stop.is_set() and time.monotonic() < deadline:
                api = apis[rnd.choice(urls)]
                asked = time.monotonic()
                status, game = api.call("GET", f"/games/{table.game_id}", token)
                now = time.monotonic()
                with lock:
                    result.reads[status] += 1
                    result.read_log.append(
                        (now, status, _code(game), now - asked, api.headers.get("retry-after", ""))
                    )
                if status != 200:
                    time.sleep(0.05)
                    continue
                if game["status"] != "active":
                    return
                version = game["version"]
                mine = seat in [s["seat"] for s in game["awaiting"]]
                if not mine:
                    if rnd.random() < stale_share and version > 1:
                        # a decision on a version that is already gone: refused, nothing written
                        key = f"stale-{uuid.uuid4().hex}"
                        body = {"expected_version": version - 1, "decision": {"type": "pass"}}
                        asked = time.monotonic()
                        code, answer = api.call("POST", f"/games/{table.game_id}/decisions", token, body, key)
                        a = Attempt(
                            table.game_id,
                            seat,
                            player,
                            version - 1,
                            body["decision"],
                            key,
                            code,
                            _code(answer),
                        )
                        a.took = time.monotonic() - asked
                        a.retry_after = api.headers.get("retry-after", "") if code else ""
                        record(a)
                    time.sleep(0.01 + rnd.random() * 0.02)
                    continue
                if rnd.random() < same_share:
                    salt = "same"
                    key = (
                        f"same-{seat}-{version}"
                        if rnd.random() < shared_key_share
                        else f"{twin}-{uuid.uuid4().hex}"
                    )
                else:
                    salt, key = f"own-{twin}-{rnd.random()}", f"{twin}-{uuid.uuid4().hex}"
                decision = decision_for(game, salt)
                body = {"expected_version": version, "decision": decision}
                retry = 0
                while True:
                    asked = time.monotonic()
                    code, answer = api.call("POST", f"/games/{table.game_id}/decisions", token, body, key)
                    a = Attempt(table.game_id, seat, player, version, decision, key, code, _code(answer))
                    a.retry = retry
                    a.took = time.monotonic() - asked
                    a.retry_after = api.headers.get("retry-after", "") if code else ""
                    if 200 <= code < 300:
                        a.first_version = answer["first_version"]
                        a.version = answer["version"]
                        a.replayed = bool(answer.get("replayed"))
                    record(a)
                    if code not in UNANSWERED or not retry_unanswered or time.monotonic() > deadline + 60:
                        break
                    retry += 1
                    time.sleep(0.2)
                    api = apis[rnd.choice(urls)]
        except Exception as exc:  # a bug in the harness must fail the test, not vanish
            with lock:
                result.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            for a in apis.values():
                a.close()

    threads = [
        threading.Thread(target=client, args=(t, seat, twin), daemon=True)
        for t in tables
        for seat in range(len(t.tokens))
        for twin in range(clients_per_seat)
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join(seconds + 180)
    stop.set()
    result.seconds = time.monotonic() - started
    return result


UNANSWERED = (0, 503)  # no answer, or "try again": the request may or may not have been written


def _code(answer: Any) -> str:
    if isinstance(answer, dict):
        return str(answer.get("code", ""))
    return ""


def decision_for(game: dict[str, Any], salt: str) -> dict[str, Any]:
    """A legal decision chosen from the game's version and a salt: clients using the same
    salt choose the same decision (identical requests), different salts usually differ."""
    legal = game["legal_decisions"]
    return legal[random.Random(f"{salt}:{game['game_id']}:{game['version']}").randrange(len(legal))]  # type: ignore[no-any-return]


def export_records(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines[1:] if line.strip()]


# -- what the store says ----------------------------------------------------------------------


@dataclass
class LedgerCheck:
    games: int = 0
    events: int = 0
    decisions: int = 0
    finished: int = 0
    acknowledged: int = 0  # distinct keys answered 2xx
    unanswered_written: int = 0  # keys that got no answer yet were recorded (exactly once)
    replayed_after_no_answer: int = 0  # keys written, unanswered, whose retry was answered as a replay
    refused: int = 0  # 409 and 403 answers
    problems: list[str] = field(default_factory=list)


def check_ledger(
    database_url: str, tables: list[Table], result: LoadResult, *, unanswered_may_be_written: bool = False
) -> LedgerCheck:
    """Read every game straight from the store and hold it against every answer given.

    - every stream is gapless (versions 1..n), its hash chain intact, and a full replay
      (every draw from the seed, every stored digest, conservation) passes;
    - every decision event carries the Idempotency-Key of a request, no key twice;
    - every request answered 2xx is in the store exactly once, at the version it was
      told, with the content it sent (the stored request hash);
    - every request refused (409, 403) wrote nothing (unless the same key was accepted by
      another request), and every event belongs to an acknowledged request (or, after
      crashes, to one that never got an answer: written whole, exactly once).
    """
    from api.storage import build_ledger
    from ledger.audit import audit_game
    from ledger.storage import parse_database_url

    out = LedgerCheck()
    ledger = build_ledger(parse_database_url(database_url, pool_size=2))
    try:
        by_key: dict[tuple[str, str], list[Attempt]] = {}
        for a in result.attempts:
            by_key.setdefault((a.game_id, f"{a.player}:{a.key}"), []).append(a)
        for table in tables:
            out.games += 1
            events = list(ledger.events.get(uuid.UUID(table.game_id)))
            out.events += len(events)
            versions = [e.originator_version for e in events]
            if versions != list(range(1, len(events) + 1)):
                out.problems.append(f"{table.game_id}: versions {versions[:5]}... are not gapless")
            keys: Counter[str] = Counter()
            at_version: dict[int, tuple[str, str, int]] = {}
            for e in events:
                if type(e).TOPIC != DECISION:
                    continue
                out.decisions += 1
                req = e.private.get("server", {}).get("request")
                if not req:
                    out.problems.append(f"{table.game_id} v{e.originator_version}: a decision without a key")
                    continue
                keys[req["key"]] += 1
                at_version[e.originator_version] = (req["key"], req["hash"], e.public["seat"])
                if (table.game_id, req["key"]) not in by_key:
                    out.problems.append(
                        f"{table.game_id} v{e.originator_version}: key {req['key']} sent by nobody"
                    )
            out.problems += [f"{table.game_id}: key {k} recorded {n} times" for k, n in keys.items() if n > 1]
            if events and type(events[-1]).TOPIC == "gameledger.game.finished":
                out.finished += 1
            for (gid, key), tries in by_key.items():
                if gid != table.game_id:
                    continue
                answered = [a for a in tries if 200 <= a.status < 300]
                statuses = {a.status for a in tries}
                if answered:
                    out.acknowledged += 1
                    if statuses & set(UNANSWERED) and any(a.replayed for a in answered):
                        out.replayed_after_no_answer += 1
                    for a in answered:
                        got = at_version.get(a.first_version or -1)
                        if got is None or got[0] != key:
                            out.problems.append(
                                f"{gid}: {key} acknowledged at v{a.first_version}, stored {got}"
                            )
                        elif got[1] != request_hash(a.expected_version, a.decision) or got[2] != a.seat:
                            out.problems.append(
                                f"{gid}: {key} stored with another content at v{a.first_version}"
                            )
                    if keys[key] != 1:
                        out.problems.append(f"{gid}: acknowledged {key} recorded {keys[key]} times")
                elif keys[key]:
                    if statuses & set(UNANSWERED) and unanswered_may_be_written:
                        out.unanswered_written += 1
                    else:
                        out.problems.append(f"{gid}: {key} refused ({sorted(statuses)}) yet recorded")
                out.refused += sum(1 for a in tries if a.status in (403, 409))
            audit = audit_game(ledger, table.game_id, None, full_view=True)
            failed = [c for c in audit["checks"] if not c["ok"]]
            if failed:
                out.problems.append(f"{table.game_id}: audit failed {failed}")
    finally:
        ledger.close()
    return out


def ledger_head(database_url: str) -> int:
    from api.storage import build_ledger
    from ledger.storage import parse_database_url

    ledger = build_ledger(parse_database_url(database_url, pool_size=1))
    try:
        return ledger.recorder.max_notification_id() or 0
    finally:
        ledger.close()


def wait_caught_up(database_url: str, timeout: float = 60) -> dict[str, int]:
    """Wait until every read model has seen the whole log (a worker is running)."""
    head = ledger_head(database_url)
    deadline = time.monotonic() + timeout
    while True:
        positions = {name: m["position"] for name, m in read_models(database_url).items()}
        if all(p >= head for p in positions.values()) or time.monotonic() > deadline:
            return positions
        time.sleep(0.2)


def read_models(database_url: str, names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Every row of every read model's tables (and its position), for comparing a model
    caught up incrementally with one rebuilt from the events."""
    from api.services import PROJECTIONS
    from ledger.storage import parse_database_url
    from projections.base import build_view

    db = parse_database_url(database_url, pool_size=2)
    out: dict[str, Any] = {}
    for name in names or tuple(PROJECTIONS):
        view = build_view(PROJECTIONS[name][1], db)
        try:
            tables = {}
            for t in view.TABLE_NAMES:
                rows = view.rows(f"SELECT * FROM {view.t(t)}")
                tables[t] = sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)
            out[name] = {"position": view.position("Ledger"), "tables": tables}
        finally:
            view.datastore.close()
    return out

"""Shared fixtures: every store-dependent test runs against SQLite and PostgreSQL.

PostgreSQL tests run whenever a server answers at GAMELEDGER_TEST_DATABASE_URL
(default: the local server's ``test`` database). Under CI (CI=true) they are
mandatory: an unreachable server fails them instead of skipping them.
"""

from __future__ import annotations

import functools
import os
import random
import secrets
import shutil
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services, initialise
from api.settings import Settings
from api.storage import build_ledger
from ledger.application import Ledger
from ledger.storage import parse_database_url
from tests.pgpool import SchemaPool

# The browser tests' fixtures (Chromium, the real server, the people at the table), by name
# in every test module that asks for them; the default run's time marks (tests/timekeeper.py).
pytest_plugins = ["tests.browser_kit", "tests.timekeeper"]

PG_URL = os.environ.get("GAMELEDGER_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Game seeds, ids and tokens of the ledgers a test builds come from a generator seeded by this
# and the test's id, so that a test plays the same games on every run (a failure reproduces);
# GAMELEDGER_TEST_SEED=random draws a new seed, printed in the report header.
TEST_SEED = os.environ.get("GAMELEDGER_TEST_SEED", "1")
if TEST_SEED == "random":
    TEST_SEED = secrets.token_hex(4)


def pytest_report_header() -> str:
    return f"gameledger test seed: {TEST_SEED} (GAMELEDGER_TEST_SEED=random for another)"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if terminalreporter.stats.get("failed") or terminalreporter.stats.get("error"):
        terminalreporter.write_line(
            f"gameledger test seed: {TEST_SEED} (GAMELEDGER_TEST_SEED={TEST_SEED} replays it)"
        )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-xdist (``-n``, ``--dist loadgroup`` in pyproject.toml) sends each test to whichever
    worker is free, except the tests of a module that share a module-scoped fixture (a server, a
    browser's people, a played game): those stay together on one worker, which pays for the
    fixture once. The longest go first (by tests/durations.json), so that no worker is left
    with a long one at the end."""
    if not getattr(config.option, "loadgroup", False):  # set in pytest-xdist's workers by --dist loadgroup
        return
    from tests import timekeeper  # registered as a plugin above: imported once pytest rewrites it

    took = timekeeper.recorded_seconds()
    cost: dict[str, float] = defaultdict(float)
    unit = {id(item): timekeeper.unit_of(item) for item in items}
    for item in items:
        cost[unit[id(item)]] += took.get(timekeeper.test_id(item.nodeid), 1.0)
    for item in items:
        if unit[id(item)] != timekeeper.test_id(item.nodeid):
            _join_group(item, unit[id(item)])
    items.sort(key=lambda item: -cost[unit[id(item)]])


def _join_group(item: pytest.Item, group: str) -> None:
    """What ``@pytest.mark.xdist_group(group)`` does: pytest-xdist 3.8 keeps the tests whose
    ids end in ``@group`` on one worker, but sets the id where pytest 9.2 no longer reads it."""
    if hasattr(item, "_id"):  # pytest >= 9.2: the id is structured
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(f"{item.nodeid}@{group}")
    elif not item.get_closest_marker("xdist_group"):
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """Under CI (CI=true) a skipped test fails: whatever a test needs (PostgreSQL, Chromium,
    axe-core, pg_dump, a private PostgreSQL cluster) CI must have."""
    report: pytest.TestReport = yield
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where nothing may be: {reason}"
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[pytest.CollectReport]:
    report: pytest.CollectReport = yield
    if IN_CI and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where nothing may be: {reason}"
    return report


@pytest.fixture(autouse=True)
def _reproducible_entropy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    generator = random.Random(f"{TEST_SEED}:{request.node.nodeid}")
    monkeypatch.setattr(Ledger, "default_entropy", staticmethod(generator.randbytes))


def _pg_available() -> str | None:
    db = parse_database_url(PG_URL)
    try:
        with psycopg.connect(db.conninfo(), connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # any failure to connect
        return str(exc)
    return None


_PG_PROBLEM = _pg_available()


@pytest.fixture(scope="session")
def pg_required() -> None:
    if _PG_PROBLEM is not None:
        if IN_CI:
            pytest.fail(f"PostgreSQL is mandatory under CI and did not answer: {_PG_PROBLEM}")
        pytest.skip(f"no PostgreSQL at {PG_URL}: {_PG_PROBLEM}")


ADMIN_TOKEN = "test-admin-token-0123456789"


def _schema_url(schema: str) -> str:
    sep = "&" if "?" in PG_URL else "?"
    return f"{PG_URL}{sep}schema={schema}"


def _migrate(schema: str) -> None:
    Services.start(Settings(database_url=_schema_url(schema), admin_token=ADMIN_TOKEN)).close()


@functools.cache
def _pool() -> SchemaPool:
    enabled = os.environ.get("GAMELEDGER_TEST_SCHEMA_POOL", "1") != "0"
    return SchemaPool(parse_database_url(PG_URL).conninfo(), _migrate, enabled)


# The databases handed out as the migrations leave them (a pooled schema put back whole, a copy of
# the SQLite template): the `settings` fixture starts the service on them without re-running the
# migrations' idempotent DDL (`init_db` off, as where a Job runs `gameledger db migrate`), 0.1 s
# a PostgreSQL test; the service still reads that no migration is pending.
_MIGRATED: set[str] = set()


def _pg_schema_url(migrated: bool = False) -> Iterator[str]:
    """A PostgreSQL schema of the test's own: a migrated one from this process's pool when the
    test starts the service anyway (``migrated``), else a new one (tests/pgpool.py)."""
    pooled = migrated and bool(_pool().free)
    schema = _pool().acquire(migrated)
    url = _schema_url(schema)
    if pooled:
        _MIGRATED.add(url)
    yield url
    _MIGRATED.discard(url)
    _pool().release(schema)


@functools.cache
def _sqlite_template() -> list[Path]:
    """A SQLite ledger as the migrations leave it, made once a test process: its files (the
    ledger and each read model's file beside it)."""
    folder = Path(tempfile.mkdtemp(prefix="gameledger-template-"))
    Services.start(
        Settings(database_url=f"sqlite:///{folder / 'ledger.sqlite3'}", admin_token=ADMIN_TOKEN)
    ).close()
    files = sorted(f for f in folder.iterdir() if f.name.endswith(".sqlite3"))
    assert folder / "ledger.sqlite3" in files, files
    return files


def _sqlite_url(folder: Path, migrated: bool) -> str:
    """A new SQLite ledger in ``folder``: empty, or a copy of the migrated template (migrating a
    new file costs 0.4 s of mostly fsyncs: about 120 commits; copying its 14 files, 0.02 s)."""
    url = f"sqlite:///{folder / 'ledger.sqlite3'}"
    if migrated:
        for file in _sqlite_template():
            shutil.copyfile(file, folder / file.name)
        _MIGRATED.add(url)
    return url


# The fixtures that start the service on the test's database, which migrates it anyway: their tests
# are handed a migrated database (a pooled PostgreSQL schema, a copy of the SQLite template); the
# others (a migration's own tests) get an empty one.
_MIGRATING_FIXTURES = ("services", "settings")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """A fresh database: a SQLite file, or a PostgreSQL schema of its own (empty, or as the
    migrations leave it when the test asks for the service, which migrates it anyway)."""
    migrated = any(name in request.fixturenames for name in _MIGRATING_FIXTURES)
    if request.param == "sqlite":
        yield _sqlite_url(tmp_path, migrated)
        return
    request.getfixturevalue("pg_required")
    yield from _pg_schema_url(migrated=migrated)


@pytest.fixture
def pg_url(pg_required: None) -> Iterator[str]:
    yield from _pg_schema_url()


@pytest.fixture
def settings(database_url: str) -> Settings:
    # The per-player decision limit stays on, with a burst no test's bot reaches: the tests post
    # decisions at machine speed (a two-player Water Frame game over HTTP left 16 of the default
    # 120 tokens on a loaded machine, and one test was refused on an idle one). The limit's own
    # tests set their rate and burst.
    return Settings(
        database_url=database_url,
        admin_token=ADMIN_TOKEN,
        decision_burst=1_000_000,
        init_db=database_url not in _MIGRATED,
    )


@pytest.fixture
def services(settings: Settings) -> Iterator[Services]:
    svc = Services.start(settings)
    yield svc
    svc.close()


@pytest.fixture
def ledger(services: Services) -> Ledger:
    return services.ledger


@pytest.fixture
def client(settings: Settings, services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(settings, services)) as c:
        yield c


@pytest.fixture
def memory_ledger() -> Iterator[Ledger]:
    """A ledger in a private in-memory SQLite database (no storage under test)."""
    db = parse_database_url(f"sqlite:///file:{uuid.uuid4().hex}?mode=memory&cache=shared")
    app = build_ledger(db)
    yield app
    app.close()


__all__ = ["initialise"]


@pytest.fixture(scope="session")
def load_pg() -> Iterator[object]:
    """A PostgreSQL for the multi-process load, crash and backup tests (tests/loadkit.py):
    a private cluster when PostgreSQL's binaries are here, else the shared server."""
    from tests.loadkit import postgres_for_load

    with postgres_for_load(PG_URL, _PG_PROBLEM, IN_CI) as target:
        yield target

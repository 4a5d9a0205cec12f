"""The default run's time kept in bounds (a pytest plugin; tests/conftest.py registers it).

- A test of the default run that takes more than ``TEST_SECONDS`` (setup, call and teardown
  together) is reported on its own line as soon as it is done, and listed again at the end.
- ``tests/durations.json`` records what each test took in a whole default run (``pytest
  --record-durations`` writes it). At collection, what one worker must run alone (a test file
  whose tests share a module-scoped fixture, kept on one worker, or else one test) fails the
  run when its recorded tests add up to more than ``FILE_SECONDS`` (its first test fails with
  the figures): split it, make it cheaper, or move its long tests behind ``slow`` (and into
  .ci/run). The check reads the record, not the run's own clock, so that a loaded machine
  cannot fail it; the run's own figures are printed at the end for every file past the mark.
  The record also orders the run: the longest first (tests/conftest.py).
- Every worker of pytest-xdist runs tests; the controller (or the only process) gets every
  report, so the figures here are of the whole run.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "durations.json"
TEST_SECONDS = float(os.environ.get("GAMELEDGER_TEST_SECONDS", "10"))
FILE_SECONDS = float(os.environ.get("GAMELEDGER_FILE_SECONDS", "60"))
DEFAULT_MARKS = "not slow"


def test_id(nodeid: str) -> str:
    """The test's id without the ``@group`` pytest-xdist's loadgroup adds to it."""
    base, at, group = nodeid.rpartition("@")
    return base if at and "]" not in group and "::" not in group else nodeid


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help="write what each test took to tests/durations.json (a whole default run: `pytest --record-durations`)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "over_budget: (set by tests/timekeeper.py) the first test of a file over its time budget"
    )
    config.stash[_keeper] = Keeper(config)
    config.pluginmanager.register(config.stash[_keeper], "gameledger-timekeeper")


def default_run(config: pytest.Config) -> bool:
    return (config.getoption("markexpr") or "").strip() == DEFAULT_MARKS


def recorded() -> dict[str, Any]:
    try:
        return dict(json.loads(RECORD.read_text()))
    except (OSError, ValueError):
        return {}


def file_totals(tests: dict[str, list[float]]) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for nodeid, phases in tests.items():
        totals[file_of(nodeid)] += sum(phases[:3])
    return dict(totals)


def cpu_seconds() -> float:
    """The processor time of this test process and of the processes it started and waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


_phase_start = pytest.StashKey[float]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_phase_start] = cpu_seconds()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    item.stash[_phase_start] = cpu_seconds()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    item.stash[_phase_start] = cpu_seconds()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    started = item.stash.get(_phase_start, None)
    report.cpu = round(cpu_seconds() - started, 3) if started is not None else 0.0
    return report


def unit_of(item: pytest.Item) -> str:
    """What one pytest-xdist worker runs alone: a test file whose tests share a module-scoped
    fixture (a server, a browser's people, a played game; tests/conftest.py keeps them together),
    or else the one test."""
    defs = getattr(item, "_fixtureinfo", None)
    shared = defs is not None and any(
        d.scope in ("module", "package", "class") for ds in defs.name2fixturedefs.values() for d in ds
    )
    return file_of(item.nodeid) if shared else test_id(item.nodeid)


def recorded_seconds() -> dict[str, float]:
    return {test_id(k): sum(v[:3]) for k, v in recorded().get("tests", {}).items()}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not default_run(config):
        return
    took = recorded_seconds()
    units: dict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        units[unit_of(item)].append(item)
    for unit, members in units.items():
        seconds = sum(took.get(test_id(m.nodeid), 0.0) for m in members)
        if seconds > FILE_SECONDS:
            members[0].add_marker(pytest.mark.over_budget(unit, seconds))


@pytest.fixture(autouse=True)
def _within_the_time_budget(request: pytest.FixtureRequest) -> None:
    mark = request.node.get_closest_marker("over_budget")
    if mark is not None:
        unit, seconds = mark.args
        pytest.fail(
            f"{unit}: took {seconds:.0f} s in the last recorded default run (tests/durations.json), "
            f"over the {FILE_SECONDS:.0f} s one worker may spend on a file whose tests share a fixture, "
            "or on one test: split it, make it cheaper, or mark its long tests slow (and run them in .ci/run)",
            pytrace=False,
        )


class Keeper:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.phases: dict[str, dict[str, float]] = defaultdict(dict)
        self.cpu: dict[str, float] = defaultdict(float)
        self.slow: list[tuple[str, float]] = []
        self.failed = False

    @property
    def controller(self) -> bool:
        return not hasattr(self.config, "workerinput")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.controller:
            return
        nodeid = test_id(report.nodeid)
        self.phases[nodeid][report.when] = report.duration
        self.cpu[nodeid] += float(getattr(report, "cpu", 0.0))
        self.failed = self.failed or report.failed
        if report.when != "teardown" or not default_run(self.config):
            return
        seconds = sum(self.phases[nodeid].values())
        if seconds > TEST_SECONDS:
            self.slow.append((nodeid, seconds))
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                reporter.ensure_newline()
                reporter.write_line(
                    f"SLOW {seconds:.1f} s {nodeid} (a default-run test should take under {TEST_SECONDS:.0f} s)",
                    yellow=True,
                )

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.controller or not default_run(self.config) or not self.phases:
            return
        tests = {
            k: [v.get("setup", 0.0), v.get("call", 0.0), v.get("teardown", 0.0), self.cpu[k]]
            for k, v in self.phases.items()
        }
        over = sorted(((s, f) for f, s in file_totals(tests).items() if s > FILE_SECONDS), reverse=True)
        if self.slow or over:
            terminalreporter.section("over the default run's time marks", yellow=True)
            for nodeid, seconds in sorted(self.slow, key=lambda x: -x[1]):
                terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}")
            for seconds, file in over:
                terminalreporter.write_line(
                    f"{seconds:6.1f} s  {file} (all its tests; the mark is {FILE_SECONDS:.0f} s)"
                )
        if self.config.getoption("record_durations"):
            if self.failed:
                terminalreporter.write_line("tests/durations.json not written: the run had failures")
                return
            lines = [
                f"  {json.dumps(k)}: {json.dumps([round(x, 3) for x in v])}" for k, v in sorted(tests.items())
            ]
            about = (
                "each default-run test's seconds: setup, call, teardown, then the processor seconds "
                "of its test process and the processes it waited for (pytest --record-durations)"
            )
            RECORD.write_text(
                f'{{"about": {json.dumps(about)},\n"tests": {{\n' + ",\n".join(lines) + "\n}}\n"
            )
            terminalreporter.write_line(
                f"recorded {len(tests)} tests' durations in {RECORD.relative_to(ROOT)}"
            )


_keeper = pytest.StashKey[Keeper]()

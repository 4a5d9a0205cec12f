"""Quality gates that run themselves: ruff, mypy and the import layers."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_ruff_finds_nothing() -> None:
    done = subprocess.run([str(BIN / "ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_is_formatted_one_way() -> None:
    """``ruff format`` (its version held to one minor release in pyproject.toml: a new style
    would otherwise fail this without a change here)."""
    done = subprocess.run(
        [str(BIN / "ruff"), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing() -> None:
    done = subprocess.run([str(BIN / "mypy")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_layers_point_inwards() -> None:
    forbidden = {
        "ledger": {"api", "projections", "fastapi", "starlette", "psycopg", "sqlite3", "uvicorn"},
        "projections": {"api", "fastapi", "starlette"},
    }
    for package, banned in forbidden.items():
        for path in (ROOT / package).rglob("*.py"):
            assert not imports_of(path) & banned, f"{path} imports {imports_of(path) & banned}"


def test_rules_engines_read_no_clock_and_no_global_random() -> None:
    for path in (ROOT / "ledger" / "games").rglob("*.py"):
        text = path.read_text()
        for banned in ("import random", "from random", "import time", "datetime.now", "import secrets"):
            assert banned not in text, f"{path}: {banned}"


def project_modules() -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    out: dict[str, Path] = {}
    for package in ("ledger", "projections", "api"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def module_imports(name: str, source: str, modules: dict[str, Path]) -> set[str]:
    """The project modules a module imports, at its top or inside a function alike (an
    import put off into a function still ties the two modules in a loop); imports made only
    for type checking do not run and do not count."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name in modules)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                for alias in child.names:
                    sub = f"{child.module}.{alias.name}"
                    target = sub if sub in modules else child.module
                    if target in modules:
                        found.add(target)
            visit(child)

    visit(ast.parse(source))
    found.discard(name)
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return cycles


def test_no_module_imports_a_module_that_imports_it_back() -> None:
    modules = project_modules()
    graph = {name: module_imports(name, path.read_text(), modules) for name, path in modules.items()}
    cycles = import_cycles(graph)
    described = [
        " <-> ".join(cycle)
        + ": "
        + "; ".join(f"{a} -> {b}" for a in cycle for b in sorted(graph[a]) if b in cycle)
        for cycle in cycles
    ]
    assert not cycles, "import cycles:\n" + "\n".join(described)


def test_the_import_cycle_check_finds_a_cycle_through_a_function_level_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]
    source = textwrap.dedent(
        """
        from typing import TYPE_CHECKING
        from ledger import registry
        if TYPE_CHECKING:
            from ledger.domain import Game
        def later():
            from ledger.games.water_frame import special
        """
    )
    found = module_imports("probe", source, project_modules())
    assert found == {"ledger.registry", "ledger.games.water_frame.special"}


# Slow-marked tests that `.ci/run` leaves to `pytest -m slow` (soaks too long for CI's budget).
ONLY_BY_HAND = {
    "test_cli.py": "the strong bot's whole simulated game, twice (its bot is checked in test_bots.py)",
    "test_trust_decisions.py": "the illegal-decision attack at every 7th position of whole games",
}


def test_every_file_with_slow_tests_is_run_by_ci() -> None:
    """A test moved behind `slow` to keep the README's command short still runs in CI: its file
    is named in `.ci/run` (or listed above, with why not)."""
    ci = (ROOT / ".ci" / "run").read_text()
    marked = re.compile(
        r"^@pytest\.mark\.slow|^pytestmark = .*pytest\.mark\.slow|marks=\[?pytest\.mark\.slow", re.M
    )
    slow = {p.name for p in (ROOT / "tests").glob("test_*.py") if marked.search(p.read_text())}
    missing = sorted(name for name in slow if f"tests/{name}" not in ci and name not in ONLY_BY_HAND)
    assert not missing, f"slow tests that .ci/run never runs: {missing}"
    assert set(ONLY_BY_HAND) <= slow, "a file listed as run by hand has no slow test left"

"""Quality gates that run themselves: ruff, mypy and the import layers."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_ruff_finds_nothing() -> None:
    done = subprocess.run([str(BIN / "ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
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

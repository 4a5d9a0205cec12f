"""The gameledger command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.application import Ledger
from ledger.conformance import ledger_playout
from ledger.export import game_export

BIN = Path(sys.executable).parent / "gameledger"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, input=stdin, timeout=600)


def test_simulate_plays_games_through_the_ledger_and_prints_a_summary() -> None:
    done = run(
        "simulate", "--title", "cotton-trade", "--players", "3", "--games", "2", "--seed", "4", "--in-memory"
    )
    assert done.returncode == 0, done.stderr
    assert "games         2" in done.stdout and "conformance: every game passed" in done.stdout
    again = run(
        "simulate", "--title", "cotton-trade", "--players", "3", "--games", "2", "--seed", "4", "--in-memory"
    )

    def strip(out: str) -> list[str]:  # drop the timings
        return [
            line
            for line in out.splitlines()
            if "s  [" not in line and "second" not in line and "/s" not in line
        ]

    assert strip(again.stdout) == strip(done.stdout)  # a seed reproduces the games


def test_verify_accepts_an_export_and_rejects_a_tampered_one(memory_ledger: Ledger, tmp_path: Path) -> None:
    result = ledger_playout(memory_ledger, "cotton-trade", 2, seed=3)
    game = memory_ledger.get_game(result.game_id)
    lines = list(game_export(memory_ledger, game, [], complete=True))
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines) + "\n")
    done = run("verify", str(good))
    assert done.returncode == 0 and done.stdout.strip().endswith("verified"), done.stdout
    assert result.events == len(lines) - 1

    record = json.loads(lines[20])
    record["public"]["awaiting"] = [*record["public"].get("awaiting", []), 9]
    lines[20] = json.dumps(record)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    done = run("verify", str(bad))
    assert done.returncode == 1 and "FAIL  hash chain" in done.stdout

    done = run("verify", "-", stdin="not json\n")
    assert done.returncode == 1


@pytest.mark.slow
def test_simulate_plays_the_strong_bot_reproducibly() -> None:
    argv = ("simulate", "--title", "cotton-trade", "--players", "2", "--games", "1", "--seed", "3")
    first = run(*argv, "--bot", "strong", "--in-memory")
    assert first.returncode == 0, first.stderr
    again = run(*argv, "--bot", "strong", "--in-memory")
    keep = [line for line in first.stdout.splitlines() if "decisions," in line]
    assert keep and [line.split(" decisions,")[0].split(":")[-1] for line in keep] == [
        line.split(" decisions,")[0].split(":")[-1]
        for line in again.stdout.splitlines()
        if "decisions," in line
    ], "its searches are seeded: the same decisions again"

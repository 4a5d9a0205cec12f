"""The README's commands work as written: a server started as the README says,
and the demo played against it with curl, on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent


def sh_blocks(section: str) -> list[str]:
    part = README.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", part, re.S)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_readme_gives_one_command_to_run_and_one_to_test() -> None:
    run = sh_blocks("Run it")[0].strip()
    test = sh_blocks("Test it")[0].strip()
    assert run.endswith("gameledger serve") and "pip install -e ." in run
    assert test.endswith("pytest") and 'pip install -e ".[test]"' in test
    ci = (ROOT / ".ci" / "run").read_text()
    assert "README.md" in ci  # CI runs the README's test command itself


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_the_readme_demo_plays_a_game_to_the_end_and_verifies_it(
    store: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    run = sh_blocks("Run it")[0].strip()
    serve = run.split("&&")[-1].strip().split()
    assert serve == ["gameledger", "serve"]
    env = os.environ | {"PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env.pop("GAMELEDGER_DATABASE_URL", None)
    if store == "postgres":
        env["GAMELEDGER_DATABASE_URL"] = request.getfixturevalue("pg_url")
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "gameledger"), "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,
        env=env,
        stdout=(tmp_path / "server.log").open("w"),  # one log line per request: a pipe would fill
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                with urllib.request.urlopen(url + "/health", timeout=1) as r:  # noqa: S310
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the server did not start")
        demo = README.split("<!-- demo:start -->", 1)[1].split("<!-- demo:end -->", 1)[0]
        script = re.findall(r"```sh\n(.*?)```", demo, re.S)[0]
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=tmp_path,
            env=env | {"GAMELEDGER_URL": url},
            capture_output=True,
            text=True,
            timeout=600,
        )
        out = done.stdout
        assert done.returncode == 0, out + done.stderr
        lines = out.splitlines()
        assert "active" in lines and "True" in lines and "409" in lines
        assert "the game is finished" in out
        assert lines[-1] == "verified"
    finally:
        server.terminate()
        server.wait(timeout=20)

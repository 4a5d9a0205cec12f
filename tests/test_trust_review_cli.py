"""Trust, second pass (issue 16), the command line: simulated players nobody can sign in as,
records verified against what their header announces, one line instead of a traceback, and
help that matches the commands (items 1, 3, 11 and 12)."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api import cli as command_line
from api.services import Services
from api.settings import Settings
from ledger import registry
from ledger.conformance import ledger_playout
from ledger.export import game_export
from ledger.verify import verify_export
from tests.api_helpers import API, Table

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent / "gameledger"
ENV = {k: v for k, v in os.environ.items() if not k.startswith("GAMELEDGER_")}


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The installed command, as a user runs it."""
    return subprocess.run(
        [str(BIN), *args], cwd=cwd, env=ENV | (env or {}), capture_output=True, text=True, timeout=300
    )


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command in this process (faster): its status, standard output and standard error."""
    status = command_line.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once this returns


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("gameledger"), err
    return lines[0]


def game_ids(out: str) -> list[str]:
    return re.findall(r"^  game +\d+/\d+ ([0-9a-f-]{36}):", out, re.M)


# -- item 1: simulate ----------------------------------------------------------------------


def test_simulate_run_twice_adds_the_same_games_again_with_new_bots_the_seed_does_not_name(
    database_url: str, tmp_path: Path
) -> None:
    argv = ["simulate", "--title", "cotton-trade", "--players", "2", "--games", "2", "--seed", "7"]
    first = run(*argv, "--database-url", database_url, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    second = run(*argv, "--database-url", database_url, cwd=tmp_path)
    assert second.returncode == 0 and second.stderr == "", second.stderr
    runs = [game_ids(first.stdout), game_ids(second.stdout)]
    assert len(runs[0]) == len(runs[1]) == 2 and not set(runs[0]) & set(runs[1])

    services = Services.start(Settings(database_url=database_url))
    try:
        services.refresh()
        listed = {g["game_id"] for g in services.view("gameindex").list_games(title="cotton-trade")}
        assert listed == set(runs[0] + runs[1])  # the second run added its games beside the first
        players = [p for g in listed for p in services.ledger.get_game(g).seats]
        assert len(set(players)) == 8  # every game has new players: no id repeats across runs
        assert all(services.ledger.get_player(p).bot for p in players)

        def played(game_id: str) -> list[Any]:
            """Every decision and draw, and the digest of every position (salted by the seed)."""
            return [
                (
                    e.public.get("seat"),
                    e.public.get("decision"),
                    e.public.get("outcome"),
                    getattr(e, "private", {}).get("server", {}).get("outcome"),
                    e.public.get("state_digest"),
                )
                for e in services.ledger.events.get(services.ledger.get_game(game_id).id)
            ]

        for a, b in zip(*runs, strict=True):  # --seed fixed the games themselves
            assert played(a) == played(b)
    finally:
        services.close()


def test_simulated_players_are_recorded_as_bots_and_shown_so_while_people_are_not(
    client: TestClient, services: Services, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = cli(
        capsys,
        "simulate",
        "--title",
        "water-frame",
        "--players",
        "2",
        "--games",
        "1",
        "--database-url",
        database_url,
    )
    assert status == 0
    services.refresh()
    (game,) = services.view("gameindex").list_games(title="water-frame")
    game_id = game["game_id"]
    person = client.post(f"{API}/players", json={"name": "Ann"}).json()
    auth = {"Authorization": f"Bearer {person['token']}"}
    for bot in services.ledger.get_game(game_id).seats:
        stats = client.get(f"{API}/players/{bot}/stats", headers=auth)
        assert stats.status_code == 200 and stats.json()["bot"] is True, stats.text
    assert client.get(f"{API}/players/me/stats", headers=auth).json()["bot"] is False
    assert client.get(f"{API}/me", headers=auth).json()["bot"] is False
    _, token = services.ledger.register_player("R2", bot=True)
    assert client.get(f"{API}/me", headers={"Authorization": f"Bearer {token}"}).json()["bot"] is True


def test_a_player_registered_before_bots_were_recorded_loads_as_a_person(
    settings: Settings, services: Services
) -> None:
    from tests.test_audit import row, tamper, uid

    player_id, token = services.ledger.register_player("Old", bot=True)
    state = json.loads(row(services, str(player_id), 1))
    assert state["bot"] is True and state["class_version"] == 2
    first = {k: v for k, v in state.items() if k not in ("bot", "class_version")}  # as version 1 stored it
    tamper(
        services,
        "UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = 1",
        (json.dumps(first).encode(), uid(services, str(player_id))),
    )
    fresh = Services.start(settings)
    try:
        assert fresh.ledger.get_player(player_id).bot is False
        assert fresh.ledger.authenticate(token).name == "Old"
    finally:
        fresh.close()


# -- item 3: verify --------------------------------------------------------------------------


@pytest.fixture
def finished(services: Services) -> tuple[str, list[str]]:
    """A finished game and its export, as any player gets it."""
    result = ledger_playout(services.ledger, "cotton-trade", 2, seed=5)
    game = services.ledger.get_game(result.game_id)
    return result.game_id, list(game_export(services.ledger, game, []))


def saved(path: Path, header: dict[str, Any], events: list[str]) -> str:
    path.write_text("\n".join([json.dumps(header), *events]) + "\n")
    return str(path)


def test_verify_refuses_a_record_cut_short_and_names_the_missing_versions(
    finished: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, lines = finished
    header, events = json.loads(lines[0]), lines[1:]
    n = len(events)
    assert header["status"] == "finished" and header["version"] == n
    status, out, _ = cli(capsys, "verify", saved(tmp_path / "whole.jsonl", header, events))
    assert status == 0 and out.splitlines()[-1] == "verified", out

    cut = {  # what is left: the missing versions it must name
        "without its last line": (events[:-1], f"version {n} is missing"),
        "the first half": (events[: n // 2], f"versions {n // 2 + 1}-{n} are missing"),
    }
    for what, (kept, named) in cut.items():
        status, out, _ = cli(capsys, "verify", saved(tmp_path / "cut.jsonl", header, kept))
        assert status == 1 and out.splitlines()[-1] == "NOT verified", what
        assert f"FAIL  record complete: {named}" in out, (what, out)

    # the header edited to fit the cut: it says finished, the events stop before the end
    status, out, _ = cli(
        capsys, "verify", saved(tmp_path / "cut.jsonl", header | {"version": n - 1}, events[:-1])
    )
    assert status == 1 and "the header says finished but the events end the game active" in out, out
    # more events than announced, and a header that announces nothing
    status, out, _ = cli(
        capsys, "verify", saved(tmp_path / "long.jsonl", header | {"version": n - 2}, events)
    )
    assert status == 1 and f"versions {n - 1}-{n} are beyond the header's {n - 2}" in out, out
    bare = {k: v for k, v in header.items() if k not in ("version", "status")}
    status, out, _ = cli(capsys, "verify", saved(tmp_path / "bare.jsonl", bare, events))
    assert status == 1 and "FAIL  record complete: the header announces no version and status" in out, out


def test_verify_warns_on_its_own_line_when_a_digest_is_checked_against_its_own_key(
    services: Services, finished: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, lines = finished
    record = tmp_path / "game.jsonl"
    record.write_text("\n".join(lines) + "\n")
    digest = tmp_path / "digest.json"
    digest.write_text(json.dumps(services.digest(game_id)))

    status, out, _ = cli(capsys, "verify", str(record), "--digest", str(digest))
    assert status == 0 and out.splitlines()[-1] == "verified", out
    warnings = [line for line in out.splitlines() if line.startswith("WARNING")]
    assert (
        len(warnings) == 1 and "key inside the digest file" in warnings[0] and "--public-key" in warnings[0]
    )

    pinned = services.signer.public_key
    status, out, _ = cli(capsys, "verify", str(record), "--digest", str(digest), "--public-key", pinned)
    assert status == 0 and "WARNING" not in out and "(pinned)" in out, out


# -- item 11: no traceback -----------------------------------------------------------------


def test_every_failure_the_review_found_is_one_line_with_its_exit_status_and_no_traceback(
    tmp_path: Path,
) -> None:
    port = closed_port()
    empty = tmp_path / "empty"
    empty.mkdir()
    made = tmp_path / "made"
    made.mkdir()
    assert run("db", "init", cwd=made).returncode == 0  # a ledger without that game
    cases: list[tuple[list[str], dict[str, str], Path, int, str]] = [
        (["verify", "missing.jsonl"], {}, empty, 2, "cannot read missing.jsonl"),
        (["import", "missing.jsonl"], {}, empty, 2, "cannot read missing.jsonl"),
        (["simulate", "--title", "water-fram", "--players", "3"], {}, empty, 2, "'water-frame'"),
        (["simulate", "--title", "water-frame", "--players", "7"], {}, empty, 2, "2 to 4 players"),
        (["simulate", "--title", "water-frame", "--players", "3", "--database-url", "garbage://x"], {}, empty, 2,
         "GAMELEDGER_DATABASE_URL"),
        (["serve", "--port", str(port)], {"GAMELEDGER_DATABASE_URL": "garbage://x"}, empty, 2,
         "unsupported database URL scheme 'garbage'"),
        (["db", "init", "--database-url", f"postgresql://nobody@127.0.0.1:{port}/db"], {}, empty, 1,
         "the database is running"),
        (["simulate", "--title", "cotton-trade", "--players", "2"], {"GAMELEDGER_DATABASE_URL":
         f"postgresql://nobody@127.0.0.1:{port}/db"}, empty, 1, f"127.0.0.1:{port}/db cannot be used"),
        (["audit", "no-such-game"], {}, made, 1, "No game no-such-game"),
        (["audit", "no-such-game"], {}, empty, 2, "no ledger at"),
        (["play", "--url", f"http://127.0.0.1:{port}", "--game", "g", "--token", "t"], {}, empty, 1,
         f"cannot reach the server at http://127.0.0.1:{port}"),
        (["export"], {}, empty, 2, "required: game"),
        ([], {}, empty, 2, "see gameledger --help"),
    ]  # fmt: skip
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda c: run(*c[0], cwd=c[2], env=c[1]), cases))
    for (argv, env, _, status, words), result in zip(cases, done, strict=True):
        line = one_line(result.stderr)
        assert result.returncode == status and words in line, (argv, env, result.returncode, line)
    assert not (empty / "gameledger-data").exists()  # a failed command left nothing behind


def test_debug_shows_the_traceback_before_the_line(tmp_path: Path) -> None:
    for argv in (["--debug", "verify", "missing.jsonl"], ["verify", "missing.jsonl", "--debug"]):
        done = run(*argv, cwd=tmp_path)
        assert done.returncode == 2 and "Traceback (most recent call last)" in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith("gameledger verify: cannot read missing.jsonl")


def test_every_command_refuses_bad_input_and_reports_failures_in_one_line(
    services: Services, finished: tuple[str, list[str]], database_url: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    game_id, lines = finished
    running = services.ledger.create_game(
        creator="admin",
        title="water-frame",
        players=[str(services.ledger.register_player(n)[0]) for n in "AB"],
    )
    exported = tmp_path / "finished.jsonl"
    exported.write_text("\n".join(lines) + "\n")
    partial = tmp_path / "running.jsonl"
    partial.write_text("\n".join(game_export(services.ledger, running, [0])) + "\n")
    (tmp_path / "a-file").write_text("")
    (tmp_path / "bad.toml").write_text("pool_size = ")
    store = ["--database-url", database_url]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = str(taken.getsockname()[1])
        cases: list[tuple[list[str], int, str]] = [
            (["export", "no-such-game", *store], 1, "No game no-such-game"),
            (["export", str(running.id), "--seat", "2", *store], 2, "seats 0 to 1: --seat 2"),
            (["export", str(running.id), "--seat", "1", "--spectator", *store], 2, "not allowed with"),
            (["export", game_id, "--seat", "-1", *store], 2, "-1 is less than 0"),
            (["export", game_id, "--out", str(tmp_path / "no" / "dir" / "x"), *store], 2, "cannot write"),
            (["export", game_id, "--data-dir", str(tmp_path / "nowhere")], 2, "no ledger at"),
            (["audit", game_id, "--seat", "5", *store], 2, "seats 0 to 1: --seat 5"),
            (["digest", "--game", "no-such-game", *store], 1, "No game no-such-game"),
            (["migrate", "no-such-game", *store], 1, "No game no-such-game"),
            (["migrate", game_id, *store], 1, "refused: migrate/current"),
            (["import", str(partial), *store], 1, "not imported: import/not_over"),
            (["import", str(exported), *store], 1, "not imported: import/exists"),
            (["verify", str(exported), "--digest", str(exported)], 2, "is not JSON"),
            (["verify", str(tmp_path)], 2, "cannot read"),
            (["projections", "status", "nosuch", *store], 2, "unknown projection(s) nosuch"),
            (["simulate", "--title", "water-frame", "--players", "2", "--option", "edition"], 2, "NAME=VALUE"),
            (["simulate", "--title", "water-frame", "--players", "2", "--option", "edition=1999"], 2, "'2016' or '2014'"),
            (["simulate", "--title", "water-frame", "--players", "2", "--option", "colour=red"], 2, "colour"),
            (["simulate", "--title", "water-frame", "--players", "2", "--games", "0"], 2, "0 is less than 1"),
            (["simulate", "--title", "water-frame", "--players", "two"], 2, "'two' is not a whole number"),
            (["serve", "--port", "70000"], 2, "not between 1 and 65535"),
            (["serve", "--port", busy, *store], 1, f"cannot listen on 127.0.0.1:{busy}"),
            (["projections", "run", "--interval", "0", *store], 2, "not more than 0"),
            (["backup", str(tmp_path / "a-file"), *store], 2, "cannot make the folder"),
            (["config", "show", "--config", str(tmp_path / "bad.toml")], 2, "not valid TOML"),
            (["resimulate", "--title", "water-fram", *store], 2, "invalid choice"),
            (["nosuch"], 2, "invalid choice: 'nosuch'"),
        ]  # fmt: skip
        for argv, status, words in cases:
            got, _, err = cli(capsys, *argv)
            line = one_line(err)
            assert got == status and words in line, (argv, got, line)


# -- item 12: export, help ----------------------------------------------------------------


def test_export_gives_the_stored_record_as_the_api_does_for_a_seat_and_complete_for_the_operator(
    client: TestClient,
    services: Services,
    database_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = Table(client, n=3)
    rnd = random.Random(11)
    for _ in range(12):
        table.step(rnd)
    url = f"{API}/games/{table.game_id}/export"
    store = ["--database-url", database_url]

    def same(a: list[str], b: list[str]) -> bool:  # apart from the time of the export
        return [{**json.loads(a[0]), "exported_at": 0}, *a[1:]] == [
            {**json.loads(b[0]), "exported_at": 0},
            *b[1:],
        ]

    for seat in range(3):
        status, out, err = cli(capsys, "export", table.game_id, "--seat", str(seat), *store)
        assert status == 0 and err == ""
        assert same(out.splitlines(), client.get(url, headers=table.auth(seat)).text.splitlines()), seat
    stranger = client.post(f"{API}/players", json={"name": "Sid"}).json()["token"]
    status, out, _ = cli(capsys, "export", table.game_id, "--spectator", *store)
    assert same(
        out.splitlines(), client.get(url, headers={"Authorization": f"Bearer {stranger}"}).text.splitlines()
    )

    status, _, err = cli(capsys, "export", table.game_id, "--out", str(tmp_path / "all.jsonl"), *store)
    assert status == 0 and "every hidden part" in one_line(err)  # the operator is told what the file holds
    complete = (tmp_path / "all.jsonl").read_text().splitlines()
    assert json.loads(complete[0])["audience"] == "full"
    game = services.ledger.get_game(table.game_id)
    stored = list(services.ledger.events.get(game.id))
    assert len(complete) == game.version + 1
    assert [set(json.loads(line).get("private", {})) for line in complete[1:]] == [
        set(getattr(e, "private", {})) for e in stored
    ]
    assert any(set(getattr(e, "private", {})) - {"seat:0"} for e in stored)  # more than a seat sees
    assert verify_export(complete).ok


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out[sub.prog] = sub
                out |= commands(sub)
    return out


def test_every_option_has_help_and_the_help_names_only_commands_that_exist() -> None:
    parser = command_line.build_parser()
    every = {"gameledger": parser, **commands(parser)}
    silent = [
        f"{prog} {'/'.join(a.option_strings) or a.dest}"
        for prog, p in every.items()
        for a in p._actions
        if not a.help and not isinstance(a, argparse._HelpAction)
    ]
    assert silent == []
    top = {prog.split()[1] for prog in every if prog.count(" ") == 1}
    assert "export" in top
    promised = (parser.description or "").split("\n\n")[0].split(":", 1)[1]
    assert set(re.findall(r"[a-z]+", promised)) - {"and", "the", "database", "s", "upkeep"} <= top
    readme = (ROOT / "README.md").read_text()
    assert set(re.findall(r"`gameledger ([a-z]+)", readme)) <= top


def test_the_help_lists_the_titles_and_each_titles_options() -> None:
    help_text = {name: p.format_help() for name, p in commands(command_line.build_parser()).items()}
    for meta in registry.TITLES.values():
        assert meta.id in help_text["gameledger simulate"] and meta.id in help_text["gameledger resimulate"]
        for option in meta.options.model_fields:
            assert f"    {option}=" in help_text["gameledger simulate"], option


def test_the_readme_demo_writes_its_export_outside_the_folder_it_runs_in() -> None:
    readme = (ROOT / "README.md").read_text()
    demo = readme.split("<!-- demo:start -->", 1)[1].split("<!-- demo:end -->", 1)[0]
    targets = re.findall(r">\s*(\S+\.jsonl)", demo)
    assert targets and all(t.startswith("$") for t in targets), targets  # in a folder made by mktemp
    assert re.search(r"^(\w+)=\$\(mktemp -d\)$", demo, re.M)

"""Data safety: backups taken while the service runs restore to a ledger that verifies, and
an exported game imports into a fresh server and verifies there.

- SQLite: ``gameledger backup DIR`` copies the ledger file and every read model's file with
  SQLite's online backup API while a server writes to them; the copy is a consistent prefix
  of the live ledger holding every decision acknowledged before the backup began, and a
  server started on it answers, with read models that catch up to what a rebuild gives.
- PostgreSQL: ``gameledger backup DIR`` runs ``pg_dump`` of the schema while a server takes
  decisions; ``pg_restore`` into a fresh database gives back the finished games whole, the
  running ones as a prefix holding every decision acknowledged before the dump began, read
  models equal to their rebuild, games that audit and a game that goes on.
- Import: ``gameledger import FILE`` records a finished game's export as it was, after
  verifying it; the imported game exports the same record and verifies; a running game's
  export, a tampered export and a second import are refused and write nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services
from api.settings import Settings
from api.storage import build_ledger
from ledger.audit import audit_game
from ledger.conformance import ledger_playout
from ledger.storage import parse_database_url
from ledger.verify import verify_export
from tests import loadkit as lk

ADMIN = {"Authorization": f"Bearer {lk.ADMIN_TOKEN}"}


def stream(database_url: str, game_id: str) -> list[tuple[int, str, str]]:
    """(version, type, hash) of every stored event of a game, read from the store."""
    ledger = build_ledger(parse_database_url(database_url, pool_size=1))
    try:
        return [(e.originator_version, type(e).TOPIC, e.hash) for e in ledger.events.get(uuid.UUID(game_id))]
    finally:
        ledger.close()


def audits_ok(database_url: str, game_ids: list[str]) -> dict[str, list[str]]:
    ledger = build_ledger(parse_database_url(database_url, pool_size=1))
    try:
        out = {}
        for gid in game_ids:
            result = audit_game(ledger, gid, None, full_view=True)
            out[gid] = [c["name"] for c in result["checks"] if not c["ok"]]
        return out
    finally:
        ledger.close()


def stored_keys(database_url: str, game_id: str) -> set[str]:
    ledger = build_ledger(parse_database_url(database_url, pool_size=1))
    try:
        return {
            e.private["server"]["request"]["key"]
            for e in ledger.events.get(uuid.UUID(game_id))
            if type(e).TOPIC == lk.DECISION and e.private.get("server", {}).get("request")
        }
    finally:
        ledger.close()


# -- SQLite: the online backup API while serving ------------------------------------------


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
def test_sqlite_backup_taken_while_serving_is_a_consistent_copy_that_restores(tmp_path: Path) -> None:
    live = tmp_path / "live"
    url = f"sqlite:///{live / 'ledger.sqlite3'}"
    tables, made = lk.prepare_tables(url, 2, seats=3, max_decisions=20)
    env = lk.server_env(url, live)
    server = lk.Server(env, tmp_path / "server.log")
    out: dict[str, lk.LoadResult] = {}
    try:
        server.start()
        load = threading.Thread(
            target=lambda: out.setdefault("result", lk.play([server.url], tables, seconds=4)), daemon=True
        )
        load.start()
        time.sleep(1.5)
        began = time.monotonic()
        backup = lk.run_cli(env, "backup", str(tmp_path / "backup"))
        load.join(120)
    finally:
        server.stop()
    assert backup.returncode == 0, backup.stdout + backup.stderr
    result = out["result"]
    assert not result.errors, result.errors
    accepted = result.accepted()
    assert any(a.at < began for a in accepted) and any(began <= a.at for a in accepted), (
        "the backup was taken while decisions were being made"
    )
    copied = sorted(p.name for p in (tmp_path / "backup").iterdir())
    assert copied == sorted(p.name for p in live.glob("*.sqlite3")), copied
    # the copy: a gapless prefix of the live streams, every game auditing, nothing acknowledged
    # before the backup began missing
    restored = tmp_path / "restored"
    shutil.copytree(tmp_path / "backup", restored)
    copy_url = f"sqlite:///{restored / 'ledger.sqlite3'}"
    acknowledged = [a for a in [*made, *result.accepted()] if a.at < began]
    for t in tables:
        mine, theirs = stream(copy_url, t.game_id), stream(url, t.game_id)
        assert mine and mine == theirs[: len(mine)], "the copy is not a prefix of the live stream"
        keys = stored_keys(copy_url, t.game_id)
        missing = [
            a.key for a in acknowledged if a.game_id == t.game_id and f"{a.player}:{a.key}" not in keys
        ]
        assert not missing, missing
    assert len(result.accepted()) > 10, result.statuses()
    assert audits_ok(copy_url, [t.game_id for t in tables]) == {t.game_id: [] for t in tables}
    # restore: a server on the copied files answers, and its read models catch up to a rebuild
    env2 = lk.server_env(copy_url, restored)
    server2 = lk.Server(env2, tmp_path / "server2.log")
    try:
        server2.start()
        api = lk.Api(server2.url)
        for t in tables:
            game = lk.must(api.call("GET", f"/games/{t.game_id}", t.tokens[0]))
            assert game["version"] == len(stream(copy_url, t.game_id))
        lk.must(api.call("GET", f"/games?position={lk.ledger_head(copy_url)}", lk.ADMIN_TOKEN))
        api.close()
        caught_up = lk.wait_caught_up(copy_url, timeout=30)
    finally:
        server2.stop()
    assert min(caught_up.values()) >= lk.ledger_head(copy_url)
    before = lk.read_models(copy_url)
    rebuilt = lk.run_cli(env2, "projections", "rebuild")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    after = lk.read_models(copy_url)
    for name in before:
        assert before[name]["tables"] == after[name]["tables"], name


# -- PostgreSQL: pg_dump and pg_restore ---------------------------------------------------


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
@pytest.mark.postgres
def test_postgres_dump_taken_while_serving_restores_into_a_fresh_database_with_the_same_games(
    load_pg: Any, tmp_path: Path
) -> None:
    pg_restore = shutil.which("pg_restore")
    if pg_restore is None or shutil.which("pg_dump") is None:
        pytest.skip("no pg_dump/pg_restore on this machine")
    url = load_pg.new_schema_url()
    finished, _ = lk.prepare_tables(url, 2, seats=2, max_decisions=5000, league="backup league")
    running, made = lk.prepare_tables(url, 2, seats=3, max_decisions=30, seed=2)
    games = [t.game_id for t in finished + running]
    env = lk.server_env(url, tmp_path / "data")
    server = lk.Server(env, tmp_path / "server.log")
    out: dict[str, lk.LoadResult] = {}
    try:
        server.start()
        load = threading.Thread(
            target=lambda: out.setdefault("result", lk.play([server.url], running, seconds=5)), daemon=True
        )
        load.start()
        time.sleep(1.5)
        began = time.monotonic()
        dumped = lk.run_cli(env, "backup", str(tmp_path / "dump"))
        ended = time.monotonic()
        load.join(120)
    finally:
        server.stop()
    assert dumped.returncode == 0, dumped.stdout + dumped.stderr
    result = out["result"]
    assert not result.errors, result.errors
    accepted = result.accepted()
    assert any(a.at < began for a in accepted) and any(began <= a.at for a in accepted), (
        "the dump was taken while decisions were being made",
        began - min(a.at for a in accepted),
        ended - began,
    )
    (dump,) = (tmp_path / "dump").glob("*.dump")
    target = load_pg.new_database()
    schema = parse_database_url(url).schema
    done = subprocess.run(
        [pg_restore, "--no-owner", f"--dbname={load_pg.conninfo(target)}", str(dump)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    restored = load_pg.url(schema, dbname=target)
    for t in finished:  # the finished games whole ...
        assert stream(restored, t.game_id) == stream(url, t.game_id)
    acknowledged = [a for a in [*made, *accepted] if a.at < began]
    for t in running:  # ... the running ones a prefix of the live ones, nothing acknowledged before missing
        mine, theirs = stream(restored, t.game_id), stream(url, t.game_id)
        assert mine and mine == theirs[: len(mine)], "the dump is not a prefix of the live stream"
        keys = stored_keys(restored, t.game_id)
        missing = [
            a.key for a in acknowledged if a.game_id == t.game_id and f"{a.player}:{a.key}" not in keys
        ]
        assert not missing, missing
    assert audits_ok(restored, games) == {g: [] for g in games}
    services = Services.start(Settings(database_url=restored, admin_token=lk.ADMIN_TOKEN))
    services.refresh()
    services.close()
    restored_env = lk.server_env(restored, tmp_path / "data")
    caught_up = lk.read_models(restored)
    assert caught_up["leaguestats"]["tables"]["results"], "the finished league games were counted"
    rebuilt = lk.run_cli(restored_env, "projections", "rebuild")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    for name, model in lk.read_models(restored).items():
        assert model["tables"] == caught_up[name]["tables"], (
            f"restored read model {name} differs from its rebuild"
        )
    audit = lk.run_cli(restored_env, "audit", games[-1])
    assert audit.returncode == 0 and "audit passed" in audit.stdout, audit.stdout
    # the restored ledger is live: a running game takes its next decision
    services = Services.start(Settings(database_url=restored, admin_token=lk.ADMIN_TOKEN))
    try:
        game = services.ledger.get_game(games[-1])
        if game.status == "active":
            seat = game.awaiting[0]
            decision = game.engine.legal_decisions(game.state, seat)[0].model_dump(mode="json")
            services.ledger.decide(game.id, game.seats[seat], game.version, decision)
            assert services.ledger.get_game(games[-1]).version > game.version
    finally:
        services.close()


# -- import of an export -----------------------------------------------------------------------


def _source_export(finished: bool) -> tuple[str, list[str]]:
    """A game played to its end (or not) on a server of its own, exported by the operator."""
    source = Services.start(
        Settings(
            database_url=f"sqlite:///file:{uuid.uuid4().hex}?mode=memory&cache=shared",
            admin_token=lk.ADMIN_TOKEN,
        )
    )
    try:
        if finished:
            game_id = ledger_playout(source.ledger, "cotton-trade", 3, 41).game_id
            seated = source.ledger.get_game(game_id).seats[0]
            source.ledger.post_message(game_id, str(seated), "gg, well played")  # the table talk moves too
        else:
            (table,), _ = lk.prepare_tables(
                f"sqlite:///{source.db.sqlite_path}", 1, seats=2, max_decisions=10, title="cotton-trade"
            )
            game_id = table.game_id
        with TestClient(create_app(source.settings, source)) as c:
            r = c.get(f"/api/v1/games/{game_id}/export", headers=ADMIN)
            assert r.status_code == 200, r.text
            return game_id, r.text.splitlines()
    finally:
        source.close()


def test_an_exported_game_imports_into_a_fresh_server_and_verifies_there(
    client: TestClient, services: Services, database_url: str, tmp_path: Path
) -> None:
    admin = {"Authorization": f"Bearer {services.settings.admin_token}"}
    game_id, lines = _source_export(finished=True)
    export = tmp_path / "game.jsonl"
    export.write_text("\n".join(lines) + "\n")
    env = lk.server_env(database_url, tmp_path / "data")
    done = lk.run_cli(env, "import", str(export))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"imported game {game_id}" in done.stdout
    # the imported game is the same record: it exports the same events and verifies
    r = client.get(f"/api/v1/games/{game_id}/export", headers=admin)
    assert r.status_code == 200, r.text
    again = r.text.splitlines()
    assert again[1:] == lines[1:]
    header, header_again = json.loads(lines[0]), json.loads(again[0])
    assert {k: v for k, v in header.items() if k != "exported_at"} == {
        k: v for k, v in header_again.items() if k != "exported_at"
    }
    assert verify_export(again).ok
    audit = client.get(f"/api/v1/games/{game_id}/audit", headers=admin).json()
    assert audit["ok"], [c for c in audit["checks"] if not c["ok"]]
    game = client.get(f"/api/v1/games/{game_id}", headers=admin).json()
    assert game["status"] == "finished" and game["standings"]
    services.refresh()
    listed = client.get("/api/v1/games?status=finished", headers=admin).json()["games"]
    assert game_id in [g["game_id"] for g in listed]
    # a second import of the same game is refused
    twice = lk.run_cli(env, "import", str(export))
    assert twice.returncode == 1 and "import/exists" in twice.stderr, (
        twice.stderr
    )  # the one line of a failure


def test_import_refuses_a_tampered_or_unfinished_export_and_writes_nothing(
    client: TestClient, services: Services, database_url: str, tmp_path: Path
) -> None:
    admin = {"Authorization": f"Bearer {services.settings.admin_token}"}
    env = lk.server_env(database_url, tmp_path / "data")
    game_id, lines = _source_export(finished=True)
    rows = [json.loads(line) for line in lines]
    decision = next(r for r in rows[1:] if r["type"] == lk.DECISION)
    decision["public"]["seat"] = (decision["public"]["seat"] + 1) % 3  # someone else's move
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(json.dumps(r, sort_keys=True) for r in rows) + "\n")
    done = lk.run_cli(env, "import", str(tampered))
    assert done.returncode == 1 and "import/not_verified" in done.stderr, (
        done.stderr
    )  # the one line of a failure
    assert client.get(f"/api/v1/games/{game_id}", headers=admin).status_code == 404
    running_id, running = _source_export(finished=False)
    partial = tmp_path / "running.jsonl"
    partial.write_text("\n".join(running) + "\n")
    done = lk.run_cli(env, "import", str(partial))
    assert done.returncode == 1 and "import/not_over" in done.stderr, done.stderr  # the one line of a failure
    assert client.get(f"/api/v1/games/{running_id}", headers=admin).status_code == 404

"""Audit and tamper evidence: the server's audit of a game, views redacted per viewer,
rows edited, deleted or reordered directly in the database (SQLite and PostgreSQL), and
signed digests that an export verifies against offline."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

from api.cli import main as cli
from api.services import Services
from ledger.audit import audit_game
from ledger.conformance import ledger_playout
from ledger.export import game_export
from ledger.verify import verify_export
from tests.api_helpers import API, Table

ADMIN = {"Authorization": "Bearer test-admin-token-0123456789"}


def checks(result: dict[str, Any]) -> dict[str, tuple[bool, str]]:
    return {c["name"]: (c["ok"], c["detail"]) for c in result["checks"]}


def full_export(services: Services, game_id: str) -> list[str]:
    return list(game_export(services.ledger, services.ledger.get_game(game_id), []))


def tamper(services: Services, statement: str, params: tuple[Any, ...]) -> None:
    """Change the event store behind the ledger's back, as an intruder with database access would."""
    db = services.db
    table = services.ledger.recorder.events_table_name  # type: ignore[attr-defined]
    sql = statement.format(table=table)
    if db.kind == "sqlite":
        with sqlite3.connect(db.sqlite_path) as conn:
            conn.execute(sql, params)
        return
    with psycopg.connect(db.conninfo(), autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{db.schema}"')
        conn.execute(sql.replace("?", "%s"), params)


def row(services: Services, game_id: str, version: int) -> bytes:
    db = services.db
    table = services.ledger.recorder.events_table_name  # type: ignore[attr-defined]
    if db.kind == "sqlite":
        with sqlite3.connect(db.sqlite_path) as conn:
            return bytes(
                conn.execute(
                    f"SELECT state FROM {table} WHERE originator_id = ? AND originator_version = ?",
                    (uid(services, game_id), version),
                ).fetchone()[0]
            )
    with psycopg.connect(db.conninfo()) as conn:
        conn.execute(f'SET search_path TO "{db.schema}"')
        cur = conn.execute(
            f"SELECT state FROM {table} WHERE originator_id = %s AND originator_version = %s",
            (uid(services, game_id), version),
        )
        return bytes(cur.fetchone()[0])  # type: ignore[index]


def uid(services: Services, game_id: str) -> Any:
    """The originator id as the store keeps it: 32 hex digits in SQLite, a uuid in PostgreSQL."""
    from uuid import UUID

    return UUID(game_id).hex if services.db.kind == "sqlite" else UUID(game_id)


def test_the_audit_of_a_finished_game_passes_every_check(services: Services) -> None:
    result = ledger_playout(services.ledger, "cotton-trade", 3, seed=4)
    audit = audit_game(services.ledger, result.game_id, None, full_view=True)
    got = checks(audit)
    assert audit["ok"], got
    for name in (
        "hash chain",
        "random draws committed at creation",
        "every private part present and committed",
        "every draw re-derived from the seed",
        "replay reproduces every digest",
        "conservation laws hold at every position",
        "replay reproduces the standings",
    ):
        assert got[name][0], name
    assert audit["seed"] and audit["events"] == len(audit["record"])
    assert any("rented ship" in line for line in audit["log"]), "a log a person can follow"


def test_before_the_end_the_audit_shows_each_viewer_only_their_view(
    client: TestClient, services: Services
) -> None:
    table = Table(client, n=3, title="water-frame")
    for _ in range(30):
        g = table.game(0)
        seat = g["awaiting"][0]["seat"]
        mine = table.game(seat)
        table.decide(seat, mine["legal_decisions"][0], mine["version"])
    game = services.ledger.get_game(table.game_id)
    hidden = game.engine.secrets(game.state, None)
    assert hidden
    for seat in range(3):
        r = client.get(f"{API}/games/{table.game_id}/audit", headers=table.auth(seat))
        assert r.status_code == 200, r.text
        body = r.text
        audit = r.json()
        assert audit["ok"] and audit["seed"] is None and audit["status"] == "running"
        assert not [h for h in hidden if f'"{h}"' in body], "nothing hidden leaks through the audit"
        assert game.seed not in body
        audiences = {a for e in audit["record"] for a in e.get("private", {})}
        assert audiences <= {f"seat:{seat}"}
    admin = client.get(f"{API}/games/{table.game_id}/audit", headers=ADMIN).json()
    assert admin["ok"] and any("server" in e.get("private", {}) for e in admin["record"])


@pytest.mark.parametrize("damage", ["edit", "delete", "reorder"])
def test_an_event_row_changed_in_the_database_is_caught_at_its_version(
    client: TestClient, services: Services, damage: str
) -> None:
    table = Table(client, n=2)
    for _ in range(6):
        g = table.game(0)
        seat = g["awaiting"][0]["seat"]
        mine = table.game(seat)
        table.decide(seat, mine["legal_decisions"][-1], mine["version"])
    gid = table.game_id
    assert audit_game(services.ledger, gid, None, full_view=True)["ok"]
    target = 5
    if damage == "edit":
        state = json.loads(row(services, gid, target))
        state["public"]["awaiting"] = [9]  # any change to the stored body
        tamper(
            services,
            "UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (json.dumps(state).encode(), uid(services, gid), target),
        )
        expected = f"event {target} was altered"
    elif damage == "delete":
        tamper(
            services,
            "DELETE FROM {table} WHERE originator_id = ? AND originator_version = ?",
            (uid(services, gid), target),
        )
        expected = f"version {target + 1} where {target} was expected"
    else:
        for old, new in ((target, 10_000), (target + 1, target), (10_000, target + 1)):
            tamper(
                services,
                "UPDATE {table} SET originator_version = ? WHERE originator_id = ? AND originator_version = ?",
                (new, uid(services, gid), old),
            )
        expected = f"event {target} does not link"
    r = client.get(f"{API}/games/{gid}/audit", headers=table.auth(0))
    assert r.status_code == 200
    audit = r.json()
    ok, detail = checks(audit)["hash chain"]
    assert not ok and expected in detail, detail
    assert not audit["ok"]
    health = client.get("/health").json()
    assert health["status"] == "tampered"
    assert [p["game_id"] for p in health["ledger_integrity"]["problems"]] == [gid]


def test_a_finished_export_verifies_against_the_signed_digest_offline(
    client: TestClient, services: Services, tmp_path: Path
) -> None:
    result = ledger_playout(services.ledger, "cotton-trade", 2, seed=7)
    other = ledger_playout(services.ledger, "cotton-trade", 2, seed=8)
    table = Table(client, n=2)
    h = table.auth(0)
    digest = client.get(f"{API}/ledger/digest", params={"game": result.game_id}, headers=h).json()
    assert digest["games"] >= 3 and digest["proof"]["leaf"]["game"] == result.game_id
    key = client.get(f"{API}/ledger/public-key").json()
    assert key["public_key"] == digest["public_key"] and key["algorithm"] == "Ed25519"
    export = full_export(services, result.game_id)
    report = verify_export(export, digest, key["public_key"])
    assert report.ok, report.text()
    names = {n for n, _, _ in report.checks}
    assert {"digest signature", "game included in the digest", "replay reproduces every digest"} <= names
    # files on disk, the command an independent person runs
    (tmp_path / "game.jsonl").write_text("\n".join(export) + "\n")
    (tmp_path / "digest.json").write_text(json.dumps(digest))
    assert cli(["verify", str(tmp_path / "game.jsonl"), "--digest", str(tmp_path / "digest.json")]) == 0
    # another game's export does not match this game's proof; a forged key does not sign it
    assert not verify_export(full_export(services, other.game_id), digest).ok
    forged = dict(digest, public_key="A" * 43 + "=")
    assert not verify_export(export, forged).ok
    pinned_wrong = verify_export(export, digest, "B" * 43 + "=")
    assert not pinned_wrong.ok
    # an altered export breaks its chain
    lines = list(export)
    e = json.loads(lines[5])
    e["public"]["awaiting"] = [1 - e["public"]["awaiting"][0]] if e["public"].get("awaiting") else [0]
    lines[5] = json.dumps(e)
    assert not verify_export(lines, digest).ok
    # a later digest lists the later head but the old proof still verifies the same prefix
    ledger_playout(services.ledger, "cotton-trade", 2, seed=9)
    newer = client.get(f"{API}/ledger/digest", headers=h).json()
    assert newer["root"] != digest["root"] and newer["games"] == digest["games"] + 1
    listed = client.get(f"{API}/ledger/digests", headers=h).json()["digests"]
    assert [d["root"] for d in listed[:2]] == [newer["root"], digest["root"]]


def test_the_audit_and_digest_commands(services: Services, tmp_path: Path, database_url: str) -> None:
    result = ledger_playout(services.ledger, "cotton-trade", 2, seed=11)
    args = ["--database-url", database_url]
    assert cli(["audit", result.game_id, *args]) == 0
    assert cli(["audit", result.game_id, "--seat", "1", "--json", *args]) == 0
    out = tmp_path / "digest.json"
    assert cli(["digest", "--game", result.game_id, "--out", str(out), *args]) == 0
    doc = json.loads(out.read_text())
    assert doc["proof"]["leaf"]["game"] == result.game_id


def test_done_when_a_four_player_water_frame_game_verifies_against_the_digest(services: Services) -> None:
    result = ledger_playout(services.ledger, "water-frame", 4, seed=3, greedy=True)
    digest = services.digest(result.game_id)
    report = verify_export(full_export(services, result.game_id), digest, services.signer.public_key)
    assert report.ok, report.text()

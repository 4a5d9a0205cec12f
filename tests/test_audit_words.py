"""The audit in words (issue 28, item 4): one computation gives the JSON document and the
sentences; the audit page says every check in a sentence, names the first event at fault (a
stored event changed in the database is named in words), and for a finished game says how to
check it yourself and what ``gameledger verify`` will print."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.cli import main as cli
from api.services import Services
from ledger.audit import audit_game
from ledger.conformance import ledger_playout
from tests.api_helpers import API, Table
from tests.test_audit import row, tamper, uid


def page(client: TestClient, token: str, path: str) -> str:
    client.cookies.set("gl_token", token)
    try:
        r = client.get(path)
    finally:
        client.cookies.clear()
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    return html.unescape(r.text)


def test_every_check_is_said_in_a_sentence_from_the_same_computation_as_the_json(
    client: TestClient, services: Services, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table(client, n=2)
    table.play_out(__import__("random").Random(8))
    gid = table.game_id
    audit = client.get(f"{API}/games/{gid}/audit", headers=table.auth(0)).json()
    assert audit["ok"] and audit["summary"].startswith("Every check passed")
    assert {c["name"] for c in audit["checks"]} >= {"hash chain", "every draw re-derived from the seed"}
    for c in audit["checks"]:
        assert c["ok"] and c["title"] and c["sentence"].endswith(".") and c["at"] is None, c
    said = {c["name"]: c["sentence"] for c in audit["checks"]}
    assert f"each of its {audit['events']} events" in said["hash chain"]
    assert "nobody chose any of them" in said["every draw re-derived from the seed"]
    assert "re-derive them yourself from the revealed seed" in said["every draw re-derived from the seed"]

    text = page(client, table.players[1]["token"], f"/games/{gid}/audit")
    assert audit["summary"] in text
    for c in audit["checks"]:  # the page and the JSON say the same
        assert c["title"] in text and c["sentence"] in text, c["name"]
    assert "Failed:" not in text and text.count("Passed:") == len(audit["checks"])

    # how to check it yourself: the downloads, the key, the one command, and what it prints
    key = client.get(f"{API}/ledger/public-key").json()["public_key"]
    command = f"gameledger verify game-{gid[:8]}.jsonl --digest digest-{gid[:8]}.json --public-key {key}"
    assert command in text
    assert f'href="/api/v1/games/{gid}/export"' in text and f'href="/api/v1/ledger/digest?game={gid}"' in text
    printed = re.search(r'<pre class="verify-output"><code>(.*?)</code></pre>', text, re.S)
    assert printed, "the page shows what the command prints"
    shown = printed.group(1).strip()
    assert shown.endswith("verified") and "FAIL" not in shown
    # run it, as the player would, on the files they download
    export = client.get(f"{API}/games/{gid}/export", headers=table.auth(1)).text
    digest = client.get(f"{API}/ledger/digest", params={"game": gid}).json()
    (tmp_path / f"game-{gid[:8]}.jsonl").write_text(export)
    (tmp_path / f"digest-{gid[:8]}.json").write_text(json.dumps(digest))
    capsys.readouterr()
    args = command.split()[2:]
    assert cli(["verify", *[str(tmp_path / a) if a.endswith((".jsonl", ".json")) else a for a in args]]) == 0
    ran = capsys.readouterr().out.strip()
    assert ran == shown, "the page prints what the command prints"


def test_a_stored_event_changed_in_the_database_is_named_in_words_on_the_audit_page(
    client: TestClient, services: Services
) -> None:
    table = Table(client, n=2)
    for _ in range(6):
        g = table.game(0)
        seat = g["awaiting"][0]["seat"]
        mine = table.game(seat)
        assert table.decide(seat, mine["legal_decisions"][-1], mine["version"]).status_code == 200
    gid = table.game_id
    events = client.get(f"{API}/games/{gid}/events", headers=table.auth(0)).json()["events"]
    target = next(e for e in events if e["type"].endswith("decision_recorded") and e["version"] > 4)
    version = target["version"]
    who = table.players[target["public"]["seat"]]["name"]
    kind = target["public"]["decision"]["type"].replace("_", " ")
    state = json.loads(row(services, gid, version))
    state["public"]["awaiting"] = [9]  # any change to the stored body
    tamper(
        services,
        "UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
        (json.dumps(state).encode(), uid(services, gid), version),
    )
    audit = client.get(f"{API}/games/{gid}/audit", headers=table.auth(1)).json()
    chain = next(c for c in audit["checks"] if c["name"] == "hash chain")
    named = f"Event {version} ({who}'s move “{kind}”, recorded "
    assert not chain["ok"] and chain["at"] == version and chain["sentence"].startswith(named), chain
    assert "was changed after it was written" in chain["sentence"]
    assert audit["summary"] == (
        f"1 of {len(audit['checks'])} checks failed: the record is not the game as it was played. "
        f"The first event at fault is event {version}."
    )
    text = page(client, table.players[1]["token"], f"/games/{gid}/audit")
    assert "The record does not hold" in text and chain["sentence"] in text
    assert f'<a href="/games/{gid}/replay?v={version}">event {version} ({who}' in text
    assert "Failed:" in text and "Nothing in the record was changed, removed or put out of order" in text


def test_a_running_games_audit_page_keeps_the_seed_secret_and_says_when_it_can_be_checked(
    client: TestClient, services: Services
) -> None:
    table = Table(client, n=3, title="water-frame")
    for _ in range(8):
        g = table.game(0)
        seat = g["awaiting"][0]["seat"]
        mine = table.game(seat)
        table.decide(seat, mine["legal_decisions"][0], mine["version"])
    game = services.ledger.get_game(table.game_id)
    text = page(client, table.players[2]["token"], f"/games/{table.game_id}/audit")
    assert "the game as it has been played so far" in text and "When it ends, the seed is revealed" in text
    assert game.seed not in text and "verify-output" not in text
    assert game.seed_commitment in text
    hidden = game.engine.secrets(game.state, 2)
    assert hidden and not [h for h in hidden if re.search(rf"(?<![\w-]){re.escape(h)}(?![\w-])", text)]


def test_the_audit_command_says_each_check_in_words(
    services: Services, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    result = ledger_playout(services.ledger, "cotton-trade", 2, seed=12)
    capsys.readouterr()
    assert cli(["audit", result.game_id, "--database-url", database_url]) == 0
    out = capsys.readouterr().out
    audit: dict[str, Any] = audit_game(services.ledger, result.game_id, None, full_view=True)
    for c in audit["checks"]:
        assert c["sentence"] in out
    assert audit["summary"] in out

"""Byte-identical history: the golden games (tests/golden_games.py), played again with
today's engines, store exactly the bytes they stored when the fixture was written, and the
re-simulation of the stored fixture under today's rules finds no difference."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from eventsourcing.persistence import StoredEvent

from api.cli import main as cli
from api.storage import build_ledger, init_db
from ledger.storage import parse_database_url
from tests import golden_games
from tests.golden_games import GAMES, GoldenGame


@pytest.fixture(scope="session")
def golden() -> dict[str, list[dict[str, Any]]]:
    return golden_games.load()


@pytest.fixture(scope="session")
def golden_table() -> dict[str, list[str]]:
    return golden_games.load_table()


def first_difference(recorded: Any, now: Any, path: str = "") -> str:
    """Where two JSON values first differ, as a path, with both values there."""
    if isinstance(recorded, dict) and isinstance(now, dict):
        for key in [*recorded, *(k for k in now if k not in recorded)]:
            if recorded.get(key, "<absent>") != now.get(key, "<absent>"):
                return first_difference(
                    recorded.get(key, "<absent>"), now.get(key, "<absent>"), f"{path}.{key}"
                )
    if isinstance(recorded, list) and isinstance(now, list):
        for i, (a, b) in enumerate(zip(recorded, now, strict=False)):
            if a != b:
                return first_difference(a, b, f"{path}[{i}]")
        if len(recorded) != len(now):
            return f"{path}: {len(recorded)} items recorded, {len(now)} now"
    return (
        f"{path or '(the whole value)'}: recorded {json.dumps(recorded)[:300]}, now {json.dumps(now)[:300]}"
    )


def assert_same_bytes(recorded: list[dict[str, Any]], now: list[dict[str, Any]]) -> None:
    for i, (a, b) in enumerate(zip(recorded, now, strict=False)):
        if a != b:
            where = f"row {i}: {a['topic']} of {a['id']} version {a['version']}"
            if (a["topic"], a["version"]) != (b["topic"], b["version"]):
                pytest.fail(f"{where}; now {b['topic']} version {b['version']}")
            try:
                before, after = json.loads(a["state"]), json.loads(b["state"])
            except json.JSONDecodeError:
                before, after = a["state"], b["state"]
            detail = first_difference(before, after) if before != after else "the same JSON in other bytes"
            pytest.fail(f"{where} differs at {detail}")
    assert len(recorded) == len(now), f"{len(recorded)} rows recorded, {len(now)} now"


@pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
def test_a_golden_game_played_again_stores_the_same_bytes_and_reads_the_same_at_the_table(
    game: GoldenGame, golden: dict[str, list[dict[str, Any]]], golden_table: dict[str, list[str]]
) -> None:
    assert game.name in golden, "the fixture holds every golden game (python -m tests.golden_games --write)"
    rows = golden_games.play(game)
    assert_same_bytes(golden[game.name], rows)
    recorded, now = golden_table[game.name], golden_games.table(rows)
    for i, (a, b) in enumerate(zip(recorded, now, strict=False)):
        assert a == b, f"position {i + 1} (decision or draw) at the table:\nrecorded {a}\nnow      {b}"
    assert len(recorded) == len(now)


@pytest.mark.postgres
def test_golden_games_store_the_same_bytes_on_postgresql(
    pg_url: str, golden: dict[str, list[dict[str, Any]]]
) -> None:
    firsts = {g.title: g for g in reversed(GAMES)}  # the first game of each title, in one schema
    for game in firsts.values():
        assert_same_bytes(golden[game.name], golden_games.play(game, pg_url))


def test_every_title_keeps_its_decision_and_options_schemas() -> None:
    recorded = json.loads(golden_games.SCHEMAS.read_text())
    now = json.loads(json.dumps(golden_games.schemas()))
    assert now == recorded, first_difference(recorded, now)
    assert json.dumps(now) == json.dumps(recorded), "the same schemas, with their keys in another order"


def test_the_fixture_holds_every_title_player_count_and_main_variant() -> None:
    played = {(g.title, g.players) for g in GAMES}
    from ledger.registry import TITLES

    assert played == {(t, n) for t, m in TITLES.items() for n in range(m.min_players, m.max_players + 1)}
    options = [(g.title, g.options) for g in GAMES]
    for edition in ("2014", "2016"):
        for predetermined in (False, True):
            assert any(
                t == "water-frame"
                and o.get("edition", "2016") == edition
                and o.get("predetermined_setup", False) == predetermined
                for t, o in options
            )
    assert any(t == "arkwright-card-game" and o.get("expert") == "all" for t, o in options)
    assert any(t == "cotton-trade" and o.get("shares_trade") and o.get("reputation") for t, o in options)
    assert {g.title for g in GAMES if g.greedy} == set(TITLES)


def test_resimulate_finds_no_difference_in_the_stored_golden_games(
    database_url: str, golden: dict[str, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    db = parse_database_url(database_url)
    init_db(db)
    app = build_ledger(db)
    try:
        for rows in golden.values():  # a game at a time: one huge pipelined insert can stall
            stored = [
                StoredEvent(
                    originator_id=uuid.UUID(row["id"]),
                    originator_version=row["version"],
                    topic=row["topic"],
                    state=row["state"].encode("utf-8"),
                )
                for row in rows
                if not row.get("snapshot")
            ]
            app.recorder.insert_events(stored)
    finally:
        app.close()
    assert cli(["resimulate", "--json", "--database-url", database_url]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"] == {"identical": len(GAMES)}, [
        g for g in report["games"] if g["outcome"] != "identical"
    ]
    assert all(not g.get("standings", {}).get("changed") for g in report["games"])

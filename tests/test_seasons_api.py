"""Seasons over the API: the organiser's season, sign-up, rounds seated by the procedure, the
deadline's rule, standings, and the league's signed record verified offline (both stores)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from api.cli import main
from api.services import Services
from ledger.league_verify import verify_league
from tests.api_helpers import API
from tests.fake_clock import FakeClock
from tests.season_kit import changed_result, decisions_left, dropped_game, failures, play, swapped_seat

CARD = "arkwright-card-game"


def bearer(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


def register(client: TestClient, name: str) -> dict[str, Any]:
    r = client.post(f"{API}/players", json={"name": name})
    assert r.status_code == 201, r.text
    return dict(r.json())


def league_of(
    client: TestClient, organiser: dict[str, Any], name: str, title: str = CARD, **body: Any
) -> dict[str, Any]:
    r = client.post(f"{API}/leagues", json={"name": name, "title": title, **body}, headers=bearer(organiser))
    assert r.status_code == 201, r.text
    return dict(r.json())


def seasons(client: TestClient, league: dict[str, Any], who: dict[str, Any]) -> list[dict[str, Any]]:
    r = client.get(f"{API}/leagues/{league['league_id']}/seasons", headers=bearer(who))
    assert r.status_code == 200, r.text
    return list(r.json()["seasons"])


def test_the_organiser_opens_a_season_with_its_rules_and_a_committed_seed(client: TestClient) -> None:
    org = register(client, "Org")
    league = league_of(client, org, "Winter cup")
    body = {"rounds": 4, "table_min": 3, "table_max": 4, "tie_breaks": ["wins", "head_to_head", "rating"]}
    r = client.post(f"{API}/leagues/{league['league_id']}/seasons", json=body, headers=bearer(org))
    assert r.status_code == 201, r.text
    season = r.json()
    assert season["season"] == 1 and season["format"] == "swiss" and season["rounds"] == 4
    assert season["points"] == {"3": [3, 1, 0], "4": [4, 2, 1, 0]}
    assert season["columns"] == ["points", "wins", "head_to_head", "rating"]
    assert season["on_deadline"] == "bot" and season["round_hours"] == 168
    assert len(season["seed_commitment"]) == 64 and season["seed"] is None
    assert [s["season"] for s in seasons(client, league, org)] == [1]


def test_only_the_organiser_opens_a_season_enrols_players_or_starts_a_round(client: TestClient) -> None:
    org, other = register(client, "Org"), register(client, "Other")
    league = league_of(client, org, "Cup")
    lid = league["league_id"]
    r = client.post(f"{API}/leagues/{lid}/seasons", json={}, headers=bearer(other))
    assert r.status_code == 403 and r.json()["code"] == "league/not_organiser"
    assert seasons(client, league, org) == []
    assert client.post(f"{API}/leagues/{lid}/seasons", json={}, headers=bearer(org)).status_code == 201
    r = client.post(
        f"{API}/leagues/{lid}/seasons/1/players", json={"player_id": org["player_id"]}, headers=bearer(other)
    )
    assert r.status_code == 403 and r.json()["code"] == "league/not_organiser"
    r = client.post(f"{API}/leagues/{lid}/seasons/1/rounds", headers=bearer(other))
    assert r.status_code == 403 and r.json()["code"] == "league/not_organiser"
    season = client.get(f"{API}/leagues/{lid}/seasons/1", headers=bearer(org)).json()
    assert season["players"] == [] and season["rounds_played"] == 0


BAD_SEASONS = [
    ({"table_min": 1, "table_max": 4}, "season/invalid_table_size"),
    ({"table_min": 4, "table_max": 3}, "season/invalid_table_size"),
    ({"table_max": 5}, "season/invalid_table_size"),
    ({"rounds": 51}, "request/invalid"),
    ({"rounds": 0}, "season/invalid_rounds"),
    ({"format": "knockout"}, "request/invalid"),
    ({"table_max": 4, "points": {"4": [4, 2, 1]}}, "season/invalid_points"),
    ({"table_max": 4, "points": {"4": [0, 1, 2, 4]}}, "season/invalid_points"),
    ({"table_max": 4, "points": {"3": [3, 1, 0]}}, "season/invalid_points"),
    ({"points": {"4": [4, 2, 1, 1001]}}, "season/invalid_points"),
    ({"points": {"4": list(range(7))}}, "request/invalid"),
    ({"tie_breaks": ["wins", "wins"]}, "season/invalid_tie_breaks"),
    ({"tie_breaks": ["luck"]}, "request/invalid"),
    ({"options": {"no_such_variant": True}}, "request/invalid_options"),
    ({"time_control": {"preset": "custom"}}, "request/invalid_time_control"),
    ({"round_hours": 0}, "request/invalid"),
    ({"round_hours": 24 * 91}, "request/invalid"),
    ({"on_deadline": "coin"}, "request/invalid"),
    ({"title": "water-frame"}, "league/wrong_title"),
    ({"surprise": 1}, "request/invalid"),
]


def test_a_bad_season_is_refused_with_a_stable_code_and_changes_nothing(client: TestClient) -> None:
    org = register(client, "Org")
    league = league_of(client, org, "Cup")
    for body, code in BAD_SEASONS:
        r = client.post(f"{API}/leagues/{league['league_id']}/seasons", json=body, headers=bearer(org))
        assert r.status_code in (409, 422), (body, r.text)
        assert r.json()["code"] == code, (body, r.text)
    assert seasons(client, league, org) == []
    r = client.get(f"{API}/leagues/{league['league_id']}/seasons/1", headers=bearer(org))
    assert r.status_code == 404 and r.json()["code"] == "season/not_found"


def test_sign_up_keeps_to_the_leagues_admission_and_closes_when_the_season_starts(client: TestClient) -> None:
    org = register(client, "Org")
    members = [register(client, f"M{i}") for i in range(3)]
    stranger = register(client, "Stranger")
    league = league_of(client, org, "Club", members_only=True, members=[m["player_id"] for m in members])
    lid = league["league_id"]
    body = {"table_min": 3, "table_max": 3, "rounds": 2}
    assert client.post(f"{API}/leagues/{lid}/seasons", json=body, headers=bearer(org)).status_code == 201
    r = client.post(f"{API}/leagues/{lid}/seasons/1/signup", headers=bearer(stranger))
    assert r.status_code == 403 and r.json()["code"] == "league/members_only"
    for m in members[:2]:
        assert client.post(f"{API}/leagues/{lid}/seasons/1/signup", headers=bearer(m)).status_code == 200
    r = client.post(f"{API}/leagues/{lid}/seasons/1/rounds", headers=bearer(org))
    assert r.status_code == 409 and r.json()["code"] == "season/cannot_seat"
    r = client.post(
        f"{API}/leagues/{lid}/seasons/1/players",
        json={"player_id": members[2]["player_id"]},
        headers=bearer(org),
    )
    assert r.status_code == 200 and len(r.json()["players"]) == 3
    r = client.post(f"{API}/leagues/{lid}/seasons/1/rounds", headers=bearer(org))
    assert r.status_code == 201, r.text
    (table,) = r.json()["round"][0]["tables"]
    assert sorted(s["player_id"] for s in table["seats"]) == sorted(m["player_id"] for m in members)
    game = client.get(f"{API}/games/{table['game']}", headers=bearer(members[0])).json()
    assert game["status"] == "active"
    told = client.get(f"{API}/me/notifications", headers=bearer(members[1])).json()["notifications"]
    assert any(n["kind"] == "game_started" and n["game_id"] == table["game"] for n in told), told
    assert [s["player_id"] for s in table["seats"]] == [s.get("player_id") for s in game["seats"]]
    r = client.post(f"{API}/leagues/{lid}/seasons/1/rounds", headers=bearer(org))
    assert r.status_code == 409 and r.json()["code"] == "season/round_running"
    r = client.post(f"{API}/leagues/{lid}/seasons/1/signup", headers=bearer(org))
    assert r.status_code == 409 and r.json()["code"] == "season/started"
    season = client.get(f"{API}/leagues/{lid}/seasons/1", headers=bearer(org)).json()
    assert season["rounds_played"] == 1 and len(season["players"]) == 3


def test_an_open_season_has_no_rounds(client: TestClient) -> None:
    org = register(client, "Org")
    lid = league_of(client, org, "Open")["league_id"]
    r = client.post(f"{API}/leagues/{lid}/seasons", json={"format": "open"}, headers=bearer(org))
    assert r.status_code == 201 and r.json()["rounds"] == 0
    r = client.post(f"{API}/leagues/{lid}/seasons/1/rounds", headers=bearer(org))
    assert r.status_code == 409 and r.json()["code"] == "season/open_format"


def test_a_small_season_plays_to_its_end_past_a_deadline_and_its_record_verifies_offline(
    client: TestClient, services: Services, tmp_path: Path
) -> None:
    clock = FakeClock()
    services.ledger.clock = clock
    org = register(client, "Org")
    players = [register(client, f"P{i}") for i in range(2)]
    lid = league_of(client, org, "Small cup", title="cotton-trade")["league_id"]
    body = {
        "table_min": 2,
        "table_max": 2,
        "rounds": 2,
        "round_hours": 24,
        "tie_breaks": ["wins", "score_ratio"],
    }
    commitment = client.post(f"{API}/leagues/{lid}/seasons", json=body, headers=bearer(org)).json()[
        "seed_commitment"
    ]
    for p in players:
        assert client.post(f"{API}/leagues/{lid}/seasons/1/signup", headers=bearer(p)).status_code == 200

    first = client.post(f"{API}/leagues/{lid}/seasons/1/rounds", headers=bearer(org)).json()["round"][0]
    play(services.ledger, first["tables"][0]["game"])
    services.tick_clocks()  # the round's game is over: the round closes
    second = client.post(f"{API}/leagues/{lid}/seasons/1/rounds", headers=bearer(org))
    assert second.status_code == 201, second.text
    late = second.json()["round"][1]["tables"][0]["game"]
    play(services.ledger, late, stop_after=decisions_left(services.ledger, late) - 3)  # then nobody moves
    services.tick_clocks()
    assert not services.ledger.get_game(late).over  # before the deadline nothing happens
    clock.advance(hours=25)
    services.tick_clocks()  # past it: the stand-in plays every seat to the end

    season = client.get(f"{API}/leagues/{lid}/seasons/1", headers=bearer(org)).json()
    assert season["ended"] and season["round"][1]["deadline_games"] == [late]
    assert hashlib.sha256(bytes.fromhex(season["seed"])).hexdigest() == commitment
    assert services.ledger.get_game(late).status == "finished"
    assert sum(r["points"] for r in season["standings"]) == 2 * (2 + 0)
    assert {"points", "wins", "score_ratio", "place", "name"} <= set(season["standings"][0])

    r = client.get(f"{API}/leagues/{lid}/export", headers=bearer(players[0]))
    assert r.status_code == 200, r.text
    doc = r.json()
    report = verify_league(doc)
    assert report.ok, report.text()
    path = tmp_path / "league.json"
    path.write_text(json.dumps(doc))
    assert main(["verify-league", str(path)]) == 0

    tampered, gid = changed_result(doc)
    named = failures(verify_league(tampered))
    assert any(gid in f and "result" in f and "round 1 table 1" in f for f in named), named
    tampered, gid = swapped_seat(doc)
    named = failures(verify_league(tampered))
    assert any("round 2 table 1" in f and "seating differs" in f for f in named), named
    tampered, gid = dropped_game(doc)
    named = failures(verify_league(tampered))
    assert any(gid in f and "missing from the record" in f for f in named), named
    path.write_text(json.dumps(tampered))
    assert main(["verify-league", str(path)]) == 1

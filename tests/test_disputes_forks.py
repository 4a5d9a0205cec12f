"""Disputes as events (opened by a player, adjudicated by an administrator: no change, a
correction by compensating events, annulment) and what-if forks (sandboxes from any
position, independent of their origin, never counted)."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from api.services import Services
from ledger.audit import audit_game
from ledger.conformance import ledger_playout
from ledger.export import game_export
from ledger.verify import verify_export
from tests.api_helpers import API, Table

ADMIN = {"Authorization": "Bearer test-admin-token-0123456789"}


def play(table: Table, n: int, rnd: random.Random) -> None:
    for _ in range(n):
        g = table.game(0)
        if g["status"] != "active":
            return
        seat = g["awaiting"][0]["seat"]
        mine = table.game(seat)
        r = table.decide(seat, rnd.choice(mine["legal_decisions"]), mine["version"])
        assert r.status_code == 200, r.text


def verifies(services: Services, game_id: str) -> Any:
    return verify_export(game_export(services.ledger, services.ledger.get_game(game_id), [], complete=True))


def test_a_dispute_is_an_event_and_the_administrator_adjudicates_it(
    client: TestClient, services: Services
) -> None:
    table = Table(client, n=3)
    play(table, 8, random.Random(1))
    gid = table.game_id
    r = client.post(
        f"{API}/games/{gid}/disputes",
        json={"versions": [6], "text": "I meant to pass"},
        headers=table.auth(1),
    )
    assert r.status_code == 201, r.text
    number = r.json()["dispute"]
    assert r.json()["game"]["disputes"][0]["status"] == "open"
    r = client.post(
        f"{API}/games/{gid}/disputes", json={"versions": [999], "text": "x"}, headers=table.auth(1)
    )
    assert r.status_code == 422 and r.json()["code"] == "dispute/bad_versions"
    r = client.post(
        f"{API}/games/{gid}/disputes/{number}/resolve", json={"outcome": "no_change"}, headers=table.auth(0)
    )
    assert r.status_code == 403 and r.json()["code"] == "dispute/plays_in_game"
    services.refresh("notifications")
    told = {
        seat: [n["kind"] for n in services.view("notifications").outbox(table.players[seat]["player_id"])]
        for seat in range(3)
    }
    assert "dispute_opened" in told[0] and "dispute_opened" in told[2] and "dispute_opened" not in told[1]
    v = table.game(0)["version"]
    r = client.post(
        f"{API}/games/{gid}/disputes/{number}/resolve",
        json={"outcome": "no_change", "note": "the move was legal and deliberate"},
        headers=ADMIN,
    )
    assert r.status_code == 200, r.text
    d = r.json()["disputes"][0]
    assert (d["status"], d["outcome"]) == ("resolved", "no_change") and r.json()["version"] == v + 1
    r = client.post(
        f"{API}/games/{gid}/disputes/{number}/resolve", json={"outcome": "no_change"}, headers=ADMIN
    )
    assert r.status_code == 409 and r.json()["code"] == "dispute/resolved"
    audit = client.get(f"{API}/games/{gid}/audit", headers=table.auth(2)).json()
    assert audit["ok"] and [e["type"] for e in audit["record"][-2:]] == ["dispute_opened", "dispute_resolved"]


def test_a_correction_rewinds_by_a_compensating_event_and_the_read_models_follow(
    client: TestClient, services: Services
) -> None:
    table = Table(client, n=2)
    play(table, 10, random.Random(2))
    gid = table.game_id
    events = list(services.ledger.events.get(services.ledger.get_game(gid).id))
    digest_before_6 = next(
        e.public["state_digest"] for e in reversed(events[:5]) if "state_digest" in e.public
    )
    r = client.post(
        f"{API}/games/{gid}/disputes", json={"versions": [6, 7], "text": "mis-click"}, headers=table.auth(0)
    )
    number = r.json()["dispute"]
    r = client.post(
        f"{API}/games/{gid}/disputes/{number}/resolve",
        json={"outcome": "correction", "note": "replay from event 6", "rewind_to": 99},
        headers=ADMIN,
    )
    assert r.status_code == 422 and r.json()["code"] == "dispute/bad_rewind"
    r = client.post(
        f"{API}/games/{gid}/disputes/{number}/resolve",
        json={"outcome": "correction", "note": "replay from event 6", "rewind_to": 6},
        headers=ADMIN,
    )
    assert r.status_code == 200, r.text
    game = services.ledger.get_game(gid)
    undone = next(e for e in services.ledger.events.get(game.id) if type(e).TOPIC.endswith("decision_undone"))
    assert undone.public["state_digest"] == digest_before_6, "back to the position before event 6"
    assert undone.public["dispute"] == number and undone.public["target_version"] == 6
    assert undone.public["player"] == "admin"
    play(table, 6, random.Random(3))
    services.refresh()
    board = services.view("scoreboard").board(gid)
    game = services.ledger.get_game(gid)
    from ledger.games.cotton_trade import common as ct

    assert [s["money"] for s in board["seats"]] == [ct.money(game.state, s) for s in range(2)]
    assert audit_game(services.ledger, gid, None, full_view=True)["ok"]


def test_annulling_a_finished_league_game_takes_its_result_out_of_the_statistics(
    client: TestClient, services: Services
) -> None:
    league = services.ledger.create_league(creator="admin", name="Winter")
    results = [
        ledger_playout(services.ledger, "cotton-trade", 2, seed=s, league=str(league.id)) for s in (1, 2)
    ]
    services.refresh()
    stats = services.view("leaguestats")
    before = client.get(f"{API}/leagues/{league.id}", headers=ADMIN).json()
    gid = results[0].game_id
    game = services.ledger.get_game(gid)
    player = game.seats[0]
    game, number = services.ledger.open_dispute(gid, player, [10], "the clock was wrong")
    services.ledger.resolve_dispute(gid, number, "annulment", "void by the league")
    services.refresh()
    assert services.ledger.get_game(gid).status == "annulled"
    after = client.get(f"{API}/leagues/{league.id}", headers=ADMIN).json()
    assert after != before
    counted = {r["game_id"] for r in stats.rows(f"SELECT game_id FROM {stats.t('results')}")}
    assert gid not in counted and results[1].game_id in counted
    listed = client.get(f"{API}/games", params={"status": "annulled"}, headers=ADMIN).json()["games"]
    assert [g["game_id"] for g in listed] == [gid]
    report = verifies(services, gid)
    assert report.ok, report.text()


def test_a_fork_is_an_independent_sandbox_from_any_position_of_a_finished_game(
    client: TestClient, services: Services
) -> None:
    table = Table(client, n=3)
    rnd = random.Random(5)
    while table.game(0)["status"] == "active":
        play(table, 50, rnd)
    gid = table.game_id
    origin_version = table.game(0)["version"]
    at = services.ledger.get_game(gid, version=40)
    r = client.post(f"{API}/games/{gid}/forks", json={"version": 40, "bots": [1, 2]}, headers=table.auth(0))
    assert r.status_code == 201, r.text
    fork = r.json()
    assert fork["sandbox"] and fork["origin"] == {"game": gid, "version": 40, "head": at.head_hash}
    fid = fork["game_id"]
    forked = services.ledger.get_game(fid)
    started = next(e for e in services.ledger.events.get(forked.id) if type(e).TOPIC.endswith(".started"))
    origin_events = list(services.ledger.events.get(at.id))[:40]
    recorded = next(e.public["public_digest"] for e in reversed(origin_events) if "public_digest" in e.public)
    assert started.public["public_digest"] == recorded, "the fork starts from the position after event 40"
    # played hotseat against the bots: the fork moves, the origin does not
    for _ in range(40):
        g = client.get(f"{API}/games/{fid}", headers=table.auth(0)).json()
        if g["status"] != "active":
            break
        assert {a["seat"] for a in g["awaiting"]} <= {0}, "the bots move by themselves"
        r = client.post(
            f"{API}/games/{fid}/decisions",
            json={"expected_version": g["version"], "decision": rnd.choice(g["legal_decisions"])},
            headers=table.auth(0),
        )
        assert r.status_code == 200, r.text
    assert table.game(0)["version"] == origin_version
    assert services.ledger.get_game(fid).version > 3
    if services.ledger.get_game(fid).status == "active":
        services.ledger.abandon(fid, "admin", "what-if done")
    report = verifies(services, fid)
    assert report.ok, report.text()
    services.refresh()
    stats = services.view("leaguestats")
    assert not stats.rows(f"SELECT game_id FROM {stats.t('games')} WHERE game_id = %s", [fid])


def test_a_running_games_hidden_position_cannot_be_forked(client: TestClient, services: Services) -> None:
    table = Table(client, n=2)
    play(table, 3, random.Random(6))
    v = table.game(0)["version"]  # the ship deck's order is hidden from everyone
    r = client.post(f"{API}/games/{table.game_id}/forks", json={"version": v}, headers=table.auth(0))
    assert r.status_code == 409 and r.json()["code"] == "fork/hidden_information"
    r = client.post(f"{API}/games/{table.game_id}/forks", json={"version": v}, headers=ADMIN)
    assert r.status_code == 422

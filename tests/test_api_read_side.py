"""Scoreboards, share-value histories, leagues and statistics over HTTP."""

from __future__ import annotations

import csv
import io
import random
import xml.etree.ElementTree as ET
from typing import Any

from fastapi.testclient import TestClient

from api.services import PROJECTIONS
from tests.api_helpers import API, Table

ADMIN = {"Authorization": "Bearer test-admin-token-0123456789"}


def finished_league_game(client: TestClient) -> tuple[Table, str]:
    r = client.post(f"{API}/leagues", json={"name": "Autumn", "title": "cotton-trade"}, headers=ADMIN)
    assert r.status_code == 201, r.text
    table = Table(client)
    r = client.post(f"{API}/leagues/Autumn/games", json={"game_id": table.game_id}, headers=ADMIN)
    assert r.status_code == 200, r.text
    rnd = random.Random(3)
    last = None
    while (step := table.step(rnd)) is not None:
        last = step
    assert last is not None
    return table, str(last["position"])


def test_scoreboard_share_values_and_league_are_served(client: TestClient) -> None:
    table, position = finished_league_game(client)
    h = table.auth(0)
    board = client.get(f"{API}/games/{table.game_id}/scoreboard?position={position}", headers=h).json()
    assert board["status"] == "finished" and [s["rank"] for s in board["seats"]] == sorted(
        s["rank"] for s in board["seats"]
    )
    assert {"cash", "coins"} & set(board["seats"][0]) and board["seats"][0]["name"].startswith("P")
    for key in ("money", "wealth", "shares_held", "share_value", "portfolio_value", "loans", "turn_position"):
        assert key in board["seats"][0]

    points = client.get(f"{API}/games/{table.game_id}/share-values", headers=h).json()["points"]
    assert points and points[0]["cause"] == "setup"
    text = client.get(f"{API}/games/{table.game_id}/share-values?format=csv", headers=h)
    assert text.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(text.text)))
    assert len(rows) == len(points) and rows[0]["cause"] == "setup"
    svg = client.get(f"{API}/games/{table.game_id}/share-values.svg", headers=h)
    assert svg.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(svg.text)
    ns = "{http://www.w3.org/2000/svg}"
    lines = [p for p in root.iter(f"{ns}path") if p.find(f"{ns}title") is not None]  # a company's line
    assert root.tag.endswith("svg") and len(lines) == 3

    league = client.get(f"{API}/leagues/Autumn?position={position}", headers=h).json()
    assert league["finished_games"] == 1 and len(league["standings"]) == 3
    assert league["standings"][0]["wins"] == 1 and league["standings"][0]["name"]
    assert len(league["ratings"]) == 3
    assert client.get(f"{API}/leagues", headers=h).json()["leagues"][0]["games"] == 1
    me = client.get(f"{API}/players/me/stats", headers=h).json()
    assert me["games"] == 1 and me["name"] == "P0"
    stats = client.get(f"{API}/titles/cotton-trade/stats", headers=h).json()
    assert stats["finished_games"] == 1 and stats["game_length"]["decisions"]["count"] == 1


def test_league_rules_are_enforced(client: TestClient) -> None:
    table = Table(client)
    h = table.auth(0)
    assert client.post(f"{API}/leagues", json={"name": "Mine"}, headers=h).status_code == 201
    dup = client.post(f"{API}/leagues", json={"name": "mine"}, headers=h)
    assert dup.status_code == 409 and dup.json()["code"] == "league/exists"
    other = client.post(f"{API}/leagues/Mine/games", json={"game_id": table.game_id}, headers=table.auth(1))
    assert other.status_code == 403 and other.json()["code"] == "league/not_organiser"
    ok = client.post(f"{API}/leagues/Mine/games", json={"game_id": table.game_id}, headers=h)
    assert ok.status_code == 200
    again = client.post(f"{API}/leagues/Mine/games", json={"game_id": table.game_id}, headers=h)
    assert again.status_code == 409 and again.json()["code"] == "league/game_already_added"
    assert client.post(f"{API}/leagues/Mine/close", headers=h).json()["closed"] is True
    closed = client.post(
        f"{API}/games", json={"title": "cotton-trade", "seats": 2, "league": "Mine"}, headers=h
    )
    assert closed.status_code == 409 and closed.json()["code"] == "league/closed"
    assert client.get(f"{API}/leagues/Nope", headers=h).json()["code"] == "league/not_found"


def test_a_members_only_league_takes_games_and_seats_from_its_members_alone(client: TestClient) -> None:
    org, ann, bob, eve = (
        client.post(f"{API}/players", json={"name": n}).json() for n in ("Org", "Ann", "Bob", "Eve")
    )

    def auth(p: dict[str, str]) -> dict[str, str]:
        return {"Authorization": f"Bearer {p['token']}"}

    def new_game(p: dict[str, str]) -> Any:
        body = {"title": "cotton-trade", "seats": 2, "league": "Club"}
        return client.post(f"{API}/games", json=body, headers=auth(p))

    made = client.post(
        f"{API}/leagues",
        json={"name": "Club", "members_only": True, "members": [ann["player_id"]]},
        headers=auth(org),
    )
    assert made.status_code == 201 and made.json()["members"] == [ann["player_id"]], made.text
    services = client.app.state.services  # type: ignore[attr-defined]
    written = services.ledger.recorder.max_notification_id()

    # a stranger can neither open a game in the league nor admit themselves
    refused = new_game(eve)
    assert refused.status_code == 403 and refused.json()["code"] == "league/members_only", refused.text
    selfie = client.post(
        f"{API}/leagues/Club/members", json={"player_id": eve["player_id"]}, headers=auth(eve)
    )
    assert selfie.status_code == 403 and selfie.json()["code"] == "league/not_organiser"
    assert services.ledger.recorder.max_notification_id() == written, "refusals write nothing"

    # a member opens a game; a non-member may not take its other seat until admitted
    game = new_game(ann)
    assert game.status_code == 201, game.text
    gid = game.json()["game_id"]
    join = client.post(f"{API}/games/{gid}/join", headers=auth(bob))
    assert join.status_code == 403 and join.json()["code"] == "league/members_only"
    added = client.post(
        f"{API}/leagues/Club/members", json={"player_id": bob["player_id"]}, headers=auth(org)
    )
    assert added.status_code == 200 and bob["player_id"] in added.json()["members"]
    assert client.post(f"{API}/games/{gid}/join", headers=auth(bob)).status_code == 200

    shown = client.get(f"{API}/leagues/Club", headers=auth(eve)).json()
    assert shown["members_only"] is True and shown["organiser_name"] == "Org"
    assert {(m["player_id"], m["name"]) for m in shown["members"]} == {
        (ann["player_id"], "Ann"),
        (bob["player_id"], "Bob"),
    }
    unknown = client.post(f"{API}/leagues/Club/members", json={"player_id": "nobody"}, headers=auth(org))
    assert unknown.status_code == 404 and unknown.json()["code"] == "player/not_found"

    # a member taken out opens no more games; the game already in the league stays there
    out = client.delete(f"{API}/leagues/Club/members/{ann['player_id']}", headers=auth(org))
    assert out.status_code == 200 and ann["player_id"] not in out.json()["members"]
    again = client.delete(f"{API}/leagues/Club/members/{ann['player_id']}", headers=auth(org))
    assert again.status_code == 404 and again.json()["code"] == "league/not_a_member"
    assert new_game(ann).json()["code"] == "league/members_only"
    assert gid in services.ledger.get_league("Club").games

    # the operator seating a whole table in the league seats members only too
    table = {"title": "cotton-trade", "players": [bob["player_id"], eve["player_id"]], "league": "Club"}
    seated = client.post(f"{API}/games", json=table, headers=ADMIN)
    assert seated.status_code == 403 and seated.json()["code"] == "league/members_only", seated.text

    # the organiser opens the league to everyone again
    opened = client.post(f"{API}/leagues/Club/admission", json={"members_only": False}, headers=auth(org))
    assert opened.status_code == 200 and opened.json()["members_only"] is False
    assert new_game(eve).status_code == 201


def test_only_the_operator_abandons_and_an_abandoned_game_reveals_everything(client: TestClient) -> None:
    table = Table(client)
    refused = client.post(f"{API}/games/{table.game_id}/abandon", json={"reason": "x"}, headers=table.auth(0))
    assert refused.status_code == 403
    done = client.post(f"{API}/games/{table.game_id}/abandon", json={"reason": "no shows"}, headers=ADMIN)
    assert done.status_code == 200 and done.json()["status"] == "abandoned"
    export = client.get(f"{API}/games/{table.game_id}/export", headers=table.auth(1)).text
    from ledger.verify import verify_export

    report = verify_export(export.splitlines())
    assert report.ok, report.text()
    assert any(name.startswith("every draw re-derived") for name, _, _ in report.checks)


def test_health_reports_each_projections_lag(client: TestClient) -> None:
    Table(client)
    health = client.get("/health").json()
    assert set(health["projections_lag"]) == set(PROJECTIONS)  # each named in test_projections

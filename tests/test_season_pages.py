"""The league page's seasons: standings with points and tie-break columns, rounds with their
tables, sign-up, and the organiser's controls (both stores)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api_helpers import API
from tests.test_web_pages import assert_accessible


def register(client: TestClient, name: str) -> dict[str, Any]:
    r = client.post(f"{API}/players", json={"name": name})
    assert r.status_code == 201, r.text
    return dict(r.json())


def bearer(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


def page_as(client: TestClient, player: dict[str, Any], path: str) -> str:
    client.cookies.clear()
    client.cookies.set("gl_token", player["token"])
    r = client.get(path)
    client.cookies.clear()
    assert r.status_code == 200, r.text
    return r.text


def test_the_league_page_shows_a_seasons_standings_rounds_and_tables(client: TestClient) -> None:
    org = register(client, "Ada")
    players = [register(client, name) for name in ("Brook", "Cato", "Dora", "Ezra")]
    late = register(client, "Flo")
    r = client.post(
        f"{API}/leagues", json={"name": "Mill cup", "title": "arkwright-card-game"}, headers=bearer(org)
    )
    lid = r.json()["league_id"]

    page = assert_accessible(page_as(client, org, f"/leagues/{lid}"))
    assert page.all("form", id="new-season-form"), "the organiser may open a season"
    body = {"rounds": 2, "table_min": 2, "table_max": 3, "tie_breaks": ["wins", "opponents_points"]}
    assert client.post(f"{API}/leagues/{lid}/seasons", json=body, headers=bearer(org)).status_code == 201

    page = assert_accessible(page_as(client, players[0], f"/leagues/{lid}"))
    assert "Season 1" in page.words and "Sign up for season 1" in page.words
    assert not page.all("form", id="new-season-form"), "only the organiser opens a season"
    for p in players:
        assert client.post(f"{API}/leagues/{lid}/seasons/1/signup", headers=bearer(p)).status_code == 200
    page = assert_accessible(page_as(client, org, f"/leagues/{lid}"))
    assert "Seat round 1" in page.words

    seated = client.post(f"{API}/leagues/{lid}/seasons/1/rounds", headers=bearer(org)).json()
    games = [t["game"] for t in seated["round"][0]["tables"]]
    assert len(games) == 2  # 4 players at 2-3: two tables of two

    page = assert_accessible(page_as(client, players[0], f"/leagues/{lid}"))
    words = page.words
    assert "Round 1: 2 tables" in words and "Swiss" in words
    assert "Points Wins Opponents' points" in words, "points and each tie-break as a column"
    assert all(page.all("a", href=f"/games/{g}") for g in games), "each table links to its game"
    assert "Brook" in words and "Ezra" in words
    assert "Sign up for season 1" not in words, "sign-up closes once the season starts"
    assert "Seat round 2" not in page_as(client, org, f"/leagues/{lid}"), "not while the round runs"
    assert "Sign up" not in words_of(page_as(client, late, f"/leagues/{lid}"))
    assert page.all("a", href=f"/api/v1/leagues/{lid}/export"), "the league's signed record"

    league = client.get(f"{API}/leagues/{lid}", headers=bearer(org)).json()
    assert [s["season"] for s in league["seasons"]] == [1]


def words_of(html: str) -> str:
    return assert_accessible(html).words

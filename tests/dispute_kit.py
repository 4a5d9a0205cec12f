"""A league's game over HTTP for the dispute tests: an organiser and their league, two or three
players at a Cotton Trade table in it, another league's organiser and a player of no game (a
spectator), and the calls a dispute takes (open, rule)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

from tests.api_helpers import API
from tests.trust_world import ADMIN_TOKEN, bearer

OPERATOR = bearer(ADMIN_TOKEN)


def register(client: TestClient, name: str) -> dict[str, Any]:
    r = client.post(f"{API}/players", json={"name": name})
    assert r.status_code == 201, r.text
    client.cookies.clear()
    return dict(r.json())


@dataclass
class LeagueGame:
    client: TestClient
    organiser: dict[str, Any]
    league_id: str
    players: list[dict[str, Any]]
    game_id: str
    other_organiser: dict[str, Any]
    spectator: dict[str, Any]
    rnd: random.Random = field(default_factory=lambda: random.Random(28))

    @classmethod
    def build(cls, client: TestClient, seats: int = 2, league: str = "Spring league") -> LeagueGame:
        organiser = register(client, "Olga")
        other = register(client, "Otto")
        spectator = register(client, "Sue")
        r = client.post(f"{API}/leagues", json={"name": league}, headers=bearer(organiser["token"]))
        assert r.status_code == 201, r.text
        league_id = r.json()["league_id"]
        r = client.post(f"{API}/leagues", json={"name": f"Not {league}"}, headers=bearer(other["token"]))
        assert r.status_code == 201, r.text
        players = [register(client, name) for name in ("Ann", "Bob", "Cid")[:seats]]
        body = {"title": "cotton-trade", "seats": seats, "league": league_id}
        r = client.post(f"{API}/games", json=body, headers=bearer(players[0]["token"]))
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        for p in players[1:]:
            r = client.post(f"{API}/games/{game_id}/join", headers=bearer(p["token"]))
            assert r.status_code == 200, r.text
        return cls(client, organiser, league_id, players, game_id, other, spectator)

    @property
    def services(self) -> Any:
        return self.client.app.state.services  # type: ignore[attr-defined]

    def auth(self, who: dict[str, Any] | int) -> dict[str, str]:
        person = self.players[who] if isinstance(who, int) else who
        return bearer(person["token"])

    def game(self, who: dict[str, Any] | int = 0) -> dict[str, Any]:
        r = self.client.get(f"{API}/games/{self.game_id}", headers=self.auth(who))
        assert r.status_code == 200, r.text
        return dict(r.json())

    def play(self, moves: int) -> int:
        """Random legal decisions by whoever is awaited; the game's version after them."""
        for _ in range(moves):
            g = self.game()
            if g["status"] != "active":
                break
            seat = int(g["awaiting"][0]["seat"])
            mine = self.game(seat)
            body = {"expected_version": mine["version"], "decision": self.rnd.choice(mine["legal_decisions"])}
            r = self.client.post(f"{API}/games/{self.game_id}/decisions", json=body, headers=self.auth(seat))
            assert r.status_code == 200, r.text
        return int(self.game()["version"])

    def say(self, seat: int, text: str) -> int:
        r = self.client.post(
            f"{API}/games/{self.game_id}/messages", json={"text": text}, headers=self.auth(seat)
        )
        assert r.status_code == 201, r.text
        return int(r.json()["number"])

    def dispute(
        self, seat: int, versions: list[int], text: str = "that is not what I chose", **body: Any
    ) -> Any:
        return self.client.post(
            f"{API}/games/{self.game_id}/disputes",
            json={"versions": versions, "text": text, **body},
            headers=self.auth(seat),
        )

    def rule(self, headers: dict[str, str], number: int, outcome: str = "no_change", **body: Any) -> Any:
        return self.client.post(
            f"{API}/games/{self.game_id}/disputes/{number}/resolve",
            json={"outcome": outcome, **body},
            headers=headers,
        )

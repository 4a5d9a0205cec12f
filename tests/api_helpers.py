"""Driving the HTTP API in tests."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

API = "/api/v1"


class Table:
    """Three players at one Cotton Trade table, over HTTP."""

    def __init__(
        self,
        client: TestClient,
        n: int = 3,
        title: str = "cotton-trade",
        options: dict[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.players = [client.post(f"{API}/players", json={"name": f"P{i}"}).json() for i in range(n)]
        body = {"title": title, "seats": n, "options": options or {}}
        r = client.post(f"{API}/games", json=body, headers=self.auth(0))
        assert r.status_code == 201, r.text
        self.game_id = r.json()["game_id"]
        for i in range(1, n):
            r = client.post(f"{API}/games/{self.game_id}/join", headers=self.auth(i))
            assert r.status_code == 200, r.text

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.players[seat]['token']}"}

    def game(self, seat: int = 0) -> dict[str, Any]:
        r = self.client.get(f"{API}/games/{self.game_id}", headers=self.auth(seat))
        assert r.status_code == 200, r.text
        return r.json()

    def decide(self, seat: int, decision: dict[str, Any], version: int, **headers: str) -> Any:
        return self.client.post(
            f"{API}/games/{self.game_id}/decisions",
            json={"expected_version": version, "decision": decision},
            headers=self.auth(seat) | headers,
        )

    def awaited(self) -> tuple[int, dict[str, Any]]:
        """The first awaited seat and its view (with its legal decisions)."""
        seat = int(self.game()["awaiting"][0]["seat"])
        return seat, self.game(seat)

    def step(self, rnd: random.Random) -> dict[str, Any] | None:
        """One random legal decision by whoever is awaited; None once finished."""
        g = self.game()
        if g["status"] == "finished":
            return None
        seat = rnd.choice(g["awaiting"])["seat"]
        mine = self.game(seat)
        r = self.decide(seat, rnd.choice(mine["legal_decisions"]), mine["version"])
        assert r.status_code == 200, r.text
        return r.json()

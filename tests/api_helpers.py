"""Driving the HTTP API in tests."""

from __future__ import annotations

import random
from dataclasses import dataclass
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

    def play_out(self, rnd: random.Random) -> int:
        """Random legal decisions to the end of the game: how many were made."""
        made = 0
        while self.step(rnd) is not None:
            made += 1
        return made

    def keeps_secrets(self, rnd: random.Random, steps: int, full_every: int, why: str) -> None:
        """Plays up to ``steps`` random decisions; before each, whatever the engine keeps face down
        (``why`` says what always is) appears in no seat's view or position, and every
        ``full_every`` steps in no log or export either; nor does the game's seed."""
        services = self.client.app.state.services  # type: ignore[attr-defined]
        base = f"{API}/games/{self.game_id}"
        for step in range(steps):
            game = services.ledger.get_game(self.game_id)
            hidden = game.engine.secrets(game.state, None)
            assert hidden, why
            for seat in range(len(self.players)):
                urls = [base, f"{base}/state"]
                urls += [f"{base}/events", f"{base}/export"] if step % full_every == 0 else []
                for url in urls:
                    body = self.client.get(url, headers=self.auth(seat)).text
                    leaked = [h for h in hidden if f'"{h}"' in body]
                    assert not leaked, f"seat {seat} saw {leaked} at {url}"
                    assert game.seed not in body
            if self.step(rnd) is None:
                break


@dataclass
class AtTable:
    """A test's client and its table over HTTP, with the application's services behind them."""

    client: TestClient
    table: Table

    @property
    def services(self) -> Any:
        return self.client.app.state.services  # type: ignore[attr-defined]

    @property
    def game_id(self) -> str:
        return self.table.game_id

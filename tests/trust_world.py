"""A small populated service for the trust tests: players with tokens, an administrator, a
spectator, an active game, a waiting game and a league, all created over HTTP."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

from tests.api_helpers import API, Table

ADMIN_TOKEN = "test-admin-token-0123456789"  # noqa: S105 - the conftest's operator token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_error_shape(response: Any, context: str = "") -> str:
    """A refused request answers JSON ``{"code": "...", "message": "..."}``; returns the code."""
    assert response.headers.get("content-type", "").startswith("application/json"), (
        context,
        response.status_code,
        response.headers.get("content-type"),
        response.text[:300],
    )
    body = response.json()
    assert isinstance(body, dict), (context, body)
    code = body.get("code")
    assert isinstance(code, str) and code and "/" in code, (context, response.status_code, body)
    assert isinstance(body.get("message"), str) and body["message"], (context, body)
    return code


@dataclass
class World:
    client: TestClient
    table: Table
    spectator: dict[str, Any]
    waiting_game: str
    league: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def game_id(self) -> str:
        return self.table.game_id

    def token(self, seat: int) -> str:
        return str(self.table.players[seat]["token"])

    @classmethod
    def build(cls, client: TestClient, title: str = "cotton-trade", seats: int = 3) -> World:
        table = Table(client, n=seats, title=title)
        spectator = client.post(f"{API}/players", json={"name": "Spectator"}).json()
        waiting = client.post(
            f"{API}/games", json={"title": title, "seats": seats}, headers=table.auth(0)
        ).json()["game_id"]
        league = client.post(f"{API}/leagues", json={"name": "Trust league"}, headers=table.auth(0)).json()
        return cls(client, table, spectator, waiting, league)

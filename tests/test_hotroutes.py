"""The hot routes' short way (api/hotroutes.py) gives the answers FastAPI's routes give: the
same view for the same seat, the same refusals with the same codes, nothing written by a
refused decision, and the same metrics; a token the process has not verified lately, a bad
body or another credential goes FastAPI's way."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api import hotroutes
from api.observability import DECISIONS
from tests.api_helpers import API, Table


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hot route's answers, by kind, as they are given."""
    seen: list[str] = []
    game, decision = hotroutes.game_answer, hotroutes.decision_answer

    def game_answer(*args: Any) -> Any:
        seen.append("game")
        return game(*args)

    def decision_answer(*args: Any) -> Any:
        seen.append("decision")
        return decision(*args)

    monkeypatch.setattr(hotroutes, "game_answer", game_answer)
    monkeypatch.setattr(hotroutes, "decision_answer", decision_answer)
    return seen


def test_a_seat_sees_the_same_game_both_ways_and_no_other_seat_sees_its_view(
    client: TestClient, taken: list[str]
) -> None:
    table = Table(client)
    rnd = random.Random(3)
    for _ in range(6):
        table.step(rnd)
    url = f"{API}/games/{table.game_id}"
    start = len(taken)
    views = {}
    for seat in range(3):
        before = len(taken)
        slow = client.get(url, params={"via": "fastapi"}, headers=table.auth(seat))  # a query: FastAPI's way
        quick = client.get(url, headers=table.auth(seat))
        assert len(taken) == before + 1
        assert slow.status_code == quick.status_code == 200
        assert quick.json() == slow.json()
        views[seat] = quick.json()
    awaited = views[0]["awaiting"][0]["seat"]
    assert views[awaited]["legal_decisions"]
    for seat in range(3):
        if seat != awaited:
            assert views[seat]["legal_decisions"] == []  # the awaited seat's options reach no one else
    for headers in ({}, {"Authorization": "Bearer gl_" + "0" * 32 + "_nope"}, {"Authorization": "Basic x"}):
        slow, quick = (
            client.get(url, params={"via": "fastapi"}, headers=headers),
            client.get(url, headers=headers),
        )
        assert slow.status_code == quick.status_code == 401
        assert slow.json() == quick.json()
        assert slow.headers.get("www-authenticate") == quick.headers.get("www-authenticate")
    assert len(taken) == start + 3  # the refused ones never reached the game


def test_a_decision_the_short_way_is_the_decision_fastapis_way(client: TestClient, taken: list[str]) -> None:
    table = Table(client)
    seat, mine = table.awaited()
    accepted = DECISIONS.labels("accepted")._value.get()
    r = table.decide(seat, mine["legal_decisions"][0], mine["version"])
    assert r.status_code == 200, r.text
    assert taken[-1] == "decision"
    assert r.json()["version"] > mine["version"] and r.json()["replayed"] is False
    assert DECISIONS.labels("accepted")._value.get() == accepted + 1  # counted as FastAPI's route is
    # a stale version: the same 409 as FastAPI's, nothing written
    version = table.game()["version"]
    again = table.decide(seat, mine["legal_decisions"][0], mine["version"])
    assert again.status_code == 409
    assert again.json()["code"] == "game/stale_version"
    assert table.game()["version"] == version


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b'{"expected_version": 0, "decision": {}', 400, "request/bad_json"),
        (b'{"expected_version": -1, "decision": {}}', 422, "request/invalid"),
        (b'{"expected_version": 0, "decision": {}, "extra": 1}', 422, "request/invalid"),
        (b'{"expected_version": "3", "decision": {}}', 422, "request/invalid"),
    ],
)
def test_a_bad_body_gets_fastapis_answer_and_changes_nothing(
    client: TestClient, taken: list[str], body: bytes, status: int, code: str
) -> None:
    table = Table(client)
    version = table.game()["version"]  # the token is verified: the short way is open to it
    r = client.post(
        f"{API}/games/{table.game_id}/decisions",
        content=body,
        headers=table.auth(0) | {"Content-Type": "application/json"},
    )
    assert r.status_code == status, r.text
    assert r.json()["code"] == code
    assert "decision" not in taken
    assert table.game()["version"] == version


def test_an_idempotency_key_replays_the_first_answer_the_short_way(
    client: TestClient, taken: list[str]
) -> None:
    table = Table(client)
    seat, mine = table.awaited()
    first = table.decide(seat, mine["legal_decisions"][0], mine["version"], **{"Idempotency-Key": "k-1"})
    again = table.decide(seat, mine["legal_decisions"][0], mine["version"], **{"Idempotency-Key": "k-1"})
    assert taken.count("decision") == 2
    assert first.status_code == again.status_code == 200
    assert again.json() == {**first.json(), "replayed": True}
    too_long = table.decide(
        seat, mine["legal_decisions"][0], mine["version"], **{"Idempotency-Key": "k" * 201}
    )
    assert too_long.status_code == 422  # FastAPI's header check, as before
    assert taken.count("decision") == 2


def test_a_revoked_token_is_refused_at_once_the_short_way(client: TestClient, taken: list[str]) -> None:
    table = Table(client)
    made = client.post(f"{API}/me/tokens", json={"name": "phone"}, headers=table.auth(1))
    assert made.status_code in (200, 201), made.text
    phone = {"Authorization": f"Bearer {made.json()['token']}"}
    assert client.get(f"{API}/games/{table.game_id}", headers=phone).status_code == 200
    assert client.get(f"{API}/games/{table.game_id}", headers=phone).status_code == 200
    assert taken == ["game", "game"]  # the second from the process's memory of the token
    gone = client.delete(f"{API}/me/tokens/{made.json()['token_id']}", headers=table.auth(1))
    assert gone.status_code == 200, gone.text
    refused = client.get(f"{API}/games/{table.game_id}", headers=phone)
    assert refused.status_code == 401
    assert taken == ["game", "game"]

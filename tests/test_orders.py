"""Nobody waits for a missing player (issue 20): the stand-in, standing orders and conditional
replies, against every store."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from ledger.domain import Game
from ledger.errors import ConflictError
from tests.api_helpers import API
from tests.test_play_by_web import FakeClock

HOUR = 3600
TITLES = ("cotton-trade", "water-frame", "arkwright-card-game")


@pytest.fixture
def clock(services: Services) -> FakeClock:
    fake = FakeClock()
    services.ledger.clock = fake
    return fake


TOKENS: dict[str, str] = {}


def people(services: Services, n: int) -> list[str]:
    out = []
    for i in range(n):
        pid, token = services.ledger.register_player(f"P{i}")
        TOKENS[str(pid)] = token
        out.append(str(pid))
    return out


def decisions(services: Services, game: Game) -> list[dict[str, Any]]:
    return [e.public for e in services.ledger.events.get(game.id) if type(e).TOPIC.endswith("decision_recorded")]


def bearer(services: Services, player: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[player]}"}


@pytest.mark.parametrize("title", TITLES)
def test_the_stand_in_plays_a_seat_whose_clock_ran_out_until_its_player_returns(
    services: Services, clock: FakeClock, title: str
) -> None:
    ids = people(services, 2)
    control = {"preset": "custom", "initial_hours": 1, "increment_hours": 1, "cap_hours": 3, "on_expiry": "bot"}
    game = services.ledger.create_game(creator=ids[0], title=title, players=ids, time_control=control)
    away = game.awaiting[0]
    clock.advance(minutes=61)
    assert services.ledger.expire(game.id) == [away]
    game = services.ledger.get_game(game.id)
    assert game.stand_in == (away,)
    made = [d for d in decisions(services, game) if d.get("by") == "bot"]
    assert made and all(d["seat"] == away and d["player"] == ids[away] for d in made)
    assert away not in game.awaiting, "the stand-in plays the seat whenever it is awaited"
    rnd = random.Random(5)
    for _ in range(30):  # the other player plays on, never waiting for the absent one
        if game.status != "active":
            break
        assert away not in game.awaiting
        seat = game.awaiting[0]
        decision = rnd.choice(game.engine.legal_decisions(game.state, seat))
        services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
        game = services.ledger.get_game(game.id)
    by_bot = [d for d in decisions(services, game) if d.get("by") == "bot"]
    assert len(by_bot) > len(made), "the stand-in went on playing the seat"
    with pytest.raises(ConflictError):  # nothing of the stand-in's is taken back as the player's own
        services.ledger.undo(game.id, ids[away], game.version)
    game = services.ledger.return_to_game(game.id, ids[away])
    assert game.stand_in == ()
    with pytest.raises(ConflictError) as err:
        services.ledger.return_to_game(game.id, ids[away])
    assert err.value.code == "game/not_away"
    for _ in range(60):  # the player is awaited again and decides themself
        if away in game.awaiting or game.status != "active":
            break
        seat = game.awaiting[0]
        decision = rnd.choice(game.engine.legal_decisions(game.state, seat))
        services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
        game = services.ledger.get_game(game.id)
    assert game.status != "active" or away in game.awaiting
    assert len([d for d in decisions(services, game) if d.get("by") == "bot"]) == len(by_bot)


def test_the_stand_in_is_deterministic_and_shown_in_the_log_and_the_return_route(
    client: TestClient, services: Services, clock: FakeClock
) -> None:
    ids = people(services, 2)
    control = {"preset": "custom", "initial_hours": 1, "increment_hours": 1, "cap_hours": 3, "on_expiry": "bot"}
    game = services.ledger.create_game(creator=ids[0], title="water-frame", players=ids, time_control=control)
    away = game.awaiting[0]
    clock.advance(minutes=61)
    services.ledger.expire(game.id)
    game = services.ledger.get_game(game.id)
    h = bearer(services, ids[away])
    client.cookies.set("gl_token", TOKENS[ids[away]])
    page = client.get(f"/games/{game.id}")
    client.cookies.clear()
    assert page.status_code == 200 and "The stand-in bot decided for" in page.text
    out = client.get(f"{API}/games/{game.id}", headers=h).json()
    assert out["clocks"][away]["stand_in"] is True
    back = client.post(f"{API}/games/{game.id}/return", headers=h)
    assert back.status_code == 200 and back.json()["clocks"][away]["stand_in"] is False
    again = client.post(f"{API}/games/{game.id}/return", headers=h)
    assert again.status_code == 409 and again.json()["code"] == "game/not_away"
    other = client.post(f"{API}/games/{game.id}/return", headers=bearer(services, ids[1 - away]))
    assert other.status_code == 409
    # the stand-in's search is seeded by the game's seed and the event: a replay reproduces it
    from ledger.standin import stand_in_decision

    for event in services.ledger.events.get(game.id):
        if type(event).TOPIC.endswith("decision_recorded") and event.public.get("by") == "bot":
            version = event.originator_version
            before = services.ledger.get_game(game.id, version=version - 1)
            again_d = stand_in_decision(game.title, before.state, event.public["seat"], game.seed_bytes, version)
            assert again_d.model_dump(mode="json") == event.public["decision"]

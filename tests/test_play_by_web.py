"""Play by web over days: clocks and their consequences, vacations, undo within the rules
and with consent, notifications (outbox, server-sent events, signed webhooks with retries).

Clocks run on a fake time source; webhooks go to a receiver on localhost.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.notify import MAX_ATTEMPTS, verify_signature
from api.services import Services
from api.settings import Settings
from ledger.domain import Game
from ledger.errors import ConflictError, InvalidRequestError
from ledger.export import game_export
from ledger.games.cotton_trade import common as ct
from ledger.verify import verify_export
from tests.api_helpers import API
from tests.fake_clock import FakeClock

HOUR = 3600


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Webhooks go to a receiver on 127.0.0.1, which the operator must allow (api/outbound.py)."""
    return Settings(
        database_url=database_url, admin_token="test-admin-token-0123456789", outbound_allow="127.0.0.1"
    )


@pytest.fixture
def clock(services: Services) -> FakeClock:
    fake = FakeClock()
    services.ledger.clock = fake
    services.webhooks.now = fake
    return fake


def players(services: Services, n: int) -> list[str]:
    return [str(services.ledger.register_player(f"P{i}")[0]) for i in range(n)]


def timed_game(services: Services, ids: list[str], on_expiry: str = "default", **hours: float) -> Game:
    control = {
        "preset": "custom",
        "initial_hours": hours.get("initial", 2),
        "increment_hours": hours.get("increment", 1),
        "cap_hours": hours.get("cap", 3),
        "on_expiry": on_expiry,
    }
    return services.ledger.create_game(
        creator=ids[0], title="cotton-trade", players=ids, time_control=control
    )


def run_out(services: Services, clock: FakeClock, ids: list[str], on_expiry: str) -> tuple[Game, int]:
    """A timed game (1 h on each clock) whose first awaited seat lets its clock run out: the game
    after the clocks are ticked two hours later, and that seat."""
    g = timed_game(services, ids, on_expiry, initial=1)
    seat = g.awaiting[0]
    clock.advance(hours=2)
    services.tick_clocks()
    return services.ledger.get_game(g.id), seat


def play_one(services: Services, game: Game, ids: list[str], rnd: random.Random) -> Game:
    seat = game.awaiting[0]
    legal = game.engine.legal_decisions(game.state, seat)
    services.ledger.decide(game.id, ids[seat], game.version, rnd.choice(legal).model_dump(mode="json"))
    return services.ledger.get_game(game.id)


def kinds_of(services: Services, game: Game) -> list[str]:
    return [e.topic for e in services.ledger.events.get(game.id)]  # type: ignore[attr-defined]


def topics(services: Services, game: Game) -> list[str]:
    return [type(e).TOPIC for e in services.ledger.events.get(game.id)]


def verifies(services: Services, game: Game) -> bool:
    report = verify_export(game_export(services.ledger, services.ledger.get_game(game.id), [], complete=True))
    assert report.ok, report.text()
    return True


# --- time controls -------------------------------------------------------------------------


def test_time_controls_are_validated_and_presets_resolve_to_seconds(services: Services) -> None:
    ids = players(services, 2)
    g = services.ledger.create_game(
        creator=ids[0], title="cotton-trade", players=ids, time_control={"preset": "24h+4h"}
    )
    assert g.time_control == {
        "kind": "clock",
        "preset": "24h+4h",
        "initial": 24 * HOUR,
        "increment": 4 * HOUR,
        "cap": 72 * HOUR,
        "on_expiry": "default",
    }
    for bad in (
        {"preset": "custom", "initial_hours": 5},
        {"preset": "1h"},
        {"preset": "none", "on_expiry": "x"},
    ):
        with pytest.raises(InvalidRequestError) as err:
            services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, time_control=bad)
        assert err.value.code == "request/invalid_time_control"
    plain = services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids)
    assert plain.time_control == {"kind": "none"} and not plain.clocks.timed


def test_a_clock_runs_only_for_the_awaited_seat_and_gains_the_increment_up_to_the_cap(
    services: Services, clock: FakeClock
) -> None:
    ids = players(services, 2)
    g = timed_game(services, ids, initial=2, increment=1, cap=3)
    mover = g.awaiting[0]
    other = 1 - mover
    now = clock.advance(minutes=30)
    assert g.clocks.remaining(mover, g.awaiting, now) == 1.5 * HOUR
    assert g.clocks.remaining(other, g.awaiting, now) == 2 * HOUR
    g = play_one(services, g, ids, random.Random(1))
    assert g.clocks.bank[mover] == 2.5 * HOUR, "1.5 h left + 1 h increment"
    clock.advance(minutes=1)
    g = play_one(services, g, ids, random.Random(1)) if g.awaiting == [mover] else g
    assert max(g.clocks.bank) <= 3 * HOUR, "the cap holds"


def test_a_seat_whose_clock_runs_out_gets_the_titles_default_decision(
    services: Services, clock: FakeClock
) -> None:
    ids = players(services, 2)
    g = timed_game(services, ids, "default", initial=1)
    seat = g.awaiting[0]
    clock.advance(minutes=59)
    assert services.tick_clocks() == {}
    clock.advance(minutes=2)
    assert services.tick_clocks() == {str(g.id): [seat]}
    g = services.ledger.get_game(g.id)
    events = [
        e
        for e in services.ledger.events.get(g.id)
        if type(e).TOPIC.endswith(("timed_out", "decision_recorded"))
    ]
    timed_out, forced = events[-2], events[-1]
    assert timed_out.public["seat"] == seat and timed_out.public["consequence"] == "default"
    assert timed_out.public["overdue_seconds"] == 60
    assert forced.public["forced"] == "timeout" and forced.public["seat"] == seat
    assert forced.public["decision"]["type"] == "pass_renting", "the safe choice: rent nothing"
    assert g.clocks.bank[seat] == 1 * HOUR, "after a timeout the seat has one increment"
    assert services.tick_clocks() == {}, "a timeout is recorded once"
    services.refresh("notifications")
    told = services.view("notifications").outbox(ids[seat], kinds=["timed_out"])
    assert [n["consequence"] for n in told] == ["default"]
    assert verifies(services, g)


def test_skip_passes_and_forfeit_hands_the_seat_to_its_default_and_ranks_it_last(
    services: Services, clock: FakeClock
) -> None:
    ids = players(services, 2)
    g, loser = run_out(services, clock, ids, "forfeit")
    assert g.forfeited == [loser]
    rnd = random.Random(3)
    while g.status == "active":
        assert loser not in g.awaiting, "a forfeited seat never waits: its decisions are made for it"
        clock.advance(minutes=5)
        g = play_one(services, g, ids, rnd)
    last = g.standings[-1]
    assert last["seat"] == loser and last["forfeited"] and last["rank"] == 2
    assert g.standings[0]["rank"] == 1
    forced = [
        e.public.get("forced")
        for e in services.ledger.events.get(g.id)
        if type(e).TOPIC.endswith("decision_recorded")
    ]
    assert forced.count("forfeit") >= 5, "every later decision of the seat was made for it"
    assert verifies(services, g), "the record verifies, forfeit standings included"

    g, seat = run_out(services, clock, ids, "skip")
    last_decision = [
        e for e in services.ledger.events.get(g.id) if type(e).TOPIC.endswith("decision_recorded")
    ][-1]
    assert last_decision.public["decision"]["type"] == "pass_renting" and last_decision.public["seat"] == seat


def test_a_vacation_stops_the_players_clocks_within_the_yearly_allowance(
    client: TestClient, services: Services, clock: FakeClock
) -> None:
    ids, tokens = [], []
    for i in range(2):
        r = client.post(f"{API}/players", json={"name": f"V{i}"}).json()
        ids.append(r["player_id"])
        tokens.append({"Authorization": f"Bearer {r['token']}"})
    g = timed_game(services, ids, "default", initial=2)
    seat = g.awaiting[0]
    services.refresh()
    r = client.post(f"{API}/me/vacation", json={"days": 3}, headers=tokens[seat])
    assert r.status_code == 200, r.text
    assert r.json()["on_vacation"] and r.json()["days_left_this_year"] == 27
    clock.advance(days=2)
    assert services.tick_clocks() == {}, "no clock runs during a vacation"
    game = client.get(f"{API}/games/{g.id}", headers=tokens[seat]).json()
    mine = game["clocks"][seat]
    assert mine["paused_until"] is not None and not mine["running"]
    assert mine["remaining_seconds"] == 2 * HOUR
    r = client.post(f"{API}/me/vacation", json={"days": 1}, headers=tokens[seat])
    assert r.status_code == 409 and r.json()["code"] == "vacation/already"
    r = client.delete(f"{API}/me/vacation", headers=tokens[seat])
    assert r.status_code == 200 and not r.json()["on_vacation"]
    clock.advance(hours=1)
    game = client.get(f"{API}/games/{g.id}", headers=tokens[seat]).json()
    assert game["clocks"][seat]["running"] and game["clocks"][seat]["remaining_seconds"] == HOUR
    clock.advance(hours=1, seconds=1)
    assert services.tick_clocks() == {str(g.id): [seat]}
    r = client.post(f"{API}/me/vacation", json={"days": 40}, headers=tokens[seat])
    assert r.status_code == 422 and r.json()["code"] == "vacation/allowance"
    assert verifies_after_finish(services, g)


def verifies_after_finish(services: Services, g: Game) -> bool:
    """Abandon (reveals the seed) and verify the whole record."""
    g = services.ledger.abandon(g.id, "admin", "test over")
    return verifies(services, g)


# --- undo -------------------------------------------------------------------------------------


def pass_renting(services: Services, g: Game, ids: list[str]) -> tuple[Game, int]:
    """The awaited seat rents no ship: the game after, and that seat."""
    seat = g.awaiting[0]
    services.ledger.decide(g.id, ids[seat], g.version, {"type": "pass_renting"})
    return services.ledger.get_game(g.id), seat


def undo_table(services: Services) -> tuple[list[str], Game]:
    ids = players(services, 3)
    g = services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids)
    return ids, g


def test_a_player_takes_back_a_decision_nobody_followed_and_that_revealed_nothing(services: Services) -> None:
    ids, g = undo_table(services)
    seat = g.awaiting[0]
    before = g.state
    version = g.version
    decision = next(d for d in g.engine.legal_decisions(g.state, seat) if d.type == "rent_ship")
    services.ledger.decide(g.id, ids[seat], g.version, decision.model_dump(mode="json"))
    g = services.ledger.get_game(g.id)
    g = services.ledger.undo(g.id, ids[seat], g.version)
    assert g.state == before and g.awaiting == [seat]
    undone = list(services.ledger.events.get(g.id))[-1]
    assert type(undone).TOPIC == Game.DecisionUndone.TOPIC
    assert undone.public["target_version"] == version + 1 and undone.public["consent"] == []
    assert "state" in undone.private["server"] and '"state":' not in json.dumps(undone.public)
    assert len(list(services.ledger.events.get(g.id))) == version + 2, "nothing deleted: decision + undo"
    # the seat decides again, differently
    services.ledger.decide(g.id, ids[seat], g.version, {"type": "pass_renting"})
    services.refresh()
    board = services.view("scoreboard").board(str(g.id))
    g = services.ledger.get_game(g.id)
    for s in board["seats"]:
        assert s["money"] == ct.money(g.state, s["seat"]) and s["ships"] == {}
    assert verifies_after_finish(services, g)


def test_an_abusive_undo_is_refused_and_needs_everyones_consent(services: Services) -> None:
    ids, g = undo_table(services)
    g, first = pass_renting(services, g, ids)
    g, _ = pass_renting(services, g, ids)
    with pytest.raises(ConflictError) as err:
        services.ledger.undo(g.id, ids[first], g.version)
    assert err.value.code == "undo/needs_consent" and "another player" in str(err.value)
    v = g.version
    # the last pass ends the round (no one has a ship): face-down contracts turn up and the next
    # round's ship and contract cards come off the hidden decks, all inside this one decision
    g, third = pass_renting(services, g, ids)
    assert g.version == v + 1 and g.state.round == 2
    with pytest.raises(ConflictError) as err:
        services.ledger.undo(g.id, ids[third], g.version)
    assert err.value.code == "undo/needs_consent" and "revealed hidden information" in str(err.value)
    assert services.ledger.get_game(g.id).version == g.version, "a refused undo writes nothing"


def test_undo_with_consent_rewinds_what_followed_and_a_refusal_closes_the_request(
    services: Services,
) -> None:
    ids, g = undo_table(services)
    start_state = g.state
    g, first = pass_renting(services, g, ids)
    g, _ = pass_renting(services, g, ids)
    g = services.ledger.request_undo(g.id, ids[first], g.version)
    assert g.undo_request is not None and g.undo_request["seat"] == first
    with pytest.raises(ConflictError):
        services.ledger.request_undo(g.id, ids[first], g.version)
    others = [s for s in range(3) if s != first]
    g = services.ledger.answer_undo(g.id, ids[others[0]], True)
    assert g.undo_request is not None and g.state != start_state, "one consent of two: nothing yet"
    g = services.ledger.answer_undo(g.id, ids[others[1]], True)
    assert g.undo_request is None and g.state == start_state and g.awaiting == [first]
    undone = list(services.ledger.events.get(g.id))[-1]
    assert sorted(undone.public["consent"]) == others
    services.refresh("notifications")
    disputes = services.view("notifications").outbox(ids[others[0]], kinds=["dispute_opened"])
    assert len(disputes) == 1 and disputes[0]["dispute"] == "undo"
    # a refusal closes the request and changes nothing
    g, _ = pass_renting(services, g, ids)  # the first seat again
    g = services.ledger.request_undo(g.id, ids[first], g.version)
    state = g.state
    g = services.ledger.answer_undo(g.id, ids[others[0]], False)
    assert g.undo_request is None and g.state == state
    with pytest.raises(ConflictError):
        services.ledger.answer_undo(g.id, ids[others[1]], True)
    assert verifies_after_finish(services, g)


def test_undo_over_http(client: TestClient, services: Services) -> None:
    from tests.api_helpers import Table

    table = Table(client, n=2)
    g = table.game(0)
    seat = g["awaiting"][0]["seat"]
    r = table.decide(seat, {"type": "pass_renting"}, g["version"])
    assert r.status_code == 200
    v = table.game(seat)["version"]
    r = client.post(
        f"{API}/games/{table.game_id}/undo", json={"expected_version": v}, headers=table.auth(seat)
    )
    assert r.status_code == 200, r.text
    assert r.json()["awaiting"][0]["seat"] == seat and r.json()["version"] == v + 1
    r = client.post(
        f"{API}/games/{table.game_id}/undo", json={"expected_version": v}, headers=table.auth(seat)
    )
    assert r.status_code == 409 and r.json()["code"] == "game/stale_version"
    r = client.post(
        f"{API}/games/{table.game_id}/undo", json={"expected_version": v + 1}, headers=table.auth(seat)
    )
    assert r.status_code == 409 and r.json()["code"] == "undo/nothing"


# --- notifications ------------------------------------------------------------------------


class Receiver:
    """A webhook receiver on localhost that answers with the statuses it is given."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = statuses
        self.received: list[tuple[dict[str, str], bytes]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.received.append((dict(self.headers), body))
                code = outer.statuses.pop(0) if outer.statuses else 200
                self.send_response(code)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver([])
    yield r
    r.close()


def test_your_turn_and_game_started_reach_the_right_players(services: Services) -> None:
    ids, g = undo_table(services)
    services.refresh("notifications")
    view = services.view("notifications")
    for seat, pid in enumerate(ids):
        got = [n["kind"] for n in view.outbox(pid)]
        assert got.count("game_started") == 1
        assert ("your_turn" in got) == (seat in g.awaiting)
    first = g.awaiting[0]
    services.ledger.decide(g.id, ids[first], g.version, {"type": "pass_renting"})
    services.refresh("notifications")
    nxt = services.ledger.get_game(g.id).awaiting[0]
    assert [n["kind"] for n in view.outbox(ids[nxt])].count("your_turn") == 1
    turn = view.outbox(ids[nxt], kinds=["your_turn"])[0]
    assert turn["url"] == f"/games/{g.id}" and "your turn" in turn["text"]


def test_webhooks_are_signed_retried_with_backoff_and_logged(
    services: Services, clock: FakeClock, receiver: Receiver
) -> None:
    ids = players(services, 2)
    receiver.statuses = [500, 503]  # two failures, then success
    p = services.ledger.set_notifications(ids[0], ["game_started"], receiver.url)
    secret = p.webhook_secret
    assert secret and secret.startswith("whsec_")
    services.ledger.set_notifications(ids[1], ["game_finished"], None)  # no webhook, no deliveries
    g = services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids)
    services.refresh("notifications")
    services.webhooks.run_once()
    assert len(receiver.received) == 1
    headers, body = receiver.received[0]
    payload = json.loads(body)
    assert payload["kind"] == "game_started" and payload["game_id"] == str(g.id)
    assert verify_signature(secret, headers["X-Gameledger-Signature"], body, now=clock.now.timestamp())
    assert not verify_signature(
        "whsec_wrong", headers["X-Gameledger-Signature"], body, now=clock.now.timestamp()
    )
    assert services.webhooks.run_once() == 0, "the retry waits for its backoff"
    clock.advance(seconds=11)
    services.webhooks.run_once()
    clock.advance(seconds=31)
    services.webhooks.run_once()
    started = [json.loads(b) for _, b in receiver.received if json.loads(b)["kind"] == "game_started"]
    assert [s["attempt"] for s in started] == [1, 2, 3]
    assert len({s["id"] for s in started}) == 1, "one delivery id across attempts: receivers deduplicate"
    recent = services.view("notifications").recent(ids[0])
    hook = next(n["webhook"] for n in recent if n["kind"] == "game_started")
    assert hook["status"] == "delivered" and hook["attempts"] == 3
    attempts = services.view("notifications").attempts(ids[0])
    assert sorted(a["status"] for a in attempts if a["kind"] == "game_started") == [200, 500, 503]
    assert services.view("notifications").attempts(ids[1]) == []


def test_a_dead_webhook_gives_up_after_the_last_attempt(
    services: Services, clock: FakeClock, receiver: Receiver
) -> None:
    ids = players(services, 2)
    receiver.statuses = [500] * 20
    services.ledger.set_notifications(ids[0], ["game_started"], receiver.url)
    services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids)
    services.refresh("notifications")
    for _ in range(MAX_ATTEMPTS + 2):
        services.webhooks.run_once()
        clock.advance(hours=3)
    assert len(receiver.received) == MAX_ATTEMPTS
    recent = services.view("notifications").recent(ids[0])
    hook = next(n["webhook"] for n in recent if n["kind"] == "game_started")
    assert hook["status"] == "failed" and hook["last_error"] == "HTTP 500"
    assert all(n["webhook"] is None for n in recent if n["kind"] != "game_started"), (
        "only wanted kinds go out"
    )


def test_notification_settings_and_server_sent_events_over_http(
    client: TestClient, services: Services
) -> None:
    from tests.api_helpers import Table

    table = Table(client, n=2)
    h = table.auth(0)
    r = client.put(f"{API}/me/notifications/settings", json={"kinds": ["nonsense"]}, headers=h)
    assert r.status_code == 422 and r.json()["code"] == "request/invalid_notification_kind"
    r = client.put(
        f"{API}/me/notifications/settings", json={"kinds": ["your_turn", "game_started"]}, headers=h
    )
    assert r.status_code == 200 and r.json()["kinds"] == ["your_turn", "game_started"]
    body = client.get(f"{API}/me/stream?after=0&max_seconds=0.5&interval=0.1", headers=h).text
    assert "event: notification" in body and '"kind":"game_started"' in body
    # the web page's cookie authenticates a stream (a GET), never a decision (a POST)
    client.cookies.set("gl_token", table.players[0]["token"])
    body = client.get(f"{API}/games/{table.game_id}/stream?max_seconds=0.3&interval=0.1").text
    assert body.count("event: game") == 1 and f'"game_id":"{table.game_id}"' in body
    g = table.game(0)
    r = client.post(
        f"{API}/games/{table.game_id}/decisions",
        json={"expected_version": g["version"], "decision": {"type": "pass_renting"}},
    )
    assert r.status_code == 401
    client.cookies.clear()
    r = client.get(f"{API}/me/notifications", headers=h)
    assert r.status_code == 200 and {n["kind"] for n in r.json()["notifications"]} >= {"game_started"}

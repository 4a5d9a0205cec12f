"""The HTTP API against every store: a whole game, errors with codes, hidden information."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from ledger.verify import verify_export
from tests.api_helpers import API, Table


def test_three_players_play_cotton_trade_to_the_end_and_the_export_verifies(client: TestClient) -> None:
    table = Table(client)
    decisions = table.play_out(random.Random(5))
    g = table.game()
    assert g["status"] == "finished" and decisions > 50
    assert sorted(s["rank"] for s in g["standings"])[0] == 1
    assert g["legal_decisions"] == [] and g["awaiting"] == []
    export = client.get(f"{API}/games/{table.game_id}/export", headers=table.auth(1))
    assert export.status_code == 200 and export.headers["content-type"].startswith("application/x-ndjson")
    report = verify_export(export.text.splitlines())
    assert report.ok, report.text()
    assert any(name.startswith("every draw re-derived") for name, ok, _ in report.checks)
    listed = client.get(f"{API}/games?status=finished&player=me", headers=table.auth(2)).json()["games"]
    assert [x["game_id"] for x in listed] == [table.game_id]


def test_the_lobby_lists_games_and_my_turns(client: TestClient) -> None:
    table = Table(client)
    g = table.game()
    waiting_seat = g["awaiting"][0]["seat"]
    turns = client.get(f"{API}/me/turns", headers=table.auth(waiting_seat)).json()["games"]
    assert [t["game_id"] for t in turns] == [table.game_id]
    other = next(i for i in range(3) if i != waiting_seat)
    assert client.get(f"{API}/me/turns", headers=table.auth(other)).json()["games"] == []
    opened = client.post(
        f"{API}/games", json={"title": "cotton-trade", "seats": 4}, headers=table.auth(0)
    ).json()
    open_games = client.get(f"{API}/games?open=true", headers=table.auth(1)).json()["games"]
    assert [x["game_id"] for x in open_games] == [opened["game_id"]]
    assert open_games[0]["seats"][0]["name"] == "P0"


def test_a_stale_version_gets_409_and_an_idempotent_retry_writes_nothing(client: TestClient) -> None:
    table = Table(client)
    g = table.game()
    seat = g["awaiting"][0]["seat"]
    mine = table.game(seat)
    decision = mine["legal_decisions"][0]
    first = table.decide(seat, decision, mine["version"], **{"Idempotency-Key": "abc"})
    assert first.status_code == 200 and not first.json()["replayed"]
    head = table.game()["version"]
    again = table.decide(seat, decision, mine["version"], **{"Idempotency-Key": "abc"})
    assert again.status_code == 200 and again.json()["replayed"]
    assert again.json()["effects"] == first.json()["effects"]
    stale = table.decide(seat, decision, mine["version"])
    assert stale.status_code == 409 and stale.json()["code"] == "game/stale_version"
    assert table.game()["version"] == head


def test_refused_requests_have_codes_and_change_nothing(client: TestClient) -> None:
    table = Table(client)
    g = table.game()
    version = g["version"]
    seat = g["awaiting"][0]["seat"]
    other = next(i for i in range(3) if i != seat)
    base = f"{API}/games/{table.game_id}"

    def sent_as_json(content: bytes) -> Any:
        """The awaited seat's decision request with this body, as it is, declared JSON."""
        json_body = table.auth(seat) | {"content-type": "application/json"}
        return client.post(f"{base}/decisions", content=content, headers=json_body)

    cases = [
        (client.get(f"{API}/games"), 401, "auth/required"),
        (client.get(f"{API}/games", headers={"Authorization": "Bearer gl_nope"}), 401, "auth/invalid_token"),
        (
            client.get(f"{API}/games/00000000-0000-0000-0000-000000000000", headers=table.auth(0)),
            404,
            "game/not_found",
        ),
        (table.decide(other, {"type": "pass_renting"}, version), 403, "game/not_your_turn"),
        (
            table.decide(seat, {"type": "rent_ship", "card": "S99"}, version),
            422,
            "rule/cotton-trade/ship_not_in_row",
        ),
        (
            table.decide(seat, {"type": "sail_ship", "capacity": 2, "region": "EGYPT"}, version),
            422,
            "rule/cotton-trade/wrong_decision",
        ),
        (table.decide(seat, {"type": "fly"}, version), 422, "request/invalid_decision"),
        (table.decide(seat, {"type": "rent_ship"}, version), 422, "request/invalid_decision"),
        (
            client.post(
                f"{base}/decisions",
                json={"expected_version": version, "decision": {}, "extra": 1},
                headers=table.auth(seat),
            ),
            422,
            "request/invalid",
        ),
        (sent_as_json(b"{not json"), 400, "request/bad_json"),
        (sent_as_json(b"[" * 5000), 422, "request/too_deep"),
        (sent_as_json(b" " * 200_000), 413, "request/too_large"),
        (client.post(f"{base}/join", headers=table.auth(0)), 409, "game/already_started"),
        (
            client.post(f"{API}/games", json={"title": "chess", "seats": 2}, headers=table.auth(0)),
            404,
            "game/unknown_title",
        ),
        (
            client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 9}, headers=table.auth(0)),
            422,
            "request/invalid",
        ),
        (
            client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 7}, headers=table.auth(0)),
            422,
            "game/player_count",
        ),
        (
            client.post(
                f"{API}/games",
                json={"title": "cotton-trade", "seats": 3, "options": {"nope": 1}},
                headers=table.auth(0),
            ),
            422,
            "request/invalid_options",
        ),
        (client.post(f"{API}/players", json={"name": ""}), 422, "request/invalid"),
        (client.get(f"{API}/nowhere", headers=table.auth(0)), 404, "http/not_found"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, (code, response.text)
        body = response.json()
        assert body["code"] == code and body["message"]
    assert table.game()["version"] == version


def _face_down_since_shuffle(events: list[dict], game) -> list[tuple[str, list[dict]]]:  # type: ignore[no-untyped-def]
    """Each face-down card on the board, with the events since its deck was last shuffled."""
    from ledger.games.cotton_trade.components import REGIONS

    out = []
    for r, region in enumerate(REGIONS):
        shuffles = [i for i, e in enumerate(events) if e["public"].get("key") == f"contracts:{region.value}"]
        since = events[shuffles[-1] :] if shuffles else events
        out.extend((slot.card, since) for slot in game.state.contract_row[r] if not slot.face_up)
    return out


def test_face_down_contracts_deck_order_and_the_seed_never_reach_a_player(client: TestClient) -> None:
    table = Table(client, n=4)
    rnd = random.Random(11)
    services = client.app.state.services  # type: ignore[attr-defined]
    base = f"{API}/games/{table.game_id}"
    for step in range(80):
        game = services.ledger.get_game(table.game_id)
        secrets = game.engine.secrets(game.state, None)
        for seat in range(4):
            for url in (base, f"{base}/state"):  # the position now: no deck card, no face-down card
                body = client.get(url, headers=table.auth(seat)).text
                leaked = [s for s in secrets if f'"{s}"' in body]
                assert not leaked, f"seat {seat} saw {leaked[:3]} at {url}"
            if step % 8:
                continue
            events = client.get(f"{base}/events", headers=table.auth(seat)).json()["events"]
            export = client.get(f"{base}/export", headers=table.auth(seat)).text
            assert game.seed not in export and game.seed not in str(events)
            for e in events:
                assert "server" not in e.get("private", {}), "hidden draw outcomes stay on the server"
                assert set(e.get("private", {})) <= {f"seat:{seat}"}
            for card, since in _face_down_since_shuffle(events, game):
                assert f"'{card}'" not in str(since), f"face-down {card} named in the log"
        if table.step(rnd) is None:
            break


def test_the_openapi_schema_and_health_are_served(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "/api/v1/games/{game_id}/decisions" in schema["paths"]
    assert client.get("/health").json()["status"] == "ok"
    titles = client.get(f"{API}/titles", headers=Table(client).auth(0)).json()
    assert titles[0]["id"] == "cotton-trade" and titles[0]["min_players"] == 2


def test_the_admin_token_creates_a_full_table_without_taking_a_seat(client: TestClient) -> None:
    players = [client.post(f"{API}/players", json={"name": f"L{i}"}).json() for i in range(2)]
    admin = {"Authorization": "Bearer test-admin-token-0123456789"}
    r = client.post(
        f"{API}/games",
        json={"title": "cotton-trade", "players": [p["player_id"] for p in players]},
        headers=admin,
    )
    assert r.status_code == 201 and r.json()["status"] == "active" and r.json()["my_seats"] == []


def test_the_games_fast_answer_is_exactly_what_its_response_model_would_give(client: TestClient) -> None:
    """GET /games/{id} and POST .../decisions answer their dicts as they are (orjson, no pydantic
    round trip: issue 29); each must equal its response model's dump of itself, at every step."""
    import random

    from api.schemas import DecisionOut, GameOut

    for title, seats in (("cotton-trade", 3), ("water-frame", 2), ("arkwright-card-game", 2)):
        t = Table(client, seats, title=title)
        rnd = random.Random(4)
        for _ in range(40):
            for seat in range(seats):
                view = t.game(seat)
                assert GameOut.model_validate(view).model_dump(mode="json") == view
            answer = t.step(rnd)
            if answer is None:
                break
            assert DecisionOut.model_validate(answer).model_dump(mode="json") == answer


def test_apps_made_in_one_process_share_their_built_routes_and_each_serves_its_own_store(
    tmp_path: Any,
) -> None:
    """create_app shares the routes FastAPI built for the first app of a process (api/app.py):
    a later app answers from its own services and store, never the first app's."""
    from api.app import create_app
    from api.services import Services
    from api.settings import Settings

    apps = []
    for name in ("a", "b"):
        settings = Settings(database_url=f"sqlite:///{tmp_path / name}.sqlite3", admin_token="t" * 24)
        apps.append((Services.start(settings), settings))
    try:
        with (
            TestClient(create_app(apps[0][1], apps[0][0])) as a,
            TestClient(create_app(apps[1][1], apps[1][0])) as b,
        ):
            shared = [r for r in a.app.router.routes if any(r is s for s in b.app.router.routes)]
            assert len(shared) >= 15, "the included routers are built once a process"
            assert a.get("/openapi.json").json() == b.get("/openapi.json").json()
            assert a.app.openapi() is b.app.openapi(), "the OpenAPI document is generated once a process"
            ann = a.post(f"{API}/players", json={"name": "Ann"}).json()
            me = {"Authorization": f"Bearer {ann['token']}"}
            assert a.get(f"{API}/titles", headers=me).status_code == 200
            assert b.get(f"{API}/titles", headers=me).status_code == 401, "b's store knows no Ann"
            bob = b.post(f"{API}/players", json={"name": "Bob"}).json()
            assert (
                a.get(f"{API}/titles", headers={"Authorization": f"Bearer {bob['token']}"}).status_code == 401
            )
    finally:
        for services, _ in apps:
            services.close()

"""Trust, second pass (issue 16), the writes: version clashes answered by a retry or a 409,
never a 500 (item 6); one Idempotency-Key mechanism for every POST that takes the header
(item 7); a league takes only the games it may count (item 8); bodies parsed strictly: an
integer is an integer (item 10). On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services
from api.settings import Settings
from ledger.domain import League, Player
from tests.api_helpers import API, Table

ADMIN = {"Authorization": "Bearer test-admin-token-0123456789"}


def bearer(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


def register(client: TestClient, name: str) -> dict[str, Any]:
    r = client.post(f"{API}/players", json={"name": name})
    assert r.status_code == 201, r.text
    return dict(r.json())


def league_of(client: TestClient, organiser: dict[str, Any], name: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"{API}/leagues", json={"name": name, **body}, headers=bearer(organiser))
    assert r.status_code == 201, r.text
    return dict(r.json())


# -- item 6: a version clash is a retry or a 409, never a 500 -----------------------------------


@pytest.fixture
def two_servers(settings: Settings, services: Services) -> Iterator[list[TestClient]]:
    """Two servers on one store, as with ``serve --workers 2``: each its own ledger, cache and
    connection pool (the second started after the first made the tables)."""
    other = Services.start(settings)
    try:
        with (
            TestClient(create_app(settings, services), raise_server_exceptions=False) as a,
            TestClient(create_app(settings, other), raise_server_exceptions=False) as b,
        ):
            yield [a, b]
    finally:
        other.close()


def race(clients: list[TestClient], calls: list[Callable[[TestClient], Any]]) -> list[Any]:
    """Every call at once (a barrier lines them up), spread over the servers."""
    start = threading.Barrier(len(calls))

    def run(i: int) -> Any:
        start.wait()
        return calls[i](clients[i % len(clients)])

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, range(len(calls))))


def test_twelve_organiser_writes_at_once_on_two_servers_all_land_and_none_answers_500(
    two_servers: list[TestClient], services: Services
) -> None:
    """The review's 12 concurrent POST /leagues/{id}/members gave 9 x 500 (IntegrityError on
    ledger_events_pkey): adding a member is safe to re-run on the league's new version."""
    client = two_servers[0]
    organiser = register(client, "Organiser")
    league = league_of(client, organiser, "Crowded", members_only=True)
    people = [register(client, f"M{i}") for i in range(12)]
    answers = race(
        two_servers,
        [
            lambda c, p=p: c.post(
                f"{API}/leagues/{league['league_id']}/members",
                json={"player_id": p["player_id"]},
                headers=bearer(organiser),
            )
            for p in people
        ],
    )
    statuses = Counter(r.status_code for r in answers)
    print(f"12 member adds at once on two servers: {dict(statuses)}")
    assert set(statuses) <= {200, 409}, [r.text for r in answers if r.status_code >= 500]
    assert all(r.json()["code"] == "league/conflict" for r in answers if r.status_code == 409)
    found = services.ledger.get_league(league["league_id"])
    assert isinstance(found, League)
    # every request that was answered 200 is in, and (retries absorbing the clashes) all are
    admitted = {p["player_id"] for p, r in zip(people, answers, strict=True) if r.status_code == 200}
    assert admitted <= set(found.members)
    assert set(found.members) == {p["player_id"] for p in people}, statuses


def test_twelve_settings_writes_on_one_player_at_once_all_succeed_and_the_last_holds(
    two_servers: list[TestClient], services: Services
) -> None:
    """The review's 12 concurrent settings writes on one player gave 3 x 500."""
    client = two_servers[0]
    player = register(client, "Busy")
    kinds = ["your_turn", "game_started", "game_finished", "timed_out", "dispute_opened"]
    wanted = [[kinds[i % 5], kinds[(i + 1) % 5]] for i in range(12)]
    answers = race(
        two_servers,
        [
            lambda c, k=k: c.put(
                f"{API}/me/notifications/settings",
                json={"kinds": k, "webhook_url": None},
                headers=bearer(player),
            )
            for k in wanted
        ],
    )
    statuses = Counter(r.status_code for r in answers)
    print(f"12 settings writes at once on two servers: {dict(statuses)}")
    assert set(statuses) <= {200, 409}, [r.text for r in answers if r.status_code >= 500]
    assert statuses[200] >= 11, statuses  # a retry absorbs the clash: a 409 is the rare exception
    stored = services.ledger.get_player(player["player_id"])
    assert isinstance(stored, Player)
    changes = [e for e in services.ledger.events.get(stored.id) if isinstance(e, Player.NotificationsChanged)]
    assert len(changes) == statuses[200]  # one event per success, none for a refusal
    assert stored.notify_kinds == changes[-1].kinds  # the last writer's settings hold


def test_games_opened_in_one_league_at_once_and_seats_taken_at_once_all_land(
    two_servers: list[TestClient], services: Services
) -> None:
    """A game created in a league saves the league too (its GameAdded), so games opened in one
    league at once clash on the league; joining clashes on the game. Both are re-run."""
    client = two_servers[0]
    organiser = register(client, "Host")
    league = league_of(client, organiser, "Busy league", title="cotton-trade")
    creators = [register(client, f"C{i}") for i in range(8)]
    answers = race(
        two_servers,
        [
            lambda c, p=p: c.post(
                f"{API}/games",
                json={"title": "cotton-trade", "seats": 4, "league": league["league_id"]},
                headers=bearer(p),
            )
            for p in creators
        ],
    )
    assert [r.status_code for r in answers] == [201] * 8, [r.text for r in answers if r.status_code != 201]
    assert len(services.ledger.get_league(league["league_id"]).games) == 8
    game = answers[0].json()["game_id"]
    joiners = creators[1:4]
    joined = race(
        two_servers, [lambda c, p=p: c.post(f"{API}/games/{game}/join", headers=bearer(p)) for p in joiners]
    )
    assert [r.status_code for r in joined] == [200] * 3, [r.text for r in joined]
    seats = services.ledger.get_game(game).seats
    assert sorted(str(s) for s in seats) == sorted(
        [creators[0]["player_id"], *(p["player_id"] for p in joiners)]
    )


def test_a_version_clash_no_use_case_absorbs_is_a_409_with_a_code_not_a_500(
    client: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last line of defence: the store's IntegrityError reaching the API is a 409."""
    from eventsourcing.persistence import IntegrityError

    player = register(client, "Unlucky")

    def clash(*_: Any, **__: Any) -> None:
        raise IntegrityError("duplicate key value violates unique constraint ledger_events_pkey")

    monkeypatch.setattr(services.ledger, "save", clash)
    r = client.post(f"{API}/me/vacation", json={"days": 3}, headers=bearer(player))
    assert r.status_code == 409 and r.json()["code"] == "player/conflict", r.text
    r = client.post(f"{API}/leagues", json={"name": "Never"}, headers=bearer(player))
    assert r.status_code == 409 and r.json()["code"] == "league/exists", r.text


# -- item 8: a league takes only the games it may count --------------------------------------------


def test_an_organiser_adds_only_games_of_the_title_in_no_other_league_seated_by_members(
    client: TestClient,
) -> None:
    org = register(client, "Org")
    ann, bob, eve = (register(client, n) for n in ("Ann", "Bob", "Eve"))
    closed = league_of(client, org, "Members", title="cotton-trade", members_only=True)
    for p in (ann, bob):
        r = client.post(
            f"{API}/leagues/{closed['league_id']}/members",
            json={"player_id": p["player_id"]},
            headers=bearer(org),
        )
        assert r.status_code == 200, r.text

    def game(*players: dict[str, Any], title: str = "cotton-trade", league: str | None = None) -> str:
        body: dict[str, Any] = {"title": title, "players": [p["player_id"] for p in players]}
        if league:
            body["league"] = league
        r = client.post(f"{API}/games", json=body, headers=ADMIN)
        assert r.status_code == 201, r.text
        return str(r.json()["game_id"])

    def add(league: dict[str, Any], game_id: str) -> Any:
        return client.post(
            f"{API}/leagues/{league['league_id']}/games", json={"game_id": game_id}, headers=bearer(org)
        )

    strangers = game(ann, eve)  # Eve is no member
    r = add(closed, strangers)
    assert r.status_code == 409 and r.json()["code"] == "league/seats_not_members", r.text
    assert r.json()["details"] == {"seats": [1]}
    r = client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 2}, headers=bearer(ann))
    open_seat = r.json()["game_id"]  # seat 1 open: anyone could take it
    assert add(closed, open_seat).json()["code"] == "league/seats_not_members"
    other_title = game(ann, bob, title="water-frame")
    r = add(closed, other_title)
    assert r.status_code == 422 and r.json()["code"] == "league/wrong_title", r.text

    elsewhere = league_of(client, org, "Elsewhere")
    counted_there = game(ann, bob, league=elsewhere["league_id"])  # created in that league
    r = add(closed, counted_there)
    assert r.status_code == 409 and r.json()["code"] == "league/game_in_other_league", r.text

    members = game(ann, bob)
    r = add(closed, members)
    assert r.status_code == 200 and r.json()["games"] == [members], r.text  # nothing refused got in
    assert add(closed, members).json()["code"] == "league/game_already_added"
    r = add(elsewhere, members)  # added to the first league later: counted there only
    assert r.status_code == 409 and r.json()["code"] == "league/game_in_other_league", r.text


def test_two_leagues_taking_one_game_at_once_count_it_once(two_servers: list[TestClient]) -> None:
    client = two_servers[0]
    org = register(client, "Twin organiser")
    ann, bob = register(client, "A"), register(client, "B")
    members = [ann["player_id"], bob["player_id"]]  # so that the organiser may add their game
    leagues = [league_of(client, org, f"Twin {i}", members=members) for i in range(6)]
    r = client.post(
        f"{API}/games",
        json={"title": "cotton-trade", "players": [ann["player_id"], bob["player_id"]]},
        headers=ADMIN,
    )
    game = r.json()["game_id"]
    answers = race(
        two_servers,
        [
            lambda c, lg=lg: c.post(
                f"{API}/leagues/{lg['league_id']}/games", json={"game_id": game}, headers=bearer(org)
            )
            for lg in leagues
        ],
    )
    assert sorted(r.status_code for r in answers) == [200] + [409] * 5, [r.text for r in answers]
    assert {r.json()["code"] for r in answers if r.status_code == 409} == {"league/game_in_other_league"}


# -- item 10: an integer is an integer ------------------------------------------------------------


def test_expected_version_as_a_string_a_bool_or_a_float_is_refused_and_nothing_is_written(
    client: TestClient,
) -> None:
    table = Table(client, 3, title="water-frame")
    seat, view = table.awaited()
    version = view["version"]
    decision = view["legal_decisions"][0]
    for bad in (str(version), True, float(version), None):
        r = table.decide(seat, decision, bad)  # type: ignore[arg-type]
        assert r.status_code == 422 and r.json()["code"] == "request/invalid", (bad, r.text)
        assert r.json()["details"][0]["loc"][-1] == "expected_version"
    r = client.post(
        f"{API}/games/{table.game_id}/decisions",
        json={"expected_version": version, "decision": decision, "seat": str(seat)},
        headers=table.auth(seat),
    )
    assert r.status_code == 422, r.text
    # inside the decision too: the title's schema takes the JSON's types as they are
    priced = next(d for d in view["legal_decisions"] if isinstance(d.get("price"), int))
    for bad in (str(priced["price"]), float(priced["price"]) + 0.5, True):
        r = table.decide(seat, {**priced, "price": bad}, version)
        assert r.status_code == 422 and r.json()["code"] == "request/invalid_decision", (bad, r.text)
    assert table.game(seat)["version"] == version  # nothing was written
    assert table.decide(seat, priced, version).status_code == 200  # the same, well typed


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/games", {"title": "cotton-trade", "seats": "2"}),
        ("post", "/games", {"title": "cotton-trade", "seats": 2, "join": "true"}),
        ("post", "/games", {"title": "cotton-trade", "seats": 2.0}),
        (
            "post",
            "/games",
            {
                "title": "cotton-trade",
                "time_control": {
                    "preset": "custom",
                    "initial_hours": "5",
                    "increment_hours": 1,
                    "cap_hours": 9,
                },
            },
        ),
        ("post", "/leagues", {"name": "Typed", "members_only": "false"}),
        ("post", "/leagues", {"name": "Typed", "members_only": 0}),
        ("post", "/me/vacation", {"days": "3"}),
        ("put", "/me/notifications/settings", {"kinds": None, "new_secret": 1}),
    ],
)
def test_every_write_body_takes_numbers_and_booleans_only_as_such(
    client: TestClient, method: str, path: str, body: dict[str, Any]
) -> None:
    player = register(client, "Typist")
    r = getattr(client, method)(f"{API}{path}", json=body, headers=bearer(player))
    assert r.status_code == 422 and r.json()["code"] == "request/invalid", r.text
    assert client.get(f"{API}/games", params={"player": "me"}, headers=bearer(player)).json()["games"] == []


# -- item 7: one Idempotency-Key mechanism -------------------------------------------------------


def keyed(key: str, player: dict[str, Any] | None = None) -> dict[str, str]:
    return (bearer(player) if player else ADMIN) | {"Idempotency-Key": key}


def same_but_replayed(first: dict[str, Any], again: dict[str, Any]) -> None:
    assert first["replayed"] is False and again["replayed"] is True
    assert {**again, "replayed": False} == first


def test_one_key_for_two_different_games_is_refused_and_the_same_game_again_replays(
    client: TestClient,
) -> None:
    """The review: POST /games for Cotton Trade and then Water Frame with one key both answered
    201 with the Cotton Trade game."""
    ann, bob = register(client, "Ann"), register(client, "Bob")
    body = {"title": "cotton-trade", "seats": 2}
    first = client.post(f"{API}/games", json=body, headers=keyed("g-1", ann))
    assert first.status_code == 201, first.text
    other = client.post(f"{API}/games", json={"title": "water-frame", "seats": 3}, headers=keyed("g-1", ann))
    assert other.status_code == 409 and other.json()["code"] == "request/idempotency_key_reused", other.text
    assert client.post(f"{API}/games/{first.json()['game_id']}/join", headers=bearer(bob)).status_code == 200
    again = client.post(
        f"{API}/games", json={**body, "join": True}, headers=keyed("g-1", ann)
    )  # a default spelt out
    assert again.status_code == 201, again.text
    same_but_replayed(first.json(), again.json())  # the first answer, though Bob has joined since
    elsewhere = client.post(f"{API}/leagues", json={"name": "Keyed"}, headers=keyed("g-1", ann))
    assert elsewhere.status_code == 409 and elsewhere.json()["code"] == "request/idempotency_key_reused"
    theirs = client.post(f"{API}/games", json=body, headers=keyed("g-1", bob))  # keys are the caller's own
    assert theirs.status_code == 201 and theirs.json()["game_id"] != first.json()["game_id"]
    mine = client.get(f"{API}/games", params={"player": "me"}, headers=bearer(ann)).json()["games"]
    assert len(mine) == 1  # one game made for Ann, whatever was sent with her key


def test_a_replayed_decision_is_the_first_answer_with_its_position(client: TestClient) -> None:
    """The review: a replayed decision's position came back null, so a retrying client could not
    wait for its write in the read models."""
    table = Table(client, 3, title="water-frame")
    seat, view = table.awaited()
    decision = view["legal_decisions"][0]
    first = table.decide(seat, decision, view["version"], **{"Idempotency-Key": "d-1"})
    assert first.status_code == 200 and first.json()["position"] is not None, first.text
    nxt, later = table.awaited()
    assert (
        table.decide(nxt, later["legal_decisions"][0], later["version"]).status_code == 200
    )  # the game moves on
    again = table.decide(seat, decision, view["version"], **{"Idempotency-Key": "d-1"})
    assert again.status_code == 200, again.text
    same_but_replayed(first.json(), again.json())
    other = table.decide(seat, view["legal_decisions"][1], view["version"], **{"Idempotency-Key": "d-1"})
    assert other.status_code == 409 and other.json()["code"] == "request/idempotency_key_reused"
    listed = client.get(f"{API}/games", params={"position": again.json()["position"]}, headers=table.auth(0))
    assert listed.status_code == 200  # the position is one the read models reach


def test_a_refused_request_gives_its_key_back(client: TestClient) -> None:
    table = Table(client, 3, title="water-frame")
    seat, view = table.awaited()
    stale = table.decide(
        seat, view["legal_decisions"][0], view["version"] + 1, **{"Idempotency-Key": "fix-me"}
    )
    assert stale.status_code == 409 and stale.json()["code"] == "game/stale_version"
    fixed = table.decide(seat, view["legal_decisions"][0], view["version"], **{"Idempotency-Key": "fix-me"})
    assert fixed.status_code == 200 and fixed.json()["replayed"] is False, fixed.text


def test_every_post_that_takes_the_key_goes_through_the_one_mechanism(client: TestClient) -> None:
    """Each POST whose OpenAPI lists Idempotency-Key: the same request replays the first answer,
    another request with the key is refused; nothing is written twice."""
    org, ann, bob = register(client, "Org"), register(client, "Ann"), register(client, "Bob")
    # Bob a member from the start, Ann by the members case below: then the organiser may add
    # their game, which he did not create
    league = league_of(client, org, "Keyed league", members=[bob["player_id"]])
    game = client.post(
        f"{API}/games",
        json={"title": "cotton-trade", "players": [ann["player_id"], bob["player_id"]]},
        headers=ADMIN,
    ).json()["game_id"]
    waiting = client.post(
        f"{API}/games", json={"title": "cotton-trade", "seats": 3}, headers=bearer(ann)
    ).json()
    lid = league["league_id"]
    cases: dict[str, tuple[dict[str, Any], str, dict[str, Any] | None, dict[str, Any] | None]] = {
        "/api/v1/games": (
            org,
            "/games",
            {"title": "cotton-trade", "seats": 2},
            {"title": "cotton-trade", "seats": 3},
        ),
        "/api/v1/games/{game_id}/join": (bob, f"/games/{waiting['game_id']}/join", None, None),
        "/api/v1/games/{game_id}/disputes": (
            ann,
            f"/games/{game}/disputes",
            {"versions": [1], "text": "the deal"},
            {"versions": [1], "text": "the deal, again"},
        ),
        "/api/v1/leagues": (org, "/leagues", {"name": "Second"}, {"name": "Third"}),
        "/api/v1/leagues/{league}/members": (
            org,
            f"/leagues/{lid}/members",
            {"player_id": ann["player_id"]},
            {"player_id": bob["player_id"]},
        ),
        "/api/v1/leagues/{league}/games": (
            org,
            f"/leagues/{lid}/games",
            {"game_id": game},
            {"game_id": waiting["game_id"]},
        ),
        "/api/v1/leagues/{league}/seasons": (
            org,
            f"/leagues/{lid}/seasons",
            {"title": "cotton-trade", "rounds": 2},
            {"title": "cotton-trade", "rounds": 3},
        ),
    }
    spec = client.get("/openapi.json").json()["paths"]
    taking = {
        path
        for path, ops in spec.items()
        if any(p["name"] == "Idempotency-Key" for p in ops.get("post", {}).get("parameters", []))
    }
    # decisions: the tests above; forks: a running game with hidden cards is not forked, and a
    # refusal keeps no answer (test_a_refused_request_gives_its_key_back)
    assert taking == {*cases, "/api/v1/games/{game_id}/decisions", "/api/v1/games/{game_id}/forks"}
    for route, (who, path, body, other) in cases.items():
        key = f"key for {route}"
        first = client.post(f"{API}{path}", json=body, headers=keyed(key, who))
        assert first.status_code in (200, 201), (route, first.text)
        again = client.post(f"{API}{path}", json=body, headers=keyed(key, who))
        assert again.status_code == first.status_code, (route, again.text)
        same_but_replayed(first.json(), again.json())
        if other is not None:
            refused = client.post(f"{API}{path}", json=other, headers=keyed(key, who))
            assert (
                refused.status_code == 409 and refused.json()["code"] == "request/idempotency_key_reused"
            ), route
        elsewhere = client.post(f"{API}/leagues", json={"name": f"Not {route}"}, headers=keyed(key, who))
        assert elsewhere.status_code == 409 and elsewhere.json()["code"] == "request/idempotency_key_reused"
    disputes = client.get(f"{API}/games/{game}/disputes", headers=bearer(ann)).json()["disputes"]
    assert len(disputes) == 1  # the replayed dispute was not opened twice
    assert client.get(f"{API}/games/{waiting['game_id']}", headers=bearer(bob)).json()["my_seats"] == [1]


def test_one_decision_sent_eight_times_at_once_with_one_key_is_written_once_and_answered_alike(
    two_servers: list[TestClient], services: Services
) -> None:
    client = two_servers[0]
    table = Table(client, 3, title="water-frame")
    seat, view = table.awaited()
    decision = view["legal_decisions"][0]
    answers = race(
        two_servers,
        [
            lambda c: c.post(
                f"{API}/games/{table.game_id}/decisions",
                json={"expected_version": view["version"], "decision": decision},
                headers=table.auth(seat) | {"Idempotency-Key": "twins"},
            )
            for _ in range(8)
        ],
    )
    assert [r.status_code for r in answers] == [200] * 8, [r.text for r in answers]
    bodies = [r.json() for r in answers]
    assert sum(not b["replayed"] for b in bodies) == 1
    genuine = next(b for b in bodies if not b["replayed"])
    for b in bodies:
        assert {**b, "replayed": False} == genuine
    game = services.ledger.get_game(table.game_id)
    assert game.version == genuine["version"]  # written once


def test_the_ledger_refuses_a_key_reused_for_another_game_and_replays_with_a_position(
    services: Services,
) -> None:
    """Beneath the API's mechanism (a key taken over after a crash), the ledger keeps a key to
    one request too, and its replay names a position the read models reach."""
    from ledger.errors import ConflictError

    ledger = services.ledger
    ids = [str(ledger.register_player(n)[0]) for n in ("A", "B", "C")]
    made = ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, idempotency_key="k")
    assert (
        ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, idempotency_key="k").id
        == made.id
    )
    for other in ({"title": "water-frame"}, {"title": "cotton-trade", "options": {"shares_trade": True}}):
        with pytest.raises(ConflictError) as err:
            ledger.create_game(creator=ids[0], players=ids, idempotency_key="k", **other)  # type: ignore[arg-type]
        assert err.value.code == "request/idempotency_key_reused"
    game = ledger.get_game(made.id)
    seat = game.awaiting[0]
    d = game.engine.legal_decisions(game.state, seat)[0].model_dump(mode="json")
    first = ledger.decide(game.id, ids[seat], game.version, d, idempotency_key="d")
    again = ledger.decide(game.id, ids[seat], game.version, d, idempotency_key="d")
    assert first.position is not None and again.position is not None and again.position >= first.position


def test_a_key_whose_request_died_after_its_write_is_taken_over_and_the_ledger_replays(
    client: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process wrote the decision and died before keeping its answer: the key stays
    reserved; a retry waits a while for the answer, then runs, and the ledger (which recorded
    the key in the game's stream) answers with the replay, writing nothing."""
    from api import idempotency

    table = Table(client, 3, title="water-frame")
    seat, view = table.awaited()
    decision = view["legal_decisions"][0]
    assert services.idempotency is not None
    store = services.idempotency.store

    def die(*_: Any) -> None:
        raise RuntimeError("the process died here")

    monkeypatch.setattr(store, "answer", die)
    with pytest.raises(RuntimeError):
        table.decide(seat, decision, view["version"], **{"Idempotency-Key": "crash"})
    monkeypatch.undo()
    written = services.ledger.get_game(table.game_id).version
    assert written > view["version"]
    monkeypatch.setattr(idempotency, "PATIENCE_SECONDS", 0.2)
    again = table.decide(seat, decision, view["version"], **{"Idempotency-Key": "crash"})
    assert again.status_code == 200 and again.json()["replayed"] is True, again.text
    assert again.json()["version"] == written and again.json()["position"] is not None
    assert services.ledger.get_game(table.game_id).version == written


def test_a_fork_is_keyed_like_every_write_and_never_counted_in_a_league(
    client: TestClient, services: Services
) -> None:
    from tests.test_ledger import play_some

    org, ann, bob = register(client, "Org"), register(client, "Ann"), register(client, "Bob")
    ids = [ann["player_id"], bob["player_id"]]
    made = client.post(f"{API}/games", json={"title": "cotton-trade", "players": ids}, headers=ADMIN).json()
    game = services.ledger.get_game(made["game_id"])
    while game.status == "active":
        game = play_some(services.ledger, game, ids, 200)
    assert game.status == "finished"
    path = f"{API}/games/{game.id}/forks"
    first = client.post(path, json={"version": 12}, headers=keyed("fork", ann))
    assert first.status_code == 201, first.text
    again = client.post(path, json={"version": 12}, headers=keyed("fork", ann))
    assert again.status_code == 201
    same_but_replayed(first.json(), again.json())
    other = client.post(path, json={"version": 13}, headers=keyed("fork", ann))
    assert other.status_code == 409 and other.json()["code"] == "request/idempotency_key_reused"
    league = league_of(client, org, "No sandboxes", title="cotton-trade")
    r = client.post(
        f"{API}/leagues/{league['league_id']}/games",
        json={"game_id": first.json()["game_id"]},
        headers=bearer(org),
    )
    assert r.status_code == 422 and r.json()["code"] == "league/sandbox_game", r.text

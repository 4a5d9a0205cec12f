"""Who is slow, and what waits on me (issue 19 items 5 and 6): the ``pace`` read model's time to
decide per player and title (from the moment the seat is awaited to its decision, vacations
excluded; median and 90th percentile), timeouts, forfeits and abandoned games, in
``GET /players/{id}/stats``; the games waiting on a player, the longest first, in
``GET /me/waiting``, the header's button and the lobby's order; and a rebuild that gives the
same answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from api.services import Services
from ledger.defaults import default_decision
from projections.pace import overlap, percentile
from tests.api_helpers import API
from tests.trust_world import bearer


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def register(client: TestClient, name: str) -> dict[str, Any]:
    return client.post(f"{API}/players", json={"name": name}).json()  # type: ignore[no-any-return]


def two_player_game(services: Services, a: str, b: str, **extra: Any) -> str:
    ledger = services.ledger
    game = ledger.create_game(creator=a, title="cotton-trade", seats=2, **extra)
    ledger.join(game.id, b)
    return str(game.id)


def decide(services: Services, game_id: str) -> str:
    """The awaited seat's default decision; returns who made it."""
    ledger = services.ledger
    game = ledger.get_game(game_id)
    assert len(game.awaiting) == 1, "one seat awaited at a time in this game"
    seat = game.awaiting[0]
    player = str(game.seats[seat])
    decision = default_decision(game.title, game.state, seat)
    ledger.decide(game_id, player, game.version, decision.model_dump(mode="json"))
    return player


def test_percentiles_are_nearest_rank_and_vacations_are_cut_out_of_a_span() -> None:
    assert percentile([], 0.5) is None
    assert percentile([5.0], 0.9) == 5.0
    values = [float(v) for v in range(1, 11)]
    assert (percentile(values, 0.5), percentile(values, 0.9)) == (5.0, 9.0)
    t = datetime(2026, 1, 1, tzinfo=UTC)
    spans = [((t + timedelta(hours=1)).isoformat(), (t + timedelta(hours=3)).isoformat())]
    assert overlap(t, t + timedelta(hours=2), spans) == 3600
    assert overlap(t + timedelta(hours=4), t + timedelta(hours=5), spans) == 0


def test_time_to_decide_per_player_and_title_leaves_out_vacations_and_forced_moves(
    client: TestClient, services: Services
) -> None:
    clock = Clock()
    services.ledger.clock = clock
    ann, bob = register(client, "Ann"), register(client, "Bob")
    a, b = ann["player_id"], bob["player_id"]
    game_id = two_player_game(services, a, b, time_control={"preset": "72h+12h", "on_expiry": "default"})
    spent: dict[str, list[float]] = {a: [], b: []}
    for k in range(12):
        minutes = 10 * (k + 1)
        clock.advance(minutes=minutes)
        spent[decide(services, game_id)].append(minutes * 60.0)
    # the awaited player goes on vacation for a day and decides two days after being awaited
    game = services.ledger.get_game(game_id)
    late = str(game.seats[game.awaiting[0]])
    clock.advance(hours=12)
    services.ledger.start_vacation(late, 1)
    clock.advance(hours=36)
    assert decide(services, game_id) == late
    spent[late].append(24 * 3600.0)  # 48 h awaited, 24 h of it away
    for player, token in ((a, ann["token"]), (b, bob["token"])):
        stats = client.get(f"{API}/players/{player}/stats", headers=bearer(token)).json()
        pace = stats["pace"]["cotton-trade"]
        assert pace["decisions"] == len(spent[player])
        assert pace["median_seconds"] == percentile(spent[player], 0.5)
        assert pace["p90_seconds"] == percentile(spent[player], 0.9)
        assert (pace["timeouts"], pace["forfeits"], pace["abandoned_games"]) == (0, 0, 0)

    # a clock that runs out: a timeout, and the decision made for the seat is no time to decide
    game = services.ledger.get_game(game_id)
    slow = str(game.seats[game.awaiting[0]])
    clock.advance(hours=24 * 10)
    assert services.ledger.expire(game_id)
    services.ledger.abandon(game_id, "admin", "gone quiet")
    stats = client.get(f"{API}/players/{slow}/stats", headers=bearer(ann["token"])).json()
    pace = stats["pace"]["cotton-trade"]
    assert (pace["decisions"], pace["timeouts"], pace["abandoned_games"]) == (len(spent[slow]), 1, 1)
    other = b if slow == a else a
    assert (
        client.get(f"{API}/players/{other}/stats", headers=bearer(ann["token"])).json()["pace"][
            "cotton-trade"
        ]["abandoned_games"]
        == 1
    )

    # rebuilt from the log, the read model answers the same
    before = {p: services.view("pace").pace(p) for p in (a, b)}
    services.catchups["pace"].rebuild()
    assert {p: services.view("pace").pace(p) for p in (a, b)} == before


def test_the_games_waiting_on_me_come_longest_waiting_first(client: TestClient, services: Services) -> None:
    clock = Clock()
    services.ledger.clock = clock
    ann, bob = register(client, "Ann"), register(client, "Bob")
    a, b = ann["player_id"], bob["player_id"]
    first = two_player_game(services, a, b)
    clock.advance(hours=1)
    second = two_player_game(services, a, b)
    clock.advance(hours=1)
    third = two_player_game(services, b, a)
    # make each game wait on Ann: whoever else is awaited decides, at a later time each
    for game_id in (third, first, second):
        while (
            str(services.ledger.get_game(game_id).seats[services.ledger.get_game(game_id).awaiting[0]]) != a
        ):
            clock.advance(minutes=5)
            decide(services, game_id)
    waiting = client.get(f"{API}/me/waiting", headers=bearer(ann["token"])).json()
    ids = [g["game_id"] for g in waiting["games"]]
    assert waiting["count"] == 3 and sorted(ids) == sorted([first, second, third])
    since = [g["waiting_since"] for g in waiting["games"]]
    assert since == sorted(since) and waiting["next"]["game_id"] == ids[0]
    assert client.get(f"{API}/me/waiting", headers=bearer(bob["token"])).json()["count"] == 0
    # Ann decides in the longest-waiting game: it leaves her list (or moves to its end)
    clock.advance(minutes=5)
    decide(services, ids[0])
    after = client.get(f"{API}/me/waiting", headers=bearer(ann["token"])).json()
    assert after["next"]["game_id"] != ids[0] or after["count"] == 3
    # the header's button names the count and opens the longest waiting game; the lobby lists
    # the games waiting on me longest first
    client.cookies.set("gl_token", ann["token"])
    try:
        lobby = client.get("/lobby").text
    finally:
        client.cookies.clear()
    assert f'href="/games/{after["next"]["game_id"]}"' in lobby
    assert f"Next game waiting on you ({after['count']})" in lobby
    order = [g["game_id"] for g in after["games"]]
    positions = [lobby.index(f'/games/{gid}"') for gid in order]
    assert positions == sorted(positions)


def test_the_players_page_shows_their_pace_per_title(client: TestClient, services: Services) -> None:
    clock = Clock()
    services.ledger.clock = clock
    ann, bob = register(client, "Ann <i>"), register(client, "Bob")
    game_id = two_player_game(services, ann["player_id"], bob["player_id"])
    for _ in range(4):
        clock.advance(minutes=90)
        decide(services, game_id)
    client.cookies.set("gl_token", bob["token"])
    try:
        page = client.get(f"/players/{ann['player_id']}")
        missing = client.get("/players/00000000-0000-4000-8000-000000000000")
    finally:
        client.cookies.clear()
    assert page.status_code == 200 and missing.status_code == 404
    assert "Ann &lt;i&gt;" in page.text and "<i>" not in page.text, "the name is escaped"
    assert 'data-title="cotton-trade"' in page.text and "1h 30m" in page.text

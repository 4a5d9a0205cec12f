"""Water Frame played whole: by the greedy bot in memory, and by two people over HTTP."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from fastapi.testclient import TestClient

from ledger.application import derive_draw
from ledger.engine import DrawOutcome
from ledger.games.water_frame import bot, rules
from ledger.games.water_frame.components import load
from ledger.verify import verify_export
from tests.api_helpers import API, Table

C = load()


def bot_game(seed: int, players: int = 4) -> tuple[rules.State, Counter[int]]:
    s = rules.new_game(rules.WaterFrameOptions(), players)
    draws = 0
    sold: Counter[int] = Counter()
    while True:
        pending = rules.pending(s)
        if pending.finished:
            return s, sold
        if pending.draw is not None:
            values = derive_draw(bytes([seed]) * 32, draws, pending.draw)
            draws += 1
            s, effects = rules.apply_draw(s, DrawOutcome(pending.draw.key, values))
        else:
            seat = pending.seats[0]
            s, effects = rules.apply(s, seat, bot.choose(s, seat))
        assert not rules.conservation(s)
        for e in effects:
            if e.kind == "goods_sold":
                sold[e.seat] += e.from_production + e.from_stock  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", [0, 1])
def test_the_greedy_bot_plays_four_player_games_with_a_working_economy(seed: int) -> None:
    s, sold = bot_game(seed)
    assert s.phase == rules.Phase.FINISHED
    for p in s.players:
        assert sold[p.seat] >= 15, "every company sells goods to the English market"
        assert p.share_space > C.share_start, "share values rose from where they started"
        assert p.loans == 0 and p.shares > 0
    assert all(score > 0 for score in s.scores)


def test_two_people_play_water_frame_over_http_to_the_final_standings(client: TestClient) -> None:
    table = Table(client, n=2, title="water-frame")
    rnd = random.Random(8)
    steps = 0
    while table.step(rnd) is not None:
        steps += 1
    g = table.game()
    assert g["status"] == "finished" and steps > 100
    assert {s["seat"] for s in g["standings"]} == {0, 1}
    assert g["state"]["phase"] == "finished"
    export = client.get(f"{API}/games/{table.game_id}/export", headers=table.auth(0)).text
    report = verify_export(export.splitlines())
    assert report.ok, report.text()
    board = client.get(f"{API}/games/{table.game_id}/scoreboard", headers=table.auth(1)).json()
    game = client.app.state.services.ledger.get_game(table.game_id)  # type: ignore[attr-defined]
    for seat in board["seats"]:
        p = game.state.players[seat["seat"]]
        assert (seat["cash"], seat["shares"], seat["loans"], seat["space"]) == (
            p.cash,
            p.shares,
            p.loans,
            p.share_space,
        )
    assert {s["seat"]: s["rank"] for s in board["seats"]} == {s["seat"]: s["rank"] for s in g["standings"]}
    points = client.get(f"{API}/games/{table.game_id}/share-values", headers=table.auth(0)).json()["points"]
    assert points and all("decade" in p["period"] for p in points[2:])

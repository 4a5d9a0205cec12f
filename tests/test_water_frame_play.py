"""Water Frame played whole: by the greedy bot in memory, and by two people over HTTP."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from fastapi.testclient import TestClient

from ledger.games.water_frame import bot, rules
from ledger.games.water_frame.components import load
from ledger.games.water_frame.meta import WaterFrameOptions
from ledger.verify import verify_export
from tests.api_helpers import API, Table
from tests.draws import bot_playout

C = load()


def bot_game(seed: int, players: int = 4) -> tuple[rules.State, Counter[int], Counter[str]]:
    s = start = rules.new_game(WaterFrameOptions(), players)
    sold: Counter[int] = Counter()
    kinds: Counter[str] = Counter()
    for s, effects in bot_playout(rules, bot, start, seed):
        assert not rules.conservation(s)
        for e in effects:
            kinds[e.kind] += 1
            if e.kind == "goods_sold":
                sold[e.seat] += e.from_production + e.from_stock  # type: ignore[attr-defined]
    return s, sold, kinds


@pytest.mark.parametrize("seed", [0, 1])
def test_the_greedy_bot_plays_four_player_games_with_a_working_economy(seed: int) -> None:
    s, sold, kinds = bot_game(seed)
    assert s.phase == rules.Phase.FINISHED
    for p in s.players:
        assert sold[p.seat] >= 15, "every company sells goods to the English market"
        assert C.share_value(p.share_space) > 0 and p.shares > 0
    spaces = [p.share_space for p in s.players]
    assert sum(spaces) / len(spaces) > C.share_start + 5, "share values rose on the whole"
    assert sum(1 for score in s.scores if score > 0) >= 3
    for kind in ("tile_taken", "ship_taken", "grey_marker_taken", "contract_delivered"):
        assert kinds[kind] >= 1, f"the bot uses {kind.split('_')[0]}s"


def test_two_people_play_water_frame_over_http_to_the_final_standings(client: TestClient) -> None:
    table = Table(client, n=2, title="water-frame")
    steps = table.play_out(random.Random(8))
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


def test_face_down_event_and_economy_markers_never_reach_a_player(client: TestClient) -> None:
    """Every economy marker of a later cycle and every event marker of a later decade stays off
    every response (views, positions, the log, exports) until its reveal."""
    table = Table(client, n=3, title="water-frame")
    table.keeps_secrets(random.Random(4), 120, 12, "there is always something face down before 1810")

"""A whole Swiss season of the card game, to its end: 13 bot players, 4 rounds at tables of 3-4,
one game past its deadline, and the league's record verified offline (and three tampered copies
refused, each named)."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from ledger.league_verify import verify_league
from ledger.seating import pair, spread
from tests.api_helpers import API
from tests.fake_clock import FakeClock
from tests.season_kit import changed_result, decisions_left, dropped_game, failures, play, swapped_seat
from tests.test_seating import free_partition_exists

CARD = "arkwright-card-game"
ADMIN = {"Authorization": "Bearer test-admin-token-0123456789"}


@pytest.mark.slow
def test_a_swiss_season_of_thirteen_bots_plays_to_its_end_and_verifies_offline(
    client: TestClient, services: Services
) -> None:
    clock = FakeClock()
    ledger = services.ledger
    ledger.clock = clock
    organiser, _ = ledger.register_player("Organiser")
    org = str(organiser)
    league = ledger.create_league(creator=org, name="Winter cup", title=CARD, for_bots=True)
    bots = [str(ledger.register_player(f"Bot {i + 1}", bot=True)[0]) for i in range(13)]
    spec = {"format": "swiss", "rounds": 4, "table_min": 3, "table_max": 4, "round_hours": 72}
    spec |= {"tie_breaks": ["wins", "opponents_points", "head_to_head", "score_ratio", "rating"]}
    ledger.create_season(league.id, org, spec)
    for b in bots[:7]:
        ledger.enrol(league.id, 1, b, b)  # they sign up
    for b in bots[7:]:
        ledger.enrol(league.id, 1, b, org)  # the organiser enrols them

    met: Counter[tuple[str, str]] = Counter()
    positions: dict[str, list[int]] = {b: [0] * 4 for b in bots}
    late = ""
    for round_no in range(1, 5):
        season = ledger.start_round(league.id, 1, org)
        tables = season.rounds[-1]["tables"]
        seated = [p for t in tables for p in t["seats"]]
        assert sorted(seated) == sorted(bots)  # everyone, once
        assert sorted(len(t["seats"]) for t in tables) == [3, 3, 3, 4]
        repeats = sum(met[pair(a, b)] for t in tables for a, b in itertools.combinations(t["seats"], 2))
        if repeats:  # only where the field leaves no table without a pair that has met
            assert not free_partition_exists(sorted(bots), (4, 3, 3, 3), met)
        for t in tables:
            game = ledger.get_game(t["game"])
            assert game.seats == t["seats"] and game.status == "active"
            assert game.options == season.spec["options"]
            start = game.state.start_player  # the card game's drawn start player, then clockwise
            assert t["order"][0] == start
            for seat, p in enumerate(game.seats):
                position = (seat - start) % len(game.seats)
                assert t["turn"][position] == p
                positions[p][position] += 1
            for a, b in itertools.combinations(t["seats"], 2):
                met[pair(a, b)] += 1
        for i, t in enumerate(tables):
            if round_no == 2 and i == 0:
                late = t["game"]
                play(ledger, late, stop_after=decisions_left(ledger, late) - 4)
            else:
                play(ledger, t["game"])
        if round_no == 2:
            services.tick_clocks()
            assert ledger.get_season(league.id, 1).round_open  # waits for the late game
            clock.advance(hours=73)
        services.tick_clocks()
        assert not ledger.get_season(league.id, 1).round_open

    for p, counts in positions.items():
        assert spread(counts, 3) <= 1, (p, counts)

    season = ledger.get_season(league.id, 1)
    assert season.ended
    assert season.rounds[1]["deadline_games"] == [late]
    game = ledger.get_game(late)
    assert game.status == "finished"
    timed_out = [e for e in ledger.events.get(game.id) if type(e).TOPIC == "gameledger.game.timed_out"]
    assert {e.public["consequence"] for e in timed_out} == {"bot"}  # the season's rule: the stand-in

    r = client.get(f"{API}/leagues/{league.id}/seasons/1", headers=ADMIN)
    table: list[dict[str, Any]] = r.json()["standings"]
    assert len(table) == 13 and sum(row["games"] for row in table) == 13 * 4
    assert {"points", "wins", "opponents_points", "head_to_head", "score_ratio", "rating"} <= set(table[0])

    doc = client.get(f"{API}/leagues/{league.id}/export", headers=ADMIN).json()
    report = verify_league(doc)
    assert report.ok, report.text()

    tampered, gid = changed_result(doc)
    named = failures(verify_league(tampered))
    assert any(gid in f and "round 1 table 1" in f and "result" in f for f in named), named
    assert any(f.startswith(f"game {gid}: hash chain") for f in named), named
    tampered, gid = swapped_seat(doc)
    named = failures(verify_league(tampered))
    assert any(gid in f and "round 2 table 1" in f and "seating differs" in f for f in named), named
    tampered, gid = dropped_game(doc)
    named = failures(verify_league(tampered))
    assert any(gid in f and "round 1 table 4" in f and "missing from the record" in f for f in named), named

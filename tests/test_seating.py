"""The season's seating procedure and standings, as pure functions (no store)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from ledger.season_standings import Result, place_points, standings
from ledger.seating import (
    SeatingError,
    first_turn_order,
    lot,
    pair,
    seat_round,
    seats_from,
    spread,
    start_positions,
    table_sizes,
)


def free_partition_exists(players: list[str], sizes: tuple[int, ...], met: Counter[tuple[str, str]]) -> bool:
    """Brute force: can the players sit at tables of these sizes with no pair meeting again?"""

    def rec(rest: list[str], left: list[int]) -> bool:
        if not left:
            return True
        first, others = rest[0], rest[1:]
        for size in sorted(set(left)):
            for combo in itertools.combinations(others, size - 1):
                table = (first, *combo)
                if any(met[pair(a, b)] for a, b in itertools.combinations(table, 2)):
                    continue
                remaining = list(left)
                remaining.remove(size)
                if rec([p for p in others if p not in combo], remaining):
                    return True
        return False

    return rec(players, list(sizes))


def play_season(seed: int, n: int = 13, rounds: int = 4, low: int = 3, high: int = 4):  # type: ignore[no-untyped-def]
    """Seat ``rounds`` Swiss rounds with random results; returns every round's tables and history."""
    rng = random.Random(seed)
    players = [f"p{i:02d}" for i in range(n)]
    key = bytes([seed]) * 32
    pts: Counter[str] = Counter()
    met: Counter[tuple[str, str]] = Counter()
    positions = {p: [0] * high for p in players}
    seen = []
    for r in range(1, rounds + 1):
        order = sorted(players, key=lambda p: (-pts[p], lot(key, r, p)))
        before = Counter(met)
        tables = seat_round(order, low, high, met, positions)
        seen.append((tables, before))
        for table in tables:
            for i, p in enumerate(table):
                positions[p][i] += 1
                pts[p] += (4, 2, 1, 0)[rng.randrange(len(table))]
            for a, b in itertools.combinations(table, 2):
                met[pair(a, b)] += 1
    return players, seen, positions


def test_thirteen_players_at_three_to_four_sit_at_tables_of_four_three_three_three() -> None:
    assert table_sizes(13, 3, 4) == (4, 3, 3, 3)
    assert table_sizes(12, 3, 4) == (4, 4, 4)
    assert table_sizes(200, 3, 4) == (4,) * 50
    assert table_sizes(7, 3, 4) == (4, 3)


def test_a_field_that_cannot_fill_the_tables_is_refused() -> None:
    with pytest.raises(SeatingError):
        table_sizes(5, 4, 4)
    with pytest.raises(SeatingError):
        table_sizes(2, 3, 4)
    with pytest.raises(SeatingError):
        table_sizes(1001, 3, 4)


@pytest.mark.parametrize("seed", range(8))
def test_every_round_seats_everyone_once_without_repeats_where_the_field_allows(seed: int) -> None:
    players, seen, _ = play_season(seed)
    for tables, met_before in seen:
        seated = [p for t in tables for p in t]
        assert sorted(seated) == players
        assert sorted(len(t) for t in tables) == [3, 3, 3, 4]
        repeats = sum(met_before[pair(a, b)] for t in tables for a, b in itertools.combinations(t, 2))
        if repeats:
            assert not free_partition_exists(players, (4, 3, 3, 3), met_before)


@pytest.mark.parametrize("seed", range(8))
def test_each_players_start_positions_differ_by_at_most_one(seed: int) -> None:
    _, _, positions = play_season(seed)
    for counts in positions.values():
        assert spread(counts, 3) <= 1, counts


def test_the_seating_is_a_function_of_its_inputs_alone() -> None:
    assert play_season(3)[1] == play_season(3)[1]
    assert play_season(3)[1] != play_season(4)[1]


def test_the_first_round_follows_the_lot_and_the_top_table_takes_the_top_of_the_ranking() -> None:
    order = [f"p{i}" for i in range(8)]
    tables = seat_round(order, 4, 4, {}, {})
    assert [sorted(t) for t in tables] == [sorted(order[:4]), sorted(order[4:])]
    assert tables[0] == tuple(order[:4])  # nobody has held a position yet: ranking order


def test_pairs_that_have_met_are_kept_apart_when_another_table_allows_it() -> None:
    order = ["a", "b", "c", "d", "e", "f"]
    met = {pair("a", "b"): 1}
    tables = seat_round(order, 3, 3, met, {})
    assert not any({"a", "b"} <= set(t) for t in tables)
    assert tables[0][0] == "a"


def test_players_sit_where_the_games_first_turn_order_gives_their_start_position() -> None:
    seats = seats_from(("x", "y", "z"), (2, 0, 1))
    assert seats == ("y", "z", "x")
    assert start_positions(seats, (2, 0, 1)) == {"x": 0, "y": 1, "z": 2}


@pytest.mark.parametrize("title", ["arkwright-card-game", "water-frame", "cotton-trade"])
def test_the_first_turn_order_is_the_one_the_games_setup_draws_give(title: str) -> None:
    orders = {first_turn_order(title, {}, 3, bytes([i]) * 32) for i in range(12)}
    assert len(orders) > 1  # drawn, not fixed
    assert all(sorted(o) == [0, 1, 2] for o in orders)


def test_a_player_listed_twice_is_refused() -> None:
    with pytest.raises(SeatingError):
        seat_round(["a", "a", "b"], 3, 3, {}, {})


def test_tied_players_share_the_points_of_the_places_they_span() -> None:
    assert place_points((4, 2, 1, 0), (1, 2, 3, 4)) == [4, 2, 1, 0]
    assert place_points((4, 2, 1, 0), (1, 1, 3, 4)) == [3, 3, 1, 0]
    assert place_points((3, 1, 0), (2, 1, 2)) == [0, 3, 0]


def test_standings_sum_points_and_break_ties_in_the_seasons_order() -> None:
    results = [
        Result(1, 0, "g1", ("a", "b", "c"), (1, 2, 3), (30, 20, 10), (False,) * 3),
        Result(1, 1, "g2", ("d", "e", "f"), (1, 2, 3), (40, 10, 5), (False,) * 3),
        Result(2, 0, "g3", ("a", "d", "e"), (2, 1, 3), (25, 50, 0), (False,) * 3),
        Result(2, 1, "g4", ("b", "c", "f"), (3, 2, 1), (0, 5, 10), (False,) * 3),
    ]
    table = standings(list("abcdef"), results, {}, ["wins", "opponents_points", "score_ratio"])
    by = {r["player_id"]: r for r in table}
    assert by["d"]["points"] == 6 and by["d"]["wins"] == 2 and by["d"]["place"] == 1
    assert by["a"]["points"] == 4 and by["f"]["points"] == 3
    # a: opponents b, c (1 + 1), then d, e (6 + 1)
    assert by["a"]["opponents_points"] == 1 + 1 + 6 + 1
    assert by["a"]["score_ratio"] == pytest.approx((1 + 25 / 50) / 2, abs=1e-4)
    assert [r["player_id"] for r in table][:2] == ["d", "a"]


def test_a_void_game_gives_nobody_anything() -> None:
    results = [Result(1, 0, "g1", ("a", "b"))]
    table = standings(["a", "b"], results, {}, ["wins"])
    assert all(r["points"] == 0 and r["games"] == 0 for r in table)
    assert [r["place"] for r in table] == [1, 1]


def test_head_to_head_orders_players_tied_on_points() -> None:
    results = [
        Result(1, 0, "g1", ("a", "b", "x"), (2, 1, 3), (5, 6, 1), (False,) * 3),
        Result(2, 0, "g2", ("a", "y", "z"), (1, 2, 3), (9, 1, 0), (False,) * 3),
        Result(2, 1, "g3", ("b", "y2", "z2"), (2, 1, 3), (5, 9, 0), (False,) * 3),
    ]
    table = standings(["a", "b", "x", "y", "z", "y2", "z2"], results, {}, ["head_to_head"])
    by = {r["player_id"]: r for r in table}
    assert by["a"]["points"] == by["b"]["points"] == 4
    assert by["b"]["head_to_head"] == 1 and by["a"]["head_to_head"] == -1
    assert by["b"]["place"] < by["a"]["place"]


def test_a_field_of_two_hundred_meets_no_one_twice_over_six_rounds() -> None:
    from tests.benchmarks.bench_seasons import season_times

    _, repeats = season_times(200, 6, 3, 4)
    assert repeats == 0

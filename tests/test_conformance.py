"""The generic conformance harness on every registered title and player count."""

from __future__ import annotations

import pytest

from ledger import registry
from ledger.application import Ledger
from ledger.conformance import ledger_playout, random_playout

CASES = [
    (title, n, seed)
    for title, meta in registry.TITLES.items()
    for n in range(meta.min_players, meta.max_players + 1)
    for seed in (1, 2)
]


@pytest.mark.parametrize(("title", "players", "seed"), CASES)
def test_random_playouts_keep_every_law_and_secret(title: str, players: int, seed: int) -> None:
    result = random_playout(title, players, seed)
    assert result.decisions > 0 and result.winners


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("edition", ["2016", "2014"])
def test_water_frame_with_the_greedy_bot_and_both_editions_keeps_every_law(
    players: int, edition: str
) -> None:
    result = random_playout("water-frame", players, 31, {"edition": edition}, greedy=True, check_every=3)
    assert result.winners


@pytest.mark.parametrize("players", [2, 4])
def test_water_frame_predetermined_setup_and_patron_variant_play_through(players: int) -> None:
    random_playout(
        "water-frame",
        players,
        5,
        {"predetermined_setup": True, "predetermined_events_shuffled": True},
        check_every=3,
    )
    random_playout("water-frame", players, 6, {"patron_variant": True}, check_every=3)


@pytest.mark.parametrize("title", list(registry.TITLES))
def test_a_game_played_through_the_ledger_verifies_from_its_record(title: str, memory_ledger: Ledger) -> None:
    meta = registry.meta(title)
    result = ledger_playout(memory_ledger, title, meta.min_players + 1, seed=7)
    assert result.events > result.decisions > 0


SWEEP = [
    (title, n, seed)
    for title, meta in registry.TITLES.items()
    for n in range(meta.min_players, meta.max_players + 1)
    for seed in range(1000, 1200)
]


@pytest.mark.slow
@pytest.mark.parametrize(("title", "players", "seed"), SWEEP)
def test_many_random_games(title: str, players: int, seed: int) -> None:
    """200 seeded games per title and player count (run with -m slow): random decisions, and for
    titles with a greedy bot every other game by the bot, alternating editions where there are two."""
    options = {"edition": "2014"} if title == "water-frame" and seed % 4 >= 2 else {}
    random_playout(
        title, players, seed, options, check_every=5, greedy=seed % 2 == 1 and registry.bot(title) is not None
    )

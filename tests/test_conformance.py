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
    """200 seeded random games per title and player count (run with -m slow)."""
    random_playout(title, players, seed, check_every=5)

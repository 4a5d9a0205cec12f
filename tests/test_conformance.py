"""The generic conformance harness on every registered title and player count."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ledger import registry
from ledger.application import Ledger
from ledger.conformance import ConformanceError, check_position, ledger_playout, random_playout, random_steps

CASES = [
    (title, n, seed)
    for title, meta in registry.TITLES.items()
    for n in range(meta.min_players, meta.max_players + 1)
    for seed in (1, 2)
]


class Leaky:
    """A title's engine whose views carry one more value, made from the seat's secrets."""

    def __init__(self, title: str, extra: Any) -> None:
        self.engine = registry.engine(title)
        self.extra = extra

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def view(self, state: Any, seat: int | None) -> Any:
        view = dict(self.engine.view(state, seat))
        view["extra"] = self.extra(sorted(self.engine.secrets(state, seat)))
        return view


@pytest.mark.parametrize("title", sorted(registry.TITLES))
def test_the_check_of_a_position_finds_a_secret_anywhere_in_a_view_and_nowhere_else(title: str) -> None:
    eng = registry.engine(title)
    options = {"random_dev_supply": True} if title == "arkwright-card-game" else {}  # its only secret
    new = eng.new_game(eng.meta.options.model_validate(options), eng.meta.min_players)
    state = next(
        after for _, _, after in random_steps(eng, new, random.Random(3)) if eng.secrets(after, None)
    )
    assert eng.secrets(state, 0), "the game hides something from the first seat by now"
    check_position(eng, state, "as drawn")
    for leak in (
        lambda secrets: [{"deep": secrets[:1]}],  # a value, nested
        lambda secrets: dict.fromkeys(secrets[-1:], 1),  # a key
    ):
        with pytest.raises(ConformanceError, match="shows secrets"):
            check_position(Leaky(title, leak), state, "leaked")  # type: ignore[arg-type]
    # a secret's JSON inside a longer string (after an escaped quote) is not the secret shown
    check_position(Leaky(title, lambda secrets: [f'said "{s}' for s in secrets]), state, "quoted")  # type: ignore[arg-type]


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

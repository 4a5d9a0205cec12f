"""Arkwright: The Card Game played whole: random and greedy playouts through the conformance
harness (laws, secrets, legal decisions at every step), and the greedy bot's economy."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.conformance import random_playout
from ledger.games.arkwright_card_game import bot, rules
from ledger.games.arkwright_card_game.components import load
from ledger.games.arkwright_card_game.meta import CardGameOptions
from ledger.games.arkwright_card_game.state import Phase, State
from tests.api_helpers import Table
from tests.draws import bot_playout

TITLE = "arkwright-card-game"
C = load()
VARIANTS = [pytest.param({}, id="base"), pytest.param({"expert": "all"}, id="expert")]


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_law_and_secret(players: int, options: dict[str, Any]) -> None:
    for seed in (21, 22):
        result = random_playout(TITLE, players, seed, options, check_every=3)
        assert result.decisions > 100 and result.winners


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_games_keep_every_law_and_secret(players: int, options: dict[str, Any]) -> None:
    for seed in (31, 32):
        result = random_playout(TITLE, players, seed, options, greedy=True, check_every=3)
        assert result.winners
        assert all(s.score[1] > 0 for s in result.standings), "every company ends with a positive score"


def bot_game(seed: int, players: int, options: dict[str, Any]) -> tuple[State, Counter[str], Counter[int]]:
    s = start = rules.new_game(CardGameOptions.model_validate(options), players)
    kinds: Counter[str] = Counter()
    sold: Counter[int] = Counter()
    for s, effects in bot_playout(rules, bot, start, seed):  # noqa: B007 - the last state is the result
        for e in effects:
            kinds[e.kind] += 1
            if e.kind == "goods_sold":
                sold[e.seat] += e.from_production + e.from_storage  # type: ignore[attr-defined]
    return s, kinds, sold


@pytest.mark.parametrize("options", VARIANTS)
def test_the_greedy_bot_sells_goods_ships_and_raises_share_values(options: dict[str, Any]) -> None:
    s, kinds, sold = bot_game(5, 4, options)
    assert s.phase == Phase.FINISHED
    for p in s.players:
        assert not p.eliminated
        assert sold[p.seat] >= 20, "every company sells goods to the home market"
        assert p.share_value > C.start_share_value + 5, "share values rose"
        assert p.shares > 0
    for kind in (
        "factory_built",
        "worker_card_added",
        "machine_added",
        "goods_shipped",
        "development_card_taken",
    ):
        assert kinds[kind] >= 1, f"the bot uses {kind}"
    assert kinds["shares_changed"] > len(s.players), "shares bought during the game, not only at the end"


def test_the_face_down_development_cards_never_reach_a_player_over_http(client: TestClient) -> None:
    """Expert supply: the cards never drawn (and their faces) stay off every response — views, the
    state, the log and the export — while the game is played."""
    table = Table(client, n=2, title=TITLE, options={"expert": "all"})
    table.keeps_secrets(random.Random(3), 16, 5, "the box keeps face-down cards for the whole game")

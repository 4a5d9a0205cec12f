"""The log's words say a number of things in the right number: "stored 1 lamp", "stored 2 lamps"."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.games.arkwright_card_game.words import describe as card_game
from ledger.games.cotton_trade.words import describe as cotton_trade
from ledger.games.vocabulary import counted
from ledger.games.water_frame.words import describe as water_frame

NAMES = {0: "Ann"}


@pytest.mark.parametrize(
    ("n", "things", "said"),
    [
        (1, "lamps", "1 lamp"),
        (2, "lamps", "2 lamps"),
        (0, "lamps", "0 lamps"),
        (1, "stored lamps", "1 stored lamp"),
        (1, "clothes", "1 clothes"),
        (1, "food", "1 food"),
        (1, "cutlery", "1 cutlery"),
        (1, "pence", "1 penny"),
        (3, "pence", "3 pence"),
        (1, "pounds", "1 pound"),
    ],
)
def test_a_count_of_things_is_said_in_the_right_number(n: int, things: str, said: str) -> None:
    assert counted(n, things) == said


@pytest.mark.parametrize(
    ("describe", "effect", "said"),
    [
        (
            water_frame,
            {"kind": "goods_stored", "seat": 0, "good": "LAMPS", "stored": 1, "lost": 0},
            "Ann stored 1 lamp.",
        ),
        (
            water_frame,
            {"kind": "goods_stored", "seat": 0, "good": "LAMPS", "stored": 2, "lost": 1},
            "Ann stored 2 lamps, 1 lost.",
        ),
        (
            water_frame,
            {"kind": "goods_produced", "seat": 0, "good": "LAMPS", "count": 1},
            "Ann produced 1 lamp.",
        ),
        (
            water_frame,
            {
                "kind": "goods_sold",
                "seat": 0,
                "good": "LAMPS",
                "from_production": 1,
                "from_stock": 0,
                "price": 8,
                "income": 8,
            },
            "Ann sold 1 lamp at £8 (£8).",
        ),
        (water_frame, {"kind": "importer_sold", "good": "LAMPS", "count": 1}, "The importer sold 1 lamp."),
        (
            water_frame,
            {"kind": "stored_goods_sold", "seat": 0, "good": "LAMPS", "count": 1, "income": 5},
            "Ann sold 1 stored lamp for £5.",
        ),
        (
            water_frame,
            {"kind": "wages_paid", "seat": 0, "amount": 4, "workers": 1, "wage": 3, "machines": 1},
            "Ann paid £4 for 1 worker at £3 and 1 machine.",
        ),
        (
            water_frame,
            {"kind": "economy_marker_revealed", "good": "FOOD", "advance": 1, "importer": 2, "returned": 1},
            "Economy marker: the food importer advances 1 (now 2); 1 worker returns to the job market.",
        ),
        (card_game, {"kind": "goods_wasted", "seat": 0, "good": "LAMPS", "count": 1}, "Ann wasted 1 lamp."),
        (
            card_game,
            {"kind": "goods_stored", "seat": 0, "good": "LAMPS", "count": 1, "storehouse": "BIG"},
            "Ann stored 1 lamp in the big storehouse.",
        ),
        (
            cotton_trade,
            {
                "kind": "money_changed",
                "seat": 0,
                "amount": 1,
                "currency": "pence",
                "reason": "bonus_coins",
                "balance": 2,
            },
            "Ann gained 1 penny (bonus coins); now 2 pence.",
        ),
        (
            cotton_trade,
            {"kind": "harbour_tokens_placed", "region": "EGYPT", "coins": 1, "passengers": 1, "vip": 0},
            "EGYPT harbour received 1 coin, 1 passenger, 0 VIP.",
        ),
        (
            cotton_trade,
            {"kind": "bonus_coins_taken", "seat": 0, "coins": 1, "region": "EGYPT"},
            "Ann took 1 bonus coin in EGYPT.",
        ),
    ],
)
def test_the_log_says_one_good_or_coin_in_the_singular(
    describe: Any, effect: dict[str, Any], said: str
) -> None:
    assert describe(effect, NAMES) == said

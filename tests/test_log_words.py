"""The log's words say a number of things in the right number: "stored 1 lamp", "stored 2 lamps"."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from api.web.table import renderer_for
from api.web.table.water_frame_words import event_name, event_tip
from ledger import registry
from ledger.engine import DrawOutcome, Effect
from ledger.games import vocabulary
from ledger.games.arkwright_card_game.words import describe as card_game
from ledger.games.cotton_trade.words import describe as cotton_trade
from ledger.games.vocabulary import counted
from ledger.games.water_frame.words import describe as water_frame
from ledger.rng import derive_draw

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


# --- every effect kind has words -----------------------------------------------------------

VARIANTS: dict[str, tuple[dict[str, Any], ...]] = {
    "water-frame": ({}, {"predetermined_setup": True}, {"edition": "2014", "patron_variant": True}),
    "arkwright-card-game": ({}, {"expert": "all", "extra_production": True, "early_shipping": True}),
    "cotton-trade": ({}, {"shares_trade": True, "reputation": True}),
}
"""Each title's variants the random games are played in: the effects of an optional rule too."""


def _declared_kinds(title: str) -> set[str]:
    """The effect kinds a title's modules declare: its own effect classes, and the shared ones
    (``ledger.games.vocabulary``'s) its modules name."""
    shared = {
        name: thing.kind
        for name, thing in vars(vocabulary).items()
        if inspect.isclass(thing) and issubclass(thing, Effect) and thing is not Effect
    }
    package = importlib.import_module(registry.meta(title).engine_module.rsplit(".", 1)[0])
    kinds: set[str] = set()
    for module in pkgutil.iter_modules(package.__path__):
        loaded = importlib.import_module(f"{package.__name__}.{module.name}")
        for thing in vars(loaded).values():
            if inspect.isclass(thing) and issubclass(thing, Effect) and thing is not Effect:
                kinds.add(thing.kind)
        source = inspect.getsource(loaded)
        kinds |= {kind for name, kind in shared.items() if re.search(rf"\b{name}\b", source)}
    return kinds


def _random_game(title: str, seed: int, options: dict[str, Any]) -> Iterator[Any]:
    """The effects of one game of random legal decisions (draws derived from the seed)."""
    eng = registry.engine(title)
    players = eng.meta.min_players + seed % (eng.meta.max_players - eng.meta.min_players + 1)
    rnd = random.Random(seed)
    state = eng.new_game(eng.meta.options.model_validate(options), players)
    draw_seed, draws = rnd.randbytes(32), 0
    for _ in range(20_000):
        pending = eng.pending(state)
        if pending.finished:
            return
        if pending.draw is not None:
            outcome = DrawOutcome(pending.draw.key, derive_draw(draw_seed, draws, pending.draw))
            state, effects = eng.apply_draw(state, outcome)
            draws += 1
        else:
            seat = rnd.choice(pending.seats)
            state, effects = eng.apply(state, seat, rnd.choice(eng.legal_decisions(state, seat)))
        yield from effects
    raise AssertionError(f"a random {title} game did not end")


def _words(title: str) -> dict[str, Any]:
    return importlib.import_module(registry.meta(title).engine_module.rsplit(".", 1)[0] + ".words").WORDS


@pytest.mark.parametrize("title", sorted(registry.TITLES))
def test_every_effect_kind_a_title_declares_or_emits_has_words(title: str) -> None:
    emitted = {
        e.kind for seed in range(3) for options in VARIANTS[title] for e in _random_game(title, seed, options)
    }
    declared = _declared_kinds(title)
    assert len(emitted) > 20 and len(declared) > 20
    missing = sorted((declared | emitted) - set(_words(title)))
    assert not missing, f"{title}'s log has no words for {missing}"


@pytest.mark.parametrize("title", sorted(registry.TITLES))
def test_no_line_of_a_random_games_log_is_only_its_kind(title: str) -> None:
    """Each line names who and what: never the bare kind ("ship released"), an unfilled field or
    a code the table's words leave unsaid."""
    words = renderer_for(title).words
    names = {0: "Ann", 1: "Bob", 2: "Cid", 3: "Dee"}
    describe = registry.engine(title).describe
    seen = 0
    for options in VARIANTS[title]:
        for effect in _random_game(title, 7, options):
            payload = effect.payload()
            line = words.text(describe(payload, names))
            seen += 1
            assert line.strip() and line != effect.kind.replace("_", " "), (effect.kind, line)
            assert "{" not in line and "_" not in line, (effect.kind, line)
            assert line.endswith((".", ")")), (effect.kind, line)
    assert seen > 100


def test_an_event_marker_without_effect_says_there_is_no_event_this_decade() -> None:
    said = water_frame({"kind": "event_revealed", "decade": 1780, "event": "EVENT_X7"}, NAMES)
    assert said == "No event this decade (the 1780s)."
    assert water_frame({"kind": "event_revealed", "decade": 1790, "event": "BUREAUCRACY"}, NAMES) == (
        "Event of the 1790s: Bureaucracy."
    )
    assert event_name("EVENT_X7") == "No event" and "No event this decade" in event_tip("EVENT_X7")


def test_a_ship_released_names_who_and_which_ship() -> None:
    effect = {"kind": "ship_released", "seat": 0, "ship": "SHIP-4A", "crew_fired": 1}
    assert water_frame(effect, NAMES) == "Ann released the 4-goods ship A and its crew of 1."

"""Arkwright: The Card Game's table without a browser (issue 18): every legal decision exactly
once on the page, on the board where it acts on something drawn; nothing for a seat that is not
awaited; words where a person reads (page, replay, new-game options, log); the replay marks the
decision on the board it was made on."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from fastapi.testclient import TestClient

from api.web.table.arkwright_card_game_words import CARDS, WORDS, card_name, card_tip
from ledger.games.arkwright_card_game import words as log_words
from ledger.registry import engine
from tests.api_helpers import Table as Players
from tests.table_helpers import (
    TablePage,
    codes_on_pages,
    drawn_positions,
    offered_in_replay,
    page,
    replay_page,
    replayed,
)

TITLE = "arkwright-card-game"
# the card game's own codes, besides those every title shares (table_helpers.CODE)
CARD_CODES = re.compile(
    r"\b(?:Q[1-3]|D[12]|S[12]|BIG|PRICE|APPEAL|ENTREPRENEUR|FOREMAN|WORKSHOP|PATENT|ENGINEER|"
    r"INVENTOR|DEVELOPER|BROKER|CONTRACT|BUILD|EMPLOY|AUTOMATE|DEV_CARDS|STOCK_EXCHANGE)\b"
)


def test_decisions_acting_on_drawn_things_are_on_the_board() -> None:
    """A factory, a worker card, a quality row, a spot, a track, a card of the supply, a storehouse:
    each decision on the thing it acts on; only choosing an action and going on stand in the list."""
    where: dict[str, set[str]] = {}
    for players, seed in ((3, 4), (2, 5), (4, 6)):
        for decisions, drawn in drawn_positions(TITLE, {}, players, seed, 600):
            listed = [d for c in drawn.rest for d in c.expanded()]
            assert sorted(map(str, listed)) == sorted(str(d) for d in decisions if d in listed), (
                "the list holds only listed decisions"
            )
            for d in decisions:
                where.setdefault(d["type"], set()).add("words" if d in listed else "board")
    for kind in (
        "build_factory",
        "upgrade_factory",
        "hire_worker",
        "add_machine",
        "set_quality_card",
        "set_distribution_card",
        "set_price_and_appeal",
        "take_development",
        "take_development_card",
        "discard_development_card",
        "store_goods",
        "ship_goods",
        "buy_shares",
        "take_loans",
        "choose_start_player",
    ):
        assert where.get(kind) == {"board"}, (kind, where.get(kind))
    for kind in ("choose_action", "skip_action", "finish_action", "skip_development"):
        assert where.get(kind) == {"words"}, (kind, where.get(kind))


def test_the_two_player_board_shows_the_neutral_company(client: TestClient) -> None:
    t = Players(client, 2, TITLE)
    html = page(client, t.players[0]["token"], f"/games/{t.game_id}")
    board = TablePage(html, within="board")
    assert any("neutral company" in text for _, text in board.words)


def test_card_game_pages_show_words_where_a_person_reads(client: TestClient) -> None:
    """No code (FOOD, Q1, S2, DEV_CARDS, PATRON_CLOTHES_FOOD, a spec id) in the visible text,
    tooltips or accessible names of the game, replay and create pages, nor in the log."""
    seen, found = codes_on_pages(
        client, TITLE, [(3, 7, 200, None), (2, 8, 60, None)], every=10, title_codes=CARD_CODES
    )
    assert seen >= 200
    assert not found, found[:10]


def test_every_development_card_has_a_name_and_an_effect_in_words() -> None:
    eng = engine(TITLE)
    types = set(
        eng.decision_adapter.json_schema()["$defs"]["TakeDevelopmentCard"]["properties"]["card"]["enum"]
    )
    for card in types:
        assert "_" not in card_name(card) and card_tip(card).startswith(card_name(card)), card
        assert len(card_tip(card)) > len(card_name(card)) + 20, card
    assert card_name("PATRON_LAMPS_CUTLERY") == "Patron of lamps and cutlery"
    assert set(CARDS) <= types
    assert WORDS.text("put Q1 at FOOD") == "put the first quality card at food"


def test_the_log_says_cards_storehouses_and_the_neutral_company_in_words() -> None:
    def say(**e: Any) -> str:
        return log_words.describe(e, {0: "Ann", 1: "Bob"})

    assert say(kind="quality_card_set", seat=0, card="Q2", good="FOOD", value=3, mode="APPEAL") == (
        "Ann put the second quality card at food, value 3 on appeal."
    )
    assert say(kind="goods_stored", seat=1, count=2, good="LAMPS", storehouse="S1") == (
        "Bob stored 2 lamps in the first small storehouse."
    )
    assert "the big storehouse" in say(kind="goods_stored", seat=1, count=2, good="LAMPS", storehouse="BIG")
    assert say(
        kind="appeal_marker_moved", seat=None, good="CLOTHES", appeal_from=3, appeal_to=5, arrows=0
    ) == ("The neutral company's clothes appeal marker: 5.")
    assert say(kind="development_card_taken", seat=0, card="PATRON_CLOTHES_FOOD") == (
        "Ann took the Patron of clothes and food."
    )
    assert (
        say(kind="factory_built", seat=0, good="CUTLERY", side=2)
        == "Ann opened a cutlery factory (decade II side)."
    )
    assert (
        say(kind="development_taken", seat=0, track="DEV_CARDS", level=1)
        == "Ann developed development cards to level 1."
    )


def test_the_replay_marks_each_decision_on_the_board_it_was_made_on(client: TestClient) -> None:
    t, events = replayed(client, TITLE, 40)
    marked = 0
    on_board = {
        "set_price_and_appeal",
        "take_development",
        "set_quality_card",
        "store_goods",
        "take_development_card",
    }
    for e in events:
        decision = e["public"].get("decision")
        if not decision or decision["type"] not in on_board:
            continue
        html = replay_page(client, t, e["version"])
        assert 'class="highlight' in html, (e["version"], decision)
        assert "The board as the decision was made" in html
        assert offered_in_replay(html) == Counter(), "a replay offers nothing"
        marked += 1
    assert marked >= 8, marked

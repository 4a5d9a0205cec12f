"""Cotton Trade's table without a browser (issue 18): every legal decision exactly once on the
page, on the board where it acts on something drawn (a ship card, a region, a contract, a
ship, a share, the auctioned share); nothing for a seat that is not awaited; words where a
person reads (no region code, card id or spec id); the replay on the same board."""

from __future__ import annotations

import re
from collections import Counter

from fastapi.testclient import TestClient

from api.web.table.cotton_trade_words import WORDS
from tests.table_helpers import (
    CODE,
    COTTON_TRADE_ADVANCED,
    codes_on_pages,
    drawn_positions,
    offered,
    offered_in_replay,
    placed,
    replay_page,
    replayed,
    spectator_page,
)

# Cotton Trade's own codes, besides the ones every title must avoid: its regions, card ids,
# the good ol' ship, a payment's purpose, a seat by its number
CT_CODE = re.compile(
    r"\b(?:EGYPT|NORTH_AMERICA|SOUTH_AMERICA_WI|BRITISH_INDIA|GOOD_OL|WAR|PEACE|[SC]\d{2,3}|"
    r"(?:rent|contract):\w+|NEW-icon)\b|\bseat \d's\b"
)
ON_THE_BOARD = (
    "rent_ship",
    "sail_ship",
    "buy_contract",
    "peek_contract",
    "keep_new_ship",
    "choose_share_to_sell",
    "bid",
    "reveal_top_ship",
)
IN_WORDS = ("pass_renting", "decline_contract", "return_ship", "pass_bid", "return_all_ships")


def test_decisions_acting_on_drawn_things_are_on_the_board() -> None:
    """Renting a ship card, sailing to a region, buying or looking at a contract, keeping a ship,
    auctioning a share, bidding: each on the thing it acts on; passing stands in the list."""
    where: dict[str, set[str]] = {}
    for options, players, seed in (({}, 3, 4), (COTTON_TRADE_ADVANCED, 4, 5), (COTTON_TRADE_ADVANCED, 3, 6)):
        for decisions, drawn in drawn_positions("cotton-trade", options, players, seed, 3000):
            placed(where, decisions, drawn)
    for kind in ON_THE_BOARD:
        assert where.get(kind) == {"board"}, (kind, where.get(kind))
    for kind in IN_WORDS:
        assert where.get(kind) == {"words"}, (kind, where.get(kind))


def test_a_spectator_sees_the_board_without_choices(client: TestClient) -> None:
    html = spectator_page(client, "cotton-trade")
    assert 'class="board-svg ct"' in html and "Regions" in html
    assert offered(html) == Counter() and 'class="act' not in html


def test_cotton_trade_pages_show_words_where_a_person_reads(client: TestClient) -> None:
    """No code (EGYPT, S05, C052, rent:S05, GOOD_OL, seat 0's, an ambiguity's spec id) in the
    visible text, tooltips or accessible names of the game, replay and create pages."""
    seen, found = codes_on_pages(
        client,
        "cotton-trade",
        [(3, 7, 130, None), (3, 8, 130, COTTON_TRADE_ADVANCED)],
        every=6,
        title_codes=CT_CODE,
        start_versions=(1, 2, 3, 4, 5),  # the draws of the start: the decks shuffled, in words
    )
    assert seen >= 200
    assert not found, found[:10]


def test_the_log_and_the_prompts_say_what_happened_in_words() -> None:
    assert WORDS.text("The EGYPT contract deck was shuffled.") == "The Egypt contract deck was shuffled."
    assert WORDS.text("Bob rented ship S05 (capacity 2) for 3.") == "Bob rented ship 5 (capacity 2) for 3."
    assert WORDS.text("Ann bought contract C052 for 9") == "Ann bought contract 52 for 9"
    assert "renting ship 1" in WORDS.text("cover 1 shillings (rent:S01)")
    names = {0: "Ann", 1: "Bob"}
    assert WORDS.prompt("draw: NORTH_AMERICA contract deck", names) == (
        "the North America contract deck is shuffled next"
    )
    said = WORDS.prompt("bid for share 2 of seat 1's company (worth more than 3 pence-equivalents)", names)
    assert said.startswith("bid for share 2 of Bob's company")
    said = WORDS.prompt(
        "buy a cotton contract for your ship, or decline (your capacity-2 ship in SOUTH_AMERICA_WI)", names
    )
    assert "South America and the West Indies" in said and not CODE.search(said)


def test_the_replay_marks_each_decision_on_the_board_it_was_made_on(client: TestClient) -> None:
    t, events = replayed(client, "cotton-trade", 40, COTTON_TRADE_ADVANCED)
    marked = 0
    for e in events:
        decision = e["public"].get("decision")
        html = replay_page(client, t, e["version"])
        if decision and decision["type"] in ("rent_ship", "sail_ship", "buy_contract"):
            assert 'class="highlight' in html, (e["version"], decision)
            assert "The board as the decision was made" in html
            marked += 1
        assert offered_in_replay(html) == Counter(), "a replay offers nothing"
    assert marked >= 10, marked

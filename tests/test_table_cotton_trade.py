"""Cotton Trade's table without a browser (issue 18): every legal decision exactly once on the
page, on the board where it acts on something drawn (a ship card, a region, a contract, a
ship, a share, the auctioned share); nothing for a seat that is not awaited; words where a
person reads (no region code, card id or spec id); the replay on the same board."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.web.table.cotton_trade_words import WORDS
from tests import table_helpers
from tests.api_helpers import API
from tests.api_helpers import Table as Players
from tests.table_helpers import (
    CODE,
    TablePage,
    check_positions,
    drawn_positions,
    offered,
    page,
    placed,
)

ADVANCED = {"shares_trade": True, "reputation": True}
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


def positions(
    client: TestClient, n: int, players: int, seed: int, options: dict[str, Any] | None = None
) -> Iterator[tuple[Players, int, dict[str, Any]]]:
    return table_helpers.positions(client, n, players, seed, "cotton-trade", options)


@pytest.mark.parametrize(
    "games, size, board",
    [
        pytest.param([(3, 1, 30, None), (4, 2, 35, ADVANCED), (2, 3, 15, ADVANCED)], 80, 120, id="80"),
        pytest.param(
            [(3, 1, 90, None), (4, 2, 70, ADVANCED), (2, 3, 40, ADVANCED)],
            200,
            300,
            id="200",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_each_legal_decision_is_exactly_one_element_at_200_random_cotton_trade_positions(
    client: TestClient, games: list[tuple[int, int, int, dict[str, Any] | None]], size: int, board: int
) -> None:
    """The main run checks 80 positions (three shorter games of the same shapes); ``-m slow`` (run by
    .ci/run) all 200. Every fourth position, a seat not awaited too."""
    checked, on_board, others, types = check_positions(client, "cotton-trade", games)
    assert checked == size and others == size // 4, (checked, others)
    assert on_board > board, "the decisions are on the board, not only in the list"
    assert {"rent_ship", "sail_ship", "buy_contract", "bid", "choose_share_to_sell"} <= set(types), types


def test_decisions_acting_on_drawn_things_are_on_the_board() -> None:
    """Renting a ship card, sailing to a region, buying or looking at a contract, keeping a ship,
    auctioning a share, bidding: each on the thing it acts on; passing stands in the list."""
    where: dict[str, set[str]] = {}
    for options, players, seed in (({}, 3, 4), (ADVANCED, 4, 5), (ADVANCED, 3, 6)):
        for decisions, drawn in drawn_positions("cotton-trade", options, players, seed, 3000):
            placed(where, decisions, drawn)
    for kind in ON_THE_BOARD:
        assert where.get(kind) == {"board"}, (kind, where.get(kind))
    for kind in IN_WORDS:
        assert where.get(kind) == {"words"}, (kind, where.get(kind))


def test_a_spectator_sees_the_board_without_choices(client: TestClient) -> None:
    t = Players(client, 3, "cotton-trade")
    spectator = client.post(f"{API}/players", json={"name": "Eve"}).json()
    html = page(client, spectator["token"], f"/games/{t.game_id}")
    assert 'class="board-svg ct"' in html and "Regions" in html
    assert offered(html) == Counter() and 'class="act' not in html


def _codes(html: str, within: str) -> list[tuple[str, str, str]]:
    shown = TablePage(html, within=within)
    found = shown.codes()
    found += [(w, m.group(0), text) for w, text in shown.words for m in CT_CODE.finditer(text)]
    return found


def test_cotton_trade_pages_show_words_where_a_person_reads(client: TestClient) -> None:
    """No code (EGYPT, S05, C052, rent:S05, GOOD_OL, seat 0's, an ambiguity's spec id) in the
    visible text, tooltips or accessible names of the game, replay and create pages."""
    found: list[tuple[str, str, str, str]] = []
    seen = 0
    for options, seed in ((None, 7), (ADVANCED, 8)):
        gid = token = ""
        for t, seat, _ in positions(client, 130, 3, seed, options):
            gid, token = t.game_id, t.players[seat]["token"]
            if seen % 6 == 0:
                for path in (f"/games/{gid}", f"/games/{gid}/replay"):
                    found += [(path, *c) for c in _codes(page(client, token, path), "main")]
            seen += 1
        for v in (1, 2, 3, 4, 5):  # the draws of the start: the decks shuffled, in words
            html = page(client, token, f"/games/{gid}/replay?v={v}")
            found += [(f"replay {v}", *c) for c in _codes(html, "main")]
    html = page(client, token, "/games/new?title=cotton-trade")
    found += [("/games/new", *c) for c in _codes(html, "new-game-form")]
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
    t = Players(client, 3, "cotton-trade", ADVANCED)
    rnd = random.Random(6)
    for _ in range(40):
        t.step(rnd)
    events = client.get(f"{API}/games/{t.game_id}/events", headers=t.auth(0)).json()["events"]
    marked = 0
    for e in events:
        decision = e["public"].get("decision")
        html = page(client, t.players[0]["token"], f"/games/{t.game_id}/replay?v={e['version']}")
        if decision and decision["type"] in ("rent_ship", "sail_ship", "buy_contract"):
            assert 'class="highlight' in html, (e["version"], decision)
            assert "The board as the decision was made" in html
            marked += 1
        assert offered(html.replace('id="replay-live"', 'id="live"')) == Counter(), "a replay offers nothing"
    assert marked >= 10, marked

"""Arkwright: The Card Game's table without a browser (issue 18): every legal decision exactly
once on the page, on the board where it acts on something drawn; nothing for a seat that is not
awaited; words where a person reads (page, replay, new-game options, log); the replay marks the
decision on the board it was made on."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.web.table.arkwright_card_game_words import CARDS, WORDS, card_name, card_tip
from ledger.games.arkwright_card_game import words as log_words
from ledger.registry import engine
from tests.api_helpers import API
from tests.api_helpers import Table as Players
from tests.table_helpers import CODE, TablePage, check_positions, drawn_positions, offered, page, positions

TITLE = "arkwright-card-game"
# the card game's own codes, besides those every title shares (table_helpers.CODE)
CARD_CODES = (
    r"\b(?:Q[1-3]|D[12]|S[12]|BIG|PRICE|APPEAL|ENTREPRENEUR|FOREMAN|WORKSHOP|PATENT|ENGINEER|"
    r"INVENTOR|DEVELOPER|BROKER|CONTRACT|BUILD|EMPLOY|AUTOMATE|DEV_CARDS|STOCK_EXCHANGE)\b"
)


def codes_in(html: str, within: str) -> list[tuple[str, str, str]]:
    import re

    extra = re.compile(CARD_CODES)
    words = TablePage(html, within=within).words
    return [
        (where, m.group(0), text) for where, text in words for rx in (CODE, extra) for m in rx.finditer(text)
    ]


@pytest.mark.parametrize(
    "games, size, board",
    [
        pytest.param([(3, 1, 40, None), (4, 2, 20, None), (2, 3, 20, None)], 80, 380, id="80"),
        pytest.param(
            [(3, 1, 110, None), (4, 2, 50, None), (2, 3, 50, None)],
            210,
            1000,
            id="210",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_each_legal_decision_is_exactly_one_element_at_200_random_card_game_positions(
    client: TestClient, games: list[tuple[int, int, int, dict[str, Any] | None]], size: int, board: int
) -> None:
    """The main run checks 80 positions (three shorter games of the same shapes); ``-m slow`` (run by
    .ci/run) all 210. Every fourth position, a seat not awaited too."""
    checked, on_board, others, types = check_positions(client, TITLE, games)
    assert checked == size and others == size // 4, (checked, others)
    assert on_board > board, "the decisions are on the board, not only in the list"
    assert {"set_price_and_appeal", "take_development", "set_quality_card", "store_goods"} <= set(types), (
        types
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
    found: list[tuple[str, str, str, str]] = []
    seen = 0
    gid = token = ""
    for players, seed, steps in ((3, 7, 200), (2, 8, 60)):
        for t, seat, _ in positions(client, steps, players, seed, TITLE):
            gid, token = t.game_id, t.players[seat]["token"]
            if seen % 10 == 0:
                for path in (f"/games/{gid}", f"/games/{gid}/replay"):
                    found += [(path, *c) for c in codes_in(page(client, token, path), "main")]
            seen += 1
    html = page(client, token, f"/games/new?title={TITLE}")
    found += [("/games/new", *c) for c in codes_in(html, "new-game-form")]
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
    t = Players(client, 3, TITLE)
    rnd = random.Random(6)
    for _ in range(40):
        t.step(rnd)
    events = client.get(f"{API}/games/{t.game_id}/events", headers=t.auth(0)).json()["events"]
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
        html = page(client, t.players[0]["token"], f"/games/{t.game_id}/replay?v={e['version']}")
        assert 'class="highlight' in html, (e["version"], decision)
        assert "The board as the decision was made" in html
        assert offered(html.replace('id="replay-live"', 'id="live"')) == Counter(), "a replay offers nothing"
        marked += 1
    assert marked >= 8, marked

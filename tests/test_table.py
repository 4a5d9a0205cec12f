"""The game table without a browser (issue 18): every legal decision exactly once on the page,
on the board where it acts on something drawn; nothing for a seat that is not awaited; words
where a person reads; only the controls that apply; the replay on the same board."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.web.table import Table, Words, choices_of, renderer_for
from api.web.table.water_frame_words import TILES, event_name, marker_name, ship_name
from ledger.errors import ConflictError
from ledger.registry import TITLES
from tests.api_helpers import API
from tests.api_helpers import Table as Players
from tests.table_helpers import (
    COTTON_TRADE_ADVANCED,
    check_positions,
    codes_on_pages,
    drawn_positions,
    legal,
    offered,
    offered_in_replay,
    page,
    placed,
    positions,
    random_positions,
    replay_page,
    replayed,
    spectator_page,
)

# The random walks: per title and sample, the games (players, seed, steps, options), the
# positions checked and how many choices the board holds at least. The README's test command
# walks the short games (80 positions a title, the same shapes); ``-m slow`` (run by .ci/run)
# the full ones. ADV: Cotton Trade's advanced game.
ADV = COTTON_TRADE_ADVANCED
WALKS = [
    ("water-frame", [(3, 1, 40, None), (4, 2, 20, None), (2, 3, 20, None)], 80, 40),
    ("cotton-trade", [(3, 1, 30, None), (4, 2, 35, ADV), (2, 3, 15, ADV)], 80, 120),
    ("arkwright-card-game", [(3, 1, 40, None), (4, 2, 20, None), (2, 3, 20, None)], 80, 380),
    ("water-frame", [(3, 1, 120, None), (4, 2, 50, None), (2, 3, 50, None)], 220, 100),
    ("cotton-trade", [(3, 1, 90, None), (4, 2, 70, ADV), (2, 3, 40, ADV)], 200, 300),
    ("arkwright-card-game", [(3, 1, 110, None), (4, 2, 50, None), (2, 3, 50, None)], 210, 1000),
]
# decision types each walk must have seen
SEEN = {
    "water-frame": {"place_marker", "found_factory", "hire_workers", "take_tile"},
    "cotton-trade": {"rent_ship", "sail_ship", "buy_contract", "bid", "choose_share_to_sell"},
    "arkwright-card-game": {"set_price_and_appeal", "take_development", "set_quality_card", "store_goods"},
}


@pytest.mark.parametrize(
    "title, games, size, board",
    [
        pytest.param(*walk, id=f"{walk[0]}-{walk[2]}", marks=[pytest.mark.slow] if walk[2] > 80 else [])
        for walk in WALKS
    ],
)
def test_each_legal_decision_is_exactly_one_element_at_200_random_positions(
    client: TestClient,
    title: str,
    games: list[tuple[int, int, int, dict[str, Any] | None]],
    size: int,
    board: int,
) -> None:
    check_positions(client, title, games, size, board, SEEN[title])


def test_decisions_acting_on_drawn_things_are_on_the_board() -> None:
    """Placing a marker, hiring into a row, taking a tile: each on the thing it acts on."""
    where: dict[str, set[str]] = {}
    for decisions, drawn in drawn_positions("water-frame", {}, 3, 4, 400):
        placed(where, decisions, drawn)
    for kind in (
        "place_marker",
        "found_factory",
        "hire_workers",
        "take_tile",
        "raise_quality",
        "adjust_price",
    ):
        if kind in where:
            assert where[kind] == {"board"}, (kind, where[kind])
    assert where.get("end_turn") == {"words"}, "what acts on nothing drawn stands in the list in words"


def test_numbers_become_one_element_choosing_among_the_values_the_engine_lists() -> None:
    decisions = [{"type": "adjust_price", "good": "FOOD", "price": p} for p in (5, 6, 7, 9, 10)] + [
        {"type": "adjust_price", "good": "LAMPS", "price": 8},
        {"type": "end_turn"},
    ]
    table = Table(
        title="water-frame",
        view={},
        names={},
        me=0,
        awaiting=[0],
        words=renderer_for("water-frame").words,
        pool=[],
    )
    choices = choices_of(decisions, table.words, table)
    assert [c.field for c in choices] == ["price", None, None]
    food = choices[0]
    assert food.values == (5, 6, 7, 9, 10), "exactly the listed values: 8 is not listed"
    assert sorted(food.expanded(), key=lambda d: d["price"]) == decisions[:5]
    assert 'data-values="5,6,7,9,10"' in food.attributes() and 'data-min="5"' in food.attributes()
    generic = choices_of(decisions, Words(), table)
    assert [c.field for c in generic] == ["price", None, None], "any title: a price is a number"


def test_a_spectator_and_a_waiting_seat_see_the_board_without_choices(client: TestClient) -> None:
    html = spectator_page(client, "water-frame")
    assert "<svg" in html and 'class="board-svg"' in html
    assert offered(html) == Counter() and 'class="act' not in html


def test_water_frame_pages_show_words_where_a_person_reads(client: TestClient) -> None:
    """No code (FOOD, LIGHT:MACHINERY, SHIP-2A, EVENT_X5, an ambiguity's spec id) in the
    visible text, tooltips or accessible names of the Water Frame game, replay and create pages."""
    seen, found = codes_on_pages(client, "water-frame", [(3, 7, 160, None)], every=8)
    assert seen >= 150
    assert not found, found[:10]


def test_every_tile_marker_ship_and_event_has_a_name_in_words() -> None:
    for tile, (name, effect, kept) in TILES.items():
        assert name and effect and kept and "_" not in name, tile
    assert marker_name("LIGHT:MACHINERY") == "light grey machinery marker"
    assert marker_name("OWN:STOCK_EXCHANGE") == "stock exchange marker"
    assert ship_name("SHIP-2A") == "2-goods ship A" and ship_name("SHIP-10") == "10-goods ship"
    assert (
        event_name("EVENT_X5") == "No event"
        and event_name("HAMBURG_CREDIT_CRISIS") == "Hamburg credit crisis"
    )


def _undo_shown(html: str) -> tuple[bool, bool]:
    return ('/undo" data-with-version' in html, '/undo/request" data-with-version' in html)


def test_undo_alone_is_offered_only_when_the_engine_would_take_it_back_alone(client: TestClient) -> None:
    ledger = client.app.state.services.ledger  # type: ignore[attr-defined]
    alone_seen = ask_only = nothing_seen = 0
    for t, _, _ in positions(client, "water-frame", 60, 3, 11):
        game = ledger.get_game(t.game_id)
        for s in range(3):
            alone, ask = _undo_shown(page(client, t.players[s]["token"], f"/games/{t.game_id}"))
            try:
                reason = ledger.undo_check(game, s, ledger.undo_target(game, s))
            except ConflictError:  # nothing to take back
                assert not alone and not ask
                nothing_seen += 1
                continue
            assert ask, "asking the others is always possible while there is something to take back"
            assert alone == (reason is None), (s, reason)
            alone_seen += alone
            ask_only += not alone
    assert alone_seen >= 5 and ask_only >= 20 and nothing_seen >= 1, (alone_seen, ask_only, nothing_seen)
    # and the offer holds: where the page offers to undo alone, the undo is taken
    t = Players(client, 3, "water-frame")
    rnd = random.Random(2)
    for _ in range(40):
        seat, mine = t.awaited()
        t.decide(seat, rnd.choice(mine["legal_decisions"]), mine["version"])
        alone, _ = _undo_shown(page(client, t.players[seat]["token"], f"/games/{t.game_id}"))
        if alone:
            version = t.game(seat)["version"]
            r = client.post(
                f"{API}/games/{t.game_id}/undo", json={"expected_version": version}, headers=t.auth(seat)
            )
            assert r.status_code == 200, r.text
            return
    raise AssertionError("no position offered an undo alone")


def test_vacation_controls_follow_the_vacation(client: TestClient) -> None:
    me = client.post(f"{API}/players", json={"name": "Vic"}).json()
    before = page(client, me["token"], "/settings")
    assert 'id="vacation-form"' in before and "End my vacation now" not in before
    r = client.post(
        f"{API}/me/vacation", json={"days": 2}, headers={"Authorization": f"Bearer {me['token']}"}
    )
    assert r.status_code == 200, r.text
    during = page(client, me["token"], "/settings")
    assert "End my vacation now" in during and 'id="vacation-form"' not in during


def test_join_is_offered_only_where_a_seat_is_free(client: TestClient) -> None:
    t = Players(client, 3, "water-frame")
    stranger = client.post(f"{API}/players", json={"name": "Stranger"}).json()
    assert "data-join" not in page(client, stranger["token"], f"/games/{t.game_id}"), "the table is full"
    waiting = client.post(f"{API}/games", json={"title": "water-frame", "seats": 2}, headers=t.auth(0)).json()
    assert "data-join" in page(client, stranger["token"], f"/games/{waiting['game_id']}")
    assert "data-join" not in page(client, t.players[0]["token"], f"/games/{waiting['game_id']}"), "own seat"


def test_the_replay_marks_each_decision_on_the_board_it_was_made_on(client: TestClient) -> None:
    t, events = replayed(client, "water-frame", 30)
    marked = 0
    started = next(e["version"] for e in events if e["type"].endswith(".started"))
    for e in events:
        decision = e["public"].get("decision")
        html = replay_page(client, t, e["version"])
        assert ("<svg" in html) == (e["version"] >= started), e["version"]
        if decision and decision["type"] in ("found_factory", "place_marker", "take_tile", "hire_workers"):
            assert 'class="highlight' in html, (e["version"], decision)
            assert "The board as the decision was made" in html
            marked += 1
        assert offered_in_replay(html) == Counter(), "a replay offers nothing"
    assert marked >= 8


@pytest.mark.parametrize("title", list(TITLES))
def test_every_title_offers_its_decisions_on_the_table(client: TestClient, title: str) -> None:
    """The titles without a drawn board yet: their HTML board, every decision in the list."""
    t = Players(client, 3, title)
    rnd = random.Random(9)
    for _ in range(25):
        seat, mine = t.awaited()
        html = page(client, t.players[seat]["token"], f"/games/{t.game_id}")
        assert offered(html) == legal(mine["legal_decisions"])
        t.decide(seat, rnd.choice(mine["legal_decisions"]), mine["version"])


def test_water_frame_grey_markers_are_labelled_light_and_dark_so_a_person_reads_them() -> None:
    """A grey marker's chip says Lt. or Dk. (lower-case "lt" read as "It Produce" on the board)."""
    from api.web.table.water_frame import _short_marker

    assert _short_marker("LIGHT:PRODUCTION") == "Lt. Produce"
    assert _short_marker("DARK:QUALITY") == "Dk. Quality"
    assert _short_marker("OWN:FACTORY") == "Factory"


def test_water_frame_kept_drawings_are_what_each_reader_would_be_drawn() -> None:
    """The board's parts kept between pages (issue 31: the market, the decades, the share
    track, the boards of the seats not deciding) are given to a reader only as they would be
    drawn for that reader: every seat's board (its own view, its own decisions) and a
    spectator's, drawn after the others have filled the store, equal those drawn afresh."""
    from api.web.table import render_board
    from api.web.table import water_frame as wf
    from ledger.registry import engine

    eng = engine("water-frame")
    names = {0: "Ann", 1: "Bob", 2: "Cid"}
    checked = 0
    for step, (state, pending, decisions) in enumerate(random_positions("water-frame", {}, 3, 31, 240)):
        actor = pending.seats[0]
        if step % 20 == 0:
            for me in (0, 1, 2, None):
                view = eng.view(state, me)
                view.pop("private", None)
                mine = decisions if me == actor else []

                def draw(view: dict[str, Any], me: int | None, mine: list[Any], awaiting: list[int]) -> str:
                    drawn = render_board(
                        renderer_for("water-frame"),
                        title="water-frame",
                        view=view,
                        names=names,
                        me=me,
                        awaiting=awaiting,
                        decisions=mine,
                        actor=me if mine else None,
                    )
                    return drawn.svg

                at = (view, me, mine, list(pending.seats))
                kept = draw(*at)  # with whatever the other readers left in the store
                wf.KEPT.clear()
                assert kept == draw(*at), f"step {step}, seat {me}: a kept drawing differs from a fresh one"
                checked += 1
    assert checked >= 20 and wf.KEPT

"""Cotton Trade on its drawn board in headless Chromium (issue 18): three people play an
advanced game (shares trade and reputation) to the end by clicking only the elements that carry
a listed decision (data-decision, data-decision-template: a bid's pence) and confirming each
after its preview; no decision is refused; axe-core finds no serious or critical problem at the
start, in the middle and at the end; screenshots of the table at those three moments go to
test-artifacts/screenshots/ (the README's picture, docs/cotton_trade-table.png, is the middle
one); the replay marks a decision on the board it was made on.

Shares the server, the browser and the three people of tests/test_web_browser.py (its fixtures
and helpers); a whole game takes a few minutes, so it is marked slow.
"""

from __future__ import annotations

import random
import re
import time

import pytest

from tests.browser_kit import (
    Person,
    check_accessibility,
    choose,
    create_and_fill,
    next_to_move,
    replay_marks_the_decision,
    to_the_middle_and_the_end,
    told,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def game_round(person: Person) -> int:
    """The round the person's board shows."""
    found = re.search(r"Round (\d) of 9", person.page.inner_text("#live .board"))
    assert found, "the board shows the round"
    return int(found.group(1))


def test_three_people_play_an_advanced_cotton_trade_game_on_its_board(people: list[Person]) -> None:
    ann = people[0]
    for person in people:
        person.page.set_viewport_size({"width": 1366, "height": 900})
    advanced = ("#opt-cotton-trade-shares_trade", "#opt-cotton-trade-reputation")
    game_id = create_and_fill(people, "cotton-trade", checks=advanced)
    options = ann.api(f"/games/{game_id}")["options"]
    assert options["shares_trade"] and options["reputation"], options
    started = time.monotonic()
    rnd = random.Random(1801)
    times: list[float] = []

    first = next_to_move(people)
    first.page.wait_for_selector("#live .board-svg.ct")
    first.shot("cotton-trade-table-start", full_page=False)
    check_accessibility(first, "the Cotton Trade game page (round 1)")
    board = first.page.inner_text("#live .board")
    for words in ("Turn order and share value", "Cotton demand", "Ships for rent", "Regions", "Harbour"):
        assert words in board, words
    # round 1 counts in pence: the preview's scoreboard says 10d, never £10
    while choose(first, random.Random(1800)) is None:
        first = next_to_move(people)
    after = first.page.inner_text("#preview table.after")
    assert "£" not in after and re.search(r"\b\d+d\b", after), after
    first.shot("cotton-trade-preview", full_page=False)
    first.page.keyboard.press("Escape")
    first.page.wait_for_selector("#preview", state="hidden")

    made = to_the_middle_and_the_end(
        people, rnd, lambda: game_round(ann) >= 5, times, "cotton-trade", "round 5"
    )
    ann.shot("cotton-trade-table-end", full_page=False)
    check_accessibility(ann, "the finished Cotton Trade game page")
    told(f"cotton trade: {made} decisions", started, times)
    replay_marks_the_decision(ann, game_id, range(30, 90), "cotton-trade-replay")

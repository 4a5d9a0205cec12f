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

from tests.test_web_browser import (  # noqa: F401 - fixtures used by name
    Person,
    browser,
    check_accessibility,
    create_and_fill,
    next_to_move,
    people,
    play,
    server,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def game_round(person: Person) -> int:
    """The round the person's board shows."""
    found = re.search(r"Round (\d) of 9", person.page.inner_text("#live .board"))
    assert found, "the board shows the round"
    return int(found.group(1))


def test_three_people_play_an_advanced_cotton_trade_game_on_its_board(people: list[Person]) -> None:  # noqa: F811
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

    made = play(people, rnd, until_finished=False, until=lambda: game_round(ann) >= 5, times=times)
    middle = next_to_move(people)
    middle.shot("cotton-trade-table-middle", full_page=False)
    check_accessibility(middle, "the Cotton Trade game page (round 5)")

    made += play(people, rnd, until_finished=True, times=times, seconds=900)
    assert ann.page.query_selector("#live[data-status='finished']"), f"the game ended ({made} decisions)"
    for person in people:
        person.page.wait_for_selector("#standings-heading")
    ann.shot("cotton-trade-table-end", full_page=False)
    check_accessibility(ann, "the finished Cotton Trade game page")
    times.sort()
    median = times[len(times) // 2] if times else float("nan")
    print(  # noqa: T201
        f"cotton trade board: {made} decisions through the board in {time.monotonic() - started:.0f} s, "
        f"click to preview shown: median {median:.0f} ms, slowest {times[-1] if times else 0:.0f} ms"
    )

    # the replay: the same board, the event's decision marked
    page = ann.go(f"/games/{game_id}/replay?v=30")
    assert page.query_selector("#replay-live .board-svg.ct")
    check_accessibility(ann, "the Cotton Trade replay page")
    for v in range(30, 90):
        page = ann.go(f"/games/{game_id}/replay?v={v}")
        if page.query_selector("#replay-live .board-svg .highlight"):
            ann.shot("cotton-trade-replay", full_page=False)
            break
    else:
        raise AssertionError("no replayed decision is marked on the board")

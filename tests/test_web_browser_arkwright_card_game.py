"""Arkwright: The Card Game in headless Chromium (issue 18): three people play a whole game to
the end on its drawn board, by clicking only the elements that carry a listed decision
(data-decision, data-decision-template) and confirming each after its preview; not one decision
refused; axe-core checks the table at the start, in the middle and at the end, and the replay;
screenshots of the three moments go to test-artifacts/screenshots/ (the README's picture,
docs/arkwright_card_game-table.png, is one of them with its colours reduced).

Every element is found anew right before it is used (a locator, not a handle kept across a
live update of the page), so a refresh of the table between finding and clicking cannot leave a
click on an element no longer in the page. Runs the real server and Chromium as
tests/test_web_browser.py does (its helpers are shared)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser_kit import Person, check_accessibility, create_and_fill, serving, signed_up

try:
    from playwright.sync_api import Browser
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the test extra brings it; without it this module is skipped
    pass

ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "arkwright_card_game-table.png"
TITLE = "arkwright-card-game"
ENTRIES = "#live .board-svg .act, #live .choices [data-decision], #live .choices [data-decision-template]"
CHOICES = "#live [data-decision], #live [data-decision-template]"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def people(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Person]]:
    with (
        serving(tmp_path_factory.mktemp("card-game-browser")) as base,
        signed_up(browser, base, ("Ann", "Bob", "Cid"), width=1366) as folks,
    ):
        yield folks


def to_move(people: list[Person], timeout: float = 20) -> Person:
    """The person whose page offers decisions now (the live updates bring them there)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for person in people:
            if person.page.locator(CHOICES).count():
                return person
        time.sleep(0.05)
    raise AssertionError("no page offers a decision")


class Refused(AssertionError):
    pass


def play_one(person: Person, rnd: random.Random) -> bool:
    """Choose one offered element at random (a menu: one of its items), set its number if it has
    one, wait for the preview, confirm, and wait for the new version. False: the page moved on
    meanwhile and nothing was decided."""
    page = person.page
    before = person.version
    entries = page.locator(ENTRIES)
    count = entries.count()
    if not count:
        return False
    target = entries.nth(rnd.randrange(count))
    try:
        target.evaluate("e => { const d = e.closest('details'); if (d) d.open = true; }", timeout=3000)
        is_menu = "menu" in (target.get_attribute("class", timeout=3000) or "").split()
        values = target.get_attribute("data-values", timeout=3000)
        target.click(timeout=5000)
        if is_menu:
            items = page.locator(
                ".menu-pop:not([hidden]) [data-decision], .menu-pop:not([hidden]) [data-decision-template]"
            )
            items.first.wait_for(timeout=5000)
            target = items.nth(rnd.randrange(items.count()))
            values = target.get_attribute("data-values", timeout=3000)  # read before the menu closes
            target.click(timeout=5000)
    except PlaywrightTimeout:
        if person.version != before:
            return False
        raise
    shown = "#preview"
    if values:
        value = rnd.choice(values.split(","))
        page.fill("#preview-amount", value)
        page.wait_for_timeout(200)  # past the page's pause before it previews a number typed in
        shown = f"#preview[data-amount='{value}']"
    page.wait_for_selector(
        f"{shown} [data-confirm]:not([disabled]), #preview .error:not(:empty), #live:not([data-version='{before}'])",
        state="attached",
    )
    if person.version != before:
        return False
    error = page.locator("#preview .error:not(:empty)")
    if error.count():
        raise Refused(f"the preview was refused: {error.first.inner_text()}")
    done = f"#live:not([data-version='{before}']), #preview .error:not(:empty)"
    for attempt in range(3):
        try:
            page.click("#preview [data-confirm]:not([disabled])", timeout=5000)
            page.wait_for_selector(done, state="attached", timeout=10_000)
            break
        except PlaywrightTimeout:
            if person.version != before:
                break
            person.shot(f"arkwright-card-game-confirm-waiting-{before}-{attempt}", full_page=False)
    else:
        raise AssertionError(f"the confirmed decision at version {before} was not taken")
    error = page.locator("#live .error:not(:empty)")
    if error.count():
        raise Refused(f"the decision was refused: {error.first.inner_text()}")
    return True


def decade(person: Person) -> int:
    found = re.search(r"(\d{4}) \(decade", person.page.locator("#live .board").inner_text())
    assert found, "the board shows the decade"
    return int(found.group(1))


def finished(person: Person) -> bool:
    return bool(person.page.locator("#live[data-status='finished']").count())


def play(people: list[Person], rnd: random.Random, until: object, seconds: float = 900) -> int:
    made = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not until():  # type: ignore[operator]
        if finished(people[0]):
            break
        person = to_move(people)
        made += play_one(person, rnd)
    return made


def test_three_people_play_the_card_game_to_the_end_on_its_board(people: list[Person]) -> None:
    started = time.monotonic()
    game_id = create_and_fill(people, TITLE)
    ann = people[0]
    rnd = random.Random(1770)
    first = to_move(people)
    first.shot("arkwright-card-game-table-start", full_page=False)
    check_accessibility(first, "the card game's page (1770)")
    made = play(people, rnd, until=lambda: decade(ann) >= 1780)
    middle = to_move(people)
    middle.shot("arkwright-card-game-table-middle", full_page=False)
    check_accessibility(middle, "the card game's page (1780)")
    made += play(people, rnd, until=lambda: finished(ann))
    assert finished(ann), f"the game ended ({made} decisions)"
    for person in people:
        person.page.wait_for_selector("#standings-heading")
    ann.shot("arkwright-card-game-table-end", full_page=False)
    check_accessibility(ann, "the finished card game's page")
    board = ann.page.locator("#live .board").inner_text()
    for words in ("Home market", "Wages", "Share values", "Development supply", "Reserve"):
        assert words in board, words

    # the replay: the same board, the event's decision marked on it
    for v in range(30, 90):
        page = ann.go(f"/games/{game_id}/replay?v={v}")
        if page.locator("#replay-live .board-svg .highlight").count():
            ann.shot("arkwright-card-game-replay", full_page=False)
            check_accessibility(ann, "the card game's replay")
            break
    else:
        raise AssertionError("no replayed decision is marked on the board")
    # the README's picture is one of these screens (1366 x 900), its colours reduced to stay small
    assert PICTURE.exists() and PICTURE.stat().st_size <= 200_000, PICTURE
    print(f"card game: {made} decisions through the board in {time.monotonic() - started:.0f} s")  # noqa: T201

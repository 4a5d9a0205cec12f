"""Table talk and "next game waiting on me" in headless Chromium (issue 19 items 4 and 5): Ann
and Bob sign up on the pages and sit down at a game; Ann posts a script payload to the table
talk; Bob's open page is pushed it as text (no script runs, no element is made of it, on the
pushed copy or on the page rendered by the server); a spectator's page has no table talk; the
header's button counts the games waiting on the person and opens the one waiting longest; the
game page with its talk and a player's page pass axe-core's check.

The server, the browser and the person come from tests/test_web_browser.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.browser_kit import GAME_URL, Person, check_accessibility, signed_up

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # whole journeys in Chromium: .ci/run runs them

PAYLOAD = "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\"> & 'quotes'"


@pytest.fixture(scope="module")
def two(browser, server: str) -> Iterator[list[Person]]:  # type: ignore[no-untyped-def]
    with signed_up(browser, server, ("Tia", "Uri", "Vic")) as folks:
        yield folks


def no_script_ran(person: Person) -> None:
    assert person.page.evaluate("typeof window.pwned") == "undefined", f"{person.name}: the payload ran"
    assert person.page.query_selector("#talk-messages script, #talk-messages img") is None


def test_a_script_in_the_table_talk_is_shown_as_text_and_the_next_game_button_opens_the_game(
    two: list[Person],
) -> None:
    tia, uri, vic = two
    page = tia.go("/games/new")
    page.check("#title-cotton-trade")
    page.fill("#seats", "2")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url(GAME_URL)
    game_id = page.url.rsplit("/", 1)[-1]
    lobby = uri.go("/lobby")
    lobby.click(f"button[data-join='{game_id}']")
    lobby.wait_for_url(f"**/games/{game_id}")
    for person in (tia, uri):
        person.page.wait_for_selector("#live[data-status='active']", state="attached")
        person.page.wait_for_selector("#talk-form")

    # Tia writes the payload; Uri's open page is pushed it over the game's stream
    tia.page.fill("#talk-text", PAYLOAD)
    tia.page.click("#talk-form button[type=submit]")
    tia.page.wait_for_selector("#talk-messages li[data-number='1']")
    pushed = uri.page.wait_for_selector("#talk-messages li[data-number='1'] .text")
    assert pushed is not None and pushed.inner_text() == PAYLOAD
    assert tia.page.inner_text("#talk-messages li[data-number='1'] .text") == PAYLOAD
    for person in (tia, uri):
        no_script_ran(person)
    check_accessibility(tia, "a game page with table talk")
    # the page as the server renders it escapes it too
    uri.go(f"/games/{game_id}")
    assert uri.page.inner_text("#talk-messages li[data-number='1'] .text") == PAYLOAD
    no_script_ran(uri)
    # Uri answers; Tia's open page is pushed the answer
    uri.page.fill("#talk-text", "Nice try.\nYour move?")
    uri.page.click("#talk-form button[type=submit]")
    answer = tia.page.wait_for_selector("#talk-messages li[data-number='2'] .text")
    assert answer is not None and answer.inner_text() == "Nice try.\nYour move?"
    uri.page.fill("#talk-text", "x" * 1000 + "y")  # the box stops at 1,000 characters
    assert len(uri.page.input_value("#talk-text")) == 1000

    # a spectator's page of the game has no table talk
    vic.go(f"/games/{game_id}")
    assert vic.page.query_selector("#talk") is None
    assert PAYLOAD not in vic.page.content()

    # the header's button: the person the game waits on is told, and it opens the game
    awaited = next(
        p
        for p in (tia, uri)
        if p.page.query_selector("#live [data-decision], #live [data-decision-template]")
    )
    page = awaited.go("/lobby")
    button = page.wait_for_selector("a[data-next-game]")
    assert button is not None and button.inner_text() == "Next game waiting on you (1)"
    button.click()
    page.wait_for_url(f"**/games/{game_id}")
    other = uri if awaited is tia else tia
    assert "No game waiting on you (0)" in other.go("/lobby").inner_text("header")
    # a player's page: their time to decide per title
    other.page.click("header a[href^='/players/']")
    other.page.wait_for_selector("table.pace")
    check_accessibility(other, "a player's page")

"""The web pages in headless Chromium: three people sign up, play Cotton Trade and Water Frame
to the end through the pages (each told on their page when it is their turn) by clicking only
the elements that carry a listed decision (data-decision, data-decision-template) and
confirming each after its preview, take a decision back alone and with consent, replay the
game, and run a members-only league. axe-core checks every kind of page for serious and
critical accessibility problems, and the table is played by keyboard too.

The two whole games through the pages take minutes, so they are marked slow (``.ci/run`` runs
them after the README's test command); the tests that need a finished game in the lobby get
one of their own, played through the HTTP API in seconds (``finished_water_frame``).

Runs the real server (``gameledger serve``, SQLite in a temporary directory) and Debian's
Chromium through Python Playwright; axe-core 4.14.1 is kept in tests/vendor/axe-core. Screenshots of each page go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import random
import re
import time
from typing import TYPE_CHECKING

import pytest

from tests.browser_kit import (
    GAME_URL,
    Person,
    check_accessibility,
    create_and_fill,
    decade,
    next_to_move,
    play,
    play_one,
    replay_marks_the_decision,
    to_the_middle_and_the_end,
    told,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser


@pytest.mark.slow  # about a minute: .ci/run runs it after the README's test command
def test_three_people_play_cotton_trade_to_the_end_and_replay_it(people: list[Person]) -> None:
    started = time.monotonic()
    game_id = create_and_fill(people, "cotton-trade")
    ann = people[0]
    assert ann.page.get_attribute("#game-page", "data-live") in ("sse", "polling")
    ann.shot("cotton-trade-game-start")
    rnd = random.Random(1800)

    # a decision the engine refuses, written in the power users' form: its preview shows the
    # API's error and nothing can be confirmed
    refused = False
    while not refused:
        person = next_to_move(people)
        number = None
        power = person.page.query_selector("#live details.power")
        if power is not None:
            # the forms are fetched when "Write a decision yourself" opens; a page swapped in by a
            # live update after this seat's last look keeps it open (a click would close it)
            if power.get_attribute("open") is None:
                person.page.click("#live details.power summary")
            person.page.wait_for_selector("#live details.power[open][data-forms-loaded]")
            number = person.page.query_selector("#live form.decision input[type=number]")
        if number is None:
            play_one(person, rnd)
            continue
        form = number.evaluate_handle("i => i.form").as_element()
        assert form is not None
        number.fill("999")
        before = person.version
        form.query_selector("button[type=submit]").click()  # type: ignore[union-attr]
        error = person.page.wait_for_selector("#preview .error:not(:empty)")
        assert error is not None
        assert re.match(r"^[a-z]+/[\w/-]+: .+", error.inner_text()), error.inner_text()
        assert person.page.is_disabled("#preview [data-confirm]"), "nothing to confirm"
        assert person.version == before, "nothing was written"
        person.shot("cotton-trade-refused-decision", full_page=False)
        person.page.keyboard.press("Escape")
        person.page.wait_for_selector("#preview", state="hidden")
        refused = True

    made = play(people, rnd, until_finished=True)
    for person in people:
        person.page.wait_for_selector("#standings-heading")
        assert "The game is over" in person.page.inner_text("#now-heading")
        notes = person.notes()
        assert any(n.startswith("Your turn") for n in notes), (person.name, notes)
    # the end is announced to everyone but whoever made the last move (their page shows it anyway)
    told_the_end = [p.name for p in people if any("The game is over" in n for n in p.notes())]
    assert len(told_the_end) >= len(people) - 1, told_the_end
    standings = ann.page.inner_text(".standings")
    assert all(p.name in standings for p in people)
    assert ann.page.query_selector(".chart svg.share-chart")
    ann.shot("cotton-trade-game-finished")
    ann.shot("cotton-trade-game-finished-top", full_page=False)

    # the replay: the slider, previous and next, and the keyboard
    page = ann.go(f"/games/{game_id}/replay")
    last = int(page.get_attribute("#replay-v", "max") or 0)
    assert last >= made
    page.fill("#replay-v", "1")
    page.wait_for_selector("#replay-live[data-version='1']", state="attached")
    assert "Event 1" in page.inner_text("#event-heading")
    page.click("#replay-next")
    page.wait_for_selector("#replay-live[data-version='2']", state="attached")
    page.click("#replay-next")
    page.wait_for_selector("#replay-live[data-version='3']", state="attached")
    page.click("#replay-prev")
    page.wait_for_selector("#replay-live[data-version='2']", state="attached")
    page.fill("#replay-v", str(last // 2))
    page.wait_for_selector(f"#replay-live[data-version='{last // 2}']", state="attached")
    page.focus("#replay-v")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"#replay-live[data-version='{last // 2 + 1}']", state="attached")
    assert page.url.endswith(f"?v={last // 2 + 1}"), "the address follows, so a reload shows the same event"
    assert "Regions" in page.inner_text("#replay-live")
    ann.shot("cotton-trade-replay")
    page.reload()
    assert page.get_attribute("#replay-live", "data-version") == str(last // 2 + 1)
    page.click("#replay-last")
    page.wait_for_selector(f"#replay-live[data-version='{last}']", state="attached")
    assert "Final standings" in page.inner_text("#replay-live")
    print(f"cotton trade: {made} decisions through the pages, {time.monotonic() - started:.0f} s")  # noqa: T201


@pytest.mark.slow  # about two minutes: .ci/run runs it after the README's test command
def test_three_people_play_water_frame_to_the_end_on_its_board(people: list[Person]) -> None:
    """Undo alone and with consent on the way; the table checked by axe-core at the start, in the
    middle and at the end, with screenshots of each moment; every decision only by clicking (or
    pressing Enter on) an element the page marked as a listed decision, after its preview."""
    game_id = create_and_fill(people, "water-frame", preset="24h+4h")
    ann = people[0]
    assert "left" in ann.page.inner_text("#live .seats"), "the clocks run"
    rnd = random.Random(1769)
    times: list[float] = []
    for person in people:
        person.page.set_viewport_size({"width": 1366, "height": 900})
    first = next_to_move(people)
    first.shot("water-frame-table-start", full_page=False)
    check_accessibility(first, "the game page (1760)")
    play(people, rnd, until_finished=False, steps=12, times=times)

    # undo alone: offered right after one's own decision while nothing else happened; taken
    undone = False
    for _ in range(60):
        person = next_to_move(people)
        play_one(person, rnd)
        button = person.page.query_selector("#live button[data-api-post$='/undo']")
        if button is None:
            continue
        before = person.version
        button.click()
        person.page.wait_for_selector(f"#live:not([data-version='{before}'])", state="attached")
        assert not person.page.query_selector("#live .undo .error:not(:empty)")
        undone = True
        break
    assert undone, "no decision could be taken back alone"

    # a take-back with consent: the last to decide asks; the others accept on their own pages
    asker = next_to_move(people)
    while play_one(asker, rnd) is None:  # the page was behind: choose again on the new position
        asker = next_to_move(people)
    others = [p for p in people if p is not asker]
    asker.page.click("#live button[data-api-post$='/undo/request']")
    for person in others:
        person.page.wait_for_selector("#live button.undo-accept")
        assert "asks to take back" in person.page.inner_text("#live .undo")
    others[0].shot("water-frame-undo-request", full_page=False)
    before = asker.version
    for person in others:
        version = person.version
        person.page.click("#live button.undo-accept")
        person.page.wait_for_selector(f"#live:not([data-version='{version}'])", state="attached")
    asker.page.wait_for_selector(f"#live:not([data-version='{before}'])", state="attached")
    for person in people:
        person.page.wait_for_selector("#live button.undo-accept", state="detached")

    # on to 1790, then to the end of the game
    started = time.monotonic()
    made = to_the_middle_and_the_end(people, rnd, lambda: decade(ann) >= 1790, times, "water-frame", "1790")
    for person in people:
        assert any(n.startswith("Your turn") for n in person.notes()), (person.name, person.notes())
        mine = person.api("/me/notifications?limit=200")["notifications"]
        assert any(n["kind"] == "your_turn" and n["game_id"] == game_id for n in mine), person.name
    ann.shot("water-frame-table-end", full_page=False)
    ann.shot("water-frame-table-end-full")
    check_accessibility(ann, "the finished game page")
    told(f"water frame: {made} more decisions", started, times)
    board = ann.page.inner_text("#live .board")
    for words in ("English market", "Job market", "Administration", "Special markers mat", "Share value"):
        assert words in board
    replay_marks_the_decision(ann, game_id, range(40, 80), "water-frame-replay")


def test_the_power_users_forms_load_when_opened_and_preview_a_written_decision(people: list[Person]) -> None:
    """The forms are not in the page (issue 31: a tenth of its weight, for the few who write a
    decision): opening "Write a decision yourself" fetches the seat's own, which pass axe-core,
    and one of them previews what it writes; after a move the page swapped in by the live
    update reopens them and fetches those of the new position."""
    create_and_fill(people, "water-frame")
    rnd = random.Random(31)
    for _ in range(40):
        person = next_to_move(people)
        page = person.page
        if page.query_selector("#live details.power") is None:
            play_one(person, rnd)
            continue
        assert page.query_selector("#live form.decision") is None, "no form until opened"
        page.click("#live details.power summary")
        page.wait_for_selector("#live details.power[data-forms-loaded] form.decision")
        check_accessibility(person, "the power users' forms")
        form = page.query_selector("#live details.power form.decision")
        assert form is not None
        form.query_selector("button[type=submit]").click()  # type: ignore[union-attr]
        page.wait_for_selector("#preview:not([hidden])")
        page.keyboard.press("Escape")
        page.wait_for_selector("#preview", state="hidden")
        before = person.version
        play_one(person, rnd)
        page.wait_for_selector(f"#live:not([data-version='{before}'])", state="attached")
        if page.query_selector("#live details.power") is not None and person is next_to_move(people):
            page.wait_for_selector("#live details.power[open][data-forms-loaded]", state="attached")
        assert not person.problems, person.problems
        return
    raise AssertionError("no position offered a form to write in 40 moves")


def test_every_kind_of_page_passes_the_accessibility_check(
    people: list[Person], finished_water_frame: str
) -> None:
    ann = people[0]
    checked = 0
    for path in ("/lobby", "/games/new?title=water-frame", "/leagues", "/settings"):
        ann.go(path)
        checked += check_accessibility(ann, path) >= 0
    page = ann.go("/lobby")
    link = page.query_selector("#mine-heading ~ .table-wrap a[href^='/games/']")
    assert link is not None
    ann.go(str(link.get_attribute("href")))
    checked += check_accessibility(ann, "a game page") >= 0
    assert checked == 5


def test_the_game_page_and_the_settings_on_a_phone(
    browser: Browser, server: str, people: list[Person], finished_water_frame: str
) -> None:
    state = people[0].context.storage_state()
    phone = Person(
        browser, server, "Ann on a phone", viewport={"width": 390, "height": 844}, storage_state=state
    )
    # without the server-sent events (as on a server that lacks them) the page polls instead
    phone.context.route("**/api/v1/games/*/stream*", lambda route: route.fulfill(status=404, body="{}"))
    try:
        finished = phone.go("/lobby")
        finished.click("#mine-heading ~ .table-wrap a:has-text('Water Frame')")
        finished.wait_for_url(GAME_URL)
        finished.wait_for_selector(".scoreboard")
        width = finished.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 1, (
            f"the page (its scoreboard, its chart) scrolls sideways on a phone ({width}px)"
        )
        phone.shot("phone-finished-game")
        game_id = create_and_fill(people, "water-frame")
        lobby = phone.go(f"/games/{game_id}")
        width = lobby.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 1, f"the page scrolls sideways on a phone ({width}px)"
        phone.shot("phone-game", full_page=False)
        lobby.wait_for_selector("#game-page[data-live='polling']", state="attached")
        before = phone.version
        while play_one(next_to_move(people), random.Random(1)) is None:
            pass
        lobby.wait_for_selector(f"#live:not([data-version='{before}'])", state="attached", timeout=15_000)

        settings = phone.go("/settings")
        assert "first token" in settings.inner_text("#tokens")  # never its secret: that was shown once
        assert settings.query_selector("#sessions .badge") is not None, "this browser's session is listed"
        if settings.query_selector("#vacation-form"):
            assert not settings.query_selector("button[data-api-delete$='/me/vacation']"), "not on vacation"
            settings.fill("#vacation-days", "1")
            settings.click("#vacation-form button[type=submit]")
            settings.wait_for_selector("button[data-api-delete$='/me/vacation']")
            assert not settings.query_selector("#vacation-form"), "on vacation: only ending it is offered"
            settings.click("button[data-api-delete$='/me/vacation']")
            settings.wait_for_selector("[data-vacation-status]:has-text('not on vacation')")
        if settings.query_selector("#notification-form"):
            settings.wait_for_selector("#notification-form input[data-kind=notification]")
            settings.uncheck("#notify-kind-0")
            settings.click("#notification-form button[type=submit]")
            settings.wait_for_selector("#notification-form [data-ok]:not(:empty)")
            assert not settings.is_checked("#notify-kind-0")
        phone.shot("phone-settings", full_page=True)
        assert not phone.problems, phone.problems
    finally:
        phone.context.close()


def test_on_a_laptop_the_board_is_shown_at_full_size_on_request_and_the_choice_is_kept(
    browser: Browser, server: str, people: list[Person]
) -> None:
    """Fitted beside the decisions on a 1366 x 768 screen, a four-seat board shrinks to the
    screen's height and its small print with it; "Full-size board" draws it at its own width,
    scrolling sideways in its frame (not the page), through live updates and reloads."""
    state = people[0].context.storage_state()
    laptop = Person(
        browser, server, "Ann on a laptop", viewport={"width": 1366, "height": 768}, storage_state=state
    )
    try:
        game_id = create_and_fill(people, "water-frame")
        page = laptop.go(f"/games/{game_id}")
        page.wait_for_selector("svg.board-svg")
        # the drawing's scale: the element's box, or less where its height is held to the screen's
        scale = "s => { const r = s.getBoundingClientRect(), v = s.viewBox.baseVal; return Math.min(r.width / v.width, r.height / v.height); }"
        fitted = page.eval_on_selector("svg.board-svg", scale)
        assert fitted < 0.9, f"the fitted board is drawn at {fitted:.2f} of its size"
        button = "[data-board-size] button"
        assert page.get_attribute(button, "aria-pressed") == "false"
        page.click(button)
        assert page.get_attribute(button, "aria-pressed") == "true"
        assert abs(page.eval_on_selector("svg.board-svg", scale) - 1) < 0.01, "drawn at its own width"
        assert page.eval_on_selector(".board-wrap", "w => w.scrollWidth > w.clientWidth"), "the board scrolls"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1366, f"the page scrolls sideways ({width}px)"
        laptop.shot("laptop-full-size-board", full_page=False)
        before = laptop.version
        while play_one(next_to_move(people), random.Random(2)) is None:
            pass
        page.wait_for_selector(f"#live:not([data-version='{before}'])", state="attached", timeout=15_000)
        assert abs(page.eval_on_selector("svg.board-svg", scale) - 1) < 0.01, (
            "still full size after the update"
        )
        page.reload()
        page.wait_for_selector("svg.board-svg")
        assert page.get_attribute(button, "aria-pressed") == "true", "remembered on this device"
        assert abs(page.eval_on_selector("svg.board-svg", scale) - 1) < 0.01
        page.click(button)
        assert page.eval_on_selector("svg.board-svg", scale) == fitted
        assert not laptop.problems, laptop.problems
    finally:
        laptop.context.close()


def test_an_organiser_runs_a_members_only_league_from_the_pages(people: list[Person]) -> None:
    ann, bob, cid = people
    page = ann.go("/leagues")
    page.fill("#league-name", "Browser league")
    page.select_option("#league-title", label="Cotton Trade 1800-1860")
    page.check("#league-members-only")
    page.click("#new-league-form button[type=submit]")
    page.wait_for_url(re.compile(r".*/leagues/[0-9a-f-]{36}$"))
    page.wait_for_selector("html[data-ready]", state="attached")
    assert "members only" in page.inner_text("main")

    # Bob's id is on his settings page; Ann admits him through the form
    bob_id = str(bob.api("/me")["player_id"])
    assert bob_id in bob.go("/settings").inner_text("main")
    page.fill("#member-id", bob_id)
    page.click("#add-member-form button[type=submit]")
    page.wait_for_selector(f"button[data-api-delete$='/members/{bob_id}']")
    page.wait_for_selector("html[data-ready]", state="attached")
    assert "Bob" in page.inner_text(".members")
    ann.shot("league-organiser", full_page=False)
    check_accessibility(ann, "a league page")

    # Cid, not a member, is refused a game in the league on the create page; Bob may open one
    for person, refused in ((cid, True), (bob, False)):
        create = person.go("/games/new")
        create.check("#title-cotton-trade")
        create.fill("#seats", "2")
        create.fill("#league", "Browser league")
        create.click("#new-game-form button[type=submit]")
        if refused:
            error = create.wait_for_selector("#new-game-form [data-error]:not(:empty)")
            assert error is not None and "league/members_only" in error.inner_text()
        else:
            create.wait_for_url(GAME_URL)

"""A season on the league page, in Chromium: the organiser opens it with the page's form, the
players sign up with its button, the organiser seats round 1; axe-core finds no serious or
critical problem, and the page is shot at 1366 px and on a 390 px phone."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.browser_kit import axe_source, call, check_accessibility, signed_up

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser


@pytest.mark.slow  # a server and four browsers: about 20 s
def test_a_season_is_opened_signed_up_for_and_seated_on_the_league_page(
    browser: Browser, server: str
) -> None:
    with signed_up(browser, server, ("Ada", "Brook", "Cato", "Dora"), width=1366) as folks:
        ada = folks[0]
        league = call(ada, "POST", "/leagues", {"name": "Season cup", "title": "arkwright-card-game"})
        path = f"/leagues/{league['league_id']}"

        page = ada.go(path)
        page.fill("#season-rounds", "2")
        page.fill("#season-min", "3")
        page.fill("#season-max", "3")
        page.click("#new-season-form button[type=submit]")
        page.wait_for_selector("#season-1-heading")
        assert "1 of" not in page.inner_text("section.season")  # no round yet: "0 of 2"

        for person in folks[1:]:
            mine = person.go(path)
            mine.click("section.season button[data-api-post$='/signup']")
            mine.wait_for_selector("section.season th >> text=" + person.name)

        page = ada.go(path)
        page.click("section.season button[data-api-post$='/rounds']")
        page.wait_for_selector("details.round")
        words = page.inner_text("section.season")
        assert "Round 1: 1 table" in words and "1 of 2" in words
        for person in folks[1:]:
            assert person.name in words
        check_accessibility(ada, "league page with a season")
        ada.shot("league-season")
        page.set_viewport_size({"width": 390, "height": 844})
        ada.shot("league-season-phone")
        # on the phone, the seasons' part (the league's other tables are another issue's)
        page.evaluate(axe_source())
        result = page.evaluate("() => axe.run('section.season', {resultTypes: ['violations']})")
        bad = [(v["id"], v["impact"]) for v in result["violations"] if v["impact"] in ("serious", "critical")]
        assert not bad, bad

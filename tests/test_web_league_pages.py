"""Issue 27 item 5: the league, player and title pages in a browser, at 1366 px and on a 390 px
phone: every chart drawn on the server with its title, description and the table behind it,
every table downloadable as CSV, axe-core without a serious or critical finding, and the
screenshots (test-artifacts/screenshots/league-*.png) to look at."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from api.services import Services
from api.settings import Settings
from tests.browser_kit import Person, check_accessibility, serving
from tests.league_world import World, play_world

# The world is a dozen whole games played before the server starts (about a minute on a busy
# machine): the run of the browser tests that play whole games (.ci/run's slow set).
pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture(scope="module")
def world_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, World]]:
    """A server over a world of finished league games (one and one annulled of each title)."""
    data: Path = tmp_path_factory.mktemp("league-pages")
    services = Services.start(Settings(data_dir=data, admin_token="test-admin-token-0123456789"))
    try:
        world = play_world(services, per_title=2)
        stats = services.view("leaguestats")
        # the player page shown: the player with the most finished games (the seating is random)
        world.players.sort(key=lambda p: -stats.player_stats(p)["games"])
    finally:
        services.close()
    with serving(data) as base:
        yield base, world


def visitor(browser: Browser, base: str, world: World, width: int) -> Person:
    """The first player of the world, signed in by their token's cookie."""
    person = Person(browser, base, "Ada", viewport={"width": width, "height": 900})
    token = world.tokens[world.players[0]]
    person.context.add_cookies([{"name": "gl_token", "value": token, "url": base}])
    return person


PAGES = {
    "league": lambda w: f"/leagues/{w.leagues['water-frame']}",
    "player": lambda w: f"/players/{w.players[0]}",
    "title-water-frame": lambda w: "/titles/water-frame",
    "title-cotton-trade": lambda w: "/titles/cotton-trade",
    "title-card-game": lambda w: "/titles/arkwright-card-game",
}


@pytest.mark.parametrize("width", [1366, 390])
def test_the_league_player_and_title_pages_read_well_and_pass_axe(
    browser: Browser, world_server: tuple[str, World], width: int
) -> None:
    base, world = world_server
    person = visitor(browser, base, world, width)
    try:
        for name, path in PAGES.items():
            page = person.go(path(world))
            charts = page.query_selector_all("svg.stat-chart")
            assert charts, f"{name}: a chart"
            for svg in charts:
                assert svg.query_selector("title") and svg.query_selector("desc"), (
                    f"{name}: named and described"
                )
                assert svg.get_attribute("role") == "img"
            text = page.inner_text("main")
            assert "e-0" not in text and "1 games" not in text, f"{name}: numbers in words"
            assert page.query_selector_all("a.csv"), f"{name}: tables as CSV"
            if width < 800:  # the page itself never scrolls sideways on a phone (tables do, inside)
                assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, name
            check_accessibility(person, f"{name} at {width} px")
            person.shot(f"league-pages-{name}-{width}", full_page=True)
        assert not person.problems, person.problems
    finally:
        person.context.close()


def test_the_figures_read_as_the_titles_count_them_and_every_table_downloads_as_csv(
    browser: Browser, world_server: tuple[str, World]
) -> None:
    base, world = world_server
    person = visitor(browser, base, world, 1366)
    try:
        page = person.go("/titles/cotton-trade")
        text = page.inner_text("main")
        assert " pounds" in text and "£" in text, "Cotton Trade's values in its coins"
        assert " d " in text or " h " in text or "min" in text, "game length in days and hours"
        page = person.go("/titles/water-frame")
        first = page.inner_text("table.first-player")
        assert "%" in first and "95 % low" in first
        for name, path in PAGES.items():
            page = person.go(path(world))
            links = [a.get_attribute("href") for a in page.query_selector_all("a.csv")]
            for href in links:
                got = page.evaluate(
                    "h => fetch(h).then(r => r.text().then(t => [r.status, r.headers.get('content-type'), t]))",
                    href,
                )
                status, kind, body = got
                assert status == 200 and kind.startswith("text/csv"), (name, href, status)
                rows = list(csv.reader(io.StringIO(body)))
                assert rows and rows[0], (name, href)
                assert all(len(r) == len(rows[0]) for r in rows), (name, href)
        page = person.go(f"/players/{world.players[0]}")
        recent = page.query_selector_all("table.recent-games tbody tr")
        assert recent and "of" in recent[0].inner_text(), "recent games with their place"
    finally:
        person.context.close()

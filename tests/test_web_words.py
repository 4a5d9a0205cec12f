"""Every line in words, as a person sees it in Chromium (issue 31, item 4): on a finished Water
Frame game's page the scoreboard says who decided in words ("42 own moves") and fits its panel
at 1366 px and at 390 px; the player page says "1 game finished". Screenshots of the scoreboard
at both widths go to test-artifacts/screenshots/."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_kit import Person

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a Water Frame game played through the API first

FITS = """() => {
  const panel = document.querySelector("section.score");
  const table = panel.querySelector("table.scoreboard");
  const p = panel.getBoundingClientRect(), t = table.getBoundingClientRect();
  return {panel: [p.left, p.right], table: [t.left, t.right], scroll: panel.scrollWidth, client: panel.clientWidth,
          page: document.documentElement.scrollWidth, view: window.innerWidth};
}"""


def test_the_scoreboard_says_its_decisions_in_words_and_fits_its_panel(
    people: list[Person], finished_water_frame: str
) -> None:
    ann = people[0]
    for width, height in ((1366, 900), (390, 844)):
        ann.page.set_viewport_size({"width": width, "height": height})
        page = ann.go(f"/games/{finished_water_frame}")
        cells = page.locator("table.scoreboard td.decisions").all_inner_texts()
        assert len(cells) == 3, cells
        for cell in cells:
            assert re.fullmatch(r"\d+ own moves?(, \d+ moves? by (standing orders|the stand-in))*", cell), (
                cell
            )
        board = page.inner_text("section.score")
        assert " / 0 / 0" not in board and "£-" not in board
        cash = page.locator("table.scoreboard td[data-label='Cash']").all_inner_texts()
        assert all(re.fullmatch("\u2212?£\\d+", c) for c in cash), cash
        box: dict[str, Any] = page.evaluate(FITS)
        page.locator("section.score").screenshot(path=str(shot_path(f"scoreboard-words-{width}")))
        assert box["table"][1] <= box["panel"][1] + 0.5, (width, box)
        assert box["scroll"] <= box["client"] + 1, (width, box)
        page.locator("section.score").screenshot(path=str(shot_path(f"scoreboard-words-{width}")))
    ann.page.set_viewport_size({"width": 1280, "height": 900})
    me = ann.go("/players/me")
    results = me.inner_text("main")
    assert "1 game finished" in results and "1 games" not in results, results


def shot_path(name: str) -> Any:
    from tests.browser_kit import SHOTS

    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS / f"{name}.png"

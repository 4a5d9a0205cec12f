"""The page controls of what the API already offered: the stand-in's "take my seat back", a seat's
standing orders and conditional replies, a table's Discord or Slack channel, which notifications
are mailed; and the Water Frame board's seat colours."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from api.web.table.water_frame import GOOD_FILL, SEAT_FILL, rect, token

STATIC = Path(__file__).resolve().parents[1] / "api" / "web" / "static"
CHROMIUM = Path("/usr/bin/chromium")


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


@pytest.mark.browser
def test_every_seats_token_and_every_good_shows_its_own_colour_on_the_board() -> None:
    """Seat 1's square token is a rect: the board's white for rects painted it over (and the goods'
    columns and factories with it); the browser now shows the colour each was drawn with."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    css = (STATIC / "table.css").read_text()
    shapes = [token(seat, 20 + 20 * seat, 20) for seat in range(4)]
    shapes += [rect(100 + 30 * k, 40, 20, 20, "good", fill=fill) for k, fill in enumerate(GOOD_FILL.values())]
    shapes.append(rect(10, 70, 20, 20, "plain"))
    svg = f'<svg class="board-svg" viewBox="0 0 300 100">{"".join(shapes)}</svg>'
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"], headless=True)
        try:
            page = browser.new_page()
            page.set_content(f"<!doctype html><html><head><style>{css}</style></head><body>{svg}</body></html>")
            fills = page.eval_on_selector_all(".board-svg > *", "els => els.map(e => getComputedStyle(e).fill)")
        finally:
            browser.close()
    assert fills[:4] == [_rgb(c) for c in SEAT_FILL], "each seat's token in its own colour"
    assert fills[4:8] == [_rgb(c) for c in GOOD_FILL.values()], "each good in its own colour"
    assert fills[8] == "rgb(255, 255, 255)", "a rect drawn without a colour stays white"
    assert re.search(r'<rect [^>]*fill="#d55e00" class="tok"', shapes[1]), "seat 1's token is a square"

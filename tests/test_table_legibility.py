"""The game table as a player reads it: at positions of every title, from the fewest seats to
the most and from the first round to the late game, the board drawn in Chromium with the
table's style sheet has no words running off the board and no two lines of words printed over
each other.

The boards are sized by ``text_width``/``fit`` (``api/web/table/base.py``) from measured
advance widths; this is where a label that outgrows its chip or its panel is found (a card
chip ran off the card game's four-seat board; "Loans: 9 of 9" ran over the next box).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.table_helpers import COTTON_TRADE_ADVANCED, drawn_positions

pytestmark = pytest.mark.browser

STATIC = Path(__file__).parent.parent / "api" / "web" / "static"

# title, options, seats, seed, steps played, every how many steps a board is checked
GAMES: list[tuple[str, dict[str, Any], int, int, int, int]] = [
    ("water-frame", {}, 2, 11, 400, 25),
    ("water-frame", {}, 4, 12, 700, 50),
    ("arkwright-card-game", {}, 2, 13, 500, 40),
    ("arkwright-card-game", {}, 4, 14, 900, 60),
    ("cotton-trade", {}, 2, 15, 250, 15),
    ("cotton-trade", {}, 6, 16, 450, 40),
    ("cotton-trade", COTTON_TRADE_ADVANCED, 5, 17, 450, 40),
]

# Each line of words as a box in the board's units. A font's box holds its ascent and descent,
# more than the ink: a small label above a large digit overlaps it there without touching it,
# so boxes are taken a fifth shorter at the top and at the bottom before they are compared.
MEASURE = """(svg) => {
  const vb = svg.viewBox.baseVal, back = svg.getCTM().inverse();
  const out = {off: [], over: [], lines: 0};
  const boxes = [];
  for (const t of svg.querySelectorAll("text")) {
    if (t.closest("defs, symbol") || !t.textContent.trim()) continue;
    const b = t.getBBox();
    if (!b.width) continue;
    const m = back.multiply(t.getCTM());
    const p = new DOMPoint(b.x, b.y).matrixTransform(m);
    const q = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(m);
    const box = {t: t.textContent, x0: Math.min(p.x, q.x), x1: Math.max(p.x, q.x),
                 y0: Math.min(p.y, q.y), y1: Math.max(p.y, q.y)};
    const trim = (box.y1 - box.y0) / 5;
    box.y0 += trim; box.y1 -= trim;
    boxes.push(box);
    if (box.x0 < vb.x - 1 || box.x1 > vb.x + vb.width + 1 || box.y0 < vb.y - 1 || box.y1 > vb.y + vb.height + 1)
      out.off.push(box.t);
  }
  out.lines = boxes.length;
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0), h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    if (w > 1.5 && h > 1) out.over.push(a.t + " | " + b.t);
  }
  return out;
}"""


def boards(
    title: str, options: dict[str, Any], seats: int, seed: int, steps: int, every: int
) -> Iterator[str]:
    for step, (_, drawn) in enumerate(drawn_positions(title, options, seats, seed, steps)):
        if step % every == 0 and drawn.svg:
            yield drawn.svg


@pytest.mark.parametrize(
    "title, options, seats, seed, steps, every",
    GAMES,
    ids=[f"{g[0]}-{g[2]}{'-advanced' if g[1] else ''}" for g in GAMES],
)
def test_no_words_run_off_the_board_or_over_other_words(
    browser: Any, title: str, options: dict[str, Any], seats: int, seed: int, steps: int, every: int
) -> None:
    style = "\n".join((STATIC / name).read_text() for name in ("app.css", "table.css"))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    checked = lines = 0
    try:
        for n, svg in enumerate(boards(title, options, seats, seed, steps, every)):
            page.set_content(
                f"<!doctype html><html><head><style>{style}</style></head><body>{svg}</body></html>"
            )
            found = page.eval_on_selector("svg.board-svg", MEASURE)
            problems += [f"board {n}: off the board: {t!r}" for t in found["off"]]
            problems += [f"board {n}: printed over each other: {pair!r}" for pair in found["over"]]
            checked += 1
            lines += found["lines"]
    finally:
        page.close()
    assert checked >= 6, f"only {checked} boards were drawn"
    assert lines > 150 * checked, "the boards hold their words"
    assert not problems, f"{len(problems)} problems in {checked} boards:\n" + "\n".join(problems[:20])

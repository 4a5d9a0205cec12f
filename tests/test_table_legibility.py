"""The game table as a player reads it: at positions of every title, from the fewest seats to
the most and from the first round to the late game, the board drawn in Chromium with the
table's style sheet has no words running off the board, out of the chip, card or panel they
are written in, or over other words.

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

# title, options, seats, seed, steps played, every how many steps a board is checked; the
# seeds 100 to 105 hold positions that sweeps of 2,990 boards found wrong (eleven ships on one
# sailing track, twelve and a free slot, a turned-up contract, a share sale's line, three
# quality cards at a factory)
GAMES: list[tuple[str, dict[str, Any], int, int, int, int]] = [
    ("water-frame", {}, 2, 11, 400, 25),
    ("water-frame", {}, 3, 18, 600, 50),
    ("water-frame", {}, 4, 12, 700, 50),
    ("arkwright-card-game", {}, 2, 13, 500, 40),
    ("arkwright-card-game", {}, 3, 19, 700, 50),
    ("arkwright-card-game", {}, 4, 102, 1000, 45),
    ("cotton-trade", {}, 2, 15, 250, 15),
    ("cotton-trade", COTTON_TRADE_ADVANCED, 3, 100, 300, 24),
    ("cotton-trade", {}, 5, 100, 500, 24),
    ("cotton-trade", {}, 6, 16, 450, 40),
    ("cotton-trade", COTTON_TRADE_ADVANCED, 6, 101, 450, 30),
    ("cotton-trade", COTTON_TRADE_ADVANCED, 6, 105, 500, 56),
]
# The sweep itself (-m slow; .ci/run runs it): every title and seat count, basic and advanced,
# two seeds, every 12th to 15th position: about 700 boards.
SWEEP = [
    (title, options, seats, seed, steps, every)
    for seed in (100, 101)
    for title, options, counts, steps, every in (
        ("water-frame", {}, (2, 3, 4), 900, 15),
        ("arkwright-card-game", {}, (2, 3, 4), 1000, 15),
        ("cotton-trade", {}, (2, 3, 4, 5, 6), 500, 12),
        ("cotton-trade", COTTON_TRADE_ADVANCED, (2, 3, 4, 5, 6), 500, 12),
    )
    for seats in counts
]


# Each line of words as a box in the board's units. A font's box holds its ascent and descent,
# more than the ink: a small label above a large digit overlaps it there without touching it,
# so boxes are taken a fifth shorter at the top and at the bottom before they are compared.
# A line's frame is the smallest drawn rectangle (a chip, a card, a panel) around its middle:
# the words must stay inside it.
MEASURE = """(svg) => {
  const vb = svg.viewBox.baseVal, back = svg.getCTM().inverse();
  const box = (el) => {
    const b = el.getBBox(), m = back.multiply(el.getCTM());
    const p = new DOMPoint(b.x, b.y).matrixTransform(m);
    const q = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(m);
    return {x0: Math.min(p.x, q.x), x1: Math.max(p.x, q.x), y0: Math.min(p.y, q.y), y1: Math.max(p.y, q.y)};
  };
  const drawn = (r) => {
    const st = getComputedStyle(r);
    return st.visibility !== "hidden" && (st.fill !== "none" || st.stroke !== "none");
  };
  const frames = [...svg.querySelectorAll("rect")]
    .filter((r) => !r.closest("defs, symbol") && drawn(r))
    .map(box).filter((b) => b.x1 - b.x0 > 8 && b.y1 - b.y0 > 8);
  const out = {off: [], over: [], spill: [], lines: 0};
  const boxes = [];
  for (const t of svg.querySelectorAll("text")) {
    if (t.closest("defs, symbol") || !t.textContent.trim()) continue;
    const b = box(t);
    if (b.x1 - b.x0 < 1) continue;
    const trim = (b.y1 - b.y0) / 5;
    b.y0 += trim; b.y1 -= trim; b.t = t.textContent;
    boxes.push(b);
    if (b.x0 < vb.x - 1 || b.x1 > vb.x + vb.width + 1 || b.y0 < vb.y - 1 || b.y1 > vb.y + vb.height + 1)
      out.off.push(b.t);
    const ax = (b.x0 + b.x1) / 2, ay = (b.y0 + b.y1) / 2;
    let frame = null;
    for (const f of frames)
      if (f.x0 <= ax && ax <= f.x1 && f.y0 <= ay && ay <= f.y1 &&
          (!frame || (f.x1 - f.x0) * (f.y1 - f.y0) < (frame.x1 - frame.x0) * (frame.y1 - frame.y0))) frame = f;
    if (frame && Math.max(frame.x0 - b.x0, b.x1 - frame.x1, frame.y0 - b.y0, b.y1 - frame.y1) > 1) out.spill.push(b.t);
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
    [pytest.param(*g, id=f"{g[0]}-{g[2]}{'-advanced' if g[1] else ''}-{g[3]}") for g in GAMES]
    + [
        pytest.param(
            *g, id=f"sweep-{g[0]}-{g[2]}{'-advanced' if g[1] else ''}-{g[3]}", marks=pytest.mark.slow
        )
        for g in SWEEP
    ],
)
def test_no_words_run_off_the_board_out_of_their_frame_or_over_other_words(
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
            problems += [f"board {n}: out of its chip, card or panel: {t!r}" for t in found["spill"]]
            checked += 1
            lines += found["lines"]
    finally:
        page.close()
    assert checked >= 6, f"only {checked} boards were drawn"
    assert lines > 150 * checked, "the boards hold their words"
    assert not problems, f"{len(problems)} problems in {checked} boards:\n" + "\n".join(problems[:20])

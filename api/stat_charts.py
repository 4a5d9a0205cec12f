"""League statistics as plain SVG charts, drawn on the server (no script, no external asset).

Every chart names itself (``<title>``) and says what it shows (``<desc>``, in words a screen
reader reads out); the page puts the table behind it right below, and that table downloads
as CSV. Colours come from a palette safe for colour blindness, and no chart relies on colour
alone: lines carry their names at their ends, bars their values.
"""

# ruff: noqa: RUF001 - the pages speak with typographic dashes and Greek letters (mu, sigma)
from __future__ import annotations

from collections.abc import Sequence
from html import escape
from itertools import count

PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")  # Okabe-Ito
DASHES = ("", "7 4", "2 3", "9 3 2 3", "4 2", "1 2", "")
WIDTH = 600
_ids = count(1)


def _open(kind: str, title: str, desc: str, height: int) -> tuple[list[str], str]:
    uid = f"chart-{kind}-{next(_ids)}"
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-labelledby="{uid}-t {uid}-d" class="stat-chart {kind}" preserveAspectRatio="xMinYMin meet">',
        f'<title id="{uid}-t">{escape(title)}</title>',
        f'<desc id="{uid}-d">{escape(desc)}</desc>',
        f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>',
        f'<text x="10" y="20" class="ttl">{escape(title)}</text>',
    ], uid


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round tick values covering [lo, hi]."""
    span = max(hi - lo, 1e-9)
    raw = span / n
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 10 ** -len(str(int(1 / raw)))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = (lo // step) * step
    out: list[float] = []
    v = first
    while v <= hi + step * 0.001 and len(out) < 20:
        if v >= lo - step * 0.001:
            out.append(round(v, 6))
        v += step
    return out


def _num(v: float) -> str:
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.1f}"


def line_chart(
    title: str,
    desc: str,
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    x_label: str,
    y_label: str,
) -> str:
    """Lines through (x, y) points, one per named series, the name at each line's end."""
    height, left, right, top, bottom = 340, 52, 150, 40, 46
    out, _ = _open("line", title, desc, height)
    xs = [x for _, pts in series for x, _ in pts] or [0.0, 1.0]
    ys = [y for _, pts in series for _, y in pts] or [0.0, 1.0]
    x0, x1 = min(xs), max(*xs, min(xs) + 1)
    y0, y1 = min(ys), max(ys)
    if y1 - y0 < 1:
        y0, y1 = y0 - 0.5, y1 + 0.5
    pad = (y1 - y0) * 0.06  # no point on the frame's edge
    y0, y1 = y0 - pad, y1 + pad
    pw, ph = WIDTH - left - right, height - top - bottom

    def px(x: float) -> float:
        return left + pw * (x - x0) / (x1 - x0)

    def py(y: float) -> float:
        return top + ph * (1 - (y - y0) / (y1 - y0))

    for t in _ticks(y0, y1):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="#e2e2e2"/>')
        out.append(f'<text x="{left - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{_num(t)}</text>')
    for t in _ticks(x0, x1, 6):
        if float(t).is_integer():
            out.append(f'<text x="{px(t):.1f}" y="{top + ph + 18}" text-anchor="middle">{_num(t)}</text>')
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" stroke="#333"/>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" stroke="#333"/>')
    out.append(
        f'<text x="{left + pw / 2:.0f}" y="{height - 6}" text-anchor="middle" class="axis-label">{escape(x_label)}</text>'
    )
    out.append(
        f'<text x="14" y="{top + ph / 2:.0f}" text-anchor="middle" class="axis-label" '
        f'transform="rotate(-90 14 {top + ph / 2:.0f})">{escape(y_label)}</text>'
    )
    ends = []
    for i, (name, pts) in enumerate(series):
        if not pts:
            continue
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)]
        path = " ".join(f"{'M' if k == 0 else 'L'}{px(x):.1f},{py(y):.1f}" for k, (x, y) in enumerate(pts))
        style = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2.2"{style}/>')
        for x, y in pts:
            out.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}">'
                f"<title>{escape(name)}: {_num(y)} after {escape(x_label.lower())} {_num(x)}</title></circle>"
            )
        ends.append((py(pts[-1][1]), name, colour, style))
    ends.sort()
    last = -1e9
    for y, name, colour, style in ends:
        ly = max(y + 4, last + 15)
        last = ly
        out.append(
            f'<line x1="{left + pw + 6}" x2="{left + pw + 22}" y1="{ly - 4:.1f}" y2="{ly - 4:.1f}" '
            f'stroke="{colour}" stroke-width="2.5"{style}/>'
        )
        out.append(f'<text x="{left + pw + 26}" y="{ly:.1f}">{escape(name[:16])}</text>')
    if not ends:
        out.append(f'<text x="{left + 10}" y="{top + 24}">No rated game yet.</text>')
    out.append("</svg>")
    return "\n".join(out)


def interval_chart(
    title: str,
    desc: str,
    rows: Sequence[tuple[str, float, float, float, str]],
    reference: float | None = None,
    reference_label: str = "",
) -> str:
    """Horizontal bars from 0 to 100 % with their interval as a whisker: (label, value, low, high,
    note) per row; ``reference``: a dashed line (the rate expected with no advantage)."""
    row_h, left, right, top = 30, 150, 70, 50
    height = top + row_h * max(1, len(rows)) + 34
    out, _ = _open("interval", title, desc, height)
    pw = WIDTH - left - right

    def px(v: float) -> float:
        return left + pw * max(0.0, min(1.0, v))

    for t in (0, 0.25, 0.5, 0.75, 1):
        out.append(
            f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{top - 6}" y2="{height - 30}" stroke="#e2e2e2"/>'
        )
        out.append(f'<text x="{px(t):.1f}" y="{height - 14}" text-anchor="middle">{t * 100:.0f} %</text>')
    for i, (label, value, low, high, note) in enumerate(rows):
        y = top + i * row_h
        out.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{escape(label)}</text>')
        out.append(
            f'<rect x="{left}" y="{y + 4}" width="{max(0.0, px(value) - left):.1f}" height="16" '
            f'fill="{PALETTE[0]}" fill-opacity="0.8"><title>{escape(label)}: {value * 100:.0f} % '
            f"(95 % interval {low * 100:.0f}–{high * 100:.0f} %), {escape(note)}</title></rect>"
        )
        out.append(
            f'<line x1="{px(low):.1f}" x2="{px(high):.1f}" y1="{y + 12}" y2="{y + 12}" stroke="#000" stroke-width="1.6"/>'
        )
        for v in (low, high):
            out.append(
                f'<line x1="{px(v):.1f}" x2="{px(v):.1f}" y1="{y + 6}" y2="{y + 18}" stroke="#000" stroke-width="1.6"/>'
            )
        out.append(f'<text x="{left + pw + 8}" y="{y + 15}">{value * 100:.0f} %</text>')
    if reference is not None:
        out.append(
            f'<line x1="{px(reference):.1f}" x2="{px(reference):.1f}" y1="{top - 8}" y2="{height - 30}" '
            f'stroke="{PALETTE[1]}" stroke-width="2" stroke-dasharray="5 3"/>'
        )
        out.append(
            f'<text x="{px(reference) + 4:.1f}" y="{top - 10}" class="note">{escape(reference_label)}</text>'
        )
    if not rows:
        out.append(f'<text x="{left}" y="{top + 15}">No finished game yet.</text>')
    out.append("</svg>")
    return "\n".join(out)


def bar_chart(title: str, desc: str, bars: Sequence[tuple[str, float]], x_label: str, y_label: str) -> str:
    """Vertical bars (a histogram's bins), each with its count above it."""
    height, left, right, top, bottom = 280, 46, 16, 44, 58
    out, _ = _open("bars", title, desc, height)
    pw, ph = WIDTH - left - right, height - top - bottom
    peak = max([v for _, v in bars] or [1]) or 1
    slot = pw / max(1, len(bars))
    for t in (t for t in _ticks(0, peak, 4) if float(t).is_integer()):  # counts: whole ticks
        y = top + ph * (1 - t / peak)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e2e2e2"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_num(t)}</text>')
    step = max(1, -(-len(bars) * 70 // pw))  # label every bar that fits
    for i, (label, v) in enumerate(bars):
        h = ph * v / peak
        x = left + i * slot
        out.append(
            f'<rect x="{x + 2:.1f}" y="{top + ph - h:.1f}" width="{max(1.0, slot - 4):.1f}" height="{h:.1f}" '
            f'fill="{PALETTE[2]}"><title>{escape(label)}: {_num(v)}</title></rect>'
        )
        if v:
            out.append(
                f'<text x="{x + slot / 2:.1f}" y="{top + ph - h - 4:.1f}" text-anchor="middle" class="note">{_num(v)}</text>'
            )
        if i % step == 0:
            out.append(
                f'<text x="{x + slot / 2:.1f}" y="{top + ph + 16}" text-anchor="middle" class="note">{escape(label)}</text>'
            )
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" stroke="#333"/>')
    out.append(
        f'<text x="{left + pw / 2:.0f}" y="{height - 8}" text-anchor="middle" class="axis-label">{escape(x_label)}</text>'
    )
    out.append(
        f'<text x="12" y="{top + ph / 2:.0f}" text-anchor="middle" class="axis-label" '
        f'transform="rotate(-90 12 {top + ph / 2:.0f})">{escape(y_label)}</text>'
    )
    if not bars:
        out.append(f'<text x="{left + 10}" y="{top + 24}">No finished game yet.</text>')
    out.append("</svg>")
    return "\n".join(out)


def paired_chart(
    title: str, desc: str, rows: Sequence[tuple[str, float | None, float | None]], names: tuple[str, str]
) -> str:
    """Two bars per row (winners, the others), each with its value at its end."""
    row_h, left, right, top = 44, 210, 60, 56
    height = top + row_h * max(1, len(rows)) + 10
    out, _ = _open("paired", title, desc, height)
    pw = WIDTH - left - right
    peak = max([v or 0 for _, a, b in rows for v in (a, b)] or [1]) or 1
    for k, name in enumerate(names):
        x = left + k * 150
        out.append(f'<rect x="{x}" y="32" width="14" height="12" fill="{PALETTE[k]}"/>')
        out.append(f'<text x="{x + 20}" y="42">{escape(name)}</text>')
    for i, (label, a, b) in enumerate(rows):
        y = top + i * row_h
        out.append(f'<text x="{left - 8}" y="{y + 20}" text-anchor="end">{escape(label)}</text>')
        for k, v in enumerate((a, b)):
            w = pw * (v or 0) / peak
            out.append(
                f'<rect x="{left}" y="{y + 3 + k * 17}" width="{w:.1f}" height="15" fill="{PALETTE[k]}">'
                f"<title>{escape(names[k])}: {'–' if v is None else f'{v:.1f}'} {escape(label)}</title></rect>"
            )
            out.append(
                f'<text x="{left + w + 5:.1f}" y="{y + 15 + k * 17}" class="note">{"–" if v is None else f"{v:.1f}"}</text>'
            )
    out.append("</svg>")
    return "\n".join(out)

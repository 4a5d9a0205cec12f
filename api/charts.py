"""A share-value line chart as plain SVG (no JavaScript, no external assets).

The x-axis runs through the game by its periods — decades (and their cycles) for Water Frame,
stages (and rounds) for the others — labelled so that no two labels overlap. Each company has
its own colour from a palette safe for colour blindness, its own line style and point shape,
its name at the end of its line, and every point tells its value, period and cause on hover
(an event that moved a value twice, a sale and then a loan, is one point telling both).
Lines that run together are drawn a little apart, so none hides another.
"""

from __future__ import annotations

from html import escape
from typing import Any

PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")  # Okabe-Ito
DASHES = ("", "7 4", "2 3", "9 3 2 3", "4 2", "1 2")
WIDTH, HEIGHT = 760, 360
LEFT, RIGHT, TOP, BOTTOM = 50, 130, 34, 62
MIN_LABEL_GAP = 44  # px between two period labels on the same line
STYLE = (
    "text{font:12px sans-serif;fill:#222}.ttl{font-size:14px;font-weight:bold}.grid{stroke:#e2e2e2}"
    ".axis{stroke:#333}.period{stroke:#aaa;stroke-dasharray:3 3}.minor{font-size:10px;fill:#555}"
    ".e{text-anchor:end}.m{text-anchor:middle}g g circle{r:3.5px}g g rect{width:6.4px;height:6.4px}"
    "g g:hover>*{stroke:#000;stroke-width:2}"
)
# A point's marker: a circle, a square, a diamond or a triangle (a company's own shape). The
# sizes of the circle and the square are the style sheet's (``STYLE``, and the game page's
# table.css); the diamond and the triangle are drawn once and used at each point.
SHAPES = '<polygon id="sv-d" points="0,-4.5 4.5,0 0,4.5 -4.5,0"/><polygon id="sv-t" points="0,-4.5 4.5,3.5 -4.5,3.5"/>'


def period_label(period: dict[str, Any]) -> tuple[str, str]:
    """(major, minor) names of a point's period: ("1780", "cycle 2") or ("stage II", "round 3")."""
    if period.get("decade") is not None:
        minor = f"cycle {period['cycle']}" if period.get("cycle") else ""
        return str(period["decade"]), minor
    if period.get("stage") is not None:
        minor = f"round {period['round']}" if period.get("round") is not None else ""
        return f"stage {period['stage']}", minor
    return "start", ""


def _n(v: float) -> str:
    """A coordinate to a tenth, without a trailing ".0"."""
    text = f"{v:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _marker(shape: int, x: float, y: float, tip: str) -> str:
    """A point of a company's line (its colour is its group's fill), telling its value on hover."""
    if shape == 0:
        body = f'<circle cx="{_n(x)}" cy="{_n(y)}"/>'
    elif shape == 1:
        body = f'<rect x="{_n(x - 3.2)}" y="{_n(y - 3.2)}"/>'
    else:
        body = f'<use href="#sv-{"d" if shape == 2 else "t"}" x="{_n(x)}" y="{_n(y)}"/>'
    return f"<g><title>{escape(tip)}</title>{body}</g>"


def share_value_svg(
    title: str,
    points: list[dict[str, Any]],
    names: dict[int, str],
    head_version: int,
    *,
    inline: bool = False,
) -> str:
    """Each company's share value as a step line through the game. ``inline``: to be drawn into
    a page (scaled to its width) rather than served as an image of its own."""
    series: dict[int, list[dict[str, Any]]] = {}
    for p in points:
        series.setdefault(int(p["company"]), []).append(p)
    x_min = min([p["version"] for p in points], default=0)
    x_max = max([head_version, *(p["version"] for p in points), x_min + 1])
    values = [p["value_to"] for p in points] + [
        p["value_from"] for p in points if p.get("value_from") is not None
    ]
    y_max = max([1, *values])
    y_min = min([y_max, *values]) if values else 0
    y_min = max(0, y_min - 2)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(v: float) -> float:
        return LEFT + plot_w * (v - x_min) / max(1, x_max - x_min)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - (v - y_min) / max(1, y_max - y_min))

    size = "" if inline else f' width="{WIDTH}" height="{HEIGHT}"'
    label = f"{title}: {', '.join(names.get(c, f'Seat {c}') for c in sorted(series))}" if series else title
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg"{size} viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(label)}" class="share-chart">',
        f"<title>{escape(title)}</title>",
        "" if inline else f"<style>{STYLE}</style>",  # a page's stylesheet styles it there (CSP)
        f"<defs>{SHAPES}</defs>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="{LEFT}" y="20" class="ttl">{escape(title)}</text>',
    ]
    span = max(1, y_max - y_min)
    step = max(1, round(span / 6))
    grid: list[str] = []  # the grid, the periods' lines and the ticks: a path each
    ticks: list[str] = []
    periods: list[str] = []
    for v in range(y_min - y_min % step, y_max + 1, step):
        if v < y_min:
            continue
        grid.append(f"M{LEFT} {_n(y(v))}h{plot_w}")
        out.append(f'<text x="{LEFT - 6}" y="{_n(y(v) + 4)}" class="e">£{v}</text>')
    out.append(f'<path class="grid" fill="none" d="{"".join(grid)}"/>')
    # the periods: a dashed line where each major period begins, labels that never overlap
    last_major = None
    last_minor = None
    placed: list[list[float]] = [[], []]
    for p in points:
        major, minor = period_label(p["period"] or {})
        px = x(p["version"])
        if major != last_major:
            if last_major is not None:
                periods.append(f"M{_n(px)} {TOP}v{plot_h}")
            line = next((i for i in (0, 1) if all(abs(px - q) >= MIN_LABEL_GAP for q in placed[i])), None)
            if line is not None:
                placed[line].append(px)
                out.append(
                    f'<text x="{_n(px)}" y="{TOP + plot_h + 16 + 13 * line}" class="m">{escape(major)}</text>'
                )
            last_major, last_minor = major, None
        if minor and minor != last_minor:
            last_minor = minor
            ticks.append(f"M{_n(px)} {TOP + plot_h}v4")
    axis = (
        "decade (ticks: cycles)"
        if any(p["period"].get("decade") for p in points)
        else "stage (ticks: rounds)"
    )
    if periods:
        out.append(f'<path class="period" fill="none" d="{"".join(periods)}"/>')
    # the axes and the cycles' (rounds') ticks
    out.append(f'<path class="axis" fill="none" d="M{LEFT} {TOP}v{plot_h}h{plot_w}{"".join(ticks)}"/>')
    out.append(f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 8}" class="m minor">{axis}</text>')
    ends: list[tuple[float, int, str, str]] = []
    count = len(series)
    for i, (company, pts) in enumerate(sorted(series.items())):
        color = PALETTE[company % len(PALETTE)]
        dash = DASHES[company % len(DASHES)]
        nudge = (i - (count - 1) / 2) * 2.2  # equal lines side by side, never on top of each other
        name = names.get(company, f"Seat {company}")
        path = []
        marks = []
        first = pts[0]
        start = first["value_from"] if first.get("value_from") is not None else first["value_to"]
        prev_y = y(start) + nudge
        path.append(f"M{_n(x(x_min))},{_n(prev_y)}")
        at = (_n(x(x_min)), _n(prev_y))
        steps: list[str] = []  # the changes of one event so far (a sale, then a loan): one point
        for k, p in enumerate(pts):
            px, py = x(p["version"]), y(p["value_to"]) + nudge
            # a step: across to the event, then up or down to its value (a step that goes
            # nowhere is not drawn: the same line, fewer bytes)
            if _n(px) != at[0]:
                path.append(f"H{_n(px)}")
            if _n(py) != at[1]:
                path.append(f"V{_n(py)}")
            at = (_n(px), _n(py))
            prev_y = py
            cause = str(p.get("cause") or "").replace("_", " ")
            steps.append(f"£{p['value_to']} (space {p.get('space_to')})")
            if k + 1 < len(pts) and pts[k + 1]["version"] == p["version"]:
                steps[-1] += f" after {cause}"
                continue
            major, minor = period_label(p["period"] or {})
            when = f"{major}{', ' + minor if minor else ''}"
            if len(steps) == 1:
                tip = f"{name}: {steps[0]} in {when}, event {p['version']}: {cause}"
            else:  # the event's last value is the point; the others are told on it
                tip = f"{name} in {when}, event {p['version']}: {', then '.join(steps)} after {cause}"
            marks.append(_marker(company % 4, px, py, tip))
            steps = []
        if _n(x(x_max)) != at[0]:
            path.append(f"H{_n(x(x_max))}")
        style = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<path d="{"".join(path)}" fill="none" stroke="{color}" stroke-width="2.2"{style}>'
            f"<title>{escape(name)}</title></path>"
        )
        out.append(f'<g fill="{color}">{"".join(marks)}</g>')
        ends.append((prev_y, company, name, color))
    # the names at the lines' ends, moved apart where they would overlap
    ends.sort()
    last = -1e9
    for ey, company, name, color in ends:
        ly = max(ey + 4, last + 14)
        last = ly
        dash = DASHES[company % len(DASHES)]
        style = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<line x1="{LEFT + plot_w + 6}" x2="{LEFT + plot_w + 26}" y1="{_n(ly - 4)}" y2="{_n(ly - 4)}" '
            f'stroke="{color}" stroke-width="2.5"{style}/>'
        )
        out.append(f'<text x="{LEFT + plot_w + 30}" y="{_n(ly)}">{escape(name)}</text>')
    if not points:
        out.append(f'<text x="{LEFT + 10}" y="{TOP + 20}">no share value yet</text>')
    out.append("</svg>")
    return "".join(out)

"""A share-value line chart as plain SVG (no JavaScript, no external assets)."""

from __future__ import annotations

from html import escape
from typing import Any

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
WIDTH, HEIGHT = 760, 380
LEFT, RIGHT, TOP, BOTTOM = 56, 150, 40, 48


def share_value_svg(
    title: str, points: list[dict[str, Any]], names: dict[int, str], head_version: int
) -> str:
    """Each company's share value as a step line over the game's versions."""
    series: dict[int, list[tuple[int, int]]] = {}
    for p in points:
        series.setdefault(p["company"], []).append((p["version"], p["value_to"]))
    x_max = max([head_version, *(p["version"] for p in points), 1])
    y_max = max([1, *(p["value_to"] for p in points)])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(v: float) -> float:
        return LEFT + plot_w * v / x_max

    def y(v: float) -> float:
        return TOP + plot_h * (1 - v / y_max)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        "<style>text{font:12px sans-serif;fill:#333}.grid{stroke:#ddd}.axis{stroke:#333}"
        ".period{stroke:#999;stroke-dasharray:4 3}</style>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="{LEFT}" y="22" style="font-size:15px;font-weight:bold">{escape(title)}</text>',
    ]
    step = max(1, y_max // 8 or 1)
    for v in range(0, y_max + 1, step):
        out.append(f'<line class="grid" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    last_period = None
    for p in points:  # dashed lines where a new period (stage, decade) begins
        label = p["period"].get("stage") or p["period"].get("decade")
        if label is not None and label != last_period and last_period is not None:
            px = x(p["version"])
            out.append(f'<line class="period" x1="{px:.1f}" x2="{px:.1f}" y1="{TOP}" y2="{TOP + plot_h}"/>')
            out.append(
                f'<text x="{px + 3:.1f}" y="{TOP + 12}">{escape(str(label))} ({escape(p["currency"] or "")})</text>'
            )
        last_period = label
    out.append(f'<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}"/>')
    out.append(
        f'<line class="axis" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{TOP + plot_h}" y2="{TOP + plot_h}"/>'
    )
    out.append(
        f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 12}" text-anchor="middle">game version</text>'
    )
    out.append(
        f'<text x="14" y="{TOP + plot_h / 2:.0f}" transform="rotate(-90 14 {TOP + plot_h / 2:.0f})"'
        ' text-anchor="middle">share value</text>'
    )
    for i, (company, pts) in enumerate(sorted(series.items())):
        color = PALETTE[i % len(PALETTE)]
        path = []
        prev_y = None
        for version, value in pts:
            if prev_y is not None:
                path.append(f"L{x(version):.1f},{prev_y:.1f}")
            path.append(f"{'M' if prev_y is None else 'L'}{x(version):.1f},{y(value):.1f}")
            prev_y = y(value)
        if prev_y is not None:
            path.append(f"L{x(x_max):.1f},{prev_y:.1f}")
        name = escape(names.get(company, f"Seat {company}"))
        out.append(
            f'<path d="{" ".join(path)}" fill="none" stroke="{color}" stroke-width="2"><title>{name}</title></path>'
        )
        ly = TOP + 16 + i * 18
        out.append(
            f'<line x1="{WIDTH - RIGHT + 14}" x2="{WIDTH - RIGHT + 34}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{color}" stroke-width="3"/>'
        )
        out.append(f'<text x="{WIDTH - RIGHT + 40}" y="{ly}">{name}</text>')
    if not points:
        out.append(f'<text x="{LEFT + 10}" y="{TOP + 20}">no share value yet</text>')
    out.append("</svg>")
    return "\n".join(out)

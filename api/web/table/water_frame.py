"""Arkwright: Water Frame's table, drawn in SVG from the seat's view.

From top to bottom: the decade, cycle, phase, start player and turn order; the English market
(demand, importers, this decade's economy markers), the job market with every cell, and the
economy and event markers of every decade; the share-value track with every company on it;
the special markers mat (grey markers and ships by row) and the development tiles on display;
then each player's board: the administration chart with the markers on its cost spaces, the
markers still to place, the factories as cards (level, price, quality, distribution, appeal,
output, rows of worker / machine / empty-slot pips), the warehouses, tiles, ships at the
piers and contracts.

Every listed decision is claimed by the thing it acts on (``Table.claim``); the component
numbers (job market cells, wages, share track, contract spaces) come from the title's data file.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from api.web.table.base import Board, Decision, Seat, Table, fit, text, text_width
from api.web.table.water_frame_words import (
    GOODS,
    ROMAN,
    WORDS,
    economy_text,
    edge_name,
    event_name,
    event_tip,
    good,
    marker_name,
    phase_name,
    ship_name,
    tile_name,
    tile_tip,
)
from ledger.games.vocabulary import counted
from ledger.games.water_frame.components import load

C = load()
W = 1000
PLAYERS_TOP = 398
GOOD_FILL = {"FOOD": "#f7e3b5", "CLOTHES": "#d3e4f5", "CUTLERY": "#e1e1e1", "LAMPS": "#f9efa6"}
SEAT_FILL = ("#0072b2", "#d55e00", "#009e73", "#cc79a7")  # Okabe-Ito: safe for colour blindness
TIMES = " \u00d7"  # " x2": copies of the same thing
OWN_ORDER = ("FACTORY", "WORKERS", "MACHINERY", "QUALITY", "DISTRIBUTION", "STOCK_EXCHANGE")


def rect(x: float, y: float, w: float, h: float, cls: str = "", fill: str = "") -> str:
    """A rectangle. Its corners are the style sheet's (``.board-svg rect``, or its class's): a
    style sheet's ``rx`` outweighs the attribute, so none is written."""
    style = f' fill="{fill}"' if fill else ""
    c = f' class="{cls}"' if cls else ""
    return f'<rect x="{x:.4g}" y="{y:.4g}" width="{w:.4g}" height="{h:.4g}"{c}{style}/>'


ANCHOR = {"middle": "mid", "end": "end"}  # text-anchor by class (the style sheet's)


def txt(x: float, y: float, s: Any, cls: str = "", anchor: str = "") -> str:
    classes = f"{cls} {ANCHOR[anchor]}".strip() if anchor else cls
    c = f' class="{classes}"' if classes else ""
    return f'<text x="{x:.4g}" y="{y:.4g}"{c}>{text(s)}</text>'


def token(seat: int, x: float, y: float, r: float = 5.5) -> str:
    """A company's token: its colour and its own shape (circle, square, diamond, triangle)."""
    fill = SEAT_FILL[seat % 4]
    shape = seat % 4
    if shape == 0:
        return f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{fill}" class="tok"/>'
    if shape == 1:
        return f'<rect x="{x - r:g}" y="{y - r:g}" width="{2 * r:g}" height="{2 * r:g}" fill="{fill}" class="tok"/>'
    if shape == 2:
        pts = f"{x:g},{y - r - 1:g} {x + r + 1:g},{y:g} {x:g},{y + r + 1:g} {x - r - 1:g},{y:g}"
        return f'<polygon points="{pts}" fill="{fill}" class="tok"/>'
    pts = f"{x:g},{y - r - 1:g} {x + r + 1:g},{y + r:g} {x - r - 1:g},{y + r:g}"
    return f'<polygon points="{pts}" fill="{fill}" class="tok"/>'


KEPT: dict[tuple[Any, ...], str] = {}  # drawings kept by everything they are drawn from
KEPT_MAX = 1_024  # at most about 10 MB (a seat's board is about 10 KB)


def kept(key: tuple[Any, ...], draw: Callable[[], str]) -> str:
    """``draw()``, a drawing that is a function of ``key`` alone: ``key`` holds everything the
    drawing reads (the parts of the view, the names, whose board it is to the reader), so a
    drawing made for one reader is given to another only when it would be drawn the same for
    them, byte for byte. A part of the view one seat sees and another does not is in the key,
    and so never crosses. Nothing that claims decisions is kept."""
    got = KEPT.get(key)
    if got is None:
        if len(KEPT) >= KEPT_MAX:
            KEPT.clear()
        got = KEPT[key] = draw()
    return got


def _is(*types: str, **fields: Any) -> Any:
    return lambda d: d.get("type") in types and all(d.get(k) == v for k, v in fields.items())


class WaterFrameBoard(Board):
    words = WORDS
    width = W

    def _shared(self, table: Table, v: Mapping[str, Any]) -> tuple[str, float]:
        # the market, the job market, the decades and the share track claim no decision: each
        # is kept by what it is drawn from (the same for every reader of a version, mostly)
        jm, revealed, decade = v.get("job_market", {}), v.get("economy_markers_revealed", []), v.get("decade")
        market = (
            repr(jm.get("demand")),
            repr(v.get("importers")),
            v.get("active_good"),
            repr(v.get("goods_done_this_decade")),
            repr(revealed),
            decade,
        )
        out = [kept(("market", *market), lambda: self._market(table, v, 40))]
        job = (repr(jm), v.get("fired_workers"), v.get("boxed_workers"))
        out.append(kept(("job", *job), lambda: self._job_market(v, 344, 40)))
        decades = (repr(revealed), repr(v.get("events_revealed")), decade)
        out.append(kept(("decades", *decades), lambda: self._decades(v, 470, 40)))
        track = tuple(
            (
                p.get("seat"),
                p.get("share_space"),
                p.get("shares"),
                p.get("portfolio"),
                table.who(p.get("seat")),
            )
            for p in v.get("players", [])
        )
        out.append(kept(("track", *track), lambda: self._share_track(table, v, 200)))
        out.append(self._mat(table, v, 0, 282))
        out.append(self._display(table, v, 556, 282))
        return "".join(out), PLAYERS_TOP

    # --- the decade, cycle, phase and turn order ----------------------------------------

    def _header(self, table: Table, v: Mapping[str, Any]) -> str:
        out = [rect(0, 0, W, 34, "band")]
        decade, level = v.get("decade"), v.get("level")
        cycle = v.get("cycle")
        bits = [f"{decade}", f"level {ROMAN.get(int(level or 1), level)}"]
        if cycle:
            bits.append(f"cycle {cycle} of 4: {good(v.get('active_good'))}")
        bits.append(phase_name(v.get("phase")))
        out.append(txt(8, 14, " · ".join(bits), "h"))
        turn, sale = v.get("turn"), v.get("sale")
        notes = []  # the turn's action, and the production phase's sale of the active good
        if turn:
            action = WORDS.name(turn.get("action"))
            notes.append(
                f"{table.who(turn['seat'])}: {action} action on the £{turn['space']} space, "
                f"budget £{turn['budget']}, spent £{turn['spent']}"
            )
        if sale:
            sold = sum(sale.get("sold_from_production", [])) + sum(sale.get("sold_from_stock", []))
            notes.append(
                f"Sale of {good(sale['good'])}: {sold} sold by players, {sale.get('importer_sold', 0)} "
                f"by the importer, {sale.get('tokens_left', 0)} demand left"
            )
        if notes:  # both at once (if ever) share the line, cut short before the turn order
            out.append(txt(8, 29, fit(" · ".join(notes), 585), "s"))
        out.append(turn_order(table, 600, _start_named, first=72, widest=82, gap=2))
        return "".join(out)

    # --- English demand, importers, this decade's economy markers --------------------------

    def _market(self, table: Table, v: Mapping[str, Any], y: float) -> str:
        jm = v.get("job_market", {})
        demand = jm.get("demand", {})
        importers = v.get("importers", {})
        active = v.get("active_good")
        done = set(v.get("goods_done_this_decade", []))
        now = {m["good"]: m for m in v.get("economy_markers_revealed", []) if m["decade"] == v.get("decade")}
        out = [txt(0, y + 10, "English market", "t")]
        for k, g in enumerate(GOODS):
            x = k * 84
            cls = "good active" if g == active else "good"
            out.append(rect(x, y + 16, 80, 136, cls, fill=GOOD_FILL[g]))
            head = good(g).capitalize() + (" ✓" if g in done else "")
            out.append(txt(x + 40, y + 31, head, "b", "middle"))
            if g == active:
                out.append(txt(x + 40, y + 44, "this cycle", "s", "middle"))
            out.append(
                f"<g><title>Demand for {good(g)}: the numbered empty cells of its job market column"
                f"</title>{txt(x + 40, y + 74, demand.get(g, 0), 'big', 'middle')}"
                f"{txt(x + 40, y + 87, 'demand', 's', 'middle')}</g>"
            )
            out.append(
                f"<g><title>The importer sells {good(g)} at appeal {importers.get(g, 0)}</title>"
                f"{txt(x + 40, y + 107, importers.get(g, 0), 'b', 'middle')}"
                f"{txt(x + 40, y + 119, 'importer', 's', 'middle')}</g>"
            )
            marker = now.get(g)
            if marker:
                tip = f"This decade's {good(g)} economy marker: {economy_text(marker['advance'], marker['workers'])}"
                first = f"importer +{marker['advance']}"
                second = f"{marker['workers']} back"
                out.append(
                    f"<g><title>{text(tip)}</title>{rect(x + 4, y + 126, 72, 22, 'chip')}"
                    f"{txt(x + 40, y + 136, first, 's', 'middle')}{txt(x + 40, y + 146, second, 's', 'middle')}</g>"
                )
            else:
                out.append(
                    f"<g><title>This decade's {good(g)} economy marker lies face down</title>"
                    f"{rect(x + 4, y + 126, 72, 22, 'chip down')}{txt(x + 40, y + 141, 'face down', 's', 'middle')}</g>"
                )
        return "".join(out)

    # --- the job market: every cell -----------------------------------------------------------

    def _job_market(self, v: Mapping[str, Any], x: float, y: float) -> str:
        jm = v.get("job_market", {})
        empty = int(jm.get("empty_cells", 0))
        cell_w, cell_h = 21, 6.6
        out = [txt(x, y + 10, "Job market", "t")]
        top = y + 16
        for k, g in enumerate(GOODS):
            out.append(rect(x + k * cell_w, top, cell_w - 1, 132, "col", fill=GOOD_FILL[g]))
        workers_at, numbered_at = [], []
        for i in range(C.jm_cells):
            row, col = divmod(i, len(GOODS))
            at = f'cx="{x + col * cell_w + cell_w / 2 - 0.5:.4g}" cy="{top + row * cell_h + cell_h / 2:.4g}"'
            if i >= empty:
                workers_at.append(f"<circle {at}/>")
            elif C.jm_numbered[i]:
                numbered_at.append(f"<circle {at}/>")
        out.append(
            f'<g class="worker">{"".join(workers_at)}</g><g class="numbered">{"".join(numbered_at)}</g>'
        )
        last = None
        for row, wage in enumerate(C.jm_wage_of_row):
            if wage != last:
                out.append(txt(x + 4 * cell_w + 3, top + row * cell_h + 6, f"£{wage}", "xs"))
                last = wage
        workers = C.jm_cells - empty
        summary = (
            f"The job market: {workers} workers waiting, {empty} cells empty; wage £{jm.get('wage')}; "
            f"fired {v.get('fired_workers', 0)}, in the box {v.get('boxed_workers', 0)}. Workers are "
            "hired in reading order; a dot marks a numbered cell (demand counts the numbered empty cells)."
        )
        out.append(
            f"<g><title>{text(summary)}</title>{rect(x - 2, top - 2, 4 * cell_w + 26, 136, 'hit')}</g>"
        )
        out.append(txt(x, top + 146, f"wage £{jm.get('wage')}", "s"))
        out.append(
            txt(x, top + 158, f"fired {v.get('fired_workers', 0)} · box {v.get('boxed_workers', 0)}", "s")
        )
        return "".join(out)

    # --- economy and event markers of every decade ---------------------------------------------

    def _decades(self, v: Mapping[str, Any], x: float, y: float) -> str:
        revealed = {(m["decade"], m["good"]): m for m in v.get("economy_markers_revealed", [])}
        events = {e["decade"]: e["event"] for e in v.get("events_revealed", [])}
        out = [txt(x, y + 10, "Decades: event and economy markers", "t")]
        col = (52, 110, 84, 84, 84, 84)
        heads = ("Decade", "Event", *(good(g).capitalize() for g in GOODS))
        cx = x
        for w, h in zip(col, heads, strict=True):
            out.append(txt(cx + 2, y + 27, h, "s b"))
            cx += w
        for r, decade in enumerate(C.decades):
            ry = y + 32 + r * 24
            current = decade == v.get("decade")
            out.append(rect(x, ry, sum(col), 22, "decade now" if current else "decade"))
            level = C.level_of_decade.get(decade, 1)
            out.append(txt(x + 4, ry + 15, f"{decade} {ROMAN[level]}", "b" if current else ""))
            ex = x + col[0]
            if decade in events:
                ev = events[decade]
                out.append(
                    f"<g><title>{text(event_tip(ev))}</title>{txt(ex + 2, ry + 15, event_name(ev)[:17], 's')}</g>"
                )
            else:
                end = " (the end)" if decade == C.decades[-1] else ""
                out.append(
                    f"<g><title>The {decade} event marker lies face down{end}</title>"
                    f"{txt(ex + 2, ry + 15, 'face down' + end, 's muted')}</g>"
                )
            gx = ex + col[1]
            for k, g in enumerate(GOODS):
                m = revealed.get((decade, g))
                mx = gx + k * 84
                if m:
                    tip = f"{decade} {good(g)} economy marker: {economy_text(m['advance'], m['workers'])}"
                    shown = f"+{m['advance']} · {m['workers']} back"
                    out.append(f"<g><title>{text(tip)}</title>{txt(mx + 2, ry + 15, shown, 's')}</g>")
                else:
                    out.append(txt(mx + 2, ry + 15, "·", "s muted"))
        return "".join(out)

    # --- the share-value track ----------------------------------------------------------------

    def _share_track(self, table: Table, v: Mapping[str, Any], y: float) -> str:
        per_row = 40
        cw = (W - 56) / per_row
        out = [txt(0, y + 10, "Share value", "t")]
        at: dict[int, list[Mapping[str, Any]]] = {}
        for p in v.get("players", []):
            at.setdefault(int(p.get("share_space", 0)), []).append(p)
        out.append(_track(y))
        for space in range(C.share_min, C.share_max + 1):
            row, col = divmod(space - 1, per_row)
            sx = 56 + col * cw
            sy = y + 16 + row * 34
            value = C.share_value(space)
            for k, p in enumerate(at.get(space, [])):
                seat = int(p["seat"])
                tip = (
                    f"{table.who(seat)}: space {space}, share value £{value}; {p.get('shares')} shares "
                    f"held, £{p.get('portfolio')} portfolio"
                )
                out.append(f"<g><title>{text(tip)}</title>{token(seat, sx + 5 + k * 6, sy + 23, 4)}</g>")
        for row in range(2):  # in the gutter before the cells, on two lines
            out.append(txt(0, y + 24 + row * 34, "spaces", "xs"))
            out.append(txt(0, y + 34 + row * 34, f"{row * per_row + 1}\u2013{row * per_row + per_row}", "xs"))
        return "".join(out)

    # --- the special markers mat and the tiles on display --------------------------------------

    def _mat(self, table: Table, v: Mapping[str, Any], x: float, y: float) -> str:
        mat = v.get("special_markers_mat", {})
        open_rows = int(mat.get("open_rows", 1))
        out = [txt(x, y + 10, "Special markers mat: grey action markers and ships", "t")]
        for r in mat.get("rows", []):
            row = int(r["row"])
            ry = y + 16 + (row - 1) * 24
            closed = row > open_rows
            out.append(rect(x, ry, 548, 22, "matrow closed" if closed else "matrow"))
            out.append(txt(x + 4, ry + 15, ROMAN[row], "s b"))
            cx = x + 22
            for marker, count in Counter(r.get("markers", [])).items():
                mine = table.claim(_is("take_grey_marker", marker=marker, row=row))
                shown = WORDS.name(marker.partition(":")[2]) + (TIMES + str(count) if count > 1 else "")
                w = 9 + text_width(shown)
                dark = " dark" if marker.startswith("DARK") else ""
                chip = rect(cx, ry + 3, w, 16, "chip grey" + dark) + txt(cx + 4, ry + 14.5, shown, "s")
                where = f"The {marker_name(marker)} in row {ROMAN[row]}" + (
                    f" ({count} of them)" if count > 1 else ""
                )
                out.append(table.target(mine, chip, where))
                cx += w + 4
            ships: dict[int, list[Mapping[str, Any]]] = {}
            for ship in r.get("ships", []):
                ships.setdefault(int(ship["capacity"]), []).append(ship)
            for capacity, same in ships.items():
                ids = {str(sh["ship"]) for sh in same}
                mine = table.claim(_ship_taken(ids))
                shown = f"{capacity}-goods ship" + (TIMES + str(len(same)) if len(same) > 1 else "")
                w = 9 + text_width(shown)
                chip = rect(cx, ry + 3, w, 16, "chip ship") + txt(cx + 4, ry + 14.5, shown, "s")
                tip = (
                    f"{len(same)} ship{'s' if len(same) > 1 else ''} for {capacity} goods in row {ROMAN[row]}, "
                    f"crew {same[0]['crew']} each"
                )
                out.append(table.target(mine, chip, tip, tip=tip))
                cx += w + 4
            if closed:
                out.append(txt(x + 544, ry + 15, "closed for now", "xs muted", "end"))
        return "".join(out)

    def _display(self, table: Table, v: Mapping[str, Any], x: float, y: float) -> str:
        shown = Counter(v.get("development_tiles_on_display", []))
        out = [txt(x, y + 10, "Development tiles on display", "t")]
        per_row, cw = 5, 88.8
        for k, (tile, count) in enumerate(sorted(shown.items(), key=lambda t: tile_name(t[0]))):
            row, col = divmod(k, per_row)
            tx, ty = x + col * cw, y + 16 + row * 24
            mine = table.claim(_is("take_tile", tile=tile))
            name = tile_name(tile) + (TIMES + str(count) if count > 1 else "")
            chip = rect(tx, ty, cw - 4, 22, "chip tile")
            if len(name) > 14:  # two lines ("Small warehouse" was cut on one)
                words = name.split(" ")
                half = max(1, len(words) // 2)
                first, second = " ".join(words[:half]), " ".join(words[half:])
                chip += txt(tx + 4, ty + 10, first, "xs") + txt(tx + 4, ty + 19.5, second, "xs")
            else:
                chip += txt(tx + 4, ty + 15, name, "s")
            out.append(table.target(mine, chip, f"The {tile_name(tile).lower()} tile", tip=tile_tip(tile)))
        return "".join(out)

    # --- a player's board -----------------------------------------------------------------

    def _player(
        self, table: Table, v: Mapping[str, Any], p: Mapping[str, Any], x: float, y: float, w: float
    ) -> tuple[str, float]:
        seat = int(p["seat"])
        if seat == table.actor:  # its decisions are placed on it: drawn for this reader
            return self._player_board(table, v, p, x, y, w)
        # another seat's board claims nothing: kept by all it is drawn from (the player's part
        # of the reader's view whole, its name, whether it is the reader's, awaited or out, the
        # turn, the sale and how many play)
        key = (
            "player",
            x,
            y,
            w,
            repr(p),
            table.who(seat),
            seat == table.me,
            seat in table.awaiting,
            seat in v.get("eliminated", []),
            repr(v.get("turn")),
            repr(v.get("sale")),
            len(v.get("players", [])),
        )

        def draw() -> str:  # its height on the first line
            svg, h = self._player_board(table, v, p, x, y, w)
            return f"{h!r}\n{svg}"

        h, _, svg = kept(key, draw).partition("\n")
        return svg, float(h)

    def _player_board(
        self, table: Table, v: Mapping[str, Any], p: Mapping[str, Any], x: float, y: float, w: float
    ) -> tuple[str, float]:
        seat = int(p["seat"])
        me = seat == table.me
        turn = v.get("turn") or {}
        out: list[str] = []
        awaited = seat in table.awaiting
        s = Seat(table, p, decides=seat == table.actor)
        out.append(txt(x + 16, y + 13, table.who(seat) + (" (you)" if me else ""), "b"))
        out.append(token(seat, x + 7, y + 9, 5))
        if awaited:
            out.append(txt(x + w - 4, y + 13, "to move", "badge", "end"))
        if seat in v.get("eliminated", []):
            out.append(txt(x + w - 60, y + 13, "out", "s muted", "end"))
        money = (
            f"£{p.get('cash')} cash · {counted(int(p.get('shares', 0)), 'shares')} ({p.get('bank_shares')} in the bank)"
            f" · loans {p.get('loans')}"
        )
        out.append(txt(x, y + 27, money, "s"))
        worth = f"share value £{p.get('share_value')} (space {p.get('share_space')}) · portfolio £{p.get('portfolio')}"
        out.append(txt(x, y + 39, worth, "s"))
        part, used = self._administration(s, x, y + 44, w, turn)
        out.append(part)
        cy = y + 44 + used + 4
        factories = p.get("factories", [])
        fw = (w - 6) / 2
        for k, g in enumerate(GOODS):
            f = factories[k] if k < len(factories) else None
            fx = x + (k % 2) * (fw + 6)
            fy = cy + (k // 2) * 92
            out.append(self._factory(s, g, f, fx, fy, fw))
        cy += 2 * 92
        part, used = self._holdings(s, x, cy, w)
        out.append(part)
        cy += used
        frame = rect(
            x - 3,
            y - 3,
            w + 6,
            cy - y + 6,
            "pboard me" if me else ("pboard awaited" if awaited else "pboard"),
        )
        return frame + "".join(out), cy - y + 6

    def _administration(
        self, s: Seat, x: float, y: float, w: float, turn: Mapping[str, Any]
    ) -> tuple[str, float]:
        table, p, decides = s.table, s.player, s.decides
        fee = (
            0
            if any(t.get("tile") == "ADMINISTRATOR" for t in p.get("development_tiles", []))
            else C.reuse_fee
        )
        reuse = f"re-use: its cost + £{fee}" if fee else "re-use: no fee (administrator)"
        out = [txt(x, y + 9, "Administration", "s b"), txt(x + w, y + 9, reuse, "xs", "end")]
        spaces = p.get("administration", [])
        sw = min(56.0, w / max(1, len(spaces)))
        placed = set()
        for k, space in enumerate(spaces):
            sx = x + k * sw
            marker = space.get("marker")
            cost = space.get("cost")
            current = bool(turn) and turn.get("seat") == p["seat"] and turn.get("space") == cost
            cls = ("admin used" if marker else "admin") + (" current" if current else "")
            shape = rect(sx, y + 12, sw - 3, 30, cls) + txt(
                sx + (sw - 3) / 2, y + 23, f"£{cost}", "s b", "middle"
            )
            mine: list[Decision] = []
            label = f"The £{cost} space of the administration chart: empty"
            if marker:
                placed.add(marker)
                shown = fit(_short_marker(marker), sw - 7, 9)  # four seats: "Dk. Machi…" (in full on hover)
                shape += txt(sx + (sw - 3) / 2, y + 36, shown, "xs", "middle")
                label = f"The £{cost} space: {marker_name(marker)}"
                mine = s.claim(_reuse(marker))
            out.append(table.target(mine, shape, label))
        # the markers still to place: own action markers, grey markers, ships
        supply = [f"OWN:{a}" for a in OWN_ORDER] + list(p.get("grey_markers", []))
        supply += [f"SHIP:{s['ship']}" for s in p.get("ships", [])]
        sx, ry = x, y + 46
        for m in [m for m in supply if m not in placed]:
            mine = s.claim(_place(m))
            short = _short_marker(m)
            cw = text_width(short, 9) + 8
            if sx + cw > x + w:
                sx, ry = x, ry + 13
            grey = " grey" if m.startswith(("LIGHT", "DARK")) else ""
            chip = rect(sx, ry, cw, 11, "chip mk" + grey) + txt(sx + 4, ry + 8.5, short, "xs")
            out.append(table.target(mine, chip, f"Your {marker_name(m)}" if decides else marker_name(m)))
            sx += cw + 3
        return "".join(out), ry + 13 - y

    def _factory(self, s: Seat, g: str, f: Mapping[str, Any] | None, x: float, y: float, w: float) -> str:
        table, decides = s.table, s.decides
        h = 88
        if f is None:
            mine = s.claim(_is("found_factory", "build_factory", good=g))
            shape = rect(x, y, w, h, "factory empty") + txt(
                x + w / 2, y + 46, f"no {good(g)} factory", "s muted", "middle"
            )
            return table.target(
                mine, shape, f"Your {good(g)} factory site" if decides else f"No {good(g)} factory"
            )
        level = ROMAN.get(f["level"], f["level"])
        out = [rect(x, y, w, h, "factory obsolete" if f.get("obsolete") else "factory", GOOD_FILL[g])]
        name = f"{good(g).capitalize()} {level}"  # "obsolete" goes beside the first row: no room here
        mine = s.claim(_is("modernize_factory", "close_factory", "fire_workers", "produce_goods", good=g))
        head = hit(mine, x + 1, y + 1, w * 0.6, 14) + txt(x + 4, y + 12, name, "b")
        tip = (
            f"{good(g).capitalize()} factory, level {level}: price £{f['price']}, quality {f['quality']} "
            f"(base {f['base_quality']}, marker {f['quality_marker']:+d}), distribution {f['distribution']}, "
            f"appeal {f['appeal']}, output {f['output']} a production"
            + ("; obsolete" if f.get("obsolete") else "")
        )
        out.append(table.target(mine, head, f"Your {good(g)} factory" if decides else tip, tip=tip))
        mine = s.claim(_is("adjust_price", good=g))
        price = hit(mine, x + w - 38, y + 1, 36, 14) + txt(x + w - 4, y + 12, f"£{f['price']}", "b", "end")
        out.append(table.target(mine, price, f"The price of {good(g)}: £{f['price']}"))
        mine = s.claim(_is("raise_quality", good=g))
        quality = hit(mine, x + 1, y + 16, w / 2 - 2, 12) + txt(x + 4, y + 26, f"quality {f['quality']}", "s")
        out.append(table.target(mine, quality, f"The quality of {good(g)}: {f['quality']}"))
        mine = s.claim(_is("raise_distribution", good=g))
        dist = hit(mine, x + w / 2, y + 16, w / 2 - 2, 12) + txt(
            x + w / 2 + 3, y + 26, f"distrib. {f['distribution']}", "s"
        )
        out.append(table.target(mine, dist, f"The distribution of {good(g)}: {f['distribution']}"))
        out.append(txt(x + 4, y + 38, f"appeal {f['appeal']} · output {f['output']}", "s"))
        if f.get("obsolete"):
            out.append(txt(x + w - 4, y + 51, "obsolete", "xs b", "end"))
        for r, row in enumerate(f.get("rows", [])):
            ry = y + 42 + r * 11
            slots = int(row["slots"])
            only = slots - int(row.get("flexible", 0))
            workers, machines = int(row["workers"]), int(row["machines"])
            pips = []
            for k in range(slots):  # a worker, a machine or an empty slot; square: a machine may go there
                px = x + 22 + k * 10
                held = " w" if k < workers else (" m" if k < workers + machines else "")
                if k >= only:
                    pips.append(f'<rect x="{px - 3.5:.4g}" y="{ry + 1:.4g}" class="p{held}"/>')
                else:
                    pips.append(f'<circle cx="{px:.4g}" cy="{ry + 4.5:.4g}" class="p{held}"/>')
            number = txt(x + 5, ry + 8, f"{r + 1}", "xs b" if row.get("complete") else "xs")
            mine = s.claim(_is("hire_workers", "place_machine", good=g, row=r + 1))
            shape = hit(mine, x + 1, ry, w - 2, 10) + number + "".join(pips)
            desc = (
                f"{good(g).capitalize()} row {r + 1}: {workers} workers, {machines} machines, "
                f"{slots - workers - machines} empty" + (" (complete)" if row.get("complete") else "")
            )
            out.append(table.target(mine, shape, desc))
        return "".join(out)

    def _holdings(self, s: Seat, x: float, y: float, w: float) -> tuple[str, float]:
        table, p, decides = s.table, s.player, s.decides
        out = [self._warehouse(s, x, y)]
        out.append(self._contracts(s, x + 82, y))
        ty = y + 76  # below the warehouse's five rows
        out.append(txt(x, ty + 9, "Tiles", "s b"))
        cx = x + 30
        for t in p.get("development_tiles", []):
            tile = t["tile"]
            mine = s.claim(_tile_use(tile))
            name = tile_name(tile) + (f" ({good(t['assigned'])})" if t.get("assigned") else "")
            small = p.get("warehouse", {}).get("small_warehouse")
            if tile == "SMALL_WAREHOUSE" and small is not None:  # the tile is the warehouse: its goods
                name += " (" + (", ".join(f"{n} {good(g)}" for g, n in small.items() if n) or "empty") + ")"
            cw = text_width(name, 9) + 8
            if cx + cw > x + w:
                cx, ty = x + 30, ty + 13
            chip = rect(cx, ty, cw, 12, "chip tile") + txt(cx + 4, ty + 9, name, "xs")
            label = f"Your {tile_name(tile).lower()} tile" if decides else name
            out.append(table.target(mine, chip, label, tip=tile_tip(tile)))
            cx += cw + 3
        if not p.get("development_tiles"):
            out.append(txt(x + 30, ty + 9, "none", "xs muted"))
        ty += 14
        out.append(txt(x, ty + 9, "Piers", "s b"))
        ships = p.get("ships", [])
        pw = min(86.0, (w - 32) / C.piers)
        for k in range(C.piers):
            px = x + 30 + k * (pw + 3)
            if k < len(ships):
                sh = ships[k]
                mine = s.claim(_is("release_ship", ship=sh["ship"]))
                shown = f"{sh['capacity']} goods, crew {sh['crew']}"
                chip = rect(px, ty, pw, 12, "chip ship") + txt(px + 4, ty + 9, shown, "xs")
                out.append(
                    table.target(mine, chip, f"The {ship_name(sh['ship'])} at the pier, crew {sh['crew']}")
                )
            else:
                out.append(rect(px, ty, pw, 12, "chip empty") + txt(px + 4, ty + 9, "empty pier", "xs muted"))
        return "".join(out), ty + 14 - y

    def _warehouse(self, s: Seat, x: float, y: float) -> str:
        """The large warehouse: a column per good, five rows; its workers on the edges."""
        table = s.table
        wh = s.player.get("warehouse", {})
        out = [txt(x, y + 9, "Warehouse", "s b")]
        gx, gy, cell = x + 12, y + 22, 10
        cols = set(wh.get("columns", []))
        rows = set(wh.get("rows", []))
        stock = wh.get("stock", {})
        capacity = wh.get("capacity", {})
        selling = s.claim(_is("sell_from_warehouse"))
        for k, g in enumerate(GOODS):
            edge = f"col:{g}"
            mine = s.claim(_edge(edge))
            shape = (
                f'<rect x="{gx + k * cell:.4g}" y="{gy - 9:.4g}" class="edge h{" on" if g in cols else ""}"/>'
            )
            who = "a worker" if g in cols else "no worker"
            out.append(table.target(mine, shape, f"The warehouse's {edge_name(edge)}: {who}"))
            held = int(stock.get(g, 0))
            cells: dict[bool, list[str]] = {False: [], True: []}  # a path of the usable, one of the rest
            goods = []
            for r in range(5):
                usable = g in cols or (r + 1) in rows
                cy = gy + (4 - r) * cell
                cells[usable].append(f"M{gx + k * cell:.4g} {cy:.4g}h9v9h-9z")
                if r < held:
                    goods.append(
                        f'<circle cx="{gx + k * cell + 4.5:.4g}" cy="{cy + 4.5:.4g}" fill="{GOOD_FILL[g]}" class="gt"/>'
                    )
            column = [
                f'<path d="{"".join(d)}" class="wc{" on" if on else ""}"/>' for on, d in cells.items() if d
            ] + goods
            mine = s.claim(_is("sell_stored_goods", good=g))
            label = f"{good(g).capitalize()} in the warehouse: {held} of {capacity.get(g, 0)}"
            out.append(table.target(mine, "".join(column), label))
        for r in range(5):
            edge = f"row:{r + 1}"
            mine = s.claim(_edge(edge))
            on = (r + 1) in rows
            shape = (
                f'<rect x="{gx - 9:.4g}" y="{gy + (4 - r) * cell:.4g}" class="edge v{" on" if on else ""}"/>'
            )
            out.append(
                table.target(
                    mine, shape, f"The warehouse's {edge_name(edge)}: {'a worker' if on else 'no worker'}"
                )
            )
        if selling:
            shape = rect(x, y, 4 * cell + 14, 5 * cell + 24, "hit")
            out.append(table.target(selling, shape, "Sell from your warehouses"))
        return "".join(out)

    def _contracts(self, s: Seat, x: float, y: float) -> str:
        table, v, p = s.table, s.table.view, s.player
        two = len(v.get("players", [])) == 2
        track = C.contract_track_2p if two else C.contract_track
        held = p.get("contracts", {})
        sale = v.get("sale") or {}
        out = [txt(x, y + 9, "Contracts", "s b")]
        out += [txt(x + 63 + j * 16, y + 9, space, "xs", "middle") for j, space in enumerate(track)]
        for k, g in enumerate(GOODS):
            ry = y + 13 + k * 11
            mine = s.claim(_delivery(g, sale.get("good")))
            at = held.get(g)
            where = f"Your {good(g)} contract: " + (f"on the {at} space" if at else "none")
            out.append(table.target(mine, hit(mine, x, ry, 42, 10) + txt(x, ry + 8, good(g), "xs"), where))
            empty = []  # the row's empty spaces no decision acts on: one path
            for j, space in enumerate(track):
                cx = x + 56 + j * 16
                mine = s.claim(_is("place_contract", good=g, space=space))
                if not mine and at != space:
                    empty.append(f"M{cx:.4g} {ry:.4g}h14v9h-14z")
                    continue
                cell = f'<rect x="{cx:.4g}" y="{ry:.4g}" class="cc{" on" if at == space else ""}"/>'
                out.append(table.target(mine, cell, f"The {space} space of the {good(g)} contracts"))
            if empty:
                out.append(f'<path d="{"".join(empty)}" class="cc"/>')
        return "".join(out)


@functools.cache
def _track(y: float, per_row: int = 40) -> str:
    """The share-value track's spaces, each with its value (the same on every board). A space's
    size is the style sheet's (``.shares rect``: 22.6 by 16, the width at 40 a row). A row's
    spaces, then its values, are a group moved to their line: none needs a ``y`` of its own."""
    cw = (W - 56) / per_row
    spaces: dict[int, list[str]] = {}
    values: dict[int, list[str]] = {}
    for space in range(C.share_min, C.share_max + 1):
        row, col = divmod(space - 1, per_row)
        sx = 56 + col * cw
        start = ' class="start"' if space == C.share_start else ""
        spaces.setdefault(row, []).append(f'<rect x="{sx:.4g}"{start}/>')
        values.setdefault(row, []).append(f'<text x="{sx + cw / 2 - 0.5:.4g}">{C.share_value(space)}</text>')
    out = []
    for row, cells in spaces.items():
        top = y + 16 + row * 34
        out.append(f'<g transform="translate(0 {top:g})">{"".join(cells)}</g>')
        out.append(f'<g transform="translate(0 {top + 11.5:g})">{"".join(values[row])}</g>')
    return f'<g class="track shares">{"".join(out)}</g>'


def hit(decisions: Sequence[Decision], x: float, y: float, w: float, h: float) -> str:
    """The clickable area of a thing that decisions act on (nothing when none does)."""
    return rect(x, y, w, h, "hit") if decisions else ""


def turn_order(
    table: Table,
    x: float,
    names: Callable[[Decision], Any],
    *,
    first: float,
    widest: float,
    gap: float,
    right: float = W,
    mark: Callable[[int, float, float, float], str] = token,
) -> str:
    """The header's turn order from ``x``: each seat's ``mark`` (its token) and name, the start
    player's marked, the first ``first`` on from ``x`` and each an equal share of the room up to
    ``right`` (at most ``widest``, its clickable area ``gap`` narrower); below, who is awaited.
    A decision naming the next start player (``names(d)``: the seat it names, None for any other
    decision) stands on that seat's name."""
    v = table.view
    out = [txt(x, 14, "Turn order", "s b")]
    order = v.get("turn_order", [])
    choosing = table.claim(lambda d: names(d) is not None)
    step = min(widest, (right - x - first) / max(1, len(order)))
    room = max(4, int((step - 12) / 6.2))  # the characters of a name that fit its share
    start_player = v.get("start_player")
    for k, seat in enumerate(order):
        tx = x + first + k * step
        mine = [d for d in choosing if names(d) == seat]
        name = table.who(seat)
        shown = name if len(name) <= room else name[: room - 1] + "…"
        start = seat == start_player  # named on the line below
        shape = mark(seat, tx, 10, 4.5) + txt(tx + 8, 14, shown, "s")
        label = f"{name}{' (start player)' if start else ''}, {k + 1}. in turn order"
        out.append(table.target(mine, hit(mine, tx - 7, 2, step - gap, 15) + shape, label))
    below = [f"Start: {table.who(start_player)}"] if start_player is not None else []
    awaiting = ", ".join(table.who(s) for s in table.awaiting)
    if awaiting:
        below.append(f"waiting for {awaiting}")
    if below:
        out.append(txt(x, 29, " · ".join(below), "s"))
    return "".join(out)


def _start_named(d: Decision) -> Any:
    """The seat a decision names the next start player (the charisma tile's, or the choice)."""
    return d.get("seat") if d.get("type") in ("choose_start_player", "use_charisma") else None


def _ship_taken(ids: set[str]) -> Callable[[Decision], bool]:
    return lambda d: d.get("type") == "take_ship" and d.get("ship") in ids


def _reuse(marker: str) -> Callable[[Decision], bool]:
    return lambda d: d.get("type") == "reuse_marker" and _marker_of(d) == marker


def _place(marker: str) -> Callable[[Decision], bool]:
    return lambda d: d.get("type") == "place_marker" and _marker_of(d) == marker


def _edge(edge: str) -> Callable[[Decision], bool]:
    """The warehouse worker decisions acting on one edge (hire onto it, release it, move it away)."""
    return lambda d: (
        (d.get("type") in ("hire_warehouse_worker", "release_warehouse_worker") and d.get("edge") == edge)
        or (d.get("type") == "move_warehouse_worker" and d.get("from_edge") == edge)
    )


TILE_USES = {
    "PATENT": ("use_patent",),
    "FOREMAN": ("reassign_tile",),
    "WORKSHOP": ("reassign_tile",),
    "BROKER": ("use_broker",),
    "EXTRA_SHIFTS": ("use_extra_shifts",),
    "SCHOOL": ("close_last_row",),
    "CHARISMA": ("use_charisma",),
}


def _tile_use(tile: str) -> Callable[[Decision], bool]:
    """The decisions a tile of one's own is used for."""
    uses = TILE_USES.get(tile, ("patron_sale",) if tile.startswith("PATRON_") else ())
    return lambda d: d.get("type") in uses and d.get("tile", tile) == tile


def _delivery(g: str, sale_good: Any) -> Callable[[Decision], bool]:
    """Delivering a contract of this good (ship action), or shipping it in its production phase."""
    return lambda d: (
        (d.get("type") == "deliver_contract" and d.get("good") == g)
        or (d.get("type") == "ship_contract" and bool(d.get("fulfil")) and sale_good == g)
    )


def _marker_of(d: Mapping[str, Any]) -> str:
    if d.get("ship"):
        return f"SHIP:{d['ship']}"
    return f"{d.get('shade', 'OWN')}:{d.get('action')}"


SHORT = {
    "FACTORY": "Factory",
    "WORKERS": "Workers",
    "MACHINERY": "Machines",
    "QUALITY": "Quality",
    "DISTRIBUTION": "Distrib.",
    "STOCK_EXCHANGE": "Stocks",
    "PRODUCTION": "Produce",
}


def _short_marker(marker: str) -> str:
    shade, _, action = marker.partition(":")
    if shade == "SHIP":
        return f"ship ({ship_name(action).split('-')[0]})"
    word = SHORT.get(action, action.lower())
    # light and dark grey markers: "Lt." with a capital, as "lt" read as "It" on the board
    return {"LIGHT": "Lt. ", "DARK": "Dk. "}.get(shade, "") + word


RENDERER = WaterFrameBoard()

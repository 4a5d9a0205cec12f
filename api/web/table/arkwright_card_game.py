"""Arkwright: The Card Game's table, drawn in SVG from the seat's view.

From top to bottom: the decade, round, active good, step, start player and turn order; the
home market (each company's appeal marker on the appeal scale, the neutral company's at two
players, and the demand of each good), the wage and the share values; the development supply
with each card's effect; then each player's board: money, shares, loans, ships and shipping
tokens, the development tracks, the development cards held, and the factories as cards (decade
side, the factory token's spot with its price and appeal, office card, worker cards with their
workers and machines, quality and distribution cards, storehouses and the Foreman), and the
reserve.

Every listed decision is claimed by the thing it acts on (``Table.claim``); what acts on
nothing drawn (an action to choose, finishing a step) stands in the list in words.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from api.web.table.arkwright_card_game_words import (
    GOODS,
    MODE,
    ORDINAL,
    PRODUCTION_STAGE,
    ROMAN,
    STEP,
    WORDS,
    C,
    action_name,
    card_name,
    card_tip,
    distribution_card,
    good,
    phase_name,
    quality_card,
    storehouse,
    track_name,
    track_tip,
)
from api.web.table.base import Board, Decision, Seat, Table, fit, fit_first, text, text_width
from api.web.table.water_frame import GOOD_FILL, SEAT_FILL, hit, rect, turn_order, txt
from api.web.table.water_frame import token as _token
from ledger.games.arkwright_card_game.components import TRACKS
from ledger.games.vocabulary import counted

W = 1000
NEUTRAL_FILL = "#8a8a8a"


def _is(*types: str, **fields: Any) -> Callable[[Decision], bool]:
    return lambda d: d.get("type") in types and all(d.get(k) == v for k, v in fields.items())


def token(seat: int, x: float, y: float, r: float = 5.5) -> str:
    """A company's token (its colour and shape); the square one drawn as a polygon, so that the
    board's style sheet for rectangles does not paint it white."""
    if seat % 4 != 1:
        return _token(seat, x, y, r)
    pts = f"{x - r:g},{y - r:g} {x + r:g},{y - r:g} {x + r:g},{y + r:g} {x - r:g},{y + r:g}"
    return f'<polygon points="{pts}" fill="{SEAT_FILL[1]}" class="tok"/>'


def neutral(x: float, y: float, r: float = 5.5) -> str:
    """The neutral company's marker (two players): a grey hexagon."""
    pts = " ".join(
        f"{x + r * dx:.4g},{y + r * dy:.4g}"
        for dx, dy in ((1, 0), (0.5, 0.87), (-0.5, 0.87), (-1, 0), (-0.5, -0.87), (0.5, -0.87))
    )
    return f'<polygon points="{pts}" fill="{NEUTRAL_FILL}" class="tok"/>'


class CardGameBoard(Board):
    words = WORDS
    width = W

    def _shared(self, table: Table, v: Mapping[str, Any]) -> tuple[str, float]:
        out = [self._market(table, v, 0, 40)]
        out.append(self._tracks(table, v, 560, 40))
        supply, top = self._supply(table, v, 0, 172)
        out.append(supply)
        return "".join(out), top + 6

    # --- the decade, round, step and turn order -------------------------------------------

    def _header(self, table: Table, v: Mapping[str, Any]) -> str:
        out = [rect(0, 0, W, 34, "band")]
        decade_no = int(v.get("decade_number") or 1)
        bits = [f"{v.get('decade')} (decade {ROMAN.get(decade_no, decade_no)})"]
        if v.get("phase") != "finished":
            bits.append(f"round {v.get('round')} of 4: {good(v.get('active_good'))}")
        out.append(txt(8, 14, " · ".join(bits), "h"))
        now = self._now(table, v)
        out.append(txt(8, 29, now or phase_name(v.get("phase")).capitalize(), "s"))
        out.append(turn_order(table, 560, _start_named, first=70, widest=100, gap=4, mark=token))
        return "".join(out)

    def _now(self, table: Table, v: Mapping[str, Any]) -> str:
        """What is happening: whose turn and which step, or the production under way, or the end."""
        scores = v.get("scores")
        if scores:
            return "Final scores: " + ", ".join(f"{table.who(i)} £{s}" for i, s in enumerate(scores))
        pr = v.get("production")
        if pr:
            at = pr.get("current")
            line = f"Production of {good(pr['good'])}"
            if at is not None:
                line += f": {table.who(at)}, {PRODUCTION_STAGE.get(pr.get('stage'), pr.get('stage'))}"
                made = pr.get("produced") or []
                if at < len(made):
                    line += f" ({counted(made[at], 'goods')} produced"
                    sold = pr.get("sold") or []
                    if at < len(sold) and sold[at]:
                        line += f", {sold[at]} sold"
                    left = pr.get("leftover") or []
                    if at < len(left) and left[at]:
                        line += f", {left[at]} left"
                    line += ")"
            return line
        t = v.get("turn")
        if t:
            line = f"{table.who(t['seat'])}'s turn, {STEP.get(t.get('step'), t.get('step'))}"
            if t.get("action"):
                line += f" ({action_name(t['action'])}, {counted(int(t.get('steps') or 0), 'steps')} done)"
            loose = t.get("goods_to_store")
            if loose:
                line += f"; {counted(loose['count'], good(loose['good']) + ' goods')} to store"
            return line
        return ""

    # --- the home market: appeal markers, demand ---------------------------------------------

    def _market(self, table: Table, v: Mapping[str, Any], x: float, y: float) -> str:
        m = v.get("market", {})
        demand = m.get("demand", {})
        appeal = m.get("appeal", {})
        neutral_at = m.get("neutral_appeal") or {}
        active = v.get("active_good")
        out = [
            _appeal_scale(),
            txt(x, y + 10, "Home market: each company's appeal (0 to 20) and the demand", "t"),
        ]
        cw = APPEAL_CELL
        sx = x + 62
        for k, g in enumerate(GOODS):
            ry = y + 16 + k * 28
            cls = "good active" if g == active else "good"
            out.append(rect(x, ry, 540, 25, cls, fill=GOOD_FILL[g]))
            out.append(txt(x + 5, ry + 11, good(g).capitalize(), "b"))
            if g == active:
                out.append(txt(x + 5, ry + 21, "this round", "xs"))
            out.append(_scale(sx, ry + 3))
            at: dict[int, list[str]] = {}
            for seat, a in sorted(appeal.get(g, {}).items(), key=lambda kv: int(kv[0])):
                at.setdefault(int(a), []).append(seat)
            for a, seats in at.items():
                for j, seat in enumerate(seats):
                    s = int(seat)
                    cx = sx + a * cw + cw / 2 - 0.5 + (j - (len(seats) - 1) / 2) * 5
                    tip = f"{table.who(s)}'s {good(g)} appeal marker: {a}"
                    out.append(f"<g><title>{text(tip)}</title>{token(s, cx, ry + 18, 3.8)}</g>")
            if g in neutral_at:
                a = int(neutral_at[g])
                cx = sx + a * cw + cw / 2 - 0.5
                tip = f"The neutral company's {good(g)} appeal marker: {a} (two players)"
                out.append(f"<g><title>{text(tip)}</title>{neutral(cx, ry + 18, 4)}</g>")
            d = int(demand.get(g, 0))
            tip = (
                f"Demand for {good(g)}: {d:+d}. Goods sell at home while the appeal reaches the demand; "
                "building moves it up, appeal moves it down."
            )
            out.append(
                f"<g><title>{text(tip)}</title>{txt(x + 536, ry + 12, f'{d:+d}', 'b', 'end')}"
                f"{txt(x + 536, ry + 22, 'demand', 'xs', 'end')}</g>"
            )
        return "".join(out)

    # --- the wage and the share values ---------------------------------------------------------

    def _tracks(self, table: Table, v: Mapping[str, Any], x: float, y: float) -> str:
        m = v.get("market", {})
        pos = int(m.get("wage_position", 0))
        out = [txt(x, y + 10, f"Wages: £{m.get('wage')} per worker", "t")]
        cw = 440 / len(C.wage_values)
        cells = []
        for i, wage in enumerate(C.wage_values):
            cells.append(
                f'<rect x="{x + i * cw:.4g}" y="{y + 16:.4g}" width="{cw - 1:.4g}" height="15"/>'
                f'<text x="{x + i * cw + cw / 2 - 0.5:.4g}" y="{y + 27:.4g}">{wage}</text>'
            )
        marker = f'<circle cx="{x + pos * cw + cw / 2 - 0.5:.4g}" cy="{y + 36:.4g}" class="p w"/>'
        cells.append(marker)
        tip = f"The wage track: position {pos} of {len(C.wage_values) - 1}, £{m.get('wage')} per worker"
        out.append(f'<g class="track"><title>{text(tip)}</title>{"".join(cells)}</g>')
        out.append(txt(x, y + 50, "Share values (£)", "t"))
        out.append(_share_scale(x, y + 56))
        span = C.share_max - C.share_min + 1
        cw = 440 / ((span + 1) // 2)
        at: dict[int, list[Mapping[str, Any]]] = {}
        for p in v.get("players", []):
            at.setdefault(int(p.get("share_value", 0)), []).append(p)
        for value, ps in at.items():
            row, col = divmod(value - C.share_min, (span + 1) // 2)
            for j, p in enumerate(ps):
                seat = int(p["seat"])
                cx = x + col * cw + 3 + j * 5
                tip = (
                    f"{table.who(seat)}: share value £{value}, {counted(int(p.get('shares', 0)), 'shares')} "
                    f"held, portfolio £{p.get('portfolio')}"
                )
                cy = y + 56 + row * 34 + 25
                out.append(f"<g><title>{text(tip)}</title>{token(seat, cx, cy, 3.8)}</g>")
        return "".join(out)

    # --- the development supply ---------------------------------------------------------------

    def _supply(self, table: Table, v: Mapping[str, Any], x: float, y: float) -> tuple[str, float]:
        supply = v.get("development_supply", [])
        counts: dict[str, int] = {}
        for c in supply:
            counts[c["card"]] = counts.get(c["card"], 0) + 1
        box = v.get("box", {})
        down = int(box.get("face_down", 0) or 0)
        head = f"Development supply: {counted(len(supply), 'cards')}"
        if down:
            head += f" ({down} more face down in the box)"
        out = [txt(x, y + 10, head, "t")]
        cx, cy = x, y + 15
        for card, n in counts.items():
            mine = table.claim(_is("take_development_card", card=card))
            name = card_name(card) + (f" \u00d7{n}" if n > 1 else "")
            cw = text_width(name) + 10
            if cx + cw > x + W:
                cx, cy = x, cy + 18
            chip = rect(cx, cy, cw, 15, "chip tile") + txt(cx + 5, cy + 11, name, "s")
            label = f"Take the {card_name(card)}" if mine else f"The {card_name(card)} in the supply"
            out.append(table.target(mine, chip, label, tip=card_tip(card)))
            cx += cw + 4
        if not counts:
            out.append(txt(x, y + 26, "empty", "s muted"))
        return "".join(out), cy + 18

    # --- a player's board ---------------------------------------------------------------------

    def _player(
        self, table: Table, v: Mapping[str, Any], p: Mapping[str, Any], x: float, y: float, w: float
    ) -> tuple[str, float]:
        seat = int(p["seat"])
        s = Seat(table, p, decides=table.actor == seat)
        cls = "pboard" + (" me" if seat == table.me else "") + (" awaited" if seat in table.awaiting else "")
        body: list[str] = []
        name = table.who(seat) + (" (you)" if seat == table.me else "")
        if p.get("eliminated"):
            name += " — out of the game"
        body.append(token(seat, x + 10, y + 11, 5))
        body.append(txt(x + 20, y + 15, name, "b"))
        body.append(txt(x + w - 6, y + 15, f"£{p.get('money')}", "b", "end"))
        ry = y + 21
        body.append(self._holdings(s, x + 6, ry, w - 12))
        ry += 32
        body.append(self._developments(s, x + 6, ry, w - 12))
        ry += 42
        cards, used = self._cards(s, x + 6, ry, w - 12)
        body.append(cards)
        ry += used
        factories, used = self._factories(s, x + 4, ry, w - 8)
        body.append(factories)
        ry += used
        reserve, used = self._reserve(s, x + 6, ry, w - 12)
        body.append(reserve)
        height = ry + used - y
        return rect(x, y, w, height, cls) + "".join(body), height

    def _holdings(self, s: Seat, x: float, y: float, w: float) -> str:
        table, p = s.table, s.player
        out = []
        third = (w - 8) / 3
        mine = s.claim(_is("buy_shares", "buy_starting_shares"))
        shares = int(p.get("shares", 0))
        shape = rect(x, y, third, 28, "chip") + txt(x + 4, y + 11, f"Shares: {shares}", "s b")
        shape += txt(x + 4, y + 23, f"value £{p.get('share_value')}", "xs")
        label = f"Shares: {shares} at £{p.get('share_value')}, portfolio £{p.get('portfolio')}"
        out.append(table.target(mine, shape, label))
        mine = s.claim(_is("take_loans"))
        loans = int(p.get("loans", 0))
        # four seats: the narrower box
        said = fit_first((f"Loans: {loans} of 9", f"Loans: {loans}/9"), third - 6, bold=True)
        shape = rect(x + third + 4, y, third, 28, "chip") + txt(x + third + 8, y + 11, said, "s b")
        shape += txt(x + third + 8, y + 23, fit_first(("with emergency", "+ emergency"), third - 6, 9), "xs")
        tip = (
            f"{counted(loans, 'loans')} (bank loans and emergency fund tokens together, at most 9); "
            "each costs its share value at the end"
        )
        out.append(table.target(mine, shape, f"Loans: {loans}", tip=tip))
        mine = s.claim(_is("regain_ships", "ship_goods", "ship_stored_goods"))
        ships, tokens = int(p.get("ships", 0)), int(p.get("shipping_tokens", 0))
        sx = x + 2 * third + 8
        shape = rect(sx, y, third, 28, "chip ship") + txt(sx + 4, y + 11, f"Ships: {ships}", "s b")
        shape += txt(sx + 4, y + 23, f"tokens {tokens} of 9", "xs")
        tip = (
            f"{counted(ships, 'ships')} available; {tokens} shipping tokens used (at most 9; each costs a "
            "share value step at the end)"
        )
        out.append(table.target(mine, shape, f"Ships: {ships}, shipping tokens {tokens}", tip=tip))
        return "".join(out)

    def _developments(self, s: Seat, x: float, y: float, w: float) -> str:
        table, p = s.table, s.player
        levels = p.get("developments", {})
        lifted = set(p.get("restrictions_lifted", []))
        out = []
        cw = (w - 6) / 2
        for i, track in enumerate(TRACKS):
            row, col = divmod(i, 2)
            tx, ty = x + col * (cw + 6), y + row * 13
            level = int(levels.get(track, 0))
            mine = s.claim(_is("take_development", track=track))
            pips = "".join(
                f'<circle cx="{tx + cw - 26 + k * 9:.4g}" cy="{ty + 6:.4g}" class="p{" w" if k <= level else ""}"/>'
                for k in range(C.levels_max + 1)
            )
            name = SHORT_TRACK.get(track, track_name(track).capitalize()) + (
                " (free)" if track in lifted else ""
            )
            value = C.track_values[i][level]
            shape = hit(mine, tx, ty - 1, cw, 13) + txt(tx + 2, ty + 9, f"{name} {value}", "xs") + pips
            label = f"Develop {track_name(track)}" if mine else track_tip(track, level)
            out.append(table.target(mine, shape, label, tip=track_tip(track, level)))
        return "".join(out)

    def _cards(self, s: Seat, x: float, y: float, w: float) -> tuple[str, float]:
        table, p = s.table, s.player
        held = p.get("development_cards", [])
        out = [txt(x, y + 9, f"Cards ({len(held)} of {p.get('card_limit')})", "s b")]
        cx, cy = x + 86, y  # the first row beside the heading, the others across the whole width
        for c in held:
            card = str(c["card"])
            mine = s.claim(functools.partial(_uses, card=card))
            name = card_name(card) + (" (used)" if c.get("rotated") else "")
            if c.get("good") and card == "FOREMAN":
                name += f" at {good(c['good'])}"
            cw = text_width(name, 9) + 8
            if cx + cw > x + w:
                cx, cy = x, cy + 14
                name = fit(name, w - 8, 9)
                cw = min(cw, w)
            chip = rect(cx, cy, cw, 12, "chip tile down" if c.get("rotated") else "chip tile")
            chip += txt(cx + 4, cy + 9, name, "xs")
            tip = card_tip(card) + (" It is rotated: used this decade." if c.get("rotated") else "")
            label = f"Your {card_name(card)}" if mine else name
            out.append(table.target(mine, chip, label, tip=tip))
            cx += cw + 3
        if not held:
            out.append(txt(x + 86, y + 9, "none", "xs muted"))
        return "".join(out), cy + 16 - y

    def _factories(self, s: Seat, x: float, y: float, w: float) -> tuple[str, float]:
        per_row = 2
        gap = 4
        fw = (w - gap * (per_row - 1)) / per_row
        fh = 150
        out = []
        factories = s.player.get("factories", [])
        for k, g in enumerate(GOODS):
            row, col = divmod(k, per_row)
            f = factories[k] if k < len(factories) else None
            out.append(self._factory(s, g, f, x + col * (fw + gap), y + row * (fh + gap), fw, fh))
        rows = (len(GOODS) + per_row - 1) // per_row
        return "".join(out), rows * (fh + gap)

    def _factory(
        self, s: Seat, g: str, f: Mapping[str, Any] | None, x: float, y: float, w: float, h: float
    ) -> str:
        table, v, seat, decides = s.table, s.table.view, int(s.player["seat"]), s.decides
        factory_decisions = (
            "build_factory",
            "upgrade_factory",
            "hire_worker",
            "place_foreman",
            "choose_starting_factory",
            "produce_extra",
        )
        if f is None:
            mine = s.claim(_is(*factory_decisions, good=g))
            said = fit_first(
                (f"{good(g).capitalize()}: in the reserve", f"{good(g).capitalize()}: reserve"), w - 8
            )
            shape = rect(x, y, w, h, "factory empty") + txt(x + w / 2, y + h / 2, said, "s muted", "middle")
            label = f"Your {good(g)} factory (in your reserve)" if decides else f"No {good(g)} factory"
            return table.target(mine, shape, label)
        out = [rect(x, y, w, h, "factory", GOOD_FILL[g])]
        pr = v.get("production") or {}
        selling = decides and pr.get("good") == g and pr.get("current") == seat
        mine = s.claim(_is(*factory_decisions, good=g))
        mine += table.claim(_is("sell_goods")) if selling else []
        side = int(f.get("side", 1))
        title = f"{good(g).capitalize()} {ROMAN.get(side, side)}" + (" · Foreman" if f.get("foreman") else "")
        head = hit(mine, x + 1, y + 1, w - 2, 14) + txt(x + 4, y + 12, fit(title, w - 8, 11, bold=True), "b")
        tip = (
            f"{good(g).capitalize()} factory, decade {ROMAN.get(side, side)} side: price £{f['price']}, appeal "
            f"{f['appeal']}, {counted(int(f['goods']), 'goods')} a production, {counted(int(f['workers']), 'workers')}, "
            f"{counted(int(f['machines']), 'machines')}; fixed cost £{f['fixed_cost']}, shipping £{f['ship_price']} "
            "a good" + ("; the Foreman lies beside it" if f.get("foreman") else "")
        )
        label = f"Your {good(g)} factory" if mine else tip
        out.append(table.target(mine, head, label, tip=tip))
        # the factory token's spots: (price, appeal) each; the token on its spot
        spots = C.side(GOODS.index(g), side).spots
        sw = (w - 8) / len(spots)
        at = int(f.get("token_spot", 0))
        active = v.get("active_good") == g
        for i, (price, appeal) in enumerate(spots):
            spot = i + 1
            sx = x + 4 + i * sw
            mine = s.claim(_is("set_price_and_appeal", spot=spot)) if active else []
            on = spot == at
            shape = rect(sx, y + 17, sw - 3, 20, "admin used" if on else "admin")
            shape += txt(sx + (sw - 3) / 2, y + 26, f"£{price}", "xs b" if on else "xs", "middle")
            shown = f"appeal {appeal}" if sw >= 44 else (f"app. {appeal}" if sw >= 30 else str(appeal))
            shape += txt(sx + (sw - 3) / 2, y + 35, shown, "xs", "middle")
            if on:
                shape += token(seat, sx + 5, y + 22, 2.6)
            label = f"Spot {spot} of the {good(g)} factory: price £{price}, appeal {appeal}" + (
                " (the factory token is here)" if on else ""
            )
            out.append(table.target(mine, shape, label))
        office = MODE.get(str(f.get("office")), "price")
        narrow = w < 140
        line = f"Office on {office}" + ("" if narrow else f" · marker {f.get('appeal_marker')}")
        out.append(txt(x + 4, y + 48, line, "xs"))
        out.append(
            txt(
                x + 4,
                y + 59,
                fit(
                    f"{'' if narrow else 'Price '}£{f['price']} · appeal {f['appeal']} · {counted(int(f['goods']), 'goods')}",
                    w - 6,
                    9,
                    bold=True,
                ),
                "xs b",
            )
        )
        out.append(
            txt(
                x + 4,
                y + 70,
                fit(
                    f"Fixed £{f['fixed_cost']} · ship £{f['ship_price']}" + ("" if narrow else " a good"),
                    w - 6,
                    9,
                ),
                "xs",
            )
        )
        # worker cards
        cards = {int(c["position"]): c for c in f.get("worker_cards", [])}
        for k, position in enumerate(sorted(C.worker_cards)):
            wy = y + 74 + k * 13
            c = cards.get(position)
            mine = s.claim(_is("add_machine", good=g, position=position)) if c else []
            slots = C.worker_cards[position].workers
            if c is None:
                shape = rect(x + 4, wy, w - 8, 11, "chip empty") + txt(
                    x + 8, wy + 8.5, f"Worker card {position}: not yet", "xs muted"
                )
                out.append(shape)
                continue
            machines = int(c.get("machines", 0))
            pips = "".join(
                f'<circle cx="{x + w - 12 - k2 * 9:.4g}" cy="{wy + 5.5:.4g}" class="p{" m" if k2 < machines else " w"}"/>'
                for k2 in range(slots)
            )
            csides = ROMAN.get(int(c.get("side", 1)), c.get("side"))
            shape = rect(x + 4, wy, w - 8, 11, "chip") + txt(
                x + 8, wy + 8.5, f"Worker card {position} ({csides})", "xs"
            )
            desc = (
                f"Worker card {position} of the {good(g)} factory, decade {csides} side: "
                f"{counted(slots - machines, 'workers')}, {counted(machines, 'machines')}"
            )
            out.append(table.target(mine, shape + pips, desc))
        # quality and distribution cards, storehouses
        ty = y + 101
        out.append(self._card_row(s, g, f, x + 4, ty, w - 8, "quality"))
        out.append(self._card_row(s, g, f, x + 4, ty + 16, w - 8, "distribution"))
        out.append(self._stores(s, f.get("storehouses", []), g, x + 4, ty + 32, w - 8))
        return "".join(out)

    def _card_row(
        self, s: Seat, g: str, f: Mapping[str, Any], x: float, y: float, w: float, kind: str
    ) -> str:
        """The quality (or distribution) cards at a factory: each card (click: back to the reserve),
        and the row itself (click: put a card here)."""
        table = s.table
        quality = kind == "quality"
        cards = f.get(kind, [])
        out = []
        chips = []
        cx = x + 2
        total = sum(int(c.get("value", 0)) for c in cards)
        short_head = text_width(f"{kind[0].upper()} {total}", 9, bold=True) + 6

        def said(c: Mapping[str, Any], short: int) -> str:
            """A card's chip: "Engineer 1 appeal", shorter for a crowded row ("Eng. 1 app.", then
            "E 1 ap", "E1a"; in full on hover)."""
            name = _chip_name(c["card"]).strip()
            mode = MODE.get(str(c.get("mode")), "") if quality else ""
            if short >= 5:
                return f"{name[:1]}{c['value']}{mode[:1]}"
            if short >= 1 and name:
                name = name[:1] if short >= 4 else name[:3] + "."
            if short >= 2 and mode:
                mode = mode[:2] if short >= 4 else mode[:3] + "."
            return " ".join(p for p in (name, str(c["value"]), mode) if p)

        # the fullest chips that fit beside the row's total; from level 3 on the total gives way
        # (it is on hover)
        level = next(
            (
                k
                for k in range(6)
                if sum(text_width(said(c, k), 9) + 9 for c in cards) <= w - 2 - (short_head if k < 3 else 0)
            ),
            5,
        )
        for c in cards:
            back = s.claim(_is(f"set_{kind}_card", card=c["card"], good=None))
            name = quality_card(c["card"]) if quality else distribution_card(c["card"])
            shown = said(c, level)
            cw = text_width(shown, 9) + 6
            chip = rect(cx, y + 1, cw, 12, "chip mk") + txt(cx + 3, y + 10, shown, "xs")
            what = f"{name[:1].upper()}{name[1:]}: value {c['value']}" + (
                f" on its {MODE.get(c.get('mode'), '')} side" if quality else ""
            )
            chips.append(table.target(back, chip, f"{what} (put it back in your reserve)" if back else what))
            cx += cw + 3
        if quality:
            mine = s.claim(
                lambda d: (
                    (d.get("type") == "set_quality_card" and d.get("good") == g)
                    or (
                        d.get("type") == "place_replacement_quality"
                        and ((table.view.get("turn") or {}).get("engineer_replacement") or {}).get("good")
                        == g
                    )
                )
            )
        else:
            mine = s.claim(_is("set_distribution_card", good=g))
        head = f"{kind.capitalize()} {total}"
        if text_width(head, 9, bold=True) > x + w - 4 - cx:  # the cards leave no room: "Q 2"
            head = f"{kind[0].upper()} {total}"
        shape = hit(mine, x, y, w, 14) + (txt(x + w - 2, y + 10, head, "xs b", "end") if level < 3 else "")
        label = f"The {kind} of the {good(g)} factory: {total}"
        out.append(
            table.target(
                mine,
                shape,
                label,
                tip=label
                + (
                    "; "
                    + ", ".join(
                        (quality_card(c["card"]) if quality else distribution_card(c["card"]))
                        + f" {c['value']}"
                        for c in cards
                    )
                    if cards
                    else ""
                ),
            )
        )
        if not cards:
            out.append(txt(x + 2, y + 10, "none", "xs muted"))
        return "".join(out) + "".join(chips)

    def _stores(
        self, s: Seat, stores: Sequence[Mapping[str, Any]], g: str | None, x: float, y: float, w: float
    ) -> str:
        table = s.table
        out = []
        cx = x + 2
        held = [(int(st.get("goods", 0)), 4 if st["storehouse"] == "BIG" else 2) for st in stores]
        big = ["big " if st["storehouse"] == "BIG" else "" for st in stores]
        wordings = [  # the fullest that fits the factory's width: one, two or three side by side
            [
                f"{_chip_name(st['storehouse'])}{n} of {cap}"
                for st, (n, cap) in zip(stores, held, strict=True)
            ],
            [f"{b}store {n}/{cap}" for b, (n, cap) in zip(big, held, strict=True)],
            [f"{b}{n}/{cap}" for b, (n, cap) in zip(big, held, strict=True)],
        ][0 if len(stores) == 1 else 1 :]
        labels = next(
            (ws for ws in wordings if sum(text_width(t, 9) + 11 for t in ws) <= w - 2), wordings[-1]
        )
        for st, (n, cap), shown in zip(stores, held, labels, strict=True):
            mine = s.claim(_is("store_goods", storehouse=st["storehouse"]))
            cw = text_width(shown, 9) + 8
            chip = rect(cx, y + 1, cw, 12, "chip ship") + txt(cx + 4, y + 10, shown, "xs")
            where = f"at the {good(g)} factory" if g else "in your reserve"
            sh = storehouse(st["storehouse"])
            label = f"{sh[:1].upper()}{sh[1:]} {where}: {n} of {cap} goods"
            out.append(table.target(mine, chip, label))
            cx += cw + 3
        if not stores and g:
            out.append(txt(x + 2, y + 10, "no storehouse here", "xs muted"))
        return "".join(out)

    def _reserve(self, s: Seat, x: float, y: float, w: float) -> tuple[str, float]:
        r = s.player.get("reserve", {})
        lines = []
        for kind, cards, extra in (
            ("quality", r.get("quality", []), "ENGINEER"),
            ("distribution", r.get("distribution", []), "PATENT"),
        ):
            numbered = [ORDINAL.get(c[1:], c[1:]) for c in cards if c != extra]
            named = [f"{which} {kind} card" for which in numbered]
            if len(numbered) > 1:
                named = [f"{', '.join(numbered[:-1])} and {numbered[-1]} {kind} cards"]
            named += [f"the {extra.capitalize()}"] if extra in cards else []
            if named:
                lines.append(" and ".join(named))
        lines = lines or ["no cards"]
        tip = "In the reserve: " + "; ".join(lines)
        shown = "".join(
            txt(
                x if k == 0 else x + 38,
                y + 10 + k * 10,
                fit(("Reserve: " if k == 0 else "") + line, w - 38, 9),
                "xs",
            )
            for k, line in enumerate(lines)
        )
        out = [f"<g><title>{text(tip)}</title>{shown}</g>"]
        top = y + 2 + len(lines) * 10
        stores = [{"storehouse": s, "goods": 0} for s in r.get("storehouses", [])]
        if stores:
            out.append(self._stores(s, stores, None, x, top, w))
            return "".join(out), top - y + 16
        return "".join(out), top - y + 4


def _start_named(d: Decision) -> Any:
    """The seat a decision names the next start player (the choice, or the Entrepreneur's)."""
    if d.get("type") == "choose_start_player":
        return d.get("seat")
    return d.get("start_player") if d.get("type") == "discard_entrepreneur" else None


def _uses(d: Decision, card: str) -> bool:
    """The decisions a held development card is used for (its own, or the Developer reactivating it)."""
    t = d.get("type")
    if t in ("discard_development_card", "use_developer", "use_patron"):
        return bool(d.get("card") == card)
    own = {
        "EXTRA_SHIFT": ("use_extra_shift",),
        "BROKER": ("use_broker",),
        "INVENTOR": ("use_inventor", "upgrade_with_inventor"),
        "ENTREPRENEUR": ("break_tie_with_entrepreneur",),
    }.get(card, ())
    if t == "break_tie_with_entrepreneur":
        return card == "ENTREPRENEUR" and bool(d.get("use"))
    return t in own


def _chip_name(code: str) -> str:
    """What a card's chip says before its value: nothing for the three quality and two
    distribution cards (their names are on hover), the extra cards' and storehouses' names."""
    return {
        "ENGINEER": "Engineer ",
        "PATENT": "Patent ",
        "BIG": "big store: ",
        "S1": "store: ",
        "S2": "store: ",
    }.get(code, "")


SHORT_TRACK = {"DEV_CARDS": "Cards", "STOCK_EXCHANGE": "Stock exch.", "MACHINERY": "Machines"}


_SCALES: dict[tuple[float, float, float], str] = {}
APPEAL_CELL = 19.5


@functools.cache
def _appeal_scale() -> str:
    """The appeal scale 0..20, drawn once (in the board's definitions) and shown on every row."""
    cw = APPEAL_CELL
    span = range(C.appeal_min, C.appeal_max + 1)
    boxes = "".join(f'<rect x="{a * cw:.4g}" y="0" width="{cw - 1:.4g}" height="19" rx="1"/>' for a in span)
    numbers = "".join(f'<text x="{a * cw + cw / 2 - 0.5:.4g}" y="8">{a}</text>' for a in span)
    # the style sheet does not reach into a <use>: the scale carries its own look
    return (
        f'<defs><g id="acg-appeal"><g fill="#fff" stroke="#9c9483" stroke-width="0.7">{boxes}</g>'
        f'<g fill="#1b1b1b" font-size="9" text-anchor="middle" font-family="system-ui, sans-serif">'
        f"{numbers}</g></g></defs>"
    )


def _scale(x: float, y: float) -> str:
    return f'<use href="#acg-appeal" x="{x:.4g}" y="{y:.4g}"/>'


def _share_scale(x: float, y: float) -> str:
    key = (x, y, -1.0)
    if key not in _SCALES:
        span = C.share_max - C.share_min + 1
        per_row = (span + 1) // 2
        cw = 440 / per_row
        cells = []
        for value in range(C.share_min, C.share_max + 1):
            row, col = divmod(value - C.share_min, per_row)
            sx, sy = x + col * cw, y + row * 34
            cells.append(
                f'<rect x="{sx:.4g}" y="{sy:.4g}" width="{cw - 1:.4g}" height="15"/>'
                f'<text x="{sx + cw / 2 - 0.5:.4g}" y="{sy + 11:.4g}">{value}</text>'
            )
        _SCALES[key] = f'<g class="track">{"".join(cells)}</g>'
    return _SCALES[key]


RENDERER = CardGameBoard()

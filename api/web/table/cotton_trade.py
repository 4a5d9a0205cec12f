"""Cotton Trade 1800-1860's table, drawn in SVG from the seat's view.

From top to bottom: the round, stage (and its coins), phase and who is awaited; the turn-order
track, which is also the share-value track, with every company on it, and the cotton demand
row; the ship deck, the ship cards for rent, a card turned up and the share auction (advanced
game); the four regions of the world map, each with its war or peace, its harbour (coins,
passengers, VIP), its sailing track with the ships in their order, its contract row (face up,
face down, or face down and looked at by this seat) and its contract deck; then each company:
its coins in the three currencies (the stage's own first), wealth, ships and where they are,
the shares it holds, and its reputation (advanced game).

Every listed decision is claimed by the thing it acts on (``Table.claim``): a ship card to rent,
a region to sail to, a contract to buy or look at, a ship to keep, a share to auction, the
auctioned share to bid for. The rest (passing, declining, returning) stand in the list in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.web.table.base import Board, Table, fit, fit_first, text, text_width, wrap
from api.web.table.cotton_trade_words import (
    REGION,
    REGION_SHORT,
    WORDS,
    coins_text,
    contract_card,
    contract_text,
    money,
    phase_name,
    possessive,
    purpose_text,
    region,
    ship_card,
    ship_text,
    with_capacity,
)
from api.web.table.water_frame import _is, token, txt
from api.web.table.water_frame import rect as _rect
from ledger.games.cotton_trade.common import C
from ledger.games.cotton_trade.components import Region
from ledger.games.vocabulary import counted

W = 1000
REGIONS_TOP = 232
STATUS_FILL = {"closed": "ct-closed", "war": "ct-war", "peace": "ct-peace", "open": "ct-open"}
SHIP_FILL = "ct-ship"
CONTRACT_FILL = "ct-contract"
DOWN_FILL = "ct-down"
REP_SHORT = {
    "EGYPT": "Egypt",
    "NORTH_AMERICA": "N. America",
    "SOUTH_AMERICA_WI": "S. America",
    "BRITISH_INDIA": "India",
}
TOKEN_FILL = {"coins": "#f2c14e", "passengers": "#ffffff", "vip": "#cc79a7"}  # the harbour's tokens
CURRENCIES = ("pence", "shillings", "pounds")
STAGE = {"I": 0, "II": 1, "III": 2}


def rect(x: float, y: float, w: float, h: float, cls: str = "", fill: str = "") -> str:
    """A rectangle; ``fill`` is one of the style sheet's ``ct-`` classes (the page's security
    policy allows no inline style, and the style sheet's white wins over a fill attribute)."""
    return _rect(x, y, w, h, f"{cls} {fill}".strip())


class CottonTradeBoard(Board):
    words = WORDS
    width = W
    css = "ct"

    def _shared(self, table: Table, v: Mapping[str, Any]) -> tuple[str, float]:
        out = [self._track(table, v, 40)]
        out.append(self._demand(v, 590, 40))
        out.append(self._ships(table, v, 124))
        regions, region_h = self._regions(table, v, REGIONS_TOP)
        out.append(regions)
        return "".join(out), REGIONS_TOP + region_h + 10

    # --- round, stage, phase ------------------------------------------------------------------

    def _header(self, table: Table, v: Mapping[str, Any]) -> str:
        out = [rect(0, 0, W, 34, "band")]
        stage = v.get("stage", "I")
        bits = [
            f"Round {v.get('round')} of {C.rounds}",
            f"stage {stage}, paid in {v.get('currency')}",
            phase_name(v.get("phase")),
        ]
        out.append(txt(8, 15, " · ".join(bits), "h"))
        modules = v.get("modules", {})
        advanced = [
            w for k, w in (("shares_trade", "shares trade"), ("reputation", "reputation")) if modules.get(k)
        ]
        note = "Simple game" if not advanced else "Advanced game: " + " and ".join(advanced)
        out.append(txt(8, 29, note, "s muted"))
        awaiting = ", ".join(table.who(s) for s in table.awaiting)
        waiting = f"Waiting for {awaiting}" if awaiting else ""
        if waiting:
            out.append(txt(W - 8, 29, waiting, "s", "end"))
        # the turn order on the second line, after the note, in the room the waiting line leaves
        order = ", ".join(f"{k + 1}. {table.who(s)}" for k, s in enumerate(v.get("turn_order", [])))
        room = W - 8 - text_width(waiting) - 24 - (8 + text_width(note) + 16)
        out.append(txt(8 + text_width(note) + 16, 29, fit(f"Turn order: {order}", room), "s"))
        return "".join(out)

    # --- the turn-order track, which is the share-value track -----------------------------------

    def _track(self, table: Table, v: Mapping[str, Any], y: float) -> str:
        stage = STAGE.get(str(v.get("stage")), 0)
        currency = str(v.get("currency", "pence"))
        out = [txt(0, y + 10, "Turn order and share value", "t")]
        out.append(txt(200, y + 10, "(wealth up to … · share value)", "xs muted"))
        at: dict[int, list[Mapping[str, Any]]] = {}
        for p in v.get("players", []):
            at.setdefault(int(p.get("track_space", 1)), []).append(p)
        cw = 38.0
        for k, space in enumerate(C.track):
            sx = k * cw
            top = f"≤{space.max_wealth}" if space.max_wealth is not None else "more"
            value = money(space.share_value[stage], currency)
            tip = (
                f"Space {space.space}: wealth "
                + (f"up to {space.max_wealth}" if space.max_wealth is not None else "above 99")
                + f"; a share is worth {value} now"
                + (
                    f" ({', '.join(table.who(int(p['seat'])) for p in at[space.space])})"
                    if space.space in at
                    else ""
                )
            )
            cell = rect(sx, y + 15, cw - 2, 58, "")
            cell += txt(sx + cw / 2 - 1, y + 25, top, "xs muted", "middle")
            cell += txt(sx + cw / 2 - 1, y + 39, value, "b", "middle")
            for j, p in enumerate(at.get(space.space, [])):
                seat = int(p["seat"])
                cell += token(seat, sx + 7 + (j % 3) * 11, y + 52 + (j // 3) * 11, 4.2)
            out.append(f"<g><title>{text(tip)}</title>{cell}</g>")
        return "".join(out)

    # --- the cotton demand row ------------------------------------------------------------------

    def _demand(self, v: Mapping[str, Any], x: float, y: float) -> str:
        demand = v.get("demand", {})
        tokens = int(demand.get("tokens", 0))
        currency = str(v.get("currency", "pence"))
        row = C.demand_row
        out = [txt(x, y + 10, "Cotton demand", "t")]
        out.append(
            txt(
                W,
                y + 10,
                f"the next cotton sells for {money(demand.get('next_price'), currency)}",
                "s b",
                "end",
            )
        )
        cw = (W - x) / 15
        for i, price in enumerate(row):
            r, c = divmod(i, 15)
            cx, cy = x + c * cw, y + 15 + r * 29
            filled = i < tokens
            cell = rect(cx, cy, cw - 2, 27, "", "ct-filled" if filled else "")
            cell += txt(cx + cw / 2 - 1, cy + 11, money(price, currency), "xs", "middle")
            if filled:
                cell += f'<circle cx="{cx + cw / 2 - 1:.4g}" cy="{cy + 20:.4g}" r="4" fill="#f4f1ea" class="tok"/>'
            out.append(cell)
        tip = (
            f"The demand row: {tokens} of {len(row)} squares hold cotton. Cotton sold fills it from "
            f"the left at each square's price; a full row pays {money(C.guaranteed_price, currency)}."
        )
        out.append(f"<g><title>{text(tip)}</title>{rect(x, y + 14, W - x, 60, 'hit')}</g>")
        return "".join(out)

    # --- ship deck, ship row, a card turned up, the auction -------------------------------------------

    def _ships(self, table: Table, v: Mapping[str, Any], y: float) -> str:
        currency = str(v.get("currency", "pence"))
        out = [txt(0, y + 10, "Ships for rent", "t")]
        mine = table.claim(_is("reveal_top_ship"))
        deck = rect(0, y + 16, 64, 74, "", DOWN_FILL)
        deck += txt(32, y + 38, str(v.get("ship_deck", 0)), "big", "middle")
        deck += txt(32, y + 54, "in the deck", "xs", "middle")
        deck += txt(32, y + 66, f"{len(v.get('ship_discard', []))} discarded", "xs muted", "middle")
        out.append(
            table.target(
                mine,
                deck,
                "The ship deck: turn up its top card"
                if mine
                else f"The ship deck: {v.get('ship_deck', 0)} cards",
                tip=f"The ship deck: {v.get('ship_deck', 0)} cards, {len(v.get('ship_discard', []))} discarded",
            )
        )
        row = v.get("ship_row", [])
        cw = 78.0
        for k, sh in enumerate(row):
            sh = with_capacity(sh)
            sx = 72 + k * (cw + 4)
            mine = table.claim(_is("rent_ship", card=sh["card"]))
            out.append(
                table.target(
                    mine,
                    _ship_card(sh, sx, y + 16, cw, currency),
                    f"Rent {ship_card(sh['card'])}: {ship_text(sh, currency)}"
                    if mine
                    else f"{ship_card(sh['card'])}: {ship_text(sh, currency)}",
                    tip=f"{ship_card(sh['card']).capitalize()}: {ship_text(sh, currency)}",
                )
            )
        if not row:
            out.append(txt(80, y + 50, "no ship card left in the row", "s muted"))
        right = max(72 + len(row) * (cw + 4), 400)
        revealed = v.get("revealed")
        if revealed:
            out.append(self._revealed(table, revealed, right + 8, y, currency))
            right += 104
        out.append(self._auction(table, v, max(right + 12, 640), y))
        return "".join(out)

    def _revealed(self, table: Table, card: Mapping[str, Any], x: float, y: float, currency: str) -> str:
        out = [txt(x, y + 10, "Turned up", "s b")]
        if card.get("kind") == "ship":
            card = with_capacity(card)
            mine = table.claim(_is("take_revealed_ship", "discard_revealed_ship"))
            shape = _ship_card(card, x, y + 16, 96, currency)
            name = f"The ship card turned up, {ship_card(card['card'])}"
            out.append(table.target(mine, shape, name, tip=f"{name}: {ship_text(card, currency)}"))
        else:
            mine = table.claim(_is("take_revealed_contract", "discard_revealed_contract"))
            shape = _contract_card(card, x, y + 16, 96, 40, currency)
            name = f"The contract turned up, {contract_card(card['card'])}"
            out.append(table.target(mine, shape, name, tip=f"{name}: {contract_text(card, currency)}"))
        return "".join(out)

    def _auction(self, table: Table, v: Mapping[str, Any], x: float, y: float) -> str:
        a = v.get("auction")
        pay = v.get("payment")
        out: list[str] = []
        w = W - x
        if pay:
            who = table.who(pay["seat"])
            line = (
                f"{who} is short of {money(pay['short'], pay['currency'])} for "
                f"{purpose_text(pay['purpose'])} and auctions a share"
            )
            out.append(txt(x, y + 10, "Paying by selling a share", "t"))
            for k, part in enumerate(wrap(line, w - 6, 10)):
                out.append(txt(x, y + 24 + 11 * k, part, "xs"))
        if not a:
            bank = v.get("bank_auction_queue", [])
            if bank and not pay:
                out.append(txt(x, y + 10, "The bank's shares to auction", "t"))
                out.append(
                    txt(x, y + 24, ", ".join(f"{table.who(s['company'])} {s['number']}" for s in bank), "xs")
                )
            return "".join(out)
        top = y + (40 if pay else 0)
        seller = "the bank" if a.get("seller") is None else table.who(a["seller"])
        out.append(txt(x, top + 10, "Share auction", "t"))
        mine = table.claim(_is("bid"))
        card = rect(x, top + 16, w, 62 if not pay else 40, "", "ct-auction")
        card += token(int(a["company"]), x + 12, top + 30, 5)
        card += txt(x + 22, top + 33, f"Share {a['number']} of {table.who(a['company'])}'s company", "s b")
        high = a.get("high_bid")
        standing = (
            f"high bid {coins_text(high)} by {table.who(a['high_bidder'])}"
            if high
            else f"from {seller}, opening above {a['standing']}d in value"
        )
        card += txt(x + 8, top + 47, standing, "xs")
        bidders = ", ".join(table.who(s) for s in a.get("bidders", []))
        if not pay:
            card += txt(x + 8, top + 60, f"still bidding: {bidders}", "xs")
            card += txt(x + 8, top + 72, "a bid is paid with exactly the coins bid", "xs muted")
        tip = (
            f"Share {a['number']} of {table.who(a['company'])}'s company, sold by {seller}; the standing "
            f"bid is worth {a['standing']} pence; still bidding: {bidders}"
        )
        label = f"Bid for share {a['number']} of {table.who(a['company'])}'s company"
        out.append(table.target(mine, card, label, tip=tip))
        return "".join(out)

    # --- the world map ----------------------------------------------------------------------------

    def _regions(self, table: Table, v: Mapping[str, Any], y: float) -> tuple[str, float]:
        out = [txt(0, y - 2, "Regions: harbours, ships in sailing order, contracts", "t")]
        regions = v.get("regions", [])
        threshold = v.get("war_threshold")
        shown = sum(
            int(c.get("unrest", 0)) for r in regions for c in r.get("contracts", []) if c.get("face_up")
        )
        out.append(txt(W, y - 2, f"War comes at unrest {threshold}; unrest face up now: {shown}", "s", "end"))
        gap = 6
        width = (W - gap * (len(regions) - 1)) / max(1, len(regions))
        rows = max([(len(r.get("contracts", [])) + 1) // 2 for r in regions] + [1])
        height = 116 + rows * 44
        for k, r in enumerate(regions):
            out.append(self._region(table, v, r, k * (width + gap), y + 4, width, height))
        return "".join(out), height + 4

    def _region(
        self,
        table: Table,
        v: Mapping[str, Any],
        r: Mapping[str, Any],
        x: float,
        y: float,
        w: float,
        h: float,
    ) -> str:
        code = str(r["region"])
        currency = str(v.get("currency", "pence"))
        war = r.get("war")
        status = (
            "war" if war == "WAR" else "peace" if war == "PEACE" else "open" if r.get("open") else "closed"
        )
        out = [rect(x, y, w, h, "", "ct-region")]
        out.append(rect(x, y, w, 34, "", STATUS_FILL[status]))
        out.append(txt(x + 6, y + 14, REGION_SHORT.get(code, region(code)), "t"))
        said = {
            "war": "at war: no ship may sail in",
            "peace": "peace after the war",
            "open": "open",
            "closed": "closed in stage I" if v.get("stage") == "I" else "closed",
        }[status]
        tickets = f"passengers pay {money(C.ticket.get(_region_enum(code), 0), currency)}"
        vip = C.vip_ticket.get(_region_enum(code))
        if vip:
            tickets += f", VIP {money(vip, currency)}"
        short = {"war": "at war: no sailing in", "peace": "peace after war"}.get(status, said)
        out.append(
            txt(
                x + 6,
                y + 28,
                fit_first(
                    (
                        f"{said} · {tickets}",
                        f"{short} · {tickets}",
                        f"{short} · {tickets.replace('passengers pay', 'fares')}",
                    ),
                    w - 12,
                    10,
                ),
                "xs",
            )
        )
        # the harbour
        hb = r.get("harbour", {})
        hy = y + 40
        harbour = txt(x + 6, hy + 10, "Harbour", "s b")
        hx = x + 62
        for n, what, fill in (
            (hb.get("coins", 0), "coins", TOKEN_FILL["coins"]),
            (hb.get("passengers", 0), "passengers", TOKEN_FILL["passengers"]),
            (hb.get("vip", 0), "VIP", TOKEN_FILL["vip"]),
        ):
            harbour += f'<circle cx="{hx + 5:.4g}" cy="{hy + 6:.4g}" r="5" fill="{fill}" class="tok"/>'
            count = counted(n, what)
            harbour += txt(hx + 13, hy + 10, count, "xs")
            hx += 18 + text_width(count, 10)
        tip = (
            f"{possessive(region(code))} harbour: {hb.get('coins', 0)} bonus coins, {hb.get('passengers', 0)} passengers, "
            f"{hb.get('vip', 0)} VIP passengers waiting for the ships that sail in"
        )
        out.append(f"<g><title>{text(tip)}</title>{harbour}</g>")
        # the sailing track: ships in their order
        ty = y + 58
        track = r.get("track", [])
        mine = table.claim(_is("sail_ship", region=code))
        slots = max(4, len(track) + (1 if mine else 0))
        # one row of ships under their numbers while a slot is wide enough for a token and its
        # digit; else two rows in reading order, each number before its ship where there is room
        # (on hover in any case); a narrower slot draws the token smaller
        rows = 1 if (w - 12) / slots >= 24 else 2
        per_row = -(-slots // rows)
        sw = min(44.0, (w - 12) / per_row)
        numbered = rows == 1 or sw >= 34
        lead = (16 if slots >= 10 else 12) if rows == 2 and numbered else 0  # the number's room
        rad = min(5.0, (sw - 14 - lead) / 2.2)
        shape = rect(x + 4, ty, w - 8, 30, "", "ct-track")
        for i in range(slots):
            row, col = divmod(i, per_row)
            sx = x + 8 + col * sw
            if rows == 1:
                shape += txt(sx + 2, ty + 9, f"{i + 1}", "xs muted")
            elif numbered and i < len(track):  # the free slot says "sail here" instead
                shape += txt(sx + 1, ty + 13 + row * 13, f"{i + 1}", "xs muted")
        for i, ship in enumerate(track):
            row, col = divmod(i, per_row)
            sx, sy = x + 8 + col * sw + lead, ty + (20 if rows == 1 else 9 + row * 13)
            cx = sx + rad + (1 if lead else 3)
            shape += token(int(ship["seat"]), cx, sy, rad)
            said = f"{ship['capacity']}" + ("·" if ship.get("stayed") else "")
            shape += txt(cx + rad + 2, sy + 4, said, "xs b")
        if mine:  # in the free slots, on the ships' (last) line
            room = x + w - 10 - (x + 8 + (len(track) - (rows - 1) * per_row) * sw)
            said = fit_first(("sail here", "here"), room, 10, bold=True)
            # the track as drawn, and over it the thing to tap: the track's box saying "sail
            # here" (its name then begins with those words, not with the slots' numbers)
            out.append(shape)
            shape = rect(x + 4, ty, w - 8, 30, "hit")
            shape += txt(x + w - 10, ty + (24 if rows == 1 else 26), said, "xs b", "end")
        where = "; ".join(
            f"{i + 1}. {table.who(int(s['seat']))}'s {s['capacity']}-cotton ship"
            + (" (stayed from last round)" if s.get("stayed") else "")
            for i, s in enumerate(track)
        )
        tip = f"Ships in {region(code)} in their order: " + (where or "none")
        label = f"Sail to {region(code)}" if mine else tip
        out.append(table.target(mine, shape, label, tip=tip))
        # the contract row
        cy = ty + 36
        contracts = r.get("contracts", [])
        out.append(txt(x + 6, cy + 9, "Contracts", "s b"))
        out.append(txt(x + w - 6, cy + 9, f"{r.get('contract_deck', 0)} in the deck", "xs muted", "end"))
        cw = (w - 14) / 2
        ch = 40.0
        for i, c in enumerate(contracts):
            col, row = i % 2, i // 2
            sx, sy = x + 5 + col * (cw + 4), cy + 14 + row * (ch + 4)
            if c.get("card"):
                mine = table.claim(_is("buy_contract", card=c["card"]))
                shape = _contract_card(c, sx, sy, cw, ch, currency)
                name = (
                    f"{contract_card(c['card']).capitalize()} in {region(code)}: {contract_text(c, currency)}"
                )
                if c.get("peeked"):
                    name += " (face down; you looked at it)"
                label = f"Buy {name[:1].lower()}{name[1:]}" if mine else name
                out.append(table.target(mine, shape, label, tip=name))
            else:
                mine = table.claim(_is("peek_contract", region=code, slot=i + 1))
                shape = rect(sx, sy, cw, ch, "", DOWN_FILL) + txt(
                    sx + cw / 2, sy + 24, "face down", "xs muted", "middle"
                )
                name = f"A face-down contract, place {i + 1} of {possessive(region(code))} row"
                label = WORDS.label(mine[0], table) if mine else name
                out.append(table.target(mine, shape, label, tip=name))
        if not contracts:
            out.append(txt(x + 8, cy + 30, "no contract in the row", "xs muted"))
        discard = len(r.get("contract_discard", []))
        out.append(txt(x + 6, y + h - 6, f"{counted(discard, 'contracts')} discarded", "xs muted"))
        return "".join(out)

    # --- each company ---------------------------------------------------------------------------

    def _player(
        self, table: Table, v: Mapping[str, Any], p: Mapping[str, Any], x: float, y: float, w: float
    ) -> tuple[str, float]:
        seat = int(p["seat"])
        decides = table.actor == seat
        currency = str(v.get("currency", "pence"))
        me = table.me == seat
        awaited = seat in table.awaiting
        out: list[str] = []
        name = table.who(seat) + (" (you)" if me else "")
        out.append(token(seat, x + 10, y + 11, 5.5))
        badge = text_width("to move", 10, bold=True) + 8 if awaited else 0
        out.append(txt(x + 20, y + 15, fit(name, w - 26 - badge, 11.5, bold=True), "t"))
        if awaited:
            out.append(txt(x + w - 6, y + 15, "to move", "badge", "end"))
        coins = p.get("coins", {})
        held = "  ".join(money(coins.get(c, 0), c) for c in reversed(CURRENCIES))
        spend, share = money(p.get("money", 0), currency), money(p.get("share_value"), currency)
        wealth = p.get("wealth")
        line = fit_first(  # the fullest wording that fits a narrow panel (six players)
            (
                f"{spend} to spend · wealth {wealth} · share {share}",
                f"{spend} to spend · wealth {wealth} · sh. {share}",
                f"{spend} · wealth {wealth} · share {share}",
                f"{spend} · wealth {wealth} · sh. {share}",
            ),
            w - 12,
            11,
        )
        out.append(
            f"<g><title>{text(f'Coins held: {coins_text(coins)}; this stage spends only {currency}')}</title>"
            f"{txt(x + 6, y + 30, line, 's')}</g>"
        )
        out.append(txt(x + 6, y + 43, f"coins held: {held}", "xs muted"))
        # ships: capacity, where, cargo
        sy = y + 50
        out.append(txt(x + 6, sy + 9, "Ships", "s b"))
        ships = p.get("ships", [])
        sx = x + 48
        for sh in ships:
            label = (
                f"{sh['capacity']}-cotton"
                + (" fast" if sh.get("fast") else "")
                + f" · {_where(sh['location'])}"
            )
            if sh.get("cargo"):
                label += f" · {sh['cargo']} cotton"
            label = fit(label, x + w - 4 - (x + 48) - 8, 10)  # a narrow panel (six players)
            cw = text_width(label, 10) + 8
            if sx + cw > x + w:
                sx, sy = x + 48, sy + 15
            mine = table.claim(_is("keep_new_ship", card=sh["card"])) if decides else []
            chip = rect(sx, sy, cw, 12, "chip ship") + txt(sx + 4, sy + 9, label, "xs")
            where = "in the United Kingdom" if sh["location"] == "UK" else f"in {region(sh['location'])}"
            desc = f"{ship_card(sh['card'])} {where}" + (
                f", loaded with {sh['cargo']} cotton" if sh.get("cargo") else ""
            )
            tip = f"{desc[:1].upper()}{desc[1:]}: {ship_text(sh, currency)}"
            lbl = f"Keep {ship_card(sh['card'])} as a Good ol' Ship" if mine else tip
            out.append(table.target(mine, chip, lbl, tip=tip))
            sx += cw + 3
        if not ships:
            out.append(txt(sx, sy + 9, "none", "xs muted"))
        # shares held
        sy += 16
        out.append(txt(x + 6, sy + 9, "Shares", "s b"))
        sx = x + 54
        for sh in p.get("shares", []):
            company, number = int(sh["company"]), int(sh["number"])
            mine = table.claim(_is("choose_share_to_sell", company=company, number=number)) if decides else []
            chip = (
                rect(sx, sy, 26, 12, "chip")
                + token(company, sx + 7, sy + 6, 3.5)
                + txt(sx + 13, sy + 9, f"{number}", "xs")
            )
            desc = f"Share {number} of {table.who(company)}'s company"
            out.append(
                table.target(mine, chip, f"Auction {desc[:1].lower()}{desc[1:]}" if mine else desc, tip=desc)
            )
            sx += 29
            if sx + 26 > x + w:
                sx, sy = x + 54, sy + 15
        if not p.get("shares"):
            out.append(txt(sx, sy + 9, "none", "xs muted"))
        sy += 16
        if v.get("modules", {}).get("reputation"):
            rep = p.get("reputation", {})
            parts = [f"{REP_SHORT[c]} {rep.get(c, 0)}" for c in REGION]
            line = fit("Reputation: " + ", ".join(parts[:2]), w - 12, 10)
            more = ", ".join(parts[2:])
            more = fit_first(
                (f"{more}; United Kingdom {rep.get('UK', 0)}", f"{more}; UK {rep.get('UK', 0)}"), w - 12, 10
            )
            tip = (
                "Reputation in each region (levels, at most 4) and in the United Kingdom (passenger tokens): "
                + ", ".join(f"{region(c)} {rep.get(c, 0)}" for c in REGION)
                + f", the United Kingdom {rep.get('UK', 0)}"
            )
            lines = txt(x + 6, sy + 9, line, "xs") + txt(x + 6, sy + 21, more, "xs")
            out.append(f"<g><title>{text(tip)}</title>{lines}</g>")
            sy += 26
        if p.get("separate_income"):
            out.append(txt(x + 6, sy + 9, f"kept apart from buy-backs: {p['separate_income']}", "xs"))
            sy += 14
        height = sy - y + 2
        cls = "pboard" + (" me" if me else "") + (" awaited" if awaited else "")
        return rect(x, y, w, height, cls) + "".join(out), height


def _ship_card(sh: Mapping[str, Any], x: float, y: float, w: float, currency: str) -> str:
    out = [rect(x, y, w, 74, "", SHIP_FILL)]
    out.append(txt(x + 5, y + 12, ship_card(sh["card"]).capitalize(), "xs muted"))
    out.append(txt(x + w - 5, y + 12, "fast" if sh.get("fast") else "", "xs b", "end"))
    out.append(txt(x + 5, y + 30, f"{sh['capacity']}", "big"))
    out.append(txt(x + 22, y + 30, "cotton", "xs"))
    extra = []
    if sh.get("cabins"):
        extra.append(counted(sh["cabins"], "cabins"))
    if sh.get("new"):
        extra.append("new")
    out.append(txt(x + 5, y + 43, " · ".join(extra), "xs"))
    out.append(txt(x + 5, y + 56, f"rent {money(sh.get('value', 0), currency)}", "xs"))
    out.append(txt(x + 5, y + 68, f"upkeep {money(sh.get('maintenance', 0), currency)}", "xs"))
    return "".join(out)


def _contract_card(c: Mapping[str, Any], x: float, y: float, w: float, h: float, currency: str) -> str:
    out = [rect(x, y, w, h, "", CONTRACT_FILL if c.get("face_up", True) else "ct-seen")]
    if c.get("drought"):
        out.append(txt(x + 5, y + 16, "Drought", "s b"))
        out.append(txt(x + 5, y + 30, "no cotton", "xs"))
    else:
        cotton, price = f"{c['cotton']} cotton", money(c["price"], currency)
        room = w - 16 - text_width(cotton, 11, bold=True)  # a narrow card: the price without "for"
        out.append(txt(x + 5, y + 16, cotton, "s b"))
        out.append(
            txt(x + w - 5, y + 16, fit_first((f"for {price}", price), room, 11, bold=True), "s b", "end")
        )
        if c.get("unrest"):
            out.append(txt(x + 5, y + 31, f"unrest {c['unrest']}", "xs"))
        bx = x + w - 5  # what it brings to the harbour, as the harbour's tokens, from the right
        for k in ("vip", "passengers", "coins"):
            if c.get(k):
                out.append(txt(bx, y + 31, f"{c[k]}", "xs b", "end"))
                out.append(
                    f'<circle cx="{bx - 12:.4g}" cy="{y + 27.5:.4g}" r="4.5" fill="{TOKEN_FILL[k]}" class="tok"/>'
                )
                bx -= 24
    if c.get("peeked"):
        out.append(txt(x + 5, y + h - 1, "seen", "xs muted"))
    return "".join(out)


def _where(location: str) -> str:
    return "home" if location == "UK" else REGION_SHORT.get(location, location).split(" ")[0]


def _region_enum(code: str) -> Region:
    return Region(code)


RENDERER = CottonTradeBoard()

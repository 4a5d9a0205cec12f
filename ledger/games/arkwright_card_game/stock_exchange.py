"""Action 5 (spec §3.1.5): the stock exchange: shares bought (some at the discount), bank loans,
the shipping card regained."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import STOCK_EXCHANGE
from ledger.games.arkwright_card_game.decisions import BuyShares, RegainShips, TakeLoans
from ledger.games.arkwright_card_game.economy import (
    RULE,
    C,
    Effects,
    buy_shares,
    can_hold_shares,
    change_loans,
    gain,
    in_action,
    set_player,
    step_done,
    track_allows,
    violation,
)
from ledger.games.arkwright_card_game.state import Player, State
from ledger.games.shared import replace


def share_cost(p: Player, discounted: int, full: int) -> int:
    return discounted * C.half(p.share_value) + full * p.share_value


def _in_step(s: State, step: int, order: str) -> None:
    """The action's steps come in order, each at most once: shares (1), loans (2), ships (3)."""
    if in_action(s, "STOCK_EXCHANGE").exchange >= step:
        raise violation("exchange_order", order, RULE["STOCK_EXCHANGE"])


def buy(s: State, seat: int, d: BuyShares, out: Effects) -> State:
    _in_step(s, 1, "Shares are bought once, before loans and regaining ships.")
    p = s.players[seat]
    if d.discounted + d.full < 1:
        raise violation("no_shares", "Buy at least one share.", RULE["STOCK_EXCHANGE"])
    if d.discounted > track_allows(p, STOCK_EXCHANGE):
        raise violation(
            "discount_limit",
            f"Your stock exchange development allows {track_allows(p, STOCK_EXCHANGE)} discounted share(s) per turn.",
            RULE["STOCK_EXCHANGE"],
        )
    cost = share_cost(p, d.discounted, d.full)
    if cost > p.money:
        raise violation(
            "cannot_afford", "You may not buy more shares than you can afford.", RULE["STOCK_EXCHANGE"]
        )
    if not can_hold_shares(p, d.discounted + d.full):
        raise violation("share_track_full", "The share track holds no more.", RULE["STOCK_EXCHANGE"])
    if d.discounted:
        s = buy_shares(s, seat, d.discounted, C.half(p.share_value), "stock_exchange_discount", out)
    if d.full:
        s = buy_shares(s, seat, d.full, p.share_value, "stock_exchange", out)
    return step_done(s, exchange=1)


def loans(s: State, seat: int, d: TakeLoans, out: Effects) -> State:
    _in_step(s, 2, "Loans come after buying shares and before ships.")
    p = s.players[seat]
    if p.loans + d.count > C.loans_max:
        raise violation(
            "loan_limit",
            f"At most {C.loans_max} loans (bank and emergency fund) in the game.",
            RULE["STOCK_EXCHANGE"],
        )
    s = change_loans(s, seat, d.count, "bank_loan", out)
    s = gain(s, seat, d.count * p.share_value, "bank_loan", out)
    return step_done(s, exchange=2)


def regain(s: State, seat: int, d: RegainShips, out: Effects) -> State:
    _in_step(s, 3, "Ships are regained once, as the last step.")
    p = s.players[seat]
    if p.ships >= C.ships_max:
        raise violation(
            "ships_available", "Your shipping card already shows 2 ships.", RULE["STOCK_EXCHANGE"]
        )
    s = set_player(s, replace(p, ships=C.ships_max))
    out.append(fx.ShipsChanged(seat=seat, ships=C.ships_max, reason="regained"))
    return step_done(s, exchange=3)


SHARE_COUNTS = 12  # share counts listed one by one; beyond, only the most affordable


def exchange_options(s: State, p: Player) -> list[Decision]:
    out: list[Decision] = []
    for disc in range(track_allows(p, STOCK_EXCHANGE) + 1):
        rest = p.money - disc * C.half(p.share_value)
        most = rest // p.share_value if p.share_value > 0 and rest >= 0 else 0
        for full in sorted({*range(min(most, SHARE_COUNTS) + 1), most}):
            if disc + full >= 1:
                out.append(BuyShares(discounted=disc, full=full))
    room = C.loans_max - p.loans
    out += [TakeLoans(count=n) for n in sorted({1, room}) if 1 <= n <= room]
    out.append(RegainShips())
    return out

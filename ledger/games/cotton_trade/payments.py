"""Paying for rent, contracts and maintenance (rulebook, Selling shares to obtain additional funds;
spec §5.12): money first, then shares sold to the bank one at a time, or with the shares trade
auctioned among the players until the cost is covered. A mandatory cost that cannot be met is
paid as far as possible and the rest waived (A-05); a voluntary purchase not covered is called off."""

from __future__ import annotations

from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade.common import (
    C,
    Effects,
    currency,
    current_ship,
    gain,
    money,
    own_shares,
    replace_ship,
    sell_to_bank,
    share_price,
    violation,
)
from ledger.games.cotton_trade.components import REGIONS
from ledger.games.cotton_trade.state import UK, ContractPurchase, Purpose, Ship, ShipRental, State
from ledger.games.shared import replace, set_at, set_player


def can_pay(s: State, seat: int, amount: int) -> bool:
    """A voluntary purchase is legal if money plus sellable shares cover it (Selling shares; A-04)."""
    available = money(s, seat)
    if s.options.share_sale_for_voluntary_purchases == "ALLOWED":
        # every share held, at its company's track price: what the bank pays at least
        # (shares trade: an auction may fetch more, or old-currency coins, A-30)
        available += adv.sale_estimate(s, seat)
    return available >= amount


def pay(s: State, seat: int, amount: int, reason: str, out: Effects, *, mandatory: bool) -> tuple[State, int]:
    """Pay ``amount`` in the stage currency, selling shares to the bank on a shortfall.

    Rulebook, Selling shares to obtain additional funds: shares are sold one at a
    time starting with no. 1, at the value of the company's space on the turn
    order track (the token does not move, A-24). A mandatory cost that cannot be
    met once no share is left is paid as far as possible and the rest waived
    (A-05). Returns the new state and the waived amount.
    """
    may_sell = mandatory or s.options.share_sale_for_voluntary_purchases == "ALLOWED"
    while money(s, seat) < amount and may_sell:
        own = own_shares(s, seat)
        if not own:
            break
        s = sell_to_bank(s, seat, own[0], share_price(s, seat), out, stage=s.stage, forced=False)
    have = money(s, seat)
    if have >= amount:
        return gain(s, seat, -amount, reason, out), 0
    if not mandatory:
        raise violation("cannot_afford", f"You cannot pay {amount} {currency(s)}.", "Selling shares")
    return gain(s, seat, -have, reason, out), amount - have


def charge(s: State, seat: int, amount: int, purpose: Purpose, out: Effects) -> State:
    """Pay a cost, then complete what it pays for (a ship rented, a contract bought, the
    maintenance; a voluntary purchase or a mandatory cost as the purpose says). With the
    shares trade a shortfall opens a payment: shares are auctioned one at a time (CT-D-07,
    CT-D-08) until the cost is covered (spec §5.12)."""
    mandatory = purpose.mandatory
    may_sell = mandatory or s.options.share_sale_for_voluntary_purchases == "ALLOWED"
    if s.options.shares_trade and money(s, seat) < amount and adv.sellable(s, seat) and may_sell:
        return adv.start_payment(s, seat, amount, purpose, mandatory=mandatory, out=out)
    s, waived = pay(s, seat, amount, purpose.reason, out, mandatory=mandatory)
    return complete_purchase(s, seat, purpose, amount, waived, out)


def complete_purchase(s: State, seat: int, purpose: Purpose, amount: int, waived: int, out: Effects) -> State:
    """What a paid cost buys: a ship, a contract, or the maintenance of the fleet."""
    n = s.players_count
    if isinstance(purpose, ShipRental):
        card = purpose.card
        ship = C.ships[card]
        p = s.players[seat]
        ships = tuple(
            sorted((*p.ships, Ship(card=card, capacity=ship.capacity, location=UK)), key=lambda x: x.capacity)
        )
        s = set_player(s, replace(p, ships=ships))
        s = replace(
            s,
            ship_row=tuple(c for c in s.ship_row if c != card),
            revealed="" if s.revealed == card else s.revealed,
            cursor=(s.cursor + 1) % n,
        )
        out.append(fx.ShipRented(seat=seat, card=card, capacity=ship.capacity, fee=amount))
    elif isinstance(purpose, ContractPurchase):
        card = purpose.card
        r, _, capacity = current_ship(s)
        contract = C.contracts[card]
        cargo = min(contract.cotton, capacity)
        s = replace_ship(s, seat, capacity, cargo=cargo)
        row = tuple(slot for slot in s.contract_row[r] if slot.card != card)
        s = replace(
            s,
            contract_row=set_at(s.contract_row, r, row),
            contract_discard=set_at(s.contract_discard, r, (*s.contract_discard[r], card)),
            revealed="" if s.revealed == card else s.revealed,
            cursor=s.cursor + 1,
        )
        out.append(
            fx.ContractBought(
                seat=seat,
                capacity=capacity,
                region=REGIONS[r].value,
                card=card,
                cost=amount,
                cargo=cargo,
                discarded=contract.cotton - cargo,
            )
        )
        s = adv.gain_reputation(s, seat, REGIONS[r].value, 1, "contract_bought", out)
    else:
        out.append(fx.MaintenancePaid(seat=seat, amount=amount, waived=waived))
        s = replace(s, cursor=s.cursor + 1)
    return s


def settle(s: State, out: Effects) -> State:
    """Shares trade: while the payer is short and holds a share, one is auctioned; then the
    cost is paid (a mandatory one as far as possible, A-05) or the purchase called off."""
    due = s.payment
    assert due is not None
    seat = due.seat
    options = adv.sellable(s, seat)
    if money(s, seat) < due.amount and options:
        if len(options) == 1:
            return adv.choose_share(s, seat, *options[0], out)
        return replace(s, awaiting=(seat,))
    s = replace(s, payment=None, phase=due.resume)
    if money(s, seat) < due.amount and not due.mandatory:
        out.append(
            fx.PurchaseCancelled(seat=seat, purpose=str(due.purpose), short=due.amount - money(s, seat))
        )
        return s
    s, waived = pay(s, seat, due.amount, due.purpose.reason, out, mandatory=due.mandatory)
    return complete_purchase(s, seat, due.purpose, due.amount, waived, out)

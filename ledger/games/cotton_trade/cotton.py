"""Cotton: 6. Buy cotton (a contract per ship, in region and track order; reputation's top
contract) and 7. Sell cotton (full ships return and sell on the demand row; empty ones return
or stay)."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.errors import RuleViolationError
from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade.board import turn_up
from ledger.games.cotton_trade.common import (
    C,
    Effects,
    currency,
    current_ship,
    gain,
    replace_ship,
    ship_of,
    violation,
    war_locked,
)
from ledger.games.cotton_trade.components import REGIONS, ContractCard
from ledger.games.cotton_trade.decisions import (
    BuyContract,
    DeclineContract,
    DiscardRevealedContract,
    ReturnShip,
    RevealTopContract,
    StayInRegion,
    TakeRevealedContract,
)
from ledger.games.cotton_trade.payments import can_pay, charge
from ledger.games.cotton_trade.state import UK, ContractPurchase, Phase, State
from ledger.games.shared import replace, set_at

# --- 6. Buy cotton ------------------------------------------------------------------------


def buy(s: State, out: Effects) -> State:
    """6. Buy cotton, in regions and ships order; ships with no purchase possible are skipped."""
    if s.revealed:  # a contract turned up by reputation waits to be bought or discarded
        r, seat, _ = current_ship(s)
        if s.revealed == "?":
            s = turn_up(s, seat, r, out)
        return replace(s, awaiting=(seat,))
    r, pos = s.cursor_region, s.cursor
    while r < len(REGIONS):
        track = s.tracks[r]
        if pos < len(track):
            seat, capacity = track[pos]
            if any(
                buyable(s, seat, capacity, r, slot.card) is None for slot in s.contract_row[r]
            ) or may_reveal_contract(s, seat, r):
                return replace(s, cursor_region=r, cursor=pos, awaiting=(seat,))
            out.append(
                fx.ContractDeclined(seat=seat, capacity=capacity, region=REGIONS[r].value, automatic=True)
            )
            pos += 1
            continue
        r, pos = r + 1, 0
    return replace(s, phase=Phase.SELL, cursor_region=0, cursor=0)


def contract_cost(card: ContractCard, capacity: int) -> int:
    """6. Buy cotton: a contract bigger than the ship costs one less."""
    return card.price - (C.oversized_discount if card.cotton > capacity else 0)


def buyable(
    s: State, seat: int, capacity: int, r: int, card_id: str, *, revealed: bool = False
) -> RuleViolationError | None:
    if card_id != s.revealed if revealed else card_id not in {slot.card for slot in s.contract_row[r]}:
        return violation(
            "contract_not_in_row",
            f"Contract {card_id} is not "
            + ("the card turned up." if revealed else "in this region's contract row."),
            "6. Buy cotton",
        )
    card = C.contracts[card_id]
    if card.drought or card.cotton == 0:
        return violation("drought", "A drought card has no cotton to buy (A-16).", "6. Buy cotton, Drought")
    cost = contract_cost(card, capacity)
    if not can_pay(s, seat, cost):
        return violation(
            "cannot_afford",
            f"The contract costs {cost} {currency(s)}; your money and shares do not cover it.",
            "6. Buy cotton; Selling shares",
        )
    return None


def may_reveal_contract(s: State, seat: int, r: int) -> bool:
    """Reputation use 6: two levels in the region for the top card of its deck."""
    return (
        s.options.reputation
        and s.players[seat].reputation[r] >= C.reputation_cost["reveal_top_contract"]
        and bool(s.contract_deck[r] or s.contract_discard[r])
    )


def buy_options(s: State, seat: int) -> tuple[Decision, ...]:
    r, _, capacity = current_ship(s)
    if s.revealed:
        ok = buyable(s, seat, capacity, r, s.revealed, revealed=True) is None
        return (*([TakeRevealedContract()] if ok else []), DiscardRevealedContract())
    options: list[Decision] = [
        BuyContract(card=slot.card)
        for slot in s.contract_row[r]
        if buyable(s, seat, capacity, r, slot.card) is None
    ]
    if may_reveal_contract(s, seat, r):
        options.append(RevealTopContract())
    return (*options, DeclineContract())


def _buy(s: State, seat: int, card: str, out: Effects, *, revealed: bool = False) -> State:
    """The current ship buys ``card`` (from the row, or the one turned up): it must be buyable,
    and its cost is charged."""
    r, _, capacity = current_ship(s)
    err = buyable(s, seat, capacity, r, card, revealed=revealed)
    if err:
        raise err
    cost = contract_cost(C.contracts[card], capacity)
    return charge(s, seat, cost, ContractPurchase(card), out)


def buy_contract(s: State, seat: int, d: BuyContract, out: Effects) -> State:
    return _buy(s, seat, d.card, out)


def reveal_top_contract(s: State, seat: int, d: RevealTopContract, out: Effects) -> State:
    r, _, _ = current_ship(s)
    adv.check_reputation(s, seat, REGIONS[r].value, "reveal_top_contract")
    if not (s.contract_deck[r] or s.contract_discard[r]):
        raise violation("deck_empty", "No contract is left to turn up.", "Advanced game, reputation 6")
    s = adv.spend_reputation(s, seat, REGIONS[r].value, "reveal_top_contract", out)
    return turn_up(s, seat, r, out)


def take_revealed_contract(s: State, seat: int, d: TakeRevealedContract, out: Effects) -> State:
    return _buy(s, seat, s.revealed, out, revealed=True)


def discard_revealed_contract(s: State, seat: int, d: DiscardRevealedContract, out: Effects) -> State:
    r, _, _ = current_ship(s)
    out.append(fx.RevealedCardDiscarded(seat=seat, card=s.revealed, region=REGIONS[r].value))
    discard = set_at(s.contract_discard, r, (*s.contract_discard[r], s.revealed))
    return replace(s, contract_discard=discard, revealed="")


def decline_contract(s: State, seat: int, d: DeclineContract, out: Effects) -> State:
    r, _, capacity = current_ship(s)
    out.append(fx.ContractDeclined(seat=seat, capacity=capacity, region=REGIONS[r].value, automatic=False))
    return replace(s, cursor=s.cursor + 1)


# --- 7. Sell cotton -----------------------------------------------------------------------


def sell(s: State, out: Effects) -> State:
    """7. Sell cotton: ships with cargo, or in a region where war broke this round, must return."""
    r, pos = s.cursor_region, s.cursor
    while r < len(REGIONS):
        track = s.tracks[r]
        if pos < len(track):
            seat, capacity = track[pos]
            ship = ship_of(s, seat, capacity)
            war = war_locked(s, REGIONS[r])
            may_stay = (
                s.options.reputation
                and s.players[seat].reputation[r] >= C.reputation_cost["stay_despite_war"]
            )
            if ship.cargo > 0 or (war and not may_stay):
                s = return_ship(s, r, pos, out, forced_by_war=war and ship.cargo == 0)
                continue  # the next ship moves into this position
            return replace(s, cursor_region=r, cursor=pos, awaiting=(seat,))
        r, pos = r + 1, 0
    return replace(s, phase=Phase.MAINTENANCE, cursor_region=0, cursor=0)


def sell_options(s: State, seat: int) -> tuple[Decision, ...]:
    r, _, capacity = current_ship(s)
    if ship_of(s, seat, capacity).cargo > 0:
        return (ReturnShip(),)
    if war_locked(s, REGIONS[r]):
        return (ReturnShip(), StayInRegion(despite_war=True))
    return (ReturnShip(), StayInRegion())


def return_empty_ship(s: State, seat: int, d: ReturnShip, out: Effects) -> State:
    return return_ship(s, s.cursor_region, s.cursor, out, forced_by_war=False)


def stay_in_region(s: State, seat: int, d: StayInRegion, out: Effects) -> State:
    r, _, capacity = current_ship(s)
    if ship_of(s, seat, capacity).cargo > 0:  # whatever led to this position, even despite a war
        raise violation(
            "cargo_forces_return",
            "If the ship has cotton cargo, return action is mandatory.",
            "7. Sell cotton",
        )
    war = war_locked(s, REGIONS[r])
    if war and not d.despite_war:
        raise violation(
            "war_forces_return",
            "A war broke out in this region: return, or spend 1 reputation to stay (despite_war).",
            "7. Sell cotton; Advanced game, reputation 7",
        )
    if d.despite_war:
        if not war:
            raise violation(
                "no_war", "No war broke out in this region this round.", "Advanced game, reputation 7"
            )
        s = adv.spend_reputation(s, seat, REGIONS[r].value, "stay_despite_war", out)
    s = replace_ship(s, seat, capacity, stayed=True)
    out.append(fx.ShipStayed(seat=seat, capacity=capacity, region=REGIONS[r].value, despite_war=war))
    return replace(s, cursor=s.cursor + 1)


def return_ship(s: State, r: int, pos: int, out: Effects, *, forced_by_war: bool) -> State:
    seat, capacity = s.tracks[r][pos]
    ship = ship_of(s, seat, capacity)
    out.append(
        fx.ShipReturned(seat=seat, capacity=capacity, region=REGIONS[r].value, forced_by_war=forced_by_war)
    )
    s = replace(s, tracks=set_at(s.tracks, r, s.tracks[r][:pos] + s.tracks[r][pos + 1 :]))
    s = replace_ship(s, seat, capacity, location=UK, cargo=0, stayed=False)
    if ship.cargo:
        s = sell_cotton(s, seat, ship.cargo, out)
    return s


def sale_income(demand: int, tokens: int) -> int:
    """7. Sell cotton: ``tokens`` cotton fill the demand row from its ``demand`` tokens on; a full
    row pays the guaranteed price."""
    row = C.demand_row
    return sum(row[d] if d < len(row) else C.guaranteed_price for d in range(demand, demand + tokens))


def sell_cotton(s: State, seat: int, tokens: int, out: Effects) -> State:
    """7. Sell cotton: fill the demand row from the left; a full row pays the guaranteed price."""
    income = sale_income(s.demand, tokens)
    demand = min(len(C.demand_row), s.demand + tokens)
    out.append(fx.CottonSold(seat=seat, tokens=tokens, income=income, demand_after=demand))
    s = replace(s, demand=demand)
    return gain(s, seat, income, "cotton_sale", out)

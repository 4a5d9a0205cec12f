"""The stock exchange (§6.6): shares bought from and sold to the bank, loans repaid, stored
goods sold at fixed prices, East India contracts placed. The broker (a development tile)
buys shares here too, at half price."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.shared import ceil_div, replace, set_at
from ledger.games.vocabulary import counted
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import (
    BuyShares,
    Done,
    PlaceContract,
    RepayLoans,
    SellShares,
    SellStoredGoods,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    change_loans,
    change_shares,
    gain,
    set_player,
    violation,
)
from ledger.games.water_frame.state import State, Turn

# --- the stock exchange action (§6.6) -----------------------------------------------------


def options(s: State, seat: int, t: Turn, valid: Valid) -> list[Decision]:
    """The stock exchange action's trades, and contracts placed or moved up."""
    p = s.players[seat]
    options: list[Decision] = []
    options.extend(trade_options(s, seat))
    track = contract_track(s)
    for g in range(4):
        for space in track:
            if space > p.contracts[g]:
                options.append(PlaceContract(good=GOODS[g], space=space))  # type: ignore[arg-type]
    return options


def trade_options(s: State, seat: int, *, repay: bool = True) -> list[Decision]:
    p = s.players[seat]
    out: list[Decision] = []
    price = C.buy_price(p.share_space)
    can_buy = min(p.bank_shares, p.cash // price) if not p.loans else 0
    for n in sorted({1, can_buy}):
        if 1 <= n <= can_buy:
            out.append(BuyShares(count=n))
    for n in sorted({1, p.shares}):
        if 1 <= n <= p.shares:
            out.append(SellShares(count=n))
    if repay:
        can_repay = min(p.loans, p.cash // C.loan_repay)
        for n in sorted({1, can_repay}):
            if 1 <= n <= can_repay:
                out.append(RepayLoans(count=n))
    for g in range(4):
        stored = p.stock[g] + p.small_stock[g]
        for n in sorted({1, stored}):
            if 1 <= n <= stored:
                out.append(SellStoredGoods(good=GOODS[g], count=n))  # type: ignore[arg-type]
    return out


def buy_shares(
    s: State, seat: int, count: int, out: Effects, rule: str = "II.2.6", half: bool = False
) -> State:
    p = s.players[seat]
    price = C.buy_price(p.share_space)
    if half:
        price = ceil_div(price, 2)  # broker: half price, rounded up, per share
    if p.loans:
        raise violation("loans_first", "All loans must be repaid before buying shares.", rule)
    if count > p.bank_shares:
        raise violation("bank_has_fewer", f"The bank holds {p.bank_shares} of your shares.", rule)
    if p.cash < price * count:
        raise violation(
            "cannot_afford", f"{counted(count, 'shares')} at £{price} cost £{price * count}.", rule
        )
    s = change_shares(s, seat, count, price, "bought", out)
    return gain(s, seat, -price * count, "share_purchase", out)


def sell_shares(s: State, seat: int, count: int, out: Effects, rule: str = "II.2.6") -> State:
    p = s.players[seat]
    if count > p.shares:
        raise violation("not_enough_shares", f"You hold {p.shares} of your shares.", rule)
    price = C.share_value(p.share_space)
    s = change_shares(s, seat, -count, price, "sold", out)
    return gain(s, seat, price * count, "share_sale", out)


def repay_loans(s: State, seat: int, count: int, out: Effects, rule: str = "II.2.6") -> State:
    p = s.players[seat]
    if count > p.loans:
        raise violation("no_such_loans", f"You have {counted(p.loans, 'loans')}.", rule)
    if p.cash < C.loan_repay * count:
        raise violation(
            "cannot_afford", f"Repaying {counted(count, 'loans')} costs £{C.loan_repay * count}.", rule
        )
    s = change_loans(s, seat, -count, out)
    return gain(s, seat, -C.loan_repay * count, "loan_repayment", out)


def sell_stored(s: State, seat: int, d: SellStoredGoods, out: Effects, rule: str = "II.2.6") -> State:
    """Fixed prices; the large warehouse first, then the small one."""
    g = GOODS.index(d.good)
    p = s.players[seat]
    if d.count > p.stock[g] + p.small_stock[g]:
        raise violation(
            "not_in_warehouse", f"You have {p.stock[g] + p.small_stock[g]} {d.good.lower()} stored.", rule
        )
    large = min(d.count, p.stock[g])
    p = replace(
        p,
        stock=set_at(p.stock, g, p.stock[g] - large),  # type: ignore[arg-type]
        small_stock=set_at(p.small_stock, g, p.small_stock[g] - (d.count - large)),  # type: ignore[arg-type]
    )
    s = set_player(s, p)
    income = C.fixed_goods_prices[g] * d.count
    out.append(fx.StoredGoodsSold(seat=seat, good=d.good, count=d.count, income=income))
    return gain(s, seat, income, "warehouse_sale", out)


def contract_track(s: State) -> tuple[int, ...]:
    return C.contract_track_2p if s.players_count == 2 else C.contract_track


def place_contract(s: State, seat: int, d: PlaceContract, out: Effects) -> State:
    g = GOODS.index(d.good)
    p = s.players[seat]
    track = contract_track(s)
    if d.space not in track:
        raise violation("no_such_space", f"The contract spaces are {list(track)}.", "II.2.6")
    if p.contracts[g] and d.space <= p.contracts[g]:
        raise violation(
            "contract_only_up", "A contract already placed may only move to a higher space.", "II.2.6"
        )
    s = set_player(s, replace(p, contracts=set_at(p.contracts, g, d.space)))  # type: ignore[arg-type]
    out.append(fx.ContractPlaced(seat=seat, good=d.good, space=d.space))
    return s


# --- the broker's trade in the event phase (D-41) and the final stock exchange (D-42) -----


def trade(s: State, seat: int, d: Decision, out: Effects, rule: str) -> State:
    """The final stock exchange (D-42) and the broker's event-phase trade (D-41)."""
    if isinstance(d, Done):
        return replace(s, cursor=s.cursor + 1, awaiting=())
    if isinstance(d, BuyShares):
        return buy_shares(s, seat, d.count, out, rule)
    if isinstance(d, SellShares):
        return sell_shares(s, seat, d.count, out, rule)
    if isinstance(d, RepayLoans):
        return repay_loans(s, seat, d.count, out, rule)
    if isinstance(d, SellStoredGoods):
        return sell_stored(s, seat, d, out, rule)
    raise AssertionError  # pragma: no cover

"""Cotton Trade's advanced rules (rulebook 'Advanced game'; spec §5.12-§5.16).

Shares trade
    A share sold to cover a cost is chosen by its holder (the lowest-numbered own
    share, or any share of another company) and auctioned among the other players
    in turn order, starting at the track price of the share's company. A bid is
    paid with exactly the coins the bidder holds (no change between pence,
    shillings and pounds during a stage) and must be worth more, in
    pence-equivalents, than the standing bid; a pass is final (A-12). Without a
    bid the bank pays the track price. After the forced sale between stages the
    bank auctions every share it holds (floor 4 shillings / 2 pounds); at the end
    of the game companies buy their shares back from players too, the income kept
    apart until every buy-back is done.

Reputation
    Per region (start: 1 in North America) and for the United Kingdom (passenger
    tokens held; start: 1), at most 4 each; gained per contract bought and per
    passenger carried; spent on seven uses (costs in the data file).
"""

from __future__ import annotations

from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade.common import (
    UNIT,
    C,
    Effects,
    gain,
    region_index,
    share_price,
    value,
    violation,
)
from ledger.games.cotton_trade.components import CURRENCIES, REGIONS
from ledger.games.cotton_trade.state import Auction, Payment, Phase, Purpose, State
from ledger.games.shared import replace, set_at, set_player

UK_REP = "UK"

# --- reputation ----------------------------------------------------------------------


def level(s: State, seat: int, region: str) -> int:
    p = s.players[seat]
    return p.uk_reputation if region == UK_REP else p.reputation[region_index(region)]


def _set_level(s: State, seat: int, region: str, new: int) -> State:
    p = s.players[seat]
    if region == UK_REP:  # passenger tokens come from, and go back to, the supply
        s = replace(s, supply_passengers=s.supply_passengers - (new - p.uk_reputation))
        return set_player(s, replace(p, uk_reputation=new))
    rep = set_at(p.reputation, region_index(region), new)
    return set_player(s, replace(p, reputation=rep))


def gain_reputation(s: State, seat: int, region: str, amount: int, reason: str, out: Effects) -> State:
    """Company reputation: +1 per contract bought, +1 per passenger carried; at most 4."""
    if not s.options.reputation or amount <= 0:
        return s
    have = level(s, seat, region)
    new = min(C.reputation_max, have + amount)
    if region == UK_REP:
        new = min(new, have + s.supply_passengers)
    if new == have:
        return s
    out.append(fx.ReputationGained(seat=seat, region=region, level=new, reason=reason))
    return _set_level(s, seat, region, new)


def check_reputation(s: State, seat: int, region: str, use: str) -> None:
    if not s.options.reputation:
        raise violation(
            "module_off",
            "This game is played without the reputation rules.",
            "Advanced game, Company reputation",
        )
    cost = C.reputation_cost[use]
    if level(s, seat, region) < cost:
        where = "passenger tokens" if region == UK_REP else f"reputation in {region}"
        raise violation(
            "reputation_too_low",
            f"This use of reputation costs {cost} {where}; you have {level(s, seat, region)}.",
            "Advanced game, Company reputation",
        )


def spend_reputation(s: State, seat: int, region: str, use: str, out: Effects) -> State:
    check_reputation(s, seat, region, use)
    cost = C.reputation_cost[use]
    new = level(s, seat, region) - cost
    out.append(fx.ReputationSpent(seat=seat, region=region, cost=cost, level=new, use=use))
    return _set_level(s, seat, region, new)


# --- shares trade: payments ---------------------------------------------------------


def sellable(s: State, seat: int) -> list[tuple[int, int]]:
    """The lowest-numbered own share, and any share of another company ([S] Shares trade 1)."""
    p = s.players[seat]
    own = sorted(x for x in p.shares if x[0] == seat)
    return own[:1] + sorted(x for x in p.shares if x[0] != seat)


def sale_estimate(s: State, seat: int) -> int:
    """What the held shares would fetch at least from the bank: each company's track price."""
    return sum(share_price(s, company) for company, _ in s.players[seat].shares)


def start_payment(
    s: State, seat: int, amount: int, purpose: Purpose, *, mandatory: bool, out: Effects
) -> State:
    out.append(
        fx.PaymentStarted(
            seat=seat, amount=amount, currency=CURRENCIES[s.stage], purpose=str(purpose), mandatory=mandatory
        )
    )
    payment = Payment(seat=seat, amount=amount, mandatory=mandatory, purpose=purpose, resume=s.phase)
    return replace(s, payment=payment, phase=Phase.PAYMENT, awaiting=())


# --- shares trade: auctions ---------------------------------------------------------


def open_auction(s: State, company: int, number: int, seller: int, base: int, out: Effects) -> State:
    """An auction in turn order, ``base`` coins of the stage's currency to beat; the seller
    (a seat, or -1 for the bank) does not bid (A-12)."""
    bidders = tuple(x for x in s.turn_order if x != seller)
    floor = base * UNIT[s.stage]
    out.append(
        fx.ShareAuctionOpened(
            seller=seller,
            company=company,
            number=number,
            start=base,
            currency=CURRENCIES[s.stage],
            floor=floor,
            bidders=bidders,
        )
    )
    auction = Auction(
        company=company,
        number=number,
        seller=seller,
        floor=floor,
        base=base,
        currency=s.stage,
        bidders=bidders,
    )
    return replace(s, auction=auction, phase=Phase.AUCTION, awaiting=())


def choose_share(s: State, seat: int, company: int, number: int, out: Effects) -> State:
    share = (company, number)
    if share not in sellable(s, seat):
        raise violation(
            "share_not_sellable",
            "Sell your lowest-numbered own share, or any share of another company that you hold.",
            "Advanced game, Shares trade 1",
        )
    return open_auction(s, company, number, seat, share_price(s, company), out)


def standing(a: Auction) -> int:
    return value(a.high_bid) if a.high_bidder >= 0 else a.floor


def next_bidder(a: Auction) -> int | None:
    """Whose bid is awaited, skipping the high bidder; None once only the high bidder is left."""
    if not [x for x in a.bidders if x != a.high_bidder]:
        return None
    i = a.turn % len(a.bidders)
    while a.bidders[i] == a.high_bidder:
        i = (i + 1) % len(a.bidders)
    return a.bidders[i]


def cheapest_bid(held: tuple[int, int, int], above: int) -> tuple[int, int, int] | None:
    """The held coins worth the least above ``above``; among equals, the older coins first."""
    best: tuple[int, int, int, int] | None = None  # value, pounds, shillings, pence
    for pounds in range(held[2] + 1):
        for shillings in range(held[1] + 1):
            base = pounds * UNIT[2] + shillings * UNIT[1]
            pence = max(0, above + 1 - base)
            if pence <= held[0]:
                key = (base + pence, pounds, shillings, pence)
                if best is None or key < best:
                    best = key
            if base > above:
                break
    return None if best is None else (best[3], best[2], best[1])


def bid_options(s: State, seat: int) -> list[tuple[int, int, int]]:
    """A few representative bids: the cheapest one, and one a coin of the currency higher."""
    a = s.auction
    assert a is not None
    coins = s.players[seat].coins
    first = cheapest_bid(coins, standing(a))
    if first is None:
        return []
    out = [first]
    jump = cheapest_bid(coins, value(first) + UNIT[a.currency] - 1)
    if jump is not None and jump != first:
        out.append(jump)
    return out


def bid(s: State, seat: int, coins: tuple[int, int, int], out: Effects) -> State:
    a = s.auction
    assert a is not None
    held = s.players[seat].coins
    if any(c > h for c, h in zip(coins, held, strict=True)):
        raise violation(
            "coins_not_held",
            "A bid is paid with exactly the coins you hold; no change is made.",
            "Advanced game, Shares trade 3",
        )
    floor = standing(a)
    if value(coins) <= floor:
        raise violation(
            "bid_too_low",
            f"A bid must be worth more than {floor} pence-equivalents (a pound is 9, a shilling 3).",
            "Advanced game, Shares trade 3",
        )
    i = a.bidders.index(seat)
    out.append(fx.BidMade(seat=seat, coins=coins, value=value(coins)))
    return replace(s, auction=replace(a, high_bidder=seat, high_bid=coins, turn=(i + 1) % len(a.bidders)))


def pass_bid(s: State, seat: int, out: Effects, *, automatic: bool = False) -> State:
    a = s.auction
    assert a is not None
    i = a.bidders.index(seat)
    bidders = a.bidders[:i] + a.bidders[i + 1 :]
    out.append(fx.BidPassed(seat=seat, automatic=automatic))
    return replace(s, auction=replace(a, bidders=bidders, turn=i % max(1, len(bidders))))


def _move_share(s: State, share: tuple[int, int], holder: int, to: int) -> State:
    if holder >= 0:
        p = s.players[holder]
        s = set_player(s, replace(p, shares=tuple(x for x in p.shares if x != share)))
    else:
        s = replace(s, bank_shares=tuple(x for x in s.bank_shares if x != share))
    if to >= 0:
        p = s.players[to]
        return set_player(s, replace(p, shares=tuple(sorted((*p.shares, share)))))
    return replace(s, bank_shares=tuple(sorted((*s.bank_shares, share))))


def _move_coins(s: State, seat: int, coins: tuple[int, int, int], sign: int, out: Effects) -> State:
    p = s.players[seat]
    delta = (sign * coins[0], sign * coins[1], sign * coins[2])
    new = (p.coins[0] + delta[0], p.coins[1] + delta[1], p.coins[2] + delta[2])
    out.append(fx.CoinsChanged(seat=seat, coins=delta, balance=new, reason="share_auction"))
    return set_player(s, replace(p, coins=new))


def auction_step(s: State, out: Effects) -> State:
    """Ask the next bidder; a bidder whose coins cannot beat the standing bid passes
    automatically; once one bidder (or none) is left the share is sold."""
    while True:
        a = s.auction
        assert a is not None
        seat = next_bidder(a)
        if seat is None:
            return _resolve(s, out)
        if value(s.players[seat].coins) <= standing(a):
            s = pass_bid(s, seat, out, automatic=True)
            continue
        return replace(s, awaiting=(seat,))


def _resolve(s: State, out: Effects) -> State:
    """The winner pays exactly the bid coins to the seller (or the bank); without a bid the
    bank pays a player-seller the track price, or keeps its own share."""
    a = s.auction
    assert a is not None
    share = (a.company, a.number)
    if a.high_bidder >= 0:
        s = _move_share(s, share, a.seller, a.high_bidder)
        s = _move_coins(s, a.high_bidder, a.high_bid, -1, out)
        if a.seller >= 0:
            s = _move_coins(s, a.seller, a.high_bid, +1, out)
        else:
            s = replace(s, bank=s.bank + value(a.high_bid))
        out.append(
            fx.ShareAuctioned(
                company=a.company,
                number=a.number,
                seller=a.seller,
                buyer=a.high_bidder,
                coins=a.high_bid,
                value=value(a.high_bid),
            )
        )
    elif a.seller >= 0:
        s = _move_share(s, share, a.seller, -1)
        coins = set_at((0, 0, 0), a.currency, a.base)
        out.append(
            fx.ShareAuctioned(
                company=a.company,
                number=a.number,
                seller=a.seller,
                buyer=-1,
                coins=coins,  # type: ignore[arg-type]
                value=a.base * UNIT[a.currency],
            )
        )
        s = gain(s, a.seller, a.base, "share_sale", out, a.currency)
    else:
        out.append(
            fx.ShareAuctioned(
                company=a.company, number=a.number, seller=-1, buyer=-1, coins=(0, 0, 0), value=0
            )
        )
    return replace(s, auction=None, phase=Phase.PAYMENT if s.payment is not None else Phase.BANK_AUCTIONS)


def bank_queue(s: State) -> tuple[tuple[int, int], ...]:
    """Step 13 order (A-32): the first player's bank-held shares lowest first, then the next's."""
    return tuple(share for seat in s.turn_order for share in sorted(x for x in s.bank_shares if x[0] == seat))


def bank_auctions_step(s: State, out: Effects) -> State:
    """Step 13: auction the bank's shares one by one; the first bid must beat 4 s / 2 £."""
    while s.bank_queue:
        share, rest = s.bank_queue[0], s.bank_queue[1:]
        s = replace(s, bank_queue=rest)
        if share in s.bank_shares:
            return open_auction(s, share[0], share[1], -1, C.forced_sale_price[s.stage - 1], out)
    return replace(s, phase=Phase.TURN_ORDER)


def cascade(coins: tuple[int, int, int], upto: int) -> tuple[int, int, int]:
    """A-34 CASCADE: change older coins upward 3:1 up to currency ``upto``, keeping remainders."""
    pence, shillings, pounds = coins
    shillings += pence // 3
    pence %= 3
    if upto >= 2:
        pounds += shillings // 3
        shillings %= 3
    return (pence, shillings, pounds)


def region_name(r: int) -> str:
    return REGIONS[r].value

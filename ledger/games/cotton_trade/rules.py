"""Cotton Trade's rules engine: pure functions over the frozen ``State``.

Rule references cite the rulebook (seed 004) by its section names, and the
specification (shared/rules/cotton-trade.md) by its ids (CT-D-*, CT-R-*, A-*).
The engine runs every automatic procedure until a decision or a random draw is
due; ``State.awaiting`` names the seats whose decision is awaited and
``State.draws`` the draws the ledger must derive next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import TypeAdapter

from ledger.engine import (
    Decision,
    DrawOutcome,
    DrawRequest,
    Effect,
    Pending,
    Standing,
    TitleOptions,
)
from ledger.errors import RuleViolationError
from ledger.games import vocabulary
from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade import words
from ledger.games.cotton_trade.common import (
    UNIT,
    Effects,
    currency,
    gain,
    held_value,
    money,
    region_index,
    set_player,
    set_tuple,
    share_price,
    violation,
)
from ledger.games.cotton_trade.components import (
    CURRENCIES,
    REGIONS,
    STAGE_NAMES,
    Components,
    ContractCard,
    Region,
    load,
)
from ledger.games.cotton_trade.decisions import (
    DECISION_ADAPTER,
    Bid,
    BuyContract,
    ChooseShareToSell,
    DeclineContract,
    DiscardRevealedContract,
    DiscardRevealedShip,
    KeepNewShip,
    PassBid,
    PassRenting,
    PeekContract,
    RentShip,
    ReturnAllShips,
    ReturnShip,
    RevealTopContract,
    RevealTopShip,
    SailShip,
    StayInRegion,
    TakeRevealedContract,
    TakeRevealedShip,
)
from ledger.games.cotton_trade.meta import META, CottonTradeOptions
from ledger.games.cotton_trade.state import (
    UK,
    Harbour,
    Phase,
    Player,
    Ship,
    Slot,
    State,
    War,
)
from ledger.games.shared import replace, run_automatic

C: Components = load()



def _ship(s: State, seat: int, capacity: int) -> Ship:
    for ship in s.players[seat].ships:
        if ship.capacity == capacity:
            return ship
    raise KeyError((seat, capacity))


def _replace_ship(s: State, seat: int, capacity: int, **changes: Any) -> State:
    p = s.players[seat]
    ships = tuple(replace(sh, **changes) if sh.capacity == capacity else sh for sh in p.ships)
    return set_player(s, replace(p, ships=ships))


def wealth(s: State, seat: int) -> int:
    """Rulebook 1. Turn order: money plus the value of all ships (A-29: current currency only)."""
    return money(s, seat) + sum(C.ship(sh.card).value for sh in s.players[seat].ships)


def _own_shares(s: State, seat: int) -> list[tuple[int, int]]:
    return sorted(sh for sh in s.players[seat].shares if sh[0] == seat)


def _region_open(s: State, region: Region) -> bool:
    return not (s.stage == 0 and region in C.closed_in_stage_one)


def _war_locked(s: State, region: Region) -> bool:
    return s.war is not None and s.war.region == region and s.war.side == "WAR"


# --- money and shares ------------------------------------------------------


def can_pay(s: State, seat: int, amount: int) -> bool:
    """A voluntary purchase is legal if money plus sellable shares cover it (Selling shares; A-04)."""
    available = money(s, seat)
    if s.options.share_sale_for_voluntary_purchases == "ALLOWED":
        # every share held, at its company's track price: what the bank pays at least
        # (shares trade: an auction may fetch more, or old-currency coins, A-30)
        available += adv.sale_estimate(s, seat)
    return available >= amount


def _pay(
    s: State, seat: int, amount: int, reason: str, out: Effects, *, mandatory: bool
) -> tuple[State, int]:
    """Pay ``amount`` in the stage currency, selling shares to the bank on a shortfall.

    Rulebook, Selling shares to obtain additional funds: shares are sold one at a
    time starting with no. 1, at the value of the company's space on the turn
    order track (the token does not move, A-24). A mandatory cost that cannot be
    met once no share is left is paid as far as possible and the rest waived
    (A-05). Returns the new state and the waived amount.
    """
    may_sell = mandatory or s.options.share_sale_for_voluntary_purchases == "ALLOWED"
    while money(s, seat) < amount and may_sell:
        own = _own_shares(s, seat)
        if not own:
            break
        share = own[0]
        price = share_price(s, seat)
        p = s.players[seat]
        s = set_player(s, replace(p, shares=tuple(x for x in p.shares if x != share)))
        s = replace(s, bank_shares=tuple(sorted((*s.bank_shares, share))))
        out.append(
            fx.ShareSold(
                seat=seat,
                company=share[0],
                number=share[1],
                price=price,
                currency=currency(s),
                buyer="bank",
                forced=False,
            )
        )
        s = gain(s, seat, price, "share_sale", out)
    have = money(s, seat)
    if have >= amount:
        return gain(s, seat, -amount, reason, out), 0
    if not mandatory:
        raise violation("cannot_afford", f"You cannot pay {amount} {currency(s)}.", "Selling shares")
    return gain(s, seat, -have, reason, out), amount - have


_REASONS = {"rent": "ship_rental", "contract": "contract", "maintenance": "maintenance"}


def _charge(s: State, seat: int, amount: int, purpose: str, out: Effects, *, mandatory: bool) -> State:
    """Pay a cost, then complete what it pays for (``purpose``: "rent:<card>", "contract:<card>",
    "maintenance"). With the shares trade a shortfall opens a payment: shares are auctioned
    one at a time (CT-D-07, CT-D-08) until the cost is covered (spec §5.12)."""
    may_sell = mandatory or s.options.share_sale_for_voluntary_purchases == "ALLOWED"
    if s.options.shares_trade and money(s, seat) < amount and adv.sellable(s, seat) and may_sell:
        return adv.start_payment(s, seat, amount, purpose, mandatory=mandatory, out=out)
    s, waived = _pay(s, seat, amount, _REASONS[purpose.partition(":")[0]], out, mandatory=mandatory)
    return _complete(s, seat, purpose, amount, waived, out)


def _complete(s: State, seat: int, purpose: str, amount: int, waived: int, out: Effects) -> State:
    """What a paid cost buys: a ship, a contract, or the maintenance of the fleet."""
    what, _, card = purpose.partition(":")
    n = s.players_count
    if what == "rent":
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
    elif what == "contract":
        r, _, capacity = _current_ship(s)
        contract = C.contracts[card]
        cargo = min(contract.cotton, capacity)
        s = _replace_ship(s, seat, capacity, cargo=cargo)
        row = tuple(slot for slot in s.contract_row[r] if slot.card != card)
        s = replace(
            s,
            contract_row=set_tuple(s.contract_row, r, row),
            contract_discard=set_tuple(s.contract_discard, r, (*s.contract_discard[r], card)),
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


def _payment(s: State, out: Effects) -> State:
    """Shares trade: while the payer is short and holds a share, one is auctioned; then the
    cost is paid (a mandatory one as far as possible, A-05) or the purchase called off."""
    pay = s.payment
    assert pay is not None
    seat = pay.seat
    options = adv.sellable(s, seat)
    if money(s, seat) < pay.amount and options:
        if len(options) == 1:
            return adv.choose_share(s, seat, *options[0], out)
        return replace(s, awaiting=(seat,))
    s = replace(s, payment=None, phase=pay.resume)
    if money(s, seat) < pay.amount and not pay.mandatory:
        out.append(fx.PurchaseCancelled(seat=seat, purpose=pay.purpose, short=pay.amount - money(s, seat)))
        return s
    s, waived = _pay(
        s, seat, pay.amount, _REASONS[pay.purpose.partition(":")[0]], out, mandatory=pay.mandatory
    )
    return _complete(s, seat, pay.purpose, pay.amount, waived, out)


# --- setup -----------------------------------------------------------------


def _shuffle_request(key: str, items: tuple[str, ...], label: str) -> DrawRequest:
    return DrawRequest(key=key, kind="shuffle", items=tuple(sorted(items)), hidden=True, label=label)


def new_game(options: TitleOptions, seats: int) -> State:
    """Game setup (rulebook 'Game setup'; spec §5.1). The draws come first."""
    if not isinstance(options, CottonTradeOptions):
        options = CottonTradeOptions.model_validate(options.model_dump())
    if not META.min_players <= seats <= META.max_players:
        raise violation("player_count", "Cotton Trade is for 2 to 6 players.", "Cover")
    n = seats
    draws = [
        DrawRequest(
            key="first_player",
            kind="pick",
            items=tuple(str(i) for i in range(n)),
            hidden=False,
            label="first player",
        ),
        _shuffle_request("ships", tuple(C.ships), "ship deck"),
    ]
    for r in REGIONS:
        if _stage_region_active(0, r):
            draws.append(
                _shuffle_request(f"contracts:{r.value}", C.stage_deck(0, r), f"{r.value} contract deck")
            )
    start = C.reputation_start if options.reputation else {}
    reputation = tuple(start.get(r.value, 0) for r in REGIONS)
    players = tuple(
        Player(
            seat=i,
            coins=(0, 0, 0),
            ships=(),
            shares=tuple((i, k) for k in range(1, C.shares_per_company + 1)),
            reputation=reputation,  # type: ignore[arg-type]
            uk_reputation=start.get(adv.UK_REP, 0),
        )
        for i in range(n)
    )
    empty: tuple[tuple[Any, ...], ...] = tuple(() for _ in REGIONS)
    return State(
        players_count=n,
        options=options,
        round=1,
        phase=Phase.SETUP,
        turn_order=(),
        track_space=(1,) * n,
        demand=C.demand_initial_base - n,
        ship_deck=(),
        ship_discard=(),
        ship_row=(),
        contract_deck=empty,
        contract_discard=empty,
        contract_row=empty,
        harbours=tuple(Harbour() for _ in REGIONS),
        war=None,
        tracks=empty,
        supply_coins=C.coin_tokens,
        supply_passengers=C.passenger_tokens - n * start.get(adv.UK_REP, 0),
        supply_vip=C.vip_tokens,
        supply_good_ol=C.good_ol_cards,
        bank_shares=(),
        players=players,
        draws=tuple(draws),
    )


def _stage_region_active(stage: int, region: Region) -> bool:
    return not (stage == 0 and region in C.closed_in_stage_one)


# --- draws -----------------------------------------------------------------


def apply_draw(s: State, outcome: DrawOutcome) -> tuple[State, tuple[Effect, ...]]:
    if not s.draws:
        raise violation("no_draw_due", "No random draw is due.", "")
    req = s.draws[0]
    if outcome.key != req.key:
        raise violation("wrong_draw", f"The draw due is {req.key!r}.", "")
    n = len(req.items)
    if req.kind == "pick":
        if len(outcome.values) != 1 or not 0 <= outcome.values[0] < n:
            raise violation("bad_draw", "A pick needs one index in range.", "")
    elif sorted(outcome.values) != list(range(n)):
        raise violation("bad_draw", "A shuffle needs a permutation of the items.", "")
    out: Effects = []
    s = replace(s, draws=s.draws[1:])
    if req.key == "first_player":
        first = outcome.values[0]
        order = tuple((first + i) % s.players_count for i in range(s.players_count))
        s = replace(s, turn_order=order)
        out.append(fx.FirstPlayerDrawn(seat=first, turn_order=order))
        out.append(fx.RoundStarted(round=1, stage=STAGE_NAMES[0]))
        for i, seat in enumerate(order):  # Players setup C: 7, 8, 9 ... pence
            s = gain(s, seat, C.starting_pence + i, "starting_money", out)
        for seat in range(s.players_count):
            out.append(
                vocabulary.SharePriceChanged(
                    company=seat,
                    space_from=None,
                    space_to=1,
                    value_from=None,
                    value_to=share_price(s, seat),
                    currency=currency(s),
                    cause="setup",
                )
            )
    else:
        cards = tuple(req.items[i] for i in outcome.values)
        if req.key == "ships":
            s = replace(s, ship_deck=cards, ship_discard=tuple(c for c in s.ship_discard if c not in cards))
        else:
            r = region_index(req.key.split(":", 1)[1])
            discard = tuple(c for c in s.contract_discard[r] if c not in cards)
            s = replace(
                s,
                contract_deck=set_tuple(s.contract_deck, r, cards),
                contract_discard=set_tuple(s.contract_discard, r, discard),
            )
        out.append(vocabulary.DeckShuffled(deck=req.label, cards=len(cards)))
    s = _advance(s, out)
    return s, tuple(out)


# --- phase handlers (automatic procedures) ---------------------------------


def _setup_done(s: State, out: Effects) -> State:
    return replace(s, phase=Phase.DRAW)


def _turn_order(s: State, out: Effects) -> State:
    """1. Determine players turn order: least wealthy first; ties keep the previous order."""
    w = tuple(wealth(s, seat) for seat in range(s.players_count))
    order = tuple(sorted(s.turn_order, key=lambda seat: w[seat]))
    spaces = tuple(C.space_of(x) for x in w)
    for seat in range(s.players_count):
        if spaces[seat] != s.track_space[seat]:
            out.append(
                vocabulary.SharePriceChanged(
                    company=seat,
                    space_from=s.track_space[seat],
                    space_to=spaces[seat],
                    value_from=share_price(s, seat),
                    value_to=C.share_value(s.stage, spaces[seat]),
                    currency=currency(s),
                    cause="turn_order",
                )
            )
    out.append(fx.TurnOrderDetermined(turn_order=order, wealth=w))
    return replace(s, turn_order=order, track_space=spaces, phase=Phase.DRAW)


def _draw_cards(s: State, out: Effects) -> State:
    """2. Draw cards: 2 + N ship cards; contract cards per region face up or down (§6.2)."""
    target = C.ship_cards_extra + s.players_count
    drawn: list[str] = []
    while len(s.ship_row) < target:
        if s.ship_deck:
            card, rest = s.ship_deck[0], s.ship_deck[1:]
            s = replace(s, ship_deck=rest, ship_row=(*s.ship_row, card))
            drawn.append(card)
        elif s.ship_discard:  # Empty deck: reshuffle discarded cards
            if drawn:
                out.append(fx.ShipCardsDrawn(cards=tuple(drawn)))
            return replace(s, draws=(_shuffle_request("ships", s.ship_discard, "ship deck"),))
        else:
            break
    if drawn:
        out.append(fx.ShipCardsDrawn(cards=tuple(drawn)))
    for r, region in enumerate(REGIONS):
        if not _region_open(s, region):
            continue
        n = C.contract_draw[s.players_count][region]
        up = C.face_up_count(region, n)
        row = s.contract_row[r]
        if len(row) >= n:
            continue
        new: list[str | None] = []
        while len(row) < n:
            deck = s.contract_deck[r]
            if deck:
                slot = Slot(card=deck[0], face_up=len(row) < up)
                row = (*row, slot)
                new.append(slot.card if slot.face_up else None)
                s = replace(
                    s,
                    contract_deck=set_tuple(s.contract_deck, r, deck[1:]),
                    contract_row=set_tuple(s.contract_row, r, row),
                )
            elif s.contract_discard[r]:
                if new:
                    out.append(fx.ContractCardsDrawn(region=region.value, cards=tuple(new)))
                req = _shuffle_request(
                    f"contracts:{region.value}", s.contract_discard[r], f"{region.value} contract deck"
                )
                return replace(s, draws=(req,))
            else:
                break
        if new:
            out.append(fx.ContractCardsDrawn(region=region.value, cards=tuple(new)))
    return replace(s, phase=Phase.RENT, cursor=0, rent_passed=())


def _rentable(s: State, seat: int, card: str, *, revealed: bool = False) -> RuleViolationError | None:
    ship = C.ships.get(card)
    if ship is None or (card != s.revealed if revealed else card not in s.ship_row):
        return violation(
            "ship_not_in_row",
            f"Ship card {card} is not {'the card turned up' if revealed else 'in the ship card row'}.",
            "3. Rent ships",
        )
    if any(sh.capacity == ship.capacity for sh in s.players[seat].ships):
        return violation(
            "capacity_held",
            f"You already have a ship of capacity {ship.capacity}; you cannot rent another of that capacity.",
            "3. Rent ships",
        )
    if not can_pay(s, seat, ship.value):
        return violation(
            "cannot_afford",
            f"The rental fee is {ship.value} {currency(s)}; your money and shares do not cover it.",
            "3. Rent ships; Selling shares",
        )
    return None


def _peekable(s: State, seat: int) -> list[tuple[Region, int]]:
    """Reputation use 4: face-down contracts the seat has not seen, where it has reputation."""
    if not s.options.reputation:
        return []
    p = s.players[seat]
    cost = C.reputation_cost["peek_contract"]
    seen = {card for who, card in s.peeks if who == seat}
    return [
        (region, i + 1)
        for r, region in enumerate(REGIONS)
        if p.reputation[r] >= cost
        for i, slot in enumerate(s.contract_row[r])
        if not slot.face_up and slot.card not in seen
    ]


def _may_reveal_ship(s: State, seat: int) -> bool:
    """Reputation use 1: a passenger token for the top ship card (a deck to draw from)."""
    return (
        s.options.reputation
        and s.players[seat].uk_reputation >= C.reputation_cost["reveal_top_ship"]
        and bool(s.ship_deck or s.ship_discard)
    )


def _turn_up(s: State, seat: int, r: int | None, out: Effects) -> State:
    """Turn up the top card of the ship deck (``r`` None) or of a region's contract deck,
    reshuffling its discard first when the deck is empty (A-28)."""
    if r is None:
        if not s.ship_deck:
            return replace(s, revealed="?", draws=(_shuffle_request("ships", s.ship_discard, "ship deck"),))
        card = s.ship_deck[0]
        out.append(fx.TopShipRevealed(seat=seat, card=card))
        return replace(s, ship_deck=s.ship_deck[1:], revealed=card)
    region = REGIONS[r]
    deck = s.contract_deck[r]
    if not deck:
        req = _shuffle_request(
            f"contracts:{region.value}", s.contract_discard[r], f"{region.value} contract deck"
        )
        return replace(s, revealed="?", draws=(req,))
    out.append(fx.TopContractRevealed(seat=seat, region=region.value, card=deck[0]))
    return replace(s, contract_deck=set_tuple(s.contract_deck, r, deck[1:]), revealed=deck[0])


def _rent(s: State, out: Effects) -> State:
    """3. Rent ships, in turn order, until all players pass or the row is empty."""
    n = s.players_count
    if s.revealed:  # a ship card turned up by reputation waits to be rented or discarded
        seat = s.turn_order[s.cursor]
        if s.revealed == "?":
            s = _turn_up(s, seat, None, out)
        return replace(s, awaiting=(seat,))
    while s.ship_row and len(s.rent_passed) < n:
        for k in range(n):
            idx = (s.cursor + k) % n
            seat = s.turn_order[idx]
            if seat in s.rent_passed:
                continue
            if (
                any(_rentable(s, seat, c) is None for c in s.ship_row)
                or _may_reveal_ship(s, seat)
                or _peekable(s, seat)
            ):
                return replace(s, cursor=idx, awaiting=(seat,))
            # No legal rental: the only choice is to pass, so the engine passes for them.
            out.append(fx.RentingPassed(seat=seat, automatic=True))
            s = replace(s, rent_passed=(*s.rent_passed, seat), cursor=(idx + 1) % n)
            break
    return replace(s, phase=Phase.REVEAL, cursor=0, rent_passed=())


def _reveal(s: State, out: Effects) -> State:
    """4. Reveal contracts: turn cards, place coin and passenger tokens, check unrest."""
    rows = list(s.contract_row)
    harbours = list(s.harbours)
    supply_coins, supply_pass, supply_vip = s.supply_coins, s.supply_passengers, s.supply_vip
    regional_unrest = [0] * len(REGIONS)
    for r, region in enumerate(REGIONS):
        coins = passengers = vip = 0
        for slot in rows[r]:
            card = C.contracts[slot.card]
            if not slot.face_up:
                out.append(fx.ContractRevealed(region=region.value, card=slot.card))
            regional_unrest[r] += card.unrest  # drought cards count too
            take = min(card.coins, supply_coins)  # place what is available
            coins, supply_coins = coins + take, supply_coins - take
            take = min(card.passengers, supply_pass)
            passengers, supply_pass = passengers + take, supply_pass - take
            take = min(card.vip, supply_vip)
            vip, supply_vip = vip + take, supply_vip - take
        rows[r] = tuple(Slot(card=slot.card, face_up=True) for slot in rows[r])
        if coins or passengers or vip:
            h = harbours[r]
            harbours[r] = Harbour(
                coins=h.coins + coins, passengers=h.passengers + passengers, vip=h.vip + vip
            )
            out.append(
                fx.HarbourTokensPlaced(region=region.value, coins=coins, passengers=passengers, vip=vip)
            )
    s = replace(
        s,
        contract_row=tuple(rows),
        peeks=(),
        harbours=tuple(harbours),
        supply_coins=supply_coins,
        supply_passengers=supply_pass,
        supply_vip=supply_vip,
    )
    if s.war is None:  # if war already happened during the current stage, ignore all unrest
        threshold = C.war_threshold[s.players_count]
        ranked = sorted(range(len(REGIONS)), key=lambda i: (-regional_unrest[i], i))
        region_idx: int | None = None
        if s.options.unrest_scope == "GLOBAL_SUM":
            total = sum(regional_unrest)
            if total >= threshold:
                region_idx = ranked[0]  # highest regional sum, ties in region order
        else:
            total = 0
            for i in ranked:
                if regional_unrest[i] >= threshold:
                    region_idx, total = i, regional_unrest[i]
                    break
        if region_idx is not None:
            region = REGIONS[region_idx]
            s = replace(s, war=War(region=region, side="WAR"))
            out.append(fx.WarBroke(region=region.value, unrest=total, threshold=threshold))
    return replace(s, phase=Phase.SAIL, cursor=0)


def _ships_in_uk(s: State, seat: int) -> list[Ship]:
    return [sh for sh in s.players[seat].ships if sh.location == UK]


def _sail(s: State, out: Effects) -> State:
    """5. Sail ships: in turn order, one ship per turn, until no ship is left in the UK."""
    n = s.players_count
    for k in range(n):
        idx = (s.cursor + k) % n
        seat = s.turn_order[idx]
        if _ships_in_uk(s, seat):
            return replace(s, cursor=idx, awaiting=(seat,))
    return replace(s, phase=Phase.BUY, cursor=0, cursor_region=0)


def _contract_cost(card: ContractCard, capacity: int) -> int:
    """6. Buy cotton: a contract bigger than the ship costs one less."""
    return card.price - (C.oversized_discount if card.cotton > capacity else 0)


def _buyable(
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
    cost = _contract_cost(card, capacity)
    if not can_pay(s, seat, cost):
        return violation(
            "cannot_afford",
            f"The contract costs {cost} {currency(s)}; your money and shares do not cover it.",
            "6. Buy cotton; Selling shares",
        )
    return None


def _may_reveal_contract(s: State, seat: int, r: int) -> bool:
    """Reputation use 6: two levels in the region for the top card of its deck."""
    return (
        s.options.reputation
        and s.players[seat].reputation[r] >= C.reputation_cost["reveal_top_contract"]
        and bool(s.contract_deck[r] or s.contract_discard[r])
    )


def _buy(s: State, out: Effects) -> State:
    """6. Buy cotton, in regions and ships order; ships with no purchase possible are skipped."""
    if s.revealed:  # a contract turned up by reputation waits to be bought or discarded
        r, seat, _ = _current_ship(s)
        if s.revealed == "?":
            s = _turn_up(s, seat, r, out)
        return replace(s, awaiting=(seat,))
    r, pos = s.cursor_region, s.cursor
    while r < len(REGIONS):
        track = s.tracks[r]
        if pos < len(track):
            seat, capacity = track[pos]
            if any(
                _buyable(s, seat, capacity, r, slot.card) is None for slot in s.contract_row[r]
            ) or _may_reveal_contract(s, seat, r):
                return replace(s, cursor_region=r, cursor=pos, awaiting=(seat,))
            out.append(
                fx.ContractDeclined(seat=seat, capacity=capacity, region=REGIONS[r].value, automatic=True)
            )
            pos += 1
            continue
        r, pos = r + 1, 0
    return replace(s, phase=Phase.SELL, cursor_region=0, cursor=0)


def _sell_cotton(s: State, seat: int, tokens: int, out: Effects) -> State:
    """7. Sell cotton: fill the demand row from the left; a full row pays the guaranteed price."""
    income = 0
    demand = s.demand
    for _ in range(tokens):
        if demand < len(C.demand_row):
            income += C.demand_row[demand]
            demand += 1
        else:
            income += C.guaranteed_price
    out.append(fx.CottonSold(seat=seat, tokens=tokens, income=income, demand_after=demand))
    s = replace(s, demand=demand)
    return gain(s, seat, income, "cotton_sale", out)


def _return_ship(s: State, r: int, pos: int, out: Effects, *, forced_by_war: bool) -> State:
    seat, capacity = s.tracks[r][pos]
    ship = _ship(s, seat, capacity)
    out.append(
        fx.ShipReturned(seat=seat, capacity=capacity, region=REGIONS[r].value, forced_by_war=forced_by_war)
    )
    s = replace(s, tracks=set_tuple(s.tracks, r, s.tracks[r][:pos] + s.tracks[r][pos + 1 :]))
    s = _replace_ship(s, seat, capacity, location=UK, cargo=0, stayed=False)
    if ship.cargo:
        s = _sell_cotton(s, seat, ship.cargo, out)
    return s


def _sell(s: State, out: Effects) -> State:
    """7. Sell cotton: ships with cargo, or in a region where war broke this round, must return."""
    r, pos = s.cursor_region, s.cursor
    while r < len(REGIONS):
        track = s.tracks[r]
        if pos < len(track):
            seat, capacity = track[pos]
            ship = _ship(s, seat, capacity)
            war = _war_locked(s, REGIONS[r])
            may_stay = (
                s.options.reputation
                and s.players[seat].reputation[r] >= C.reputation_cost["stay_despite_war"]
            )
            if ship.cargo > 0 or (war and not may_stay):
                s = _return_ship(s, r, pos, out, forced_by_war=war and ship.cargo == 0)
                continue  # the next ship moves into this position
            return replace(s, cursor_region=r, cursor=pos, awaiting=(seat,))
        r, pos = r + 1, 0
    return replace(s, phase=Phase.MAINTENANCE, cursor_region=0, cursor=0)


def _maintenance(s: State, out: Effects) -> State:
    """8. Pay maintenance cost for each ship; shares are sold on a shortfall; ships cannot be discarded."""
    while s.cursor < s.players_count:
        seat = s.turn_order[s.cursor]
        total = sum(C.ship(sh.card).maintenance for sh in s.players[seat].ships)
        if not total:
            s = replace(s, cursor=s.cursor + 1)
            continue
        s = _charge(s, seat, total, "maintenance", out, mandatory=True)
        if s.phase != Phase.MAINTENANCE:
            return s  # shares trade: shares are being auctioned to cover it
    return replace(s, phase=Phase.CLEAR_UP, cursor=0)


def _clear_up(s: State, out: Effects) -> State:
    """9. Clear up: discard the rows, end a war, remove 3 x N cotton from the demand row."""
    contracts = sum(len(row) for row in s.contract_row)
    discards = tuple(
        (*s.contract_discard[r], *(slot.card for slot in s.contract_row[r])) for r in range(len(REGIONS))
    )
    out.append(fx.BoardCleared(ship_cards=len(s.ship_row), contract_cards=contracts))
    s = replace(
        s,
        ship_discard=(*s.ship_discard, *s.ship_row),
        ship_row=(),
        contract_discard=discards,
        contract_row=tuple(() for _ in REGIONS),
    )
    if s.war is not None and s.war.side == "WAR":
        r = region_index(s.war.region)
        h = s.harbours[r]
        out.append(fx.WarEnded(region=s.war.region.value, coins=h.coins, passengers=h.passengers, vip=h.vip))
        s = replace(
            s,
            harbours=set_tuple(s.harbours, r, Harbour()),
            supply_coins=s.supply_coins + h.coins,
            supply_passengers=s.supply_passengers + h.passengers,
            supply_vip=s.supply_vip + h.vip,
            war=War(region=s.war.region, side="PEACE"),
        )
    after = max(0, s.demand - C.demand_removed_per_player * s.players_count)
    out.append(fx.DemandReduced(before=s.demand, after=after))
    s = replace(s, demand=after)
    if s.round == C.rounds:
        return replace(s, phase=Phase.END)
    if s.round % 3 == 0:
        return replace(s, phase=Phase.RESCALE)
    s = replace(s, round=s.round + 1, phase=Phase.TURN_ORDER)
    out.append(fx.RoundStarted(round=s.round, stage=STAGE_NAMES[s.stage]))
    return s


def _rescale(s: State, out: Effects) -> State:
    """End of the stage, steps 1-4: clear this stage's contracts and tokens, new decks and coins."""
    out.append(fx.StageEnded(stage=STAGE_NAMES[s.stage]))
    passengers = sum(h.passengers for h in s.harbours)
    vip = sum(h.vip for h in s.harbours)
    next_stage = s.stage + 1
    draws = tuple(
        _shuffle_request(f"contracts:{r.value}", C.stage_deck(next_stage, r), f"{r.value} contract deck")
        for r in REGIONS
        if _stage_region_active(next_stage, r)
    )
    empty: tuple[tuple[Any, ...], ...] = tuple(() for _ in REGIONS)
    return replace(
        s,
        contract_deck=empty,
        contract_discard=empty,
        contract_row=empty,
        harbours=tuple(Harbour() for _ in REGIONS),
        war=None,
        supply_coins=C.coin_tokens,
        supply_passengers=s.supply_passengers + passengers,
        supply_vip=s.supply_vip + vip,
        phase=Phase.KEEP_NEW,
        cursor=0,
        draws=draws,
    )


def _keep_new(s: State, out: Effects) -> State:
    """Step 7: each player with a NEW-icon ship may keep it (asked in turn order)."""
    n = s.players_count
    while s.cursor < n:
        seat = s.turn_order[s.cursor]
        if any(C.ship(sh.card).new for sh in s.players[seat].ships):
            return replace(s, awaiting=(seat,))
        s = replace(s, cursor=s.cursor + 1)
    return replace(s, phase=Phase.RESCALE_SHIPS, cursor=0)


def _rescale_ships(s: State, out: Effects) -> State:
    """Steps 5-8: ships back for their value; a kept NEW ship becomes a Good ol' Ship in place."""
    kept_cards = dict(s.kept)
    kept: dict[int, Ship] = {}
    returned_good_ol = 0
    for p in s.players:
        for sh in p.ships:
            if kept_cards.get(p.seat) == sh.card:
                kept[p.seat] = sh
                continue
            if sh.card == C.good_ol.id:
                returned_good_ol += 1  # returned with no value [U CT-U-07]
            value = C.ship(sh.card).value
            out.append(fx.ShipRefunded(seat=p.seat, card=sh.card, value=value, currency=currency(s)))
            s = gain(s, p.seat, value, "ship_refund", out)
    tracks = []
    for r in range(len(REGIONS)):
        tracks.append(
            tuple((seat, 1) for seat, cap in s.tracks[r] if seat in kept and kept[seat].capacity == cap)
        )
    players = []
    for p in s.players:
        ships: tuple[Ship, ...] = ()
        if p.seat in kept:
            old = kept[p.seat]
            ships = (Ship(card=C.good_ol.id, capacity=1, location=old.location, stayed=old.location != UK),)
            out.append(fx.NewShipKept(seat=p.seat, card=old.card, location=old.location))
        players.append(replace(p, ships=ships))
    s = replace(
        s,
        players=tuple(players),
        tracks=tuple(tracks),
        supply_good_ol=s.supply_good_ol + returned_good_ol - len(kept),
        ship_deck=(),
        ship_discard=(),
        ship_row=(),
        phase=Phase.RESCALE_MONEY,
        kept=(),
        draws=(_shuffle_request("ships", tuple(C.ships), "ship deck"),),
    )
    return s


def _exchange(s: State, seat: int, upto: int, out: Effects) -> State:
    """Step 11 (3:1, remainders kept); with the shares trade and A-34 CASCADE every older
    coin is changed upward, which also runs once more at the end of the game."""
    p = s.players[seat]
    before = p.coins
    if s.options.shares_trade and s.options.adv_change == "CASCADE":
        after = adv.cascade(before, upto)
    else:
        coins = list(before)
        coins[upto] += coins[upto - 1] // C.exchange_rate
        coins[upto - 1] %= C.exchange_rate
        after = (coins[0], coins[1], coins[2])
    if after == before:
        return s
    out.append(fx.CurrencyExchanged(seat=seat, before=before, after=after))
    return set_player(s, replace(p, coins=after))


def _rescale_money(s: State, out: Effects) -> State:
    """Steps 9-13: reset demand, exchange 3:1 keeping remainders, forced sale of one own share;
    with the shares trade, the bank then auctions its shares."""
    s = replace(s, demand=C.demand_initial_base - s.players_count)
    out.append(fx.DemandReset(tokens=s.demand))
    old, new = s.stage, s.stage + 1
    for p in s.players:
        s = _exchange(s, p.seat, new, out)
    price = C.forced_sale_price[old]
    for seat in s.turn_order:
        own = _own_shares(s, seat)
        if not own:
            continue
        share = own[0]
        p = s.players[seat]
        s = set_player(s, replace(p, shares=tuple(x for x in p.shares if x != share)))
        s = replace(s, bank_shares=tuple(sorted((*s.bank_shares, share))))
        out.append(
            fx.ShareSold(
                seat=seat,
                company=seat,
                number=share[1],
                price=price,
                currency=CURRENCIES[new],
                buyer="bank",
                forced=True,
            )
        )
        s = gain(s, seat, price, "forced_share_sale", out, stage=new)
    s = replace(s, round=s.round + 1, phase=Phase.TURN_ORDER)
    out.append(fx.RoundStarted(round=s.round, stage=STAGE_NAMES[s.stage]))
    for seat in range(s.players_count):  # the same space, priced in the new currency
        out.append(
            vocabulary.SharePriceChanged(
                company=seat,
                space_from=s.track_space[seat],
                space_to=s.track_space[seat],
                value_from=C.share_value(old, s.track_space[seat]),
                value_to=share_price(s, seat),
                currency=currency(s),
                cause="new_stage",
            )
        )
    if s.options.shares_trade:  # step 13, in the new stage's currency before its first phase 1
        return replace(s, phase=Phase.BANK_AUCTIONS, bank_queue=adv.bank_queue(s))
    return s


def _end(s: State, out: Effects) -> State:
    """End of the game: ships back for pounds, then every company buys back its shares from
    the bank and (shares trade) from other players, whose income is kept apart until every
    buy-back is done."""
    for p in s.players:
        for sh in p.ships:
            value = C.ship(sh.card).value
            out.append(fx.ShipRefunded(seat=p.seat, card=sh.card, value=value, currency=currency(s)))
            s = gain(s, p.seat, value, "ship_refund", out)
    good_ol = sum(1 for p in s.players for sh in p.ships if sh.card == C.good_ol.id)
    returned = tuple(sh.card for p in s.players for sh in p.ships if sh.card != C.good_ol.id)
    s = replace(
        s,
        ship_discard=(*s.ship_discard, *returned),
        players=tuple(replace(p, ships=()) for p in s.players),
        tracks=tuple(() for _ in REGIONS),
        supply_good_ol=s.supply_good_ol + good_ol,
    )
    spaces = list(s.track_space)

    def move_token(seat: int, space: int, cause: str) -> None:
        if space != spaces[seat]:
            out.append(
                vocabulary.SharePriceChanged(
                    company=seat,
                    space_from=spaces[seat],
                    space_to=space,
                    value_from=C.share_value(s.stage, spaces[seat]),
                    value_to=C.share_value(s.stage, space),
                    currency=currency(s),
                    cause=cause,
                )
            )
            spaces[seat] = space

    for seat in s.turn_order:
        for number in range(1, C.shares_per_company + 1):
            share = (seat, number)
            if share in s.players[seat].shares:
                continue
            move_token(seat, C.space_of(money(s, seat)), "buy_back")
            price = C.share_value(s.stage, spaces[seat])
            holder = next((p.seat for p in s.players if share in p.shares), -1)
            p = s.players[seat]
            s = set_player(s, replace(p, shares=tuple(sorted((*p.shares, share)))))
            if holder < 0:
                s = replace(s, bank_shares=tuple(x for x in s.bank_shares if x != share))
                out.append(fx.ShareBoughtBack(seat=seat, number=number, price=price, seller="bank"))
                s = gain(s, seat, -price, "share_buy_back", out)  # may go negative
                continue
            q = s.players[holder]
            s = set_player(
                s,
                replace(
                    q,
                    shares=tuple(x for x in q.shares if x != share),
                    separate_income=q.separate_income + price,
                ),
            )
            out.append(
                fx.ShareBoughtBack(seat=seat, number=number, price=price, seller="player", holder=holder)
            )
            s = gain(s, seat, -price, "share_buy_back", out, bank=False)
        move_token(seat, C.space_of(money(s, seat)), "end_of_game")
    for p in s.players:
        if p.separate_income:
            s = set_player(s, replace(p, separate_income=0))
            s = gain(s, p.seat, p.separate_income, "buy_back_income", out, bank=False)
    if s.options.shares_trade and s.options.adv_change == "CASCADE":
        for p in s.players:
            s = _exchange(s, p.seat, 2, out)
    return replace(s, track_space=tuple(spaces), phase=Phase.FINISHED)


_HANDLERS: dict[Phase, Callable[[State, Effects], State]] = {
    Phase.SETUP: _setup_done,
    Phase.TURN_ORDER: _turn_order,
    Phase.DRAW: _draw_cards,
    Phase.RENT: _rent,
    Phase.REVEAL: _reveal,
    Phase.SAIL: _sail,
    Phase.BUY: _buy,
    Phase.SELL: _sell,
    Phase.MAINTENANCE: _maintenance,
    Phase.CLEAR_UP: _clear_up,
    Phase.RESCALE: _rescale,
    Phase.KEEP_NEW: _keep_new,
    Phase.RESCALE_SHIPS: _rescale_ships,
    Phase.RESCALE_MONEY: _rescale_money,
    Phase.BANK_AUCTIONS: adv.bank_auctions_step,
    Phase.PAYMENT: _payment,
    Phase.AUCTION: adv.auction_step,
    Phase.END: _end,
}


def _advance(s: State, out: Effects) -> State:
    """Run automatic procedures until a decision or a draw is due, or the game is over."""
    return run_automatic(s, out, _HANDLERS, Phase.FINISHED)  # type: ignore[no-any-return]


def resume(s: State) -> tuple[State, tuple[Effect, ...]]:
    """Run the automatic procedures from a position (a hand-built one, in tests and tools)."""
    out: Effects = []
    s = _advance(s, out)
    return s, tuple(out)


# --- decisions ---------------------------------------------------------------


def _check_sail(s: State, seat: int, d: SailShip) -> None:
    ship = next((sh for sh in s.players[seat].ships if sh.capacity == d.capacity), None)
    if ship is None or ship.location != UK:
        raise violation(
            "ship_not_in_uk",
            f"You have no ship of capacity {d.capacity} in the United Kingdom.",
            "5. Sail ships",
        )
    if not _region_open(s, d.region):
        raise violation("region_closed", "Egypt is not used during stage I.", "2. Draw cards; A-06")
    r = region_index(d.region)
    if d.war_entry:
        if not _war_locked(s, d.region):
            raise violation(
                "no_war", f"{d.region.value} is not locked by war.", "Advanced game, reputation 5"
            )
        adv.check_reputation(s, seat, d.region.value, "enter_war")
    elif _war_locked(s, d.region):
        raise violation(
            "region_at_war",
            f"{d.region.value} is locked by war; ships cannot enter the harbour"
            + (" (unless you spend 3 reputation there: war_entry)." if s.options.reputation else "."),
            "5. Sail ships",
        )
    if d.created:
        vip = d.created.count("VIP")
        if vip and d.region not in C.created_vip_regions:
            raise violation(
                "vip_destination",
                "A created VIP passenger travels to North America or British India only.",
                "Advanced game, reputation 3",
            )
        if not s.options.reputation:
            adv.check_reputation(s, seat, adv.UK_REP, "create_passenger")  # raises module_off
        cost = (
            vip * C.reputation_cost["create_vip"]
            + (len(d.created) - vip) * C.reputation_cost["create_passenger"]
        )
        if cost > s.players[seat].uk_reputation:
            raise violation(
                "reputation_too_low",
                f"Creating these passengers costs {cost} passenger tokens; you hold {s.players[seat].uk_reputation}.",
                "Advanced game, reputation 2-3",
            )
        if len(d.created) > _free_cabins(s, ship, r):
            raise violation(
                "no_free_cabin",
                "Created passengers need cabins still free after the waiting passengers board (A-07).",
                "Advanced game, reputation 2-3",
            )
    if d.overtake:
        track = s.tracks[region_index(d.region)]
        if not C.ship(ship.card).fast:
            raise violation(
                "not_fast", "Only a fast ship (red arrow) may overtake.", "5. Sail ships, Fast ships"
            )
        if not track:
            raise violation(
                "nothing_to_overtake",
                "There is no ship on that track to overtake.",
                "5. Sail ships, Fast ships",
            )
        last_seat, last_cap = track[-1]
        last = _ship(s, last_seat, last_cap)
        if C.ship(last.card).fast or last.stayed:
            raise violation(
                "overtake_blocked",
                "The last ship is fast or opted to stay last round; it cannot be overtaken.",
                "5. Sail ships, Fast ships",
            )


def _boarding(s: State, ship: Ship, r: int) -> tuple[int, int]:
    """VIP passengers board first (A-07), then regular ones, as cabins allow."""
    h = s.harbours[r]
    cabins = C.ship(ship.card).cabins
    vip = min(cabins, h.vip) if REGIONS[r] in C.vip_ticket else 0
    return vip, min(cabins - vip, h.passengers)


def _free_cabins(s: State, ship: Ship, r: int) -> int:
    return C.ship(ship.card).cabins - sum(_boarding(s, ship, r))


def _do_sail(s: State, seat: int, d: SailShip, out: Effects) -> State:
    """5. Sail ships: first empty space (or the overtaken spot), bonus coins, passengers."""
    r = region_index(d.region)
    if d.war_entry:
        s = adv.spend_reputation(s, seat, d.region.value, "enter_war", out)
    track = s.tracks[r]
    ref = (seat, d.capacity)
    track = (*track[:-1], ref, track[-1]) if d.overtake else (*track, ref)
    pos = track.index(ref) + 1
    s = replace(s, tracks=set_tuple(s.tracks, r, track))
    s = _replace_ship(s, seat, d.capacity, location=d.region.value, stayed=False, cargo=0)
    out.append(
        fx.ShipSailed(
            seat=seat,
            capacity=d.capacity,
            region=d.region.value,
            position=pos,
            overtook=d.overtake,
            war_entry=d.war_entry,
        )
    )
    h = s.harbours[r]
    bonus = min(C.bonus_first if pos == 1 else C.bonus_other, h.coins)
    if bonus:
        h = replace(h, coins=h.coins - bonus)
        s = replace(s, supply_coins=s.supply_coins + bonus)
        out.append(fx.BonusCoinsTaken(seat=seat, region=d.region.value, coins=bonus))
        s = gain(s, seat, bonus, "bonus_coins", out)
    s = replace(s, harbours=set_tuple(s.harbours, r, h))
    vip, regular = _boarding(s, _ship(s, seat, d.capacity), r)
    if vip or regular:
        income = vip * C.vip_ticket.get(d.region, 0) + regular * C.ticket[d.region]
        h = replace(h, vip=h.vip - vip, passengers=h.passengers - regular)
        s = replace(
            s,
            harbours=set_tuple(s.harbours, r, h),
            supply_vip=s.supply_vip + vip,
            supply_passengers=s.supply_passengers + regular,
        )
        out.append(
            fx.PassengersCarried(seat=seat, region=d.region.value, vip=vip, regular=regular, income=income)
        )
        s = gain(s, seat, income, "tickets", out)
    if d.created:  # paid from the tokens held before this arrival
        new_vip = d.created.count("VIP")
        new_regular = len(d.created) - new_vip
        for _ in range(new_vip):
            s = adv.spend_reputation(s, seat, adv.UK_REP, "create_vip", out)
        for _ in range(new_regular):
            s = adv.spend_reputation(s, seat, adv.UK_REP, "create_passenger", out)
        income = new_vip * C.vip_ticket.get(d.region, 0) + new_regular * C.ticket[d.region]
        out.append(
            fx.PassengersCreated(
                seat=seat, region=d.region.value, regular=new_regular, vip=new_vip, income=income
            )
        )
        s = gain(s, seat, income, "tickets", out)
    return adv.gain_reputation(s, seat, adv.UK_REP, vip + regular, "passengers_carried", out)


def _current_ship(s: State) -> tuple[int, int, int]:
    r = s.cursor_region
    seat, capacity = s.tracks[r][s.cursor]
    return r, seat, capacity


_PHASE_DECISIONS: dict[Phase, tuple[type[Decision], ...]] = {
    Phase.RENT: (RentShip, PassRenting, RevealTopShip, TakeRevealedShip, DiscardRevealedShip, PeekContract),
    Phase.SAIL: (SailShip,),
    Phase.BUY: (
        BuyContract,
        DeclineContract,
        RevealTopContract,
        TakeRevealedContract,
        DiscardRevealedContract,
    ),
    Phase.SELL: (ReturnShip, StayInRegion),
    Phase.KEEP_NEW: (KeepNewShip, ReturnAllShips),
    Phase.PAYMENT: (ChooseShareToSell,),
    Phase.AUCTION: (Bid, PassBid),
}
_ON_REVEALED = (TakeRevealedShip, DiscardRevealedShip, TakeRevealedContract, DiscardRevealedContract)


def apply(s: State, seat: int, decision: Decision) -> tuple[State, tuple[Effect, ...]]:
    if seat not in s.awaiting:
        raise violation("not_your_turn", "The game is not waiting for your decision.", "")
    if not isinstance(decision, _PHASE_DECISIONS.get(s.phase, ())):
        expected = ", ".join(d.model_fields["type"].default for d in _PHASE_DECISIONS.get(s.phase, ()))
        raise violation(
            "wrong_decision", f"In the {s.phase.value} phase the decision must be one of: {expected}.", ""
        )
    if s.phase in (Phase.RENT, Phase.BUY) and bool(s.revealed) != isinstance(decision, _ON_REVEALED):
        raise violation(
            "revealed_card" if s.revealed else "nothing_revealed",
            "Take or discard the card turned up first." if s.revealed else "No card is turned up.",
            "Advanced game, Company reputation 1 and 6",
        )
    out: Effects = []
    s = replace(s, awaiting=())
    n = s.players_count
    if isinstance(decision, RentShip):
        err = _rentable(s, seat, decision.card)
        if err:
            raise err
        s = _charge(s, seat, C.ships[decision.card].value, f"rent:{decision.card}", out, mandatory=False)
    elif isinstance(decision, PassRenting):
        out.append(fx.RentingPassed(seat=seat, automatic=False))
        s = replace(s, rent_passed=(*s.rent_passed, seat), cursor=(s.cursor + 1) % n)
    elif isinstance(decision, RevealTopShip):
        adv.check_reputation(s, seat, adv.UK_REP, "reveal_top_ship")
        if not (s.ship_deck or s.ship_discard):
            raise violation("deck_empty", "No ship card is left to turn up.", "Advanced game, reputation 1")
        s = adv.spend_reputation(s, seat, adv.UK_REP, "reveal_top_ship", out)
        s = _turn_up(s, seat, None, out)
    elif isinstance(decision, TakeRevealedShip):
        err = _rentable(s, seat, s.revealed, revealed=True)
        if err:
            raise err
        s = _charge(s, seat, C.ships[s.revealed].value, f"rent:{s.revealed}", out, mandatory=False)
    elif isinstance(decision, DiscardRevealedShip):
        out.append(fx.RevealedCardDiscarded(seat=seat, card=s.revealed, region=None))
        s = replace(s, ship_discard=(*s.ship_discard, s.revealed), revealed="")
    elif isinstance(decision, PeekContract):
        adv.check_reputation(s, seat, decision.region.value, "peek_contract")
        if (decision.region, decision.slot) not in _peekable(s, seat):
            raise violation(
                "not_peekable",
                "Peek at a face-down contract of that region's row that you have not seen yet.",
                "Advanced game, reputation 4",
            )
        r = region_index(decision.region)
        card = s.contract_row[r][decision.slot - 1].card
        s = adv.spend_reputation(s, seat, decision.region.value, "peek_contract", out)
        out.append(
            fx.ContractPeeked(
                seat=seat, region=decision.region.value, slot=decision.slot, card=card, visible_to=(seat,)
            )
        )
        s = replace(s, peeks=(*s.peeks, (seat, card)))
    elif isinstance(decision, SailShip):
        _check_sail(s, seat, decision)
        s = _do_sail(s, seat, decision, out)
        s = replace(s, cursor=(s.cursor + 1) % n)
    elif isinstance(decision, BuyContract):
        r, _, capacity = _current_ship(s)
        err = _buyable(s, seat, capacity, r, decision.card)
        if err:
            raise err
        cost = _contract_cost(C.contracts[decision.card], capacity)
        s = _charge(s, seat, cost, f"contract:{decision.card}", out, mandatory=False)
    elif isinstance(decision, RevealTopContract):
        r, _, _ = _current_ship(s)
        adv.check_reputation(s, seat, REGIONS[r].value, "reveal_top_contract")
        if not (s.contract_deck[r] or s.contract_discard[r]):
            raise violation("deck_empty", "No contract is left to turn up.", "Advanced game, reputation 6")
        s = adv.spend_reputation(s, seat, REGIONS[r].value, "reveal_top_contract", out)
        s = _turn_up(s, seat, r, out)
    elif isinstance(decision, TakeRevealedContract):
        r, _, capacity = _current_ship(s)
        err = _buyable(s, seat, capacity, r, s.revealed, revealed=True)
        if err:
            raise err
        cost = _contract_cost(C.contracts[s.revealed], capacity)
        s = _charge(s, seat, cost, f"contract:{s.revealed}", out, mandatory=False)
    elif isinstance(decision, DiscardRevealedContract):
        r, _, _ = _current_ship(s)
        out.append(fx.RevealedCardDiscarded(seat=seat, card=s.revealed, region=REGIONS[r].value))
        discard = set_tuple(s.contract_discard, r, (*s.contract_discard[r], s.revealed))
        s = replace(s, contract_discard=discard, revealed="")
    elif isinstance(decision, DeclineContract):
        r, _, capacity = _current_ship(s)
        out.append(
            fx.ContractDeclined(seat=seat, capacity=capacity, region=REGIONS[r].value, automatic=False)
        )
        s = replace(s, cursor=s.cursor + 1)
    elif isinstance(decision, ReturnShip):
        s = _return_ship(s, s.cursor_region, s.cursor, out, forced_by_war=False)
    elif isinstance(decision, StayInRegion):
        r, _, capacity = _current_ship(s)
        war = _war_locked(s, REGIONS[r])
        if war and not decision.despite_war:
            raise violation(
                "war_forces_return",
                "A war broke out in this region: return, or spend 1 reputation to stay (despite_war).",
                "7. Sell cotton; Advanced game, reputation 7",
            )
        if decision.despite_war:
            if not war:
                raise violation(
                    "no_war", "No war broke out in this region this round.", "Advanced game, reputation 7"
                )
            s = adv.spend_reputation(s, seat, REGIONS[r].value, "stay_despite_war", out)
        s = _replace_ship(s, seat, capacity, stayed=True)
        out.append(fx.ShipStayed(seat=seat, capacity=capacity, region=REGIONS[r].value, despite_war=war))
        s = replace(s, cursor=s.cursor + 1)
    elif isinstance(decision, KeepNewShip):
        ship = next((sh for sh in s.players[seat].ships if sh.card == decision.card), None)
        if ship is None or not C.ship(ship.card).new:
            raise violation(
                "not_new_ship", f"You hold no NEW-icon ship {decision.card}.", "End of the stage, step 7"
            )
        s = replace(s, kept=(*s.kept, (seat, ship.card)), cursor=s.cursor + 1)
    elif isinstance(decision, ReturnAllShips):
        s = replace(s, cursor=s.cursor + 1)
    elif isinstance(decision, ChooseShareToSell):
        s = adv.choose_share(s, seat, decision.company, decision.number, out)
    elif isinstance(decision, Bid):
        s = adv.bid(s, seat, (decision.pence, decision.shillings, decision.pounds), out)
    elif isinstance(decision, PassBid):
        s = adv.pass_bid(s, seat, out)
    s = _advance(s, out)
    return s, tuple(out)


def _sail_options(s: State, seat: int) -> list[Decision]:
    created: list[tuple[Literal["REGULAR", "VIP"], ...]] = [()]
    if s.options.reputation:
        created += [("REGULAR",), ("REGULAR", "REGULAR"), ("VIP",)]
    out: list[Decision] = []
    for ship in _ships_in_uk(s, seat):
        for region in REGIONS:
            war_entry = _war_locked(s, region) and s.options.reputation
            for overtake in (False, True):
                for extra in created:
                    d = SailShip(
                        capacity=ship.capacity,
                        region=region,
                        overtake=overtake,
                        war_entry=war_entry,
                        created=extra,
                    )
                    try:
                        _check_sail(s, seat, d)
                    except RuleViolationError:
                        continue
                    out.append(d)
    return out


def legal_decisions(s: State, seat: int) -> tuple[Decision, ...]:
    if seat not in s.awaiting:
        return ()
    if s.phase == Phase.RENT:
        if s.revealed:
            take = [TakeRevealedShip()] if _rentable(s, seat, s.revealed, revealed=True) is None else []
            return (*take, DiscardRevealedShip())
        rent: list[Decision] = [RentShip(card=c) for c in s.ship_row if _rentable(s, seat, c) is None]
        if _may_reveal_ship(s, seat):
            rent.append(RevealTopShip())
        rent += [PeekContract(region=region, slot=slot) for region, slot in _peekable(s, seat)]
        return (*rent, PassRenting())
    if s.phase == Phase.SAIL:
        return tuple(_sail_options(s, seat))
    if s.phase == Phase.BUY:
        r, _, capacity = _current_ship(s)
        if s.revealed:
            ok = _buyable(s, seat, capacity, r, s.revealed, revealed=True) is None
            return (*([TakeRevealedContract()] if ok else []), DiscardRevealedContract())
        buys: list[Decision] = [
            BuyContract(card=slot.card)
            for slot in s.contract_row[r]
            if _buyable(s, seat, capacity, r, slot.card) is None
        ]
        if _may_reveal_contract(s, seat, r):
            buys.append(RevealTopContract())
        return (*buys, DeclineContract())
    if s.phase == Phase.SELL:
        r, _, _ = _current_ship(s)
        if _war_locked(s, REGIONS[r]):
            return (ReturnShip(), StayInRegion(despite_war=True))
        return (ReturnShip(), StayInRegion())
    if s.phase == Phase.KEEP_NEW:
        keep = [KeepNewShip(card=sh.card) for sh in s.players[seat].ships if C.ship(sh.card).new]
        return (*keep, ReturnAllShips())
    if s.phase == Phase.PAYMENT:
        return tuple(ChooseShareToSell(company=c, number=k) for c, k in adv.sellable(s, seat))
    if s.phase == Phase.AUCTION:
        bids = [Bid(pence=b[0], shillings=b[1], pounds=b[2]) for b in adv.bid_options(s, seat)]
        return (*bids, PassBid())
    return ()


_PROMPTS = {
    Phase.RENT: "rent a ship from the ship card row, or pass",
    Phase.SAIL: "sail one of your ships from the United Kingdom",
    Phase.BUY: "buy a cotton contract for your ship, or decline",
    Phase.SELL: "return your empty ship to the United Kingdom, or stay",
    Phase.KEEP_NEW: "keep a NEW-icon ship as a Good ol' Ship, or return every ship",
    Phase.PAYMENT: "choose a share to sell at auction",
    Phase.AUCTION: "bid for the share, or pass",
}


def pending(s: State) -> Pending:
    if s.draws:
        return Pending(draw=s.draws[0], prompt=f"draw: {s.draws[0].label}")
    if s.phase == Phase.FINISHED:
        return Pending(finished=True, prompt="the game is over")
    prompt = _PROMPTS.get(s.phase, "")
    if s.revealed and s.phase in (Phase.RENT, Phase.BUY):
        prompt = f"rent or discard the card turned up, {s.revealed}"
        if s.phase == Phase.BUY:
            prompt = f"buy or discard the contract turned up, {s.revealed}"
    if s.phase in (Phase.BUY, Phase.SELL):
        r, _, capacity = _current_ship(s)
        prompt += f" (your capacity-{capacity} ship in {REGIONS[r].value})"
    if s.phase == Phase.PAYMENT and s.payment is not None:
        prompt += f" to cover {s.payment.amount} {currency(s)} ({s.payment.purpose})"
    if s.phase == Phase.AUCTION and s.auction is not None:
        a = s.auction
        prompt = (
            f"bid for share {a.number} of seat {a.company}'s company (worth more than {adv.standing(a)} "
            "pence-equivalents, paid with coins you hold), or pass"
        )
    return Pending(seats=s.awaiting, prompt=prompt)


# --- standings, views and conservation --------------------------------------


def score(s: State, seat: int) -> tuple[int, ...]:
    pence, shillings, pounds = s.players[seat].coins
    if s.options.final_tiebreak == "TOTAL_VALUE":
        return (pounds * 9 + shillings * 3 + pence,)
    return (pounds, shillings, pence)


def standings(s: State) -> tuple[Standing, ...]:
    """End of the game, step 4: most pounds wins; shillings then pence break ties; else shared."""
    scores = {seat: score(s, seat) for seat in range(s.players_count)}
    out = []
    for seat in range(s.players_count):
        rank = 1 + sum(1 for other in scores.values() if other > scores[seat])
        pence, shillings, pounds = s.players[seat].coins
        out.append(
            Standing(seat=seat, rank=rank, score=scores[seat], summary=f"£{pounds} {shillings}s {pence}d")
        )
    return tuple(sorted(out, key=lambda x: (x.rank, x.seat)))


def view(s: State, seat: int | None) -> dict[str, Any]:
    """What a seat (or a spectator) may see: no deck order, no face-down contract."""
    stage = s.stage
    seen = {card for who, card in s.peeks if who == seat}
    regions = []
    for r, region in enumerate(REGIONS):
        slots = []
        for slot in s.contract_row[r]:
            if slot.face_up or slot.card in seen:
                slots.append(
                    {**_contract_view(slot.card), "face_up": slot.face_up, "peeked": not slot.face_up}
                )
            else:
                slots.append({"card": None, "face_up": False})
        h = s.harbours[r]
        regions.append(
            {
                "region": region.value,
                "open": _region_open(s, region) and not _war_locked(s, region),
                "war": None if s.war is None or s.war.region != region else s.war.side,
                "harbour": {"coins": h.coins, "passengers": h.passengers, "vip": h.vip},
                "contract_deck": len(s.contract_deck[r]),
                "contract_discard": list(s.contract_discard[r]),
                "contracts": slots,
                "track": [
                    {"seat": st, "capacity": cap, "stayed": _ship(s, st, cap).stayed}
                    for st, cap in s.tracks[r]
                ],
            }
        )
    players = []
    for p in s.players:
        players.append(
            {
                "seat": p.seat,
                "coins": dict(zip(CURRENCIES, p.coins, strict=True)),
                "money": p.coins[stage],
                "wealth": wealth(s, p.seat),
                "track_space": s.track_space[p.seat],
                "share_value": share_price(s, p.seat),
                "shares": [{"company": c, "number": n} for c, n in p.shares],
                "reputation": {
                    **{region.value: p.reputation[r] for r, region in enumerate(REGIONS)},
                    adv.UK_REP: p.uk_reputation,
                },
                "separate_income": p.separate_income,
                "ships": [
                    {
                        "card": sh.card,
                        "capacity": sh.capacity,
                        "location": sh.location,
                        "cargo": sh.cargo,
                        "stayed": sh.stayed,
                        **_ship_card_view(sh.card),
                    }
                    for sh in p.ships
                ],
            }
        )
    return {
        "round": s.round,
        "stage": STAGE_NAMES[stage],
        "currency": CURRENCIES[stage],
        "phase": s.phase.value,
        "turn_order": list(s.turn_order),
        "awaiting": list(s.awaiting),
        "demand": {
            "tokens": s.demand,
            "length": len(C.demand_row),
            "next_price": C.demand_row[s.demand] if s.demand < len(C.demand_row) else C.guaranteed_price,
        },
        "ship_row": [{"card": c, **_ship_card_view(c)} for c in s.ship_row],
        "ship_deck": len(s.ship_deck),
        "ship_discard": list(s.ship_discard),
        "regions": regions,
        "war_threshold": C.war_threshold[s.players_count],
        "players": players,
        "bank_shares": [{"company": c, "number": n} for c, n in s.bank_shares],
        "modules": {"shares_trade": s.options.shares_trade, "reputation": s.options.reputation},
        "revealed": _revealed_view(s),
        "payment": None
        if s.payment is None
        else {
            "seat": s.payment.seat,
            "amount": s.payment.amount,
            "currency": currency(s),
            "purpose": s.payment.purpose,
            "mandatory": s.payment.mandatory,
            "short": max(0, s.payment.amount - money(s, s.payment.seat)),
        },
        "auction": _auction_view(s),
        "bank_auction_queue": [{"company": c, "number": n} for c, n in s.bank_queue],
        "supply": {
            "coins": s.supply_coins,
            "passengers": s.supply_passengers,
            "vip": s.supply_vip,
            "good_ol_ships": s.supply_good_ol,
        },
    }


def _revealed_view(s: State) -> dict[str, Any] | None:
    if not s.revealed or s.revealed == "?":
        return None
    if s.revealed in C.contracts:
        return {"kind": "contract", **_contract_view(s.revealed)}
    return {"kind": "ship", "card": s.revealed, **_ship_card_view(s.revealed)}


def _auction_view(s: State) -> dict[str, Any] | None:
    a = s.auction
    if a is None:
        return None
    return {
        "company": a.company,
        "number": a.number,
        "seller": None if a.seller < 0 else a.seller,
        "start": a.base,
        "currency": CURRENCIES[a.currency],
        "floor": a.floor,
        "bidders": list(a.bidders),
        "high_bidder": None if a.high_bidder < 0 else a.high_bidder,
        "high_bid": dict(zip(CURRENCIES, a.high_bid, strict=True)) if a.high_bidder >= 0 else None,
        "standing": adv.standing(a),
        "awaiting": list(s.awaiting),
        "unit": dict(zip(CURRENCIES, UNIT, strict=True)),
    }


def _contract_view(card: str) -> dict[str, Any]:
    c = C.contracts[card]
    return {
        "card": c.id,
        "price": c.price,
        "cotton": c.cotton,
        "unrest": c.unrest,
        "coins": c.coins,
        "passengers": c.passengers,
        "vip": c.vip,
        "drought": c.drought,
    }


def _ship_card_view(card: str) -> dict[str, Any]:
    c = C.ship(card)
    return {"cabins": c.cabins, "fast": c.fast, "new": c.new, "value": c.value, "maintenance": c.maintenance}


def conservation(s: State) -> list[str]:
    """Cotton Trade's conservation laws; an empty list means they all hold."""
    problems: list[str] = []
    held = [sh.card for p in s.players for sh in p.ships if sh.card != C.good_ol.id]
    pending_ships = [c for d in s.draws if d.key == "ships" for c in d.items]
    revealed = [s.revealed] if s.revealed and s.revealed != "?" else []
    ship_cards = [*s.ship_deck, *s.ship_discard, *s.ship_row, *held, *(c for c in revealed if c in C.ships)]
    if not pending_ships and sorted(ship_cards) != sorted(C.ships):
        problems.append("ship cards: every one of the 24 is in exactly one place")
    good_ol = sum(1 for p in s.players for sh in p.ships if sh.card == C.good_ol.id)
    if good_ol + s.supply_good_ol != C.good_ol_cards:
        problems.append("Good ol' Ship cards: held plus supply is 4")
    if not s.draws and s.phase not in (Phase.SETUP,):
        for r, region in enumerate(REGIONS):
            cards = [*s.contract_deck[r], *s.contract_discard[r], *(sl.card for sl in s.contract_row[r])]
            cards += [c for c in revealed if c in C.contracts and C.contracts[c].region == region]
            deck_stage = s.stage + (s.phase in (Phase.KEEP_NEW, Phase.RESCALE_SHIPS, Phase.RESCALE_MONEY))
            if cards and sorted(cards) != list(C.stage_deck(deck_stage, region)):
                problems.append(f"contracts of {region.value}: the stage deck is whole")
    if s.supply_coins + sum(h.coins for h in s.harbours) != C.coin_tokens:
        problems.append("coin tokens: supply plus harbours is 24")
    held_tokens = sum(p.uk_reputation for p in s.players)
    if s.supply_passengers + sum(h.passengers for h in s.harbours) + held_tokens != C.passenger_tokens:
        problems.append("passenger tokens: supply plus harbours plus players' UK reputation is 40")
    if sum(held_value(p) for p in s.players) + s.bank != 0:
        problems.append("money: every coin paid or earned went to or came from the bank or a player")
    for p in s.players:
        if not all(0 <= x <= C.reputation_max for x in (*p.reputation, p.uk_reputation)):
            problems.append(f"seat {p.seat}: reputation within 0..{C.reputation_max}")
    if s.auction is not None:
        a = s.auction
        holder = s.players[a.seller].shares if a.seller >= 0 else s.bank_shares
        if (a.company, a.number) not in holder:
            problems.append("auction: the share on sale is still its seller's")
    if s.supply_vip + sum(h.vip for h in s.harbours) != C.vip_tokens:
        problems.append("VIP tokens: supply plus harbours is 10")
    shares = sorted([*s.bank_shares, *(sh for p in s.players for sh in p.shares)])
    expected = sorted((c, k) for c in range(s.players_count) for k in range(1, C.shares_per_company + 1))
    if shares != expected:
        problems.append("shares: each of the 4 per company is held once")
    on_tracks = sorted(ref for t in s.tracks for ref in t)
    at_sea = sorted((p.seat, sh.capacity) for p in s.players for sh in p.ships if sh.location != UK)
    if on_tracks != at_sea:
        problems.append("ships: every ship outside the UK is on exactly one track")
    for p in s.players:
        caps = [sh.capacity for sh in p.ships]
        if len(caps) != len(set(caps)):
            problems.append(f"seat {p.seat}: at most one ship per capacity")
        if any(c < 0 for c in p.coins) and s.phase != Phase.FINISHED:
            problems.append(f"seat {p.seat}: money is never negative before the end")
        if any(sh.cargo > sh.capacity for sh in p.ships):
            problems.append(f"seat {p.seat}: cargo within capacity")
    if not 0 <= s.demand <= len(C.demand_row):
        problems.append("demand row: 0 to 30 tokens")
    return problems


def secrets(s: State, seat: int | None) -> set[str]:
    """Card ids the seat may not see now: the decks (their order is hidden) and face-down
    contracts, except those the seat has peeked at (reputation use 4)."""
    hidden = set(s.ship_deck)
    seen = {card for who, card in s.peeks if who == seat}
    for r in range(len(REGIONS)):
        hidden.update(s.contract_deck[r])
        hidden.update(slot.card for slot in s.contract_row[r] if not slot.face_up and slot.card not in seen)
    return hidden


class CottonTradeEngine:
    """The ``RulesEngine`` of Cotton Trade."""

    meta = META
    decision_adapter: TypeAdapter[Any] = DECISION_ADAPTER
    state_adapter: TypeAdapter[State] = TypeAdapter(State)

    new_game = staticmethod(new_game)
    pending = staticmethod(pending)
    legal_decisions = staticmethod(legal_decisions)
    apply = staticmethod(apply)
    apply_draw = staticmethod(apply_draw)
    view = staticmethod(view)
    standings = staticmethod(standings)
    conservation = staticmethod(conservation)
    secrets = staticmethod(secrets)
    describe = staticmethod(words.describe)


ENGINE = CottonTradeEngine()

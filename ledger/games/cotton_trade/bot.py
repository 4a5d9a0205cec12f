"""A scripted greedy Cotton Trade player: sensible rentals, voyages, contracts and bids.

It always answers with one of the engine's legal decisions (or, in an auction, a
bid the engine accepts: coins it holds, worth more than the standing bid), and it
plays from public information and its own peeks only: face-down contracts and the
order of the decks are never read, only the set of cards still unseen. Pure and
deterministic: no randomness, no clock.

What it does, phase by phase:

- rent: the ship whose capacity, cabins and speed add most this stage for what it
  can pay now without selling shares (fees come back at the stage's end, so the
  fee is only tied-up money; maintenance is the real cost); a reputation peek at
  a face-down contract in the region it plans to sail to; a passenger token to
  turn up the top ship card when the row offers nothing it wants;
- sail: the ship and region with the best expected return: bonus coins, waiting
  and created passengers, and the contract the ship can expect after the ships
  ahead of it have bought (face-up and peeked cards, the unseen cards' average
  for the others); a region at war only by reputation, when that pays;
- buy: the affordable contract with the best sale income (exact: the demand row
  after the ships that sell before it) minus its price; else, by reputation, the
  top card of the deck;
- sell: an empty ship stays (also despite a war, by reputation) when the
  region's next harvest, from the front of the queue, beats sailing anew;
- stage end: keep a NEW ship as a Good ol' Ship when its year of free voyages is
  worth more than the refund it gives up;
- shares trade: sell the share worth least to keep (its end-game buy-back), and
  bid while the price is well below that buy-back value and the money left
  still covers the fleet's needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ledger.engine import Decision
from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import decisions
from ledger.games.cotton_trade.common import UNIT, money, ship_of, value, wealth
from ledger.games.cotton_trade.components import REGIONS, Components, ContractCard, ShipCard, load
from ledger.games.cotton_trade.cotton import contract_cost, sale_income
from ledger.games.cotton_trade.rules import legal_decisions
from ledger.games.cotton_trade.state import UK, Phase, State

C: Components = load()

REP_VALUE = 1.0  # a level of regional reputation, in coins of the stage's currency
TOKEN_VALUE = 0.8  # a passenger token (UK reputation), in coins
TOKENS_AHEAD = 2.0  # cotton a ship ahead in the selling order is expected to sell
BID_SHARE = (0.6, 0.7, 0.85)  # bid up to this part of a share's expected buy-back, by stage
STAGE_ROUNDS = 3
PEEK_KEEP = 3  # regional reputation a peek leaves untouched
BID_RESERVE = 6  # coins kept back from bids while ships still have to be rented or loaded
TYPICAL_FINAL = 40.0  # pounds a company holds at the end before its buy-backs (greedy self-play)
ROUND_GAIN = 9.0  # pounds a company gains in a round of stage III (greedy self-play)
GOOD_OL_ROUND = 1.0  # what a Good ol' Ship earns a round, in coins
STAY_MARGIN = 0.0  # an empty ship stays when the region's next harvest beats returning by this


# --- small estimates -----------------------------------------------------------------


def _profit(card: ContractCard, capacity: int, demand: float) -> float | None:
    """What the contract earns the ship (sale minus price); None for a drought card."""
    if card.drought or card.cotton == 0:
        return None
    return sale_income(max(0, int(demand)), min(card.cotton, capacity)) - contract_cost(card, capacity)


def _maintenance(s: State, seat: int, extra: int = 0) -> int:
    return sum(C.ship(sh.card).maintenance for sh in s.players[seat].ships) + extra


def _rounds_left(s: State) -> int:
    """Rounds of the stage still to play, this one included."""
    return STAGE_ROUNDS - (s.round - 1) % STAGE_ROUNDS


def _open_regions(s: State) -> list[int]:
    """Region indexes in play this stage (Egypt only from stage II)."""
    return [r for r, region in enumerate(REGIONS) if not (s.stage == 0 and region in C.closed_in_stage_one)]


def _known(s: State, seat: int, r: int) -> tuple[list[str], int]:
    """The contracts of a region's row the seat can see, and how many it cannot."""
    seen = {card for who, card in s.peeks if who == seat}
    known = [sl.card for sl in s.contract_row[r] if sl.face_up or sl.card in seen]
    return known, len(s.contract_row[r]) - len(known)


def _unseen(s: State, seat: int, r: int) -> list[ContractCard]:
    """Cards of the region the seat has not seen (deck plus face-down row): their mix is
    public (the stage deck minus what is in sight); their order is not used."""
    seen = {card for who, card in s.peeks if who == seat}
    cards = list(s.contract_deck[r])
    cards += [sl.card for sl in s.contract_row[r] if not sl.face_up and sl.card not in seen]
    if len(cards) < 3:  # an empty deck is reshuffled from its discard pile
        cards += list(s.contract_discard[r])
    return [C.contracts[c] for c in cards]


def _mean(xs: Iterable[float]) -> float:
    items = list(xs)
    return sum(items) / len(items) if items else 0.0


def _unknown_value(pool: Sequence[ContractCard], capacity: int, demand: float, budget: float) -> float:
    """Expected profit of one unseen card for the ship: bought only if it pays and is affordable."""
    values = []
    for card in pool:
        p = _profit(card, capacity, demand)
        values.append(p if p is not None and p > 0 and contract_cost(card, capacity) <= budget else 0.0)
    return _mean(values)


def _quantile(pool: Sequence[ContractCard], capacity: int, demand: float, budget: float, q: float) -> float:
    """The profit the ship makes with the card at quantile ``q`` (from the best) of a pool: what
    it can expect when it picks among several cards of that pool."""
    values = []
    for card in pool:
        p = _profit(card, capacity, demand)
        values.append(p if p is not None and p > 0 and contract_cost(card, capacity) <= budget else 0.0)
    values.sort(reverse=True)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def _ahead_tokens(s: State, r: int, pos: int) -> float:
    """Cotton sold before a ship at (region, 0-based position) sells: exact for ships that
    have bought already (the buying order is the selling order), estimated otherwise."""
    total = 0.0
    for r2, track in enumerate(s.tracks):
        for i, (seat, capacity) in enumerate(track):
            if (r2, i) >= (r, pos):
                break
            done = s.phase in (Phase.BUY, Phase.SELL) and (r2, i) < (s.cursor_region, s.cursor)
            cargo = ship_of(s, seat, capacity).cargo
            total += cargo if done or cargo else min(capacity, TOKENS_AHEAD)
    return total


def _best_contract(
    s: State, seat: int, r: int, capacity: int, ahead: int, demand: float, budget: float
) -> float:
    """The profit the ship can expect in a region's row once ``ahead`` ships have bought."""
    known, unknown = _known(s, seat, r)
    pool = _unseen(s, seat, r)
    entries: list[tuple[float, float]] = []  # (rank value, our value)
    for card_id in known:
        card = C.contracts[card_id]
        p = _profit(card, capacity, demand)
        if p is None:
            continue
        ours = p if p > 0 and contract_cost(card, capacity) <= budget else 0.0
        entries.append((p, ours))
    ev = _unknown_value(pool, capacity, demand, budget)
    entries += [(ev, ev)] * unknown
    entries.sort(key=lambda x: -x[0])
    rest = entries[ahead:]
    return max((ours for _, ours in rest), default=0.0)


def _outlook(s: State, seat: int, r: int, capacity: int, ahead: int, demand: float, budget: float) -> float:
    """Expected profit next round in a region (a fresh row from its unseen cards), for a ship
    with ``ahead`` ships before it."""
    pool = _unseen(s, seat, r)
    drawn = C.contract_draw[s.players_count][REGIONS[r]]
    if not pool or ahead >= drawn:
        return 0.0
    values = []
    for card in pool:
        p = _profit(card, capacity, demand)
        values.append(p if p is not None and p > 0 and contract_cost(card, capacity) <= budget else 0.0)
    values.sort(reverse=True)
    # the (ahead + 1)-th best of ``drawn`` cards: roughly that quantile of the pool
    return values[min(len(values) - 1, int((ahead + 0.5) / drawn * len(values)))]


def _price_per_token(s: State, seat: int) -> float:
    """The stage's price of a cotton token, averaged over the cards still in play."""
    cards = [
        c
        for r in _open_regions(s)
        for c in _unseen(s, seat, r) + [C.contracts[x] for x in _known(s, seat, r)[0]]
        if not c.drought and c.cotton
    ]
    if not cards:
        return 3.0
    return sum(c.price for c in cards) / sum(c.cotton for c in cards)


# --- shares ----------------------------------------------------------------------------


def _final_pounds(s: State, company: int) -> float:
    """A company's pounds at the end, before its buy-backs: in stage III its wealth plus a
    typical round's gain for each round left; before, a typical final fortune scaled by how
    the company stands against the others now."""
    n = s.players_count
    if s.stage == 2:
        return wealth(s, company) + ROUND_GAIN * (C.rounds - s.round + 1)
    mean = sum(wealth(s, q) for q in range(n)) / n
    ratio = wealth(s, company) / mean if mean > 0 else 1.0
    return TYPICAL_FINAL * min(2.0, max(0.5, ratio))


def _share_value(s: State, company: int, number: int) -> float:
    """A share's expected end-game buy-back, in pence-equivalents: the owner pays the stage III
    price of its track space, read from its final pounds, less the shares it buys back first."""
    pounds = _final_pounds(s, company)
    owner = s.players[company].shares
    for n in range(1, number):
        if (company, n) not in owner:
            pounds -= C.share_value(2, C.space_of(int(pounds)))
    return C.share_value(2, C.space_of(int(pounds))) * UNIT[2]


def _choose_share(s: State, seat: int, legal: Sequence[Decision]) -> Decision:
    """Sell the share worth least to keep; on a tie another company's rather than one's own."""
    options = [d for d in legal if isinstance(d, decisions.ChooseShareToSell)]
    return min(options, key=lambda d: (_share_value(s, d.company, d.number), d.company == seat, d.company))


def _bid(s: State, seat: int, legal: Sequence[Decision]) -> Decision:
    """Outbid by the least coins while the bid stays well below the share's expected buy-back,
    keeping enough current money for the fleet (and, at a stage's start, a new ship and cargo);
    the bid is worked out from the auction, whatever ``legal`` lists."""
    a = s.auction
    if a is None:
        return decisions.PassBid()
    limit = BID_SHARE[s.stage] * _share_value(s, a.company, a.number)
    stage_start = s.payment is None  # a bank auction between stages: the stage is still ahead
    resume = s.payment.resume if s.payment is not None else Phase.RENT
    reserve = _maintenance(s, seat)
    if stage_start or resume in (Phase.RENT, Phase.SAIL, Phase.BUY):
        reserve += BID_RESERVE
    held = s.players[seat].coins
    spendable = max(0, held[s.stage] - reserve)
    avail = (*held[: s.stage], spendable, *held[s.stage + 1 :])
    coins = adv.cheapest_bid((avail[0], avail[1], avail[2]), adv.standing(a))
    if coins is None or value(coins) > limit:
        return decisions.PassBid()
    return decisions.Bid(pence=coins[0], shillings=coins[1], pounds=coins[2])


# --- renting -----------------------------------------------------------------------------


def _slot_values(s: State, seat: int, capacity: int, demand: float, budget: float) -> list[float]:
    """This round's contracts in every open region, as the seat sees them: the profit of each
    card it can see (0 if it would not buy it), the unseen cards' average for the others."""
    values: list[float] = []
    for r in _open_regions(s):
        known, unknown = _known(s, seat, r)
        for card_id in known:
            card = C.contracts[card_id]
            p = _profit(card, capacity, demand)
            values.append(p if p is not None and p > 0 and contract_cost(card, capacity) <= budget else 0.0)
        if unknown:
            values += [_unknown_value(_unseen(s, seat, r), capacity, demand, budget)] * unknown
    return values


def _ship_score(s: State, seat: int, card: ShipCard) -> float:
    """What a rented ship adds this stage: a contract this round with the money left after
    the fee and the cargo of the ships already held, contracts in the stage's later rounds,
    cabins and speed, less its maintenance. The fee itself comes back at the stage's end."""
    m = money(s, seat)
    if card.value + _maintenance(s, seat, card.maintenance) > m:
        return -1.0  # never sell shares for a ship, nor for its upkeep if no cargo pays it
    pp = _price_per_token(s, seat)
    committed = sum(pp * min(sh.capacity, 3) for sh in s.players[seat].ships)
    demand = s.demand + s.players_count  # about a token a player sells before this ship
    values = sorted(_slot_values(s, seat, card.capacity, demand, m - card.value - committed), reverse=True)
    now = values[min(len(values) - 1, (s.players_count - 1) // 2)] if values else 0.0
    pool = [c for r in _open_regions(s) for c in _unseen(s, seat, r)]
    later = (_rounds_left(s) - 1) * 0.25 * _quantile(pool, card.capacity, demand, max(m, 12), 0.3)
    extras = card.cabins * 1.0 + (1.0 if card.fast and _rounds_left(s) > 1 else 0.0)
    return now + later + extras - card.maintenance * _rounds_left(s)


def _planned_region(s: State, seat: int, capacity: int) -> int | None:
    """Where a ship of this capacity would sail now for its contract, if anywhere pays."""
    best, where = 0.0, None
    budget = money(s, seat)
    for r in _open_regions(s):
        ahead = len(s.tracks[r])
        demand = s.demand + _ahead_tokens(s, r, ahead)
        v = _best_contract(s, seat, r, capacity, ahead, demand, budget)
        if v > best:
            best, where = v, r
    return where


def _rent(s: State, seat: int, legal: Sequence[Decision]) -> Decision:
    """Peek where the fleet will sail (reputation to spare), rent the best ship worth its
    upkeep, or turn up the top ship card for a passenger token when the row has none."""
    p = s.players[seat]
    if s.revealed:
        card = C.ships.get(s.revealed)
        if card is not None and decisions.TakeRevealedShip() in legal and _ship_score(s, seat, card) > 0:
            return decisions.TakeRevealedShip()
        return decisions.DiscardRevealedShip()
    rentals = [d for d in legal if isinstance(d, decisions.RentShip)]
    scored = [(_ship_score(s, seat, C.ships[d.card]), d) for d in rentals]
    best = max((x for x in scored if x[0] > 0), key=lambda x: x[0], default=None)
    # peek at a face-down contract where the biggest ship (held or about to be) will sail
    caps = [sh.capacity for sh in p.ships if sh.location == UK]
    if best is not None:
        caps.append(C.ships[best[1].card].capacity)
    if caps:
        r = _planned_region(s, seat, max(caps))
        if r is not None and p.reputation[r] > PEEK_KEEP:
            for d in legal:
                if isinstance(d, decisions.PeekContract) and d.region == REGIONS[r]:
                    return d
    if best is not None:
        return best[1]
    if decisions.RevealTopShip() in legal and len(p.ships) < 3:
        # the top card, when a good part of the cards it may be are ships worth renting
        held = {sh.capacity for sh in p.ships}
        pool = [C.ships[c] for c in s.ship_deck] or [C.ships[c] for c in s.ship_discard]
        wanted = [c for c in pool if c.capacity not in held and _ship_score(s, seat, c) > 0]
        if pool and len(wanted) >= len(pool) / 3:
            return decisions.RevealTopShip()
    return decisions.PassRenting()


# --- sailing -----------------------------------------------------------------------------


def _sail_value(s: State, seat: int, d: decisions.SailShip) -> float:
    """Bonus coins, tickets (waiting passengers, created ones less their tokens), the contract
    the ship can expect from its place in the queue, less the reputation a war entry costs."""
    r = REGIONS.index(d.region)
    ship = ship_of(s, seat, d.capacity)
    card = C.ship(ship.card)
    track = s.tracks[r]
    pos = len(track) - 1 if d.overtake else len(track)
    h = s.harbours[r]
    bonus = min(C.bonus_first if pos == 0 else C.bonus_other, h.coins)
    vip = min(card.cabins, h.vip) if d.region in C.vip_ticket else 0
    regular = min(card.cabins - vip, h.passengers)
    tickets = vip * C.vip_ticket.get(d.region, 0) + regular * C.ticket[d.region]
    created = 0.0
    for kind in d.created:
        if kind == "VIP":
            created += C.vip_ticket[d.region] - C.reputation_cost["create_vip"] * TOKEN_VALUE
        else:
            created += C.ticket[d.region] - C.reputation_cost["create_passenger"] * TOKEN_VALUE
    budget = money(s, seat) + bonus + tickets
    demand = s.demand + _ahead_tokens(s, r, pos)
    contract = _best_contract(s, seat, r, d.capacity, pos, demand, budget)
    war = C.reputation_cost["enter_war"] * REP_VALUE if d.war_entry else 0.0
    # a small pull towards the region's unseen cards (tie-breaks among empty prospects)
    prospect = 0.1 * _unknown_value(_unseen(s, seat, r), d.capacity, demand, budget)
    return bonus + tickets + created + contract + prospect - war


def _sail(s: State, seat: int, legal: Sequence[Decision]) -> Decision:
    options = [d for d in legal if isinstance(d, decisions.SailShip)]
    return max(options, key=lambda d: _sail_value(s, seat, d))


# --- buying ------------------------------------------------------------------------------


def _buy(s: State, seat: int, legal: Sequence[Decision]) -> Decision:
    """The best paying contract the money covers (no share is sold for cotton); with nothing
    to buy, the top card of the deck by reputation when the unseen cards promise enough."""
    r = s.cursor_region
    _, capacity = s.tracks[r][s.cursor]
    m = money(s, seat)
    demand = s.demand + _ahead_tokens(s, r, s.cursor)
    if s.revealed:
        card = C.contracts[s.revealed]
        p = _profit(card, capacity, demand)
        if (
            decisions.TakeRevealedContract() in legal
            and p is not None
            and p > 0
            and contract_cost(card, capacity) <= m
        ):
            return decisions.TakeRevealedContract()
        return decisions.DiscardRevealedContract()
    buys = []
    for d in legal:
        if isinstance(d, decisions.BuyContract):
            card = C.contracts[d.card]
            p = _profit(card, capacity, demand)
            if p is not None and p > 0 and contract_cost(card, capacity) <= m:
                buys.append((p, d))
    if buys:
        return max(buys, key=lambda x: x[0])[1]
    if decisions.RevealTopContract() in legal:
        pool = _unseen(s, seat, r)
        if _unknown_value(pool, capacity, demand, m) > C.reputation_cost["reveal_top_contract"] * 0.5:
            return decisions.RevealTopContract()
    return decisions.DeclineContract()


# --- selling -----------------------------------------------------------------------------


def _sell(s: State, seat: int, legal: Sequence[Decision]) -> Decision:
    """An empty ship stays when the region's next harvest, from the front of the queue, beats
    returning (bonus coins and passengers next time, and a free choice of region)."""
    r = s.cursor_region
    _, capacity = s.tracks[r][s.cursor]
    stay = next((d for d in legal if isinstance(d, decisions.StayInRegion)), None)
    if stay is None or s.round % STAGE_ROUNDS == 0:
        return decisions.ReturnShip()  # every ship goes back at the stage's end anyway
    card = C.ship(ship_of(s, seat, capacity).card)
    n = s.players_count
    budget = money(s, seat) + 2 * capacity  # the money the next round starts with, roughly
    demand_next = max(0.0, s.demand + TOKENS_AHEAD * n - C.demand_removed_per_player * n)
    ahead = s.cursor  # the ships before this one stay too
    stay_value = _outlook(s, seat, r, capacity, ahead, demand_next + ahead * TOKENS_AHEAD, budget)
    if stay.despite_war:
        stay_value -= C.reputation_cost["stay_despite_war"] * REP_VALUE
    arrivals = max(1, n // 2)  # ships that reach a region before a returning ship, roughly
    back = max(
        _outlook(s, seat, r2, capacity, arrivals, demand_next + arrivals * TOKENS_AHEAD, budget)
        for r2 in _open_regions(s)
    )
    back += C.bonus_other + card.cabins * 1.0 + (1.0 if card.fast else 0.0)
    return stay if stay_value > back + STAY_MARGIN else decisions.ReturnShip()


# --- stage end -----------------------------------------------------------------------------


def _keep(s: State, seat: int, legal: Sequence[Decision]) -> Decision:
    """A Good ol' Ship (capacity 1, no maintenance) for the next stage instead of the refund
    of one NEW ship (the cheapest): worth it when its voyages (bonus coins, a small contract
    now and then) earn more than the refund, a third as much in the next stage's currency."""
    keeps = [d for d in legal if isinstance(d, decisions.KeepNewShip)]
    if not keeps:
        return decisions.ReturnAllShips()
    d = min(keeps, key=lambda x: C.ship(x.card).value)
    refund_next = C.ship(d.card).value / C.exchange_rate
    return d if refund_next < STAGE_ROUNDS * GOOD_OL_ROUND else decisions.ReturnAllShips()


# What the bot weighs in each phase; in any other, the first legal decision.
_BY_PHASE: dict[Phase, Callable[[State, int, Sequence[Decision]], Decision]] = {
    Phase.RENT: _rent,
    Phase.SAIL: _sail,
    Phase.BUY: _buy,
    Phase.SELL: _sell,
    Phase.KEEP_NEW: _keep,
    Phase.PAYMENT: _choose_share,
    Phase.AUCTION: _bid,
}


def choose(s: State, seat: int) -> Decision:
    legal = legal_decisions(s, seat)
    assert legal, "the bot is only asked when it has a legal decision"
    weigh = _BY_PHASE.get(s.phase)
    return legal[0] if weigh is None else weigh(s, seat, legal)

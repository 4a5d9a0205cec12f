"""The small rules every phase uses: money and the emergency fund, share value, the market
(demand, wages, appeal markers and arrows), factory values and production costs, cards.

Spec references: §5.3 factory values, §5.4 arrows, §5.8 costs and the emergency fund, §5.12 cards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ledger.engine import Decision
from ledger.errors import RuleViolationError
from ledger.games import vocabulary
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import (
    RESERVE,
    Components,
    load,
)
from ledger.games.arkwright_card_game.state import (
    Card,
    Factory,
    Held,
    Player,
    State,
    Storehouse,
    Turn,
    Worker,
)
from ledger.games.shared import clockwise_from, purse_gain, replace, set_at, set_player

C: Components = load()
GOODS = C.goods
Effects = list[fx.Effect]
Valid = Callable[[State, int, Decision], bool]
"""The engine's judge, for the options only a trial tells apart: would this decision be accepted now."""


def violation(code: str, message: str, rule: str) -> RuleViolationError:
    return RuleViolationError(f"rule/arkwright-card-game/{code}", message, rule)


def good_index(name: str) -> int:
    return GOODS.index(name)


# --- players and order --------------------------------------------------------------------


def turn_order(s: State) -> tuple[int, ...]:
    """Clockwise from the start player, bankrupt players left out (§1.2)."""
    return tuple(i for i in clockwise_from(s.start_player, s.players_count) if not s.players[i].eliminated)


def next_clockwise(s: State, seat: int) -> int:
    n = s.players_count
    for k in range(1, n + 1):
        nxt = (seat + k) % n
        if not s.players[nxt].eliminated:
            return nxt
    return seat


def year(s: State) -> int:
    return C.decades[s.decade - 1]


def last_decade(s: State) -> bool:
    return s.decade == C.decades_count


def will_produce(s: State, g: int) -> bool:
    """Decade III: only a factory that produces in one of the remaining rounds, this one included (A-13)."""
    return not last_decade(s) or g >= s.good


# --- the action phase's turn --------------------------------------------------------------


def turn_of(s: State) -> Turn:
    assert s.turn is not None
    return s.turn


def step_done(s: State, **changes: object) -> State:
    t = turn_of(s)
    return replace(s, turn=replace(t, steps=t.steps + 1, **changes))


RULE = {
    "BUILD": "Action 1 Build and/or Upgrade Factories",
    "EMPLOY": "Action 2 Employ Workers",
    "AUTOMATE": "Action 3 Automate Production",
    "QUALITY": "Action 4 Add Quality or Distribution",
    "DISTRIBUTION": "Action 4 Add Quality or Distribution",
    "STOCK_EXCHANGE": "Action 5 Stock Exchange",
    "EXTRA_PRODUCTION": "Action 6 Extra Production (expert)",
    "EARLY_SHIPPING": "Action 7 Early Shipping (expert)",
}


def in_action(s: State, action: str) -> Turn:
    t = turn_of(s)
    if t.step != "action" or t.action != action:
        raise violation(
            "wrong_action",
            f"This step belongs to the {action.lower().replace('_', ' ')} action.",
            RULE[action],
        )
    return t


# --- development cards --------------------------------------------------------------------


def card_type(h: Held) -> str:
    return C.card_type(h.card)


def held(p: Player, kind: str) -> Held | None:
    return next((h for h in p.cards if card_type(h) == kind), None)


def has(p: Player, kind: str) -> bool:
    return held(p, kind) is not None


def track_allows(p: Player, track: int) -> int:
    """What the player's level on a development track allows: development cards held (DEV_CARDS),
    goods per ship (SHIP), discounted shares (STOCK_EXCHANGE), machines (MACHINERY) ..."""
    return C.track_value(track, p.levels[track])


def lifted(p: Player, track: int) -> bool:
    """Expert: a held card ignores the decade restriction of this track (setup step 3)."""
    return any(C.card_types[card_type(h)].lifts == track for h in p.cards)


def set_held(p: Player, h: Held) -> Player:
    return replace(p, cards=tuple(h if x.card == h.card else x for x in p.cards))


def discard_card(s: State, seat: int, kind: str, reason: str, out: Effects) -> State:
    """A held card back to the general supply; its components leave with it (§5.12)."""
    p = s.players[seat]
    h = held(p, kind)
    assert h is not None
    lost = 0
    if kind == "ENGINEER":
        lost = next((c.value for c in p.quality if c.id == "ENGINEER"), 0)
        p = replace(p, quality=tuple(c for c in p.quality if c.id != "ENGINEER"))
    elif kind == "PATENT":
        lost = next((c.value for c in p.distribution if c.id == "PATENT"), 0)
        p = replace(p, distribution=tuple(c for c in p.distribution if c.id != "PATENT"))
    elif kind == "BIG_STOREHOUSE":
        lost = next((x.goods for x in p.storehouses if x.id == "BIG"), 0)
        p = replace(p, storehouses=tuple(x for x in p.storehouses if x.id != "BIG"))
    p = replace(p, cards=tuple(x for x in p.cards if x.card != h.card))
    out.append(fx.DevelopmentCardDiscarded(seat=seat, card=kind, reason=reason, value_lost=lost))
    s = set_player(s, p)
    return replace(s, supply=tuple(sorted((*s.supply, h.card))))


# --- quality, distribution, storehouses ---------------------------------------------------


def quality_cap(p: Player) -> int:
    return C.quality_cap_engineer if p.engineer_token else C.quality_cap


def total_at(cards: tuple[Card, ...], g: int) -> int:
    return sum(c.value for c in cards if c.good == g)


def totals(cards: tuple[Card, ...]) -> tuple[int, ...]:
    return tuple(total_at(cards, g) for g in range(len(GOODS)))


def card_range(s: State, card_id: str) -> tuple[int, int]:
    if card_id == "ENGINEER":
        return C.engineer_range
    if card_id == "PATENT":
        return C.patent_range
    if card_id.startswith("Q"):
        return C.quality_ranges[s.options.quality_cards][int(card_id[1:]) - 1]
    return C.distribution_range


def set_card(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return tuple(card if c.id == card.id else c for c in cards)


def capacity(st: Storehouse) -> int:
    return C.big_capacity if st.id == "BIG" else C.small_capacity


def stored_at(p: Player, g: int) -> int:
    return sum(st.goods for st in p.storehouses if st.good == g)


def take_stored(p: Player, g: int, n: int) -> Player:
    """Take ``n`` goods from the storehouses beside factory ``g``, the emptiest first; an emptied
    storehouse returns to the reserve (§5.11)."""
    houses = list(p.storehouses)
    for i in sorted((i for i, st in enumerate(houses) if st.good == g), key=lambda i: (houses[i].goods, i)):
        if n <= 0:
            break
        k = min(n, houses[i].goods)
        left = houses[i].goods - k
        houses[i] = replace(houses[i], goods=left, good=houses[i].good if left else RESERVE)
        n -= k
    return replace(p, storehouses=tuple(houses))


# --- factory values (§5.3) ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Values:
    price: int
    appeal: int
    goods: int
    workers: int
    machines: int
    fixed: int
    ship_price: int


def price_appeal(p: Player, g: int, f: Factory | None = None) -> tuple[int, int]:
    f = f or p.factories[g]
    assert f is not None
    price, appeal = C.side(g, f.side).spots[f.spot - 1]
    office_price, office_appeal = C.office[g]
    if f.office_appeal:
        appeal += office_appeal
    else:
        price += office_price
    for q in p.quality:
        if q.good == g:
            if q.appeal:
                appeal += q.value
            else:
                price += q.value
    return price, appeal + total_at(p.distribution, g)


def card_goods(position: int, side: int) -> int:
    return C.worker_cards[position].sides[side]


def card_workers(position: int) -> int:
    return C.worker_cards[position].workers


def factory_goods(g: int, f: Factory, cards: int | None = None) -> int:
    """Goods icons on the factory and its (first ``cards``) worker cards."""
    used = f.workers if cards is None else f.workers[:cards]
    return C.side(g, f.side).goods + sum(card_goods(w.position, w.side) for w in used)


def values(p: Player, g: int) -> Values:
    f = p.factories[g]
    assert f is not None
    price, appeal = price_appeal(p, g, f)
    side = C.side(g, f.side)
    return Values(
        price=price,
        appeal=appeal,
        goods=factory_goods(g, f),
        workers=sum(card_workers(w.position) - w.machines for w in f.workers),
        machines=sum(w.machines for w in f.workers),
        fixed=side.fixed_cost,
        ship_price=side.ship_price,
    )


def half_machine_cards(p: Player) -> list[tuple[int, int]]:
    """Worker cards with some but not all machines: the machine token lies on them."""
    return [
        (g, w.position)
        for g, f in enumerate(p.factories)
        if f is not None
        for w in f.workers
        if 0 < w.machines < card_workers(w.position)
    ]


def costs(s: State, p: Player, g: int, cards: int | None = None) -> tuple[int, int, int]:
    """Wages, maintenance and fixed costs of factory ``g`` with its first ``cards`` worker cards
    (all when None), card effects applied and each cost at least 0 (A-17)."""
    f = p.factories[g]
    assert f is not None
    used = f.workers if cards is None else f.workers[:cards]
    workers = sum(card_workers(w.position) - w.machines for w in used)
    machines = sum(w.machines for w in used)
    wage = C.wage(s.wage)
    wages = workers * wage
    foreman = held(p, "FOREMAN")
    if foreman is not None and foreman.good == g:
        wages -= min(workers, C.foreman_workers) * min(wage, C.foreman_discount)
    if has(p, "WORKSHOP"):
        machines = max(0, machines - C.workshop_machines)
    fixed = C.side(g, f.side).fixed_cost
    if has(p, "DEVELOPER"):
        fixed = max(0, fixed - C.developer_discount)
    return max(0, wages), machines * C.maintenance, fixed


def allowed_sales(appeal: int, demand: int) -> int:
    """Appeal minus demand, never more than the appeal, and 0 when appeal <= demand ([S] Sell)."""
    return max(0, min(appeal - demand, appeal))


def opened(p: Player) -> list[int]:
    """The goods of the player's open factories."""
    return [g for g in range(len(GOODS)) if p.factories[g] is not None]


def factory_of(p: Player, g: int, rule: str) -> Factory:
    f = p.factories[g]
    if f is None:
        raise violation("no_factory", f"You have no open {GOODS[g].lower()} factory.", rule)
    return f


def place_factory(p: Player, g: int, side: int, with_worker: bool) -> Player:
    """A factory from the reserve: token on the starting spot, office on its price side, its appeal
    marker on the starting value (a placement passes no arrow)."""
    workers = (Worker(position=1, side=C.worker_cards[1].side_for(side)),) if with_worker else ()
    f = Factory(side=side, spot=C.start_spot, office_appeal=False, workers=workers)
    return replace(
        p,
        factories=set_at(p.factories, g, f),
        appeal=set_at(p.appeal, g, C.start_appeal),
    )


# --- money, shares, loans -----------------------------------------------------------------


gain: Callable[[State, int, int, str, Effects], State] = purse_gain("money")


def change_shares(s: State, seat: int, delta: int, price: int, reason: str, out: Effects) -> State:
    if delta == 0:
        return s
    p = s.players[seat]
    p = replace(p, shares=p.shares + delta)
    out.append(vocabulary.SharesChanged(seat=seat, delta=delta, held=p.shares, price=price, reason=reason))
    return set_player(s, p)


def buy_shares(s: State, seat: int, count: int, price: int, reason: str, out: Effects) -> State:
    s = change_shares(s, seat, count, price, reason, out)
    return gain(s, seat, -count * price, reason, out)


def can_hold_shares(p: Player, more: int) -> bool:
    return C.shares_max is None or p.shares + more <= C.shares_max


def change_loans(s: State, seat: int, delta: int, reason: str, out: Effects) -> State:
    p = s.players[seat]
    p = replace(p, loans=p.loans + delta)
    out.append(fx.LoansChanged(seat=seat, delta=delta, loans=p.loans, reason=reason))
    return set_player(s, p)


def move_share_value(s: State, seat: int, delta: int, cause: str, out: Effects) -> State:
    p = s.players[seat]
    value = max(C.share_min, min(C.share_max, p.share_value + delta))
    if value == p.share_value:
        return s
    out.append(vocabulary.share_moved(seat, p.share_value, value, cause))
    return set_player(s, replace(p, share_value=value))


def pay_costs(s: State, seat: int, amount: int, reason: str, out: Effects) -> State:
    """Production costs: the emergency fund covers a shortfall, half the share value per loan token
    rounded up, the fewest tokens needed (A-18); with all tokens used and still short, the player
    is bankrupt and out of the game (§5.8)."""
    p = s.players[seat]
    if p.money >= amount:
        return gain(s, seat, -amount, reason, out)
    shortfall = amount - p.money
    unit = C.half(p.share_value)
    tokens = -(-shortfall // unit) if unit > 0 else C.loans_max + 1
    room = C.loans_max - p.loans
    k = min(tokens, room)
    if k:
        s = change_loans(s, seat, k, "emergency_fund", out)
        out.append(fx.EmergencyFundUsed(seat=seat, tokens=k, amount=k * unit))
        s = gain(s, seat, k * unit, "emergency_fund", out)
    p = s.players[seat]
    if p.money >= amount:
        return gain(s, seat, -amount, reason, out)
    short = amount - p.money
    s = gain(s, seat, -p.money, reason, out)
    return eliminate(s, seat, short, out)


def eliminate(s: State, seat: int, shortfall: int, out: Effects) -> State:
    """Bankrupt: out of the game; the appeal markers leave the market without moving demand (A-18)."""
    p = s.players[seat]
    p = replace(p, eliminated=True, appeal=(None,) * len(GOODS))
    out.append(fx.PlayerEliminated(seat=seat, shortfall=shortfall))
    return set_player(s, p)


# --- the market (§5.4, §5.5) --------------------------------------------------------------


def arrows_passed(s: State, g: int, a: int, b: int, *, neutral: bool = False) -> int:
    """Signed demand steps for an appeal marker moving from ``a`` to ``b``: red arrows when moving up,
    green arrows when moving down (A-01); the neutral player only counts red arrows."""
    n = s.players_count
    if b > a:
        return sum(1 for x in C.arrows_up[n][g] if a <= x < b)
    if b < a and not neutral:
        return -sum(1 for x in C.arrows_down[n][g] if b <= x < a)
    return 0


def move_demand(s: State, g: int, delta: int, cause: str, out: Effects) -> State:
    value = max(C.demand_min, min(C.demand_max, s.demand[g] + delta))
    if value == s.demand[g]:
        return s
    out.append(fx.DemandMoved(good=GOODS[g], demand_from=s.demand[g], demand_to=value, cause=cause))
    return replace(s, demand=set_at(s.demand, g, value))


def more_workers(s: State, cause: str, out: Effects) -> State:
    """Build or Employ: every demand marker one step down, the wages marker one step right."""
    for g in range(len(GOODS)):
        s = move_demand(s, g, -1, cause, out)
    pos = min(len(C.wage_values) - 1, s.wage + 1)
    if pos != s.wage:
        out.append(fx.WagesMoved(position=pos, wage=C.wage(pos)))
    return replace(s, wage=pos)


def move_appeal_marker(s: State, seat: int, g: int, to: int, out: Effects) -> State:
    """Step b: the appeal marker to the factory's appeal; each arrow passed moves the demand (§5.4)."""
    p = s.players[seat]
    to = max(C.appeal_min, min(C.appeal_max, to))
    start = p.appeal[g]
    steps = 0 if start is None else arrows_passed(s, g, start, to)
    s = set_player(s, replace(p, appeal=set_at(p.appeal, g, to)))
    if start != to:
        out.append(
            fx.AppealMarkerMoved(seat=seat, good=GOODS[g], appeal_from=start, appeal_to=to, arrows=steps)
        )
    return move_demand(s, g, steps, "appeal_arrows", out)


def decay(s: State, seat: int, g: int, out: Effects) -> State:
    """Distribution one lower: the lowest card at the factory, back to the reserve from 1 ([S] 2 e.)."""
    p = s.players[seat]
    at = sorted((c for c in p.distribution if c.good == g and c.value > 0), key=lambda c: (c.value, c.id))
    if not at:
        return s
    card = at[0]
    new = replace(card, value=card.value - 1)
    if new.value == 0:
        new = replace(new, good=RESERVE)
    p = replace(p, distribution=tuple(new if c.id == card.id else c for c in p.distribution))
    s = set_player(s, p)
    out.append(
        fx.DistributionDecayed(
            seat=seat, good=GOODS[g], distribution=sum(c.value for c in p.distribution if c.good == g)
        )
    )
    return s

"""A scripted greedy player of Arkwright: The Card Game.

It always picks one of the engine's legal decisions: it opens its factories and employs
workers early, automates when wages climb, upgrades in decades II and III, adds quality and
distribution, sets price and appeal for the most income (and the share value gain), takes
useful developments, ships when it pays, and buys shares with the money it can spare.
"""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.arkwright_card_game import decisions
from ledger.games.arkwright_card_game.components import (
    DEV_CARDS,
    MACHINERY,
    QUALITY,
    RESERVE,
    SHIP,
    STOCK_EXCHANGE,
    TRACKS,
)
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    allowed_sales,
    arrows_passed,
    costs,
    good_index,
    has,
    price_appeal,
    stored_at,
    total_at,
    track_allows,
    values,
)
from ledger.games.arkwright_card_game.rules import legal_decisions
from ledger.games.arkwright_card_game.state import Phase, Player, State
from ledger.games.shared import replace

SHARE_POINT = 10  # what the bot thinks one step of share value is worth (about its final shares)
SHIP_MINIMUM = 10  # income a ship must bring to be worth a shipping token


def remaining_productions(s: State, g: int) -> int:
    """Production phases of good ``g`` still to come, this round's included."""
    return (1 if g >= s.good else 0) + (C.decades_count - s.decade)


def reserve_money(s: State, p: Player) -> int:
    """Money kept for the production costs of the rounds to come."""
    need = 0
    for g, f in enumerate(p.factories):
        if f is not None and remaining_productions(s, g):
            need = max(need, sum(costs(s, p, g)))
    return need + 4


def _first(legal: tuple[Decision, ...], kind: type[Decision]) -> Decision | None:
    return next((d for d in legal if isinstance(d, kind)), None)


def choose(s: State, seat: int) -> Decision:
    legal = legal_decisions(s, seat)
    assert legal, "the bot is only asked when it has a legal decision"
    d = _choose(s, seat, legal)
    return d if d in legal else legal[0]


def _choose(s: State, seat: int, legal: tuple[Decision, ...]) -> Decision:
    p = s.players[seat]
    if s.phase in (Phase.DRAFT_FIRST, Phase.DRAFT_SECOND):
        taken = [sum(1 for q in s.players if q.factories[g] is not None) for g in range(len(GOODS))]
        return min(legal, key=lambda d: (taken[good_index(d.good)], -good_index(d.good)))  # type: ignore[attr-defined]
    if s.phase == Phase.START_FOREMAN:
        return max(legal, key=lambda d: len(p.factories[good_index(d.good)].workers))  # type: ignore[attr-defined,union-attr]
    if s.phase == Phase.START_DEVELOPMENT:
        return _development(s, seat, legal)
    if s.phase == Phase.START_SHARES:
        keep = C.start_money // 2
        return max(
            (
                d
                for d in legal
                if isinstance(d, decisions.BuyStartingShares) and d.count * C.starting_share_price <= keep
            ),
            key=lambda d: d.count,  # type: ignore[attr-defined]
        )
    if s.phase == Phase.ACTION:
        return _turn(s, seat, legal)
    if s.phase == Phase.PRODUCTION:
        return _production(s, seat, legal)
    if s.phase == Phase.ENTREPRENEUR:
        return decisions.DiscardEntrepreneur(start_player=None)
    if s.phase == Phase.CHOOSE_START:
        return decisions.ChooseStartPlayer(seat=seat)
    return legal[0]


# --- the turn ---------------------------------------------------------------------------------


def _turn(s: State, seat: int, legal: tuple[Decision, ...]) -> Decision:
    t = s.turn
    assert t is not None
    p = s.players[seat]
    developer = _first(legal, decisions.UseDeveloper)
    if developer is not None:
        return developer
    if t.step == "a":
        wanted = _wanted_action(s, p, legal)
        return decisions.ChooseAction(action=wanted) if wanted else decisions.SkipAction()  # type: ignore[arg-type]
    if t.step == "action":
        return _action_step(s, p, legal)
    if t.step == "b":
        return _price(s, p, legal)
    if t.step == "engineer":
        best = [d for d in legal if isinstance(d, decisions.PlaceReplacementQuality)]
        return max(best, key=lambda d: d.value) if best else decisions.FinishReplacement()  # type: ignore[attr-defined]
    return _development(s, seat, legal)


def _wanted_action(s: State, p: Player, legal: tuple[Decision, ...]) -> str | None:
    possible = {d.action for d in legal if isinstance(d, decisions.ChooseAction)}
    wage = C.wage(s.wage)
    producing = [g for g, f in enumerate(p.factories) if f is not None and remaining_productions(s, g)]
    if "EARLY_SHIPPING" in possible and _early_ship_worth(p):
        return "EARLY_SHIPPING"
    if "BUILD" in possible and (_buildable(s, p) or _upgradable(s, p)):
        return "BUILD"
    if "AUTOMATE" in possible and wage >= 3 and _automatable(s, p):
        return "AUTOMATE"
    if "EMPLOY" in possible and wage <= 4 and _hireable(s, p):
        return "EMPLOY"
    spare = p.money - reserve_money(s, p)
    if "STOCK_EXCHANGE" in possible and spare >= p.share_value and s.decade > 1:
        return "STOCK_EXCHANGE"
    if "QUALITY" in possible and any(total_at(p.quality, g) < 3 for g in producing):
        return "QUALITY"
    if "DISTRIBUTION" in possible and any(total_at(p.distribution, g) < 2 for g in producing):
        return "DISTRIBUTION"
    if "STOCK_EXCHANGE" in possible and spare >= C.half(p.share_value):
        return "STOCK_EXCHANGE"
    return None


def _buildable(s: State, p: Player) -> list[int]:
    return [g for g in range(len(GOODS)) if p.factories[g] is None and remaining_productions(s, g) >= 1]


def _upgradable(s: State, p: Player) -> bool:
    return s.decade >= 2 and any(
        f is not None
        and remaining_productions(s, g)
        and (f.side < C.sides_count(g) or s.decade == C.decades_count)
        for g, f in enumerate(p.factories)
    )


def _automatable(s: State, p: Player) -> bool:
    return any(
        w.machines < C.worker_cards[w.position].workers
        for g, f in enumerate(p.factories)
        if f is not None and remaining_productions(s, g)
        for w in f.workers
    )


def _hireable(s: State, p: Player) -> bool:
    return any(
        len(f.workers) < C.workers_per_factory
        for g, f in enumerate(p.factories)
        if f is not None and remaining_productions(s, g)
    )


def _early_ship_worth(p: Player) -> bool:
    stored = sum(st.goods for st in p.storehouses)
    return (
        p.ships > 0
        and stored >= 2
        and any(
            st.good != RESERVE
            and values(p, st.good).ship_price * min(st.goods, track_allows(p, SHIP)) >= SHIP_MINIMUM
            for st in p.storehouses
        )
    )


def _action_step(s: State, p: Player, legal: tuple[Decision, ...]) -> Decision:
    finish = _first(legal, decisions.FinishAction) or legal[0]
    for d in legal:
        if isinstance(d, decisions.BuildFactory) and remaining_productions(s, good_index(d.good)) >= 1:
            return d
        if isinstance(d, decisions.UpgradeFactory) and remaining_productions(s, good_index(d.good)):
            return d
        if isinstance(d, decisions.UpgradeWithInventor) and len(d.goods) == 2:
            return d
    hires = [
        d
        for d in legal
        if isinstance(d, decisions.HireWorker)
        and remaining_productions(s, good_index(d.good))
        and len(p.factories[good_index(d.good)].workers) < C.workers_per_factory  # type: ignore[union-attr]
    ]
    if hires:
        return min(hires, key=lambda d: len(p.factories[good_index(d.good)].workers))  # type: ignore[attr-defined,union-attr]
    machines = [
        d
        for d in legal
        if isinstance(d, decisions.AddMachine) and remaining_productions(s, good_index(d.good))
    ]
    if machines:
        return min(
            machines, key=lambda d: (-remaining_productions(s, good_index(d.good)), d.good, d.position)
        )  # type: ignore[attr-defined]
    quality = [d for d in legal if isinstance(d, decisions.SetQualityCard | decisions.SetDistributionCard)]
    best = _best_card_step(s, p, quality)
    if best is not None:
        return best
    buys = [d for d in legal if isinstance(d, decisions.BuyShares)]
    if buys:
        spare = p.money - reserve_money(s, p)
        affordable = [
            d for d in buys if d.discounted * C.half(p.share_value) + d.full * p.share_value <= max(spare, 0)
        ]
        if affordable and s.turn is not None and s.turn.exchange == 0:
            return max(affordable, key=lambda d: (d.discounted + d.full, d.discounted))  # type: ignore[attr-defined]
    regain = _first(legal, decisions.RegainShips)
    if regain is not None and p.ships == 0 and s.turn is not None and s.turn.exchange < 3:
        return regain
    stores = [d for d in legal if isinstance(d, decisions.StoreGoods)]
    if stores:
        return max(stores, key=lambda d: d.count)  # type: ignore[attr-defined]
    ships = [d for d in legal if isinstance(d, decisions.ShipStoredGoods)]
    if ships:
        return max(ships, key=lambda d: (d.customs_office, sum(n for _, n in d.loads)))  # type: ignore[attr-defined]
    extra = [d for d in legal if isinstance(d, decisions.ProduceExtra)]
    if extra and s.turn is not None and not s.turn.produced:
        return max(extra, key=lambda d: (d.worker_cards == 0, d.extra_shift))  # type: ignore[attr-defined]
    return finish


def _best_card_step(
    s: State, p: Player, steps: list[decisions.SetQualityCard | decisions.SetDistributionCard]
) -> Decision | None:
    """The quality or distribution step that raises a producing factory the most (soonest first)."""
    best: tuple[int, int, int] | None = None
    choice: Decision | None = None
    for d in steps:
        if d.good is None:
            continue
        g = good_index(d.good)
        if not remaining_productions(s, g):
            continue
        cards = p.quality if isinstance(d, decisions.SetQualityCard) else p.distribution
        card = next(c for c in cards if c.id == d.card)
        if card.good not in (RESERVE, g):
            continue  # never strip another factory
        gain = d.value - (card.value if card.good == g else 0)
        if gain <= 0:
            continue
        mode_ok = not isinstance(d, decisions.SetQualityCard) or d.mode == "APPEAL"
        key = (gain, int(mode_ok), -((g - s.good) % len(GOODS)))
        if best is None or key > best:
            best, choice = key, d
    return choice


def _price(s: State, p: Player, legal: tuple[Decision, ...]) -> Decision:
    """Step b: the most income now, plus the share value it earns."""
    g = s.good
    f = p.factories[g]
    assert f is not None
    goods = values(p, g).goods + (C.extra_shift_goods if has(p, "EXTRA_SHIFT") else 0)
    stored = stored_at(p, g)
    others = [q.appeal[g] or 0 for q in s.players if q.seat != p.seat and q.factories[g] is not None]
    start = p.appeal[g] or 0
    best_key: tuple[int, int] | None = None
    best: Decision = legal[0]
    for d in legal:
        if not isinstance(d, decisions.SetPriceAndAppeal):
            continue
        nf = replace(f, spot=d.spot, office_appeal=d.office == "APPEAL")
        quality = tuple(replace(c, appeal=c.id in d.appeal_cards) if c.good == g else c for c in p.quality)
        price, appeal = price_appeal(replace(p, quality=quality), g, nf)
        appeal = max(C.appeal_min, min(C.appeal_max, appeal))
        demand = s.demand[g] + arrows_passed(s, g, start, appeal)
        limit = allowed_sales(appeal, demand)
        sold = min(goods + stored, limit)
        income = price * sold
        score = income + (SHARE_POINT if sold >= C.gain_min_sold else 0)
        if sold >= C.gain_min_sold and all(appeal > o for o in others):
            score += SHARE_POINT // 2
        key = (score, appeal)
        if best_key is None or key > best_key:
            best_key, best = key, d
    return best


# --- developments ---------------------------------------------------------------------------------

CARD_WORTH = {
    "FOREMAN": 9,
    "WORKSHOP": 5,
    "DEVELOPER": 8,
    "ENGINEER": 6,
    "PATENT": 4,
    "EXTRA_SHIFT": 4,
    "ENTREPRENEUR": 3,
    "BROKER": 7,
    "INVENTOR": 6,
    "CONTRACT": 1,
    "CUSTOMS_OFFICE": 2,
    "BIG_STOREHOUSE": 2,
}


def _development(s: State, seat: int, legal: tuple[Decision, ...]) -> Decision:
    p = s.players[seat]
    broker = [d for d in legal if isinstance(d, decisions.UseBroker) and d.count >= 1]
    if broker:
        return max(broker, key=lambda d: d.count)  # type: ignore[attr-defined]
    inventor = [d for d in legal if isinstance(d, decisions.UseInventor)]
    if inventor:
        return max(inventor, key=lambda d: sum(_track_worth(s, p, TRACKS.index(x)) for x in d.tracks))  # type: ignore[attr-defined]
    best: Decision = _first(legal, decisions.SkipDevelopment) or legal[0]
    best_worth = 0
    for d in legal:
        worth = 0
        if isinstance(d, decisions.TakeDevelopment):
            worth = _track_worth(s, p, TRACKS.index(d.track))
        elif isinstance(d, decisions.TakeDevelopmentCard):
            worth = _card_worth(s, p, d)
        if worth > best_worth:
            best, best_worth = d, worth
    return best


def _track_worth(s: State, p: Player, track: int) -> int:
    level = p.levels[track]
    if track == STOCK_EXCHANGE:
        return 9 - 2 * level
    if track == MACHINERY:
        return 5 if _automatable(s, p) else 1
    if track == QUALITY:
        return 6 - 2 * level
    if track == SHIP:
        return 2
    if TRACKS[track] == "DEV_CARDS":
        return 5 if len(p.cards) >= track_allows(p, DEV_CARDS) else 2
    return 4 - level


def _card_worth(s: State, p: Player, d: decisions.TakeDevelopmentCard) -> int:
    kind = d.card
    if kind.startswith("PATRON"):
        return 5 if any(p.factories[g] is not None for g in C.card_types[kind].goods) else 0
    worth = CARD_WORTH.get(kind, 1)
    if kind == "FOREMAN" and d.foreman_good is not None:
        f = p.factories[good_index(d.foreman_good)]
        worth += len(f.workers) if f is not None else 0
    if kind == "WORKSHOP":
        worth += sum(w.machines for f in p.factories if f is not None for w in f.workers) // 2
    return worth


# --- production ---------------------------------------------------------------------------------


def _production(s: State, seat: int, legal: tuple[Decision, ...]) -> Decision:
    p = s.players[seat]
    pr = s.production
    assert pr is not None
    if pr.stage == "tie":
        return decisions.BreakTieWithEntrepreneur(use=True)
    patron = _first(legal, decisions.UsePatron)
    base = allowed_sales(p.appeal[pr.good] or 0, s.demand[pr.good])
    if patron is not None and pr.produced[seat] + stored_at(p, pr.good) > base:
        return patron
    extra = _first(legal, decisions.UseExtraShift)
    if extra is not None and pr.produced[seat] < allowed_sales(p.appeal[pr.good] or 0, s.demand[pr.good]):
        return extra
    sells = [d for d in legal if isinstance(d, decisions.SellGoods)]
    if sells:
        return max(sells, key=lambda d: d.from_storage)  # type: ignore[attr-defined]
    ships = [d for d in legal if isinstance(d, decisions.ShipGoods)]
    price = values(p, pr.good).ship_price
    for d in sorted(ships, key=lambda d: (-d.customs_office, -(d.from_production + d.from_storage))):
        if d.customs_office or (d.from_production + d.from_storage) * price >= SHIP_MINIMUM:
            return d
    stores = [d for d in legal if isinstance(d, decisions.StoreGoods)]
    for store in sorted(stores, key=lambda d: -d.count):
        st = next(x for x in p.storehouses if x.id == store.storehouse)
        if st.good in (RESERVE, pr.good):
            return store
    return _first(legal, decisions.FinishProduction) or legal[-1]

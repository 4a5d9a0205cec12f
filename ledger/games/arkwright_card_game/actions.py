"""Step a of a turn (spec §3.1): the seven actions, each a sequence of small decisions
closed by ``finish_action``; and the Developer, usable at any point of one's own turn."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import (
    DISTRIBUTION,
    MACHINERY,
    QUALITY,
    RESERVE,
    SHIP,
    STOCK_EXCHANGE,
)
from ledger.games.arkwright_card_game.decisions import (
    AddMachine,
    BuildFactory,
    BuyShares,
    ChooseAction,
    FinishAction,
    HireWorker,
    ProduceExtra,
    RegainShips,
    SetDistributionCard,
    SetQualityCard,
    ShipStoredGoods,
    SkipAction,
    StoreGoods,
    TakeLoans,
    UpgradeFactory,
    UpgradeWithInventor,
    UseDeveloper,
)
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    Effects,
    buy_shares,
    can_hold_shares,
    capacity,
    card_range,
    card_workers,
    change_loans,
    costs,
    decay,
    factory_goods,
    gain,
    good_index,
    half_machine_cards,
    has,
    held,
    more_workers,
    pay_costs,
    quality_cap,
    set_card,
    set_held,
    set_player,
    total_at,
    totals,
    values,
    violation,
    will_produce,
)
from ledger.games.arkwright_card_game.state import Card, Factory, Player, State, Storehouse, Turn, Worker
from ledger.games.shared import replace, set_at

ACTIONS = (
    "BUILD",
    "EMPLOY",
    "AUTOMATE",
    "QUALITY",
    "DISTRIBUTION",
    "STOCK_EXCHANGE",
    "EXTRA_PRODUCTION",
    "EARLY_SHIPPING",
)
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


def turn_of(s: State) -> Turn:
    assert s.turn is not None
    return s.turn


def _in_action(s: State, action: str) -> Turn:
    t = turn_of(s)
    if t.step != "action" or t.action != action:
        raise violation(
            "wrong_action",
            f"This step belongs to the {action.lower().replace('_', ' ')} action.",
            RULE[action],
        )
    return t


def _step_done(s: State, **changes: object) -> State:
    t = turn_of(s)
    return replace(s, turn=replace(t, steps=t.steps + 1, **changes))


def _factory(p: Player, g: int, rule: str) -> Factory:
    f = p.factories[g]
    if f is None:
        raise violation("no_factory", f"You have no open {GOODS[g].lower()} factory.", rule)
    return f


def available(s: State, action: str) -> bool:
    if action == "EXTRA_PRODUCTION":
        return s.options.extra_production
    if action == "EARLY_SHIPPING":
        return s.options.early_shipping
    return True


# --- choosing and finishing ------------------------------------------------------------------


def choose(s: State, seat: int, d: ChooseAction, out: Effects, possible: bool) -> State:
    t = turn_of(s)
    if t.step != "a":
        raise violation("one_action", "Exactly one action per turn, chosen in step a.", "Step a")
    if not available(s, d.action):
        raise violation(
            "expert_action", f"{d.action.title()} is an expert variant not in play.", RULE[d.action]
        )
    if not possible:
        raise violation("action_impossible", "That action has nothing you could do now.", RULE[d.action])
    out.append(fx.ActionChosen(seat=seat, action=d.action))
    return replace(s, turn=begun(t, s.players[seat], d.action))


def begun(t: Turn, p: Player, action: str) -> Turn:
    """The turn once ``action`` is chosen; action 4 remembers the factories' totals (Example 4)."""
    start: tuple[int, ...] = ()
    if action == "QUALITY":
        start = totals(p.quality)
    elif action == "DISTRIBUTION":
        start = totals(p.distribution)
    return replace(t, step="action", action=action, start_totals=start)


def skip(s: State, seat: int, d: SkipAction, out: Effects) -> State:
    t = turn_of(s)
    if t.step != "a":
        raise violation("one_action", "Exactly one action per turn, chosen in step a.", "Step a")
    out.append(fx.ActionChosen(seat=seat, action="NONE"))
    return after_action(s, seat)


def finish(s: State, seat: int, d: FinishAction, out: Effects) -> State:
    t = turn_of(s)
    if t.step != "action":
        raise violation("no_action", "No action is under way.", "Step a")
    if t.steps == 0:
        raise violation(
            "empty_action",
            "Do at least one step of the action (or choose to take no action).",
            RULE[t.action],
        )
    s = waste_loose(s, seat, out)
    return after_action(s, seat)


def after_action(s: State, seat: int) -> State:
    """Step b for the owner of an open factory of the active good, else straight to step c."""
    t = turn_of(s)
    p = s.players[seat]
    if p.eliminated:
        return replace(s, turn=replace(t, step="done"))
    step = "b" if p.factories[s.good] is not None else "c"
    return replace(s, turn=replace(t, step=step, action=""))


# --- 1 build and upgrade ---------------------------------------------------------------------


def build(s: State, seat: int, d: BuildFactory, out: Effects) -> State:
    t = _in_action(s, "BUILD")
    g = good_index(d.good)
    p = s.players[seat]
    if p.factories[g] is not None:
        raise violation("factory_open", f"Your {d.good.lower()} factory is already open.", RULE["BUILD"])
    if not will_produce(s, g):
        raise violation(
            "will_not_produce",
            "In decade III a factory may only be built if it will produce in one of the remaining rounds.",
            RULE["BUILD"],
        )
    side = min(s.decade, C.sides_count(g))  # decade I side in decade I, else decade II [S]
    f = Factory(side=side, spot=C.start_spot)
    p = replace(p, factories=set_at(p.factories, g, f), appeal=set_at(p.appeal, g, C.start_appeal))
    s = set_player(s, p)
    out.append(fx.FactoryBuilt(seat=seat, good=d.good, side=side, reason="build"))
    out.append(
        fx.AppealMarkerMoved(seat=seat, good=d.good, appeal_from=None, appeal_to=C.start_appeal, arrows=0)
    )
    moved = t.market_moved
    if not moved or s.options.build_market_per_factory:  # once per action by default
        s = more_workers(s, "factory_built", out)
    return _step_done(s, market_moved=True)


def upgraded_factory(g: int, f: Factory, decade: int) -> Factory:
    """The factory flipped to the decade's side (same appeal value) and its worker cards flipped
    to the decade's printed side, machines kept ([S] Upgrade, A-33)."""
    side = f.side
    spot = f.spot
    if decade > f.side and f.side < C.sides_count(g):
        side = min(decade, C.sides_count(g))
        appeal = C.side(g, f.side).spots[f.spot - 1][1]
        spots = C.side(g, side).spots
        spot = next((i + 1 for i, (_, a) in enumerate(spots) if a == appeal), f.spot)
    workers = tuple(
        replace(w, side=max(w.side, C.worker_cards[w.position].side_for(decade))) for w in f.workers
    )
    return replace(f, side=side, spot=spot, workers=workers)


def _apply_upgrade(s: State, seat: int, g: int, f: Factory, out: Effects, inventor: bool) -> State:
    p = s.players[seat]
    s = set_player(s, replace(p, factories=set_at(p.factories, g, f)))
    out.append(
        fx.FactoryUpgraded(
            seat=seat,
            good=GOODS[g],
            side=f.side,
            worker_sides=tuple(w.side for w in f.workers),
            inventor=inventor,
        )
    )
    return s


def upgrade(s: State, seat: int, d: UpgradeFactory, out: Effects) -> State:
    t = _in_action(s, "BUILD")
    g = good_index(d.good)
    f = _factory(s.players[seat], g, RULE["BUILD"])
    if s.decade < 2:
        raise violation("upgrade_decade", "Factories are upgraded in decade II or III.", RULE["BUILD"])
    if g in t.upgraded:
        raise violation("upgraded_twice", "Each factory is upgraded once per action.", RULE["BUILD"])
    new = upgraded_factory(g, f, s.decade)
    if new == f:
        raise violation("nothing_to_upgrade", "The upgrade would change nothing (A-14).", RULE["BUILD"])
    s = _apply_upgrade(s, seat, g, new, out, False)
    return _step_done(s, upgraded=(*t.upgraded, g))


def inventor_decade(g: int, f: Factory) -> int:
    """One decade up from where the factory stands: I to II, or II to III (A-34)."""
    return f.side + 1 if f.side < C.sides_count(g) else C.decades_count


def upgrade_with_inventor(s: State, seat: int, d: UpgradeWithInventor, out: Effects) -> State:
    _in_action(s, "BUILD")
    p = s.players[seat]
    if not has(p, "INVENTOR"):
        raise violation("no_inventor", "You hold no Inventor.", "Card 8 Inventor")
    goods = [good_index(x) for x in d.goods]
    if len(set(goods)) != len(goods) or len(goods) > C.inventor_factories:
        raise violation("inventor_factories", "The Inventor upgrades up to 2 different factories.", "Card 8")
    news = []
    for g in goods:
        f = _factory(p, g, "Card 8 Inventor")
        new = upgraded_factory(g, f, inventor_decade(g, f))
        if new == f:
            raise violation(
                "nothing_to_upgrade", f"The {GOODS[g].lower()} factory cannot go further.", "Card 8"
            )
        news.append((g, new))
    s = discard_card(s, seat, "INVENTOR", "inventor", out)
    for g, new in news:
        s = _apply_upgrade(s, seat, g, new, out, True)
    return _step_done(s, discarded=(*turn_of(s).discarded, "INVENTOR"))


# --- 2 employ --------------------------------------------------------------------------------


def hire(s: State, seat: int, d: HireWorker, out: Effects) -> State:
    t = _in_action(s, "EMPLOY")
    g = good_index(d.good)
    p = s.players[seat]
    f = _factory(p, g, RULE["EMPLOY"])
    if len(f.workers) >= C.workers_per_factory:
        raise violation("worker_cards_full", "Any factory can have up to 2 worker cards.", RULE["EMPLOY"])
    if not will_produce(s, g):
        raise violation(
            "will_not_produce",
            "In decade III workers are only added to factories that will produce in a remaining round.",
            RULE["EMPLOY"],
        )
    position = len(f.workers) + 1
    side = C.worker_cards[position].side_for(s.decade)  # or the previous decade printed [S]
    f = replace(f, workers=(*f.workers, Worker(position=position, side=side)))
    s = set_player(s, replace(p, factories=set_at(p.factories, g, f)))
    out.append(fx.WorkerCardAdded(seat=seat, good=d.good, position=position, side=side))
    if not t.market_moved:  # once, however many workers [S]
        s = more_workers(s, "workers_employed", out)
    return _step_done(s, market_moved=True)


# --- 3 automate ------------------------------------------------------------------------------


def add_machine(s: State, seat: int, d: AddMachine, out: Effects) -> State:
    t = _in_action(s, "AUTOMATE")
    g = good_index(d.good)
    p = s.players[seat]
    f = _factory(p, g, RULE["AUTOMATE"])
    if not 1 <= d.position <= len(f.workers):
        raise violation("no_worker_card", f"No worker card on position {d.position} there.", RULE["AUTOMATE"])
    w = f.workers[d.position - 1]
    if w.machines >= card_workers(w.position):
        raise violation("card_automated", "That worker card has no worker left to replace.", RULE["AUTOMATE"])
    limit = C.track_value(MACHINERY, p.levels[MACHINERY])
    if t.machines >= limit:
        raise violation(
            "machinery_limit",
            f"Your machinery development allows {limit} machines per action.",
            RULE["AUTOMATE"],
        )
    half = half_machine_cards(p)
    if half and half[0] != (g, d.position):
        hg, hp = half[0]
        raise violation(
            "machine_token",
            f"Your machine token lies on the {GOODS[hg].lower()} card {hp}: the next machine rotates that card.",
            RULE["AUTOMATE"],
        )
    w = replace(w, machines=w.machines + 1)
    f = replace(f, workers=set_at(f.workers, d.position - 1, w))
    s = set_player(s, replace(p, factories=set_at(p.factories, g, f)))
    out.append(fx.MachineAdded(seat=seat, good=d.good, position=d.position, machines=w.machines))
    return _step_done(s, machines=t.machines + 1)


# --- 4 quality or distribution -----------------------------------------------------------------


def set_quality(s: State, seat: int, d: SetQualityCard, out: Effects) -> State:
    t = _in_action(s, "QUALITY")
    p = s.players[seat]
    card = next((c for c in p.quality if c.id == d.card), None)
    if card is None:
        raise violation("no_such_card", f"You have no quality card {d.card}.", RULE["QUALITY"])
    g = RESERVE if d.good is None else good_index(d.good)
    appeal = d.mode == "APPEAL"
    if g == RESERVE:
        new = replace(card, good=RESERVE, value=0, appeal=True)
    else:
        _factory(p, g, RULE["QUALITY"])
        lo, hi = card_range(s, d.card)
        if not lo <= d.value <= hi:
            raise violation("card_value", f"The {d.card} card shows {lo} to {hi}.", RULE["QUALITY"])
        new = replace(card, good=g, value=d.value, appeal=appeal)
    if (new.good, new.value) == (card.good, card.value):
        raise violation(
            "nothing_changes",
            "The card must be added, moved or change its value; sides alone change in step b (A-15).",
            RULE["QUALITY"],
        )
    cards = set_card(p.quality, new)
    if g != RESERVE and total_at(cards, g) > quality_cap(p):
        raise violation(
            "quality_cap", f"The quality of a factory is at most {quality_cap(p)}.", RULE["QUALITY"]
        )
    _allowance(t, cards, C.track_value(QUALITY, p.levels[QUALITY]), "quality")
    s = set_player(s, replace(p, quality=cards))
    out.append(
        fx.QualityCardSet(
            seat=seat,
            card=d.card,
            good=None if g == RESERVE else GOODS[g],
            value=new.value,
            mode="APPEAL" if new.appeal else "PRICE",
        )
    )
    return _step_done(s)


def _allowance(t: Turn, cards: tuple[Card, ...], allowed: int, what: str) -> None:
    """Added = the increases of the factories' totals since the action began; decreases are lost
    and never offset increases (Example 4)."""
    after = totals(cards)
    added = sum(max(0, a - b) for a, b in zip(after, t.start_totals, strict=True))
    if added > allowed:
        raise violation(
            f"{what}_allowance",
            f"Your development allows adding {allowed} {what} per action; this would add {added}.",
            RULE["QUALITY"],
        )


def set_distribution(s: State, seat: int, d: SetDistributionCard, out: Effects) -> State:
    t = _in_action(s, "DISTRIBUTION")
    p = s.players[seat]
    card = next((c for c in p.distribution if c.id == d.card), None)
    if card is None:
        raise violation("no_such_card", f"You have no distribution card {d.card}.", RULE["DISTRIBUTION"])
    g = RESERVE if d.good is None else good_index(d.good)
    if g == RESERVE:
        new = replace(card, good=RESERVE, value=0)
    else:
        _factory(p, g, RULE["DISTRIBUTION"])
        lo, hi = card_range(s, d.card)
        if not lo <= d.value <= hi:
            raise violation("card_value", f"The {d.card} card shows {lo} to {hi}.", RULE["DISTRIBUTION"])
        new = replace(card, good=g, value=d.value)
    if (new.good, new.value) == (card.good, card.value):
        raise violation(
            "nothing_changes", "The card must be added, moved or change its value.", RULE["DISTRIBUTION"]
        )
    cards = set_card(p.distribution, new)
    if g != RESERVE and total_at(cards, g) > C.distribution_cap:
        raise violation(
            "distribution_cap",
            f"The distribution of a factory is at most {C.distribution_cap}.",
            RULE["DISTRIBUTION"],
        )
    _allowance(t, cards, C.track_value(DISTRIBUTION, p.levels[DISTRIBUTION]), "distribution")
    s = set_player(s, replace(p, distribution=cards))
    out.append(
        fx.DistributionCardSet(
            seat=seat, card=d.card, good=None if g == RESERVE else GOODS[g], value=new.value
        )
    )
    return _step_done(s)


# --- 5 stock exchange --------------------------------------------------------------------------


def discount_limit(p: Player) -> int:
    return C.track_value(STOCK_EXCHANGE, p.levels[STOCK_EXCHANGE])


def share_cost(p: Player, discounted: int, full: int) -> int:
    return discounted * C.half(p.share_value) + full * p.share_value


def buy(s: State, seat: int, d: BuyShares, out: Effects) -> State:
    t = _in_action(s, "STOCK_EXCHANGE")
    p = s.players[seat]
    if t.exchange >= 1:
        raise violation(
            "exchange_order",
            "Shares are bought once, before loans and regaining ships.",
            RULE["STOCK_EXCHANGE"],
        )
    if d.discounted + d.full < 1:
        raise violation("no_shares", "Buy at least one share.", RULE["STOCK_EXCHANGE"])
    if d.discounted > discount_limit(p):
        raise violation(
            "discount_limit",
            f"Your stock exchange development allows {discount_limit(p)} discounted share(s) per turn.",
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
    return _step_done(s, exchange=1)


def loans(s: State, seat: int, d: TakeLoans, out: Effects) -> State:
    t = _in_action(s, "STOCK_EXCHANGE")
    p = s.players[seat]
    if t.exchange >= 2:
        raise violation(
            "exchange_order", "Loans come after buying shares and before ships.", RULE["STOCK_EXCHANGE"]
        )
    if p.loans + d.count > C.loans_max:
        raise violation(
            "loan_limit",
            f"At most {C.loans_max} loans (bank and emergency fund) in the game.",
            RULE["STOCK_EXCHANGE"],
        )
    s = change_loans(s, seat, d.count, "bank_loan", out)
    s = gain(s, seat, d.count * p.share_value, "bank_loan", out)
    return _step_done(s, exchange=2)


def regain(s: State, seat: int, d: RegainShips, out: Effects) -> State:
    t = _in_action(s, "STOCK_EXCHANGE")
    p = s.players[seat]
    if t.exchange >= 3:
        raise violation(
            "exchange_order", "Ships are regained once, as the last step.", RULE["STOCK_EXCHANGE"]
        )
    if p.ships >= C.ships_max:
        raise violation(
            "ships_available", "Your shipping card already shows 2 ships.", RULE["STOCK_EXCHANGE"]
        )
    s = set_player(s, replace(p, ships=C.ships_max))
    out.append(fx.ShipsChanged(seat=seat, ships=C.ships_max, reason="regained"))
    return _step_done(s, exchange=3)


# --- 6 extra production (expert) ----------------------------------------------------------------


def waste_loose(s: State, seat: int, out: Effects) -> State:
    t = turn_of(s)
    if t.loose:
        out.append(fx.GoodsWasted(seat=seat, good=GOODS[t.loose_good], count=t.loose))
    return replace(s, turn=replace(t, loose=0, loose_good=RESERVE))


def produce_extra(s: State, seat: int, d: ProduceExtra, out: Effects) -> State:
    t = _in_action(s, "EXTRA_PRODUCTION")
    g = good_index(d.good)
    p = s.players[seat]
    f = _factory(p, g, RULE["EXTRA_PRODUCTION"])
    if g in t.produced:
        raise violation("produced_twice", "Each factory produces once per action.", RULE["EXTRA_PRODUCTION"])
    if d.worker_cards > len(f.workers):
        raise violation(
            "no_worker_card", "The factory has fewer worker cards than that.", RULE["EXTRA_PRODUCTION"]
        )
    if d.extra_shift and not has(p, "EXTRA_SHIFT"):
        raise violation("no_extra_shift", "You hold no Extra Shift.", "Card 3 Extra Shift")
    s = waste_loose(s, seat, out)
    produced = factory_goods(g, f, d.worker_cards)
    if d.extra_shift:
        produced += C.extra_shift_goods
        s = discard_card(s, seat, "EXTRA_SHIFT", "extra_shift", out)
        s = replace(s, turn=replace(turn_of(s), discarded=(*turn_of(s).discarded, "EXTRA_SHIFT")))
    out.append(fx.GoodsProduced(seat=seat, good=d.good, count=produced, extra=True))
    wages, maintenance, fixed = costs(s, s.players[seat], g, d.worker_cards)
    total = wages + maintenance + fixed
    out.append(
        fx.ProductionCostsPaid(
            seat=seat, good=d.good, wages=wages, maintenance=maintenance, fixed=fixed, total=total
        )
    )
    s = pay_costs(s, seat, total, "production_costs", out)
    if s.options.extra_production_decay:  # A-09, other reading
        s = decay(s, seat, g, out)
    t = turn_of(s)
    if s.players[seat].eliminated:
        out.append(fx.GoodsWasted(seat=seat, good=d.good, count=produced))
        return replace(s, turn=replace(t, step="done"))
    return _step_done(s, produced=(*t.produced, g), loose_good=g, loose=produced)


def storehouse_room(p: Player, st: Storehouse, g: int) -> int:
    """Room for goods of ``g``: a storehouse at that factory keeps its goods, any other is emptied."""
    return capacity(st) - (st.goods if st.good == g else 0)


def store(s: State, seat: int, g: int, d: StoreGoods, loose: int, rule: str, out: Effects) -> State:
    """Put ``d.count`` of ``loose`` goods of ``g`` into a storehouse beside factory ``g``; one taken
    from another factory loses its goods (§5.11, A-32)."""
    p = s.players[seat]
    st = next((x for x in p.storehouses if x.id == d.storehouse), None)
    if st is None:
        raise violation("no_storehouse", f"You have no storehouse {d.storehouse}.", rule)
    if d.count > loose:
        raise violation("not_enough_goods", f"Only {loose} goods are left to store.", rule)
    if d.count > storehouse_room(p, st, g):
        raise violation("storehouse_full", f"The storehouse holds at most {capacity(st)} goods.", rule)
    wasted = st.goods if st.good not in (g, RESERVE) else 0
    kept = st.goods if st.good == g else 0
    houses = tuple(
        Storehouse(id=x.id, good=g, goods=kept + d.count) if x.id == st.id else x for x in p.storehouses
    )
    s = set_player(s, replace(p, storehouses=houses))
    out.append(
        fx.GoodsStored(seat=seat, good=GOODS[g], storehouse=d.storehouse, count=d.count, wasted=wasted)
    )
    return s


def store_extra(s: State, seat: int, d: StoreGoods, out: Effects) -> State:
    t = _in_action(s, "EXTRA_PRODUCTION")
    if not t.loose:
        raise violation(
            "nothing_to_store", "No produced goods wait for a storehouse.", RULE["EXTRA_PRODUCTION"]
        )
    s = store(s, seat, t.loose_good, d, t.loose, RULE["EXTRA_PRODUCTION"], out)
    return _step_done(s, loose=t.loose - d.count)


# --- 7 early shipping (expert) and shipping in general --------------------------------------------


def ship_capacity(p: Player) -> int:
    return C.track_value(SHIP, p.levels[SHIP])


def check_ship(s: State, p: Player, goods: int, customs: bool, rule: str) -> int:
    """One ship with ``goods``: returns the shipping tokens it adds."""
    if p.ships < 1:
        raise violation("no_ship", "You have no available ship: regain them with the stock exchange.", rule)
    if not 1 <= goods <= ship_capacity(p):
        raise violation("ship_capacity", f"Each of your ships carries 1 to {ship_capacity(p)} goods.", rule)
    if customs:
        h = held(p, "CUSTOMS_OFFICE")
        if h is None or h.rotated:
            raise violation(
                "no_customs_office", "You hold no unrotated Customs Office.", "Card 2 Customs Office"
            )
    tokens = 1 - (C.customs_tokens if customs else 0)
    tokens = max(0, tokens)
    if p.shipping_tokens + tokens > C.shipping_tokens:
        raise violation(
            "shipping_tokens", f"Your board has room for {C.shipping_tokens} shipping tokens.", rule
        )
    if s.options.ship_limit_counts_ships and p.ships_used + 1 > C.ships_in_game:
        raise violation(
            "ships_in_game", f"You can use up to {C.ships_in_game} ships in the game (A-24).", rule
        )
    return tokens


def shipped(
    s: State, seat: int, goods: tuple[tuple[int, int], ...], customs: bool, tokens: int, out: Effects
) -> State:
    """Income at each factory's ship price, the Contract bonus, a shipping token, one ship fewer."""
    p = s.players[seat]
    income = 0
    for g, n in goods:
        f = p.factories[g]
        assert f is not None
        income += n * C.side(g, f.side).ship_price
    count = sum(n for _, n in goods)
    bonus = count * C.contract_bonus if has(p, "CONTRACT") else 0
    if customs:
        h = held(p, "CUSTOMS_OFFICE")
        assert h is not None
        p = set_held(p, replace(h, rotated=True))
        out.append(fx.CardRotated(seat=seat, card="CUSTOMS_OFFICE", rotated=True, reason="ship"))
    p = replace(p, ships=p.ships - 1, shipping_tokens=p.shipping_tokens + tokens, ships_used=p.ships_used + 1)
    s = set_player(s, p)
    out.append(
        fx.GoodsShipped(
            seat=seat,
            goods=tuple((GOODS[g], n) for g, n in goods),
            income=income,
            contract=bonus,
            tokens=tokens,
        )
    )
    out.append(fx.ShipsChanged(seat=seat, ships=p.ships, reason="shipped"))
    s = gain(s, seat, income, "shipping", out)
    return gain(s, seat, bonus, "contract", out)


def ship_stored(s: State, seat: int, d: ShipStoredGoods, out: Effects) -> State:
    _in_action(s, "EARLY_SHIPPING")
    rule = RULE["EARLY_SHIPPING"]
    p = s.players[seat]
    ids = [x for x, _ in d.loads]
    if len(set(ids)) != len(ids):
        raise violation("storehouse_twice", "Name each storehouse once per ship.", rule)
    goods: list[tuple[int, int]] = []
    for st_id, n in d.loads:
        st = next((x for x in p.storehouses if x.id == st_id), None)
        if st is None or st.good == RESERVE:
            raise violation("empty_storehouse", f"Storehouse {st_id} holds no goods.", rule)
        if not 1 <= n <= st.goods:
            raise violation("not_enough_goods", f"Storehouse {st_id} holds {st.goods} goods.", rule)
        goods.append((st.good, n))
    total = sum(n for _, n in goods)
    tokens = check_ship(s, p, total, d.customs_office, rule)
    for st_id, n in d.loads:
        st = next(x for x in p.storehouses if x.id == st_id)
        p = replace(
            p,
            storehouses=tuple(
                (Storehouse(id=x.id) if x.goods == n else replace(x, goods=x.goods - n))
                if x.id == st_id
                else x
                for x in p.storehouses
            ),
        )
    s = set_player(s, p)
    merged: dict[int, int] = {}
    for g, n in goods:
        merged[g] = merged.get(g, 0) + n
    s = shipped(s, seat, tuple(sorted(merged.items())), d.customs_office, tokens, out)
    return _step_done(s)


# --- the Developer ---------------------------------------------------------------------------


def use_developer(s: State, seat: int, d: UseDeveloper, out: Effects) -> State:
    t = turn_of(s)
    if t.step not in ("a", "b", "c"):
        raise violation(
            "developer_timing", "Use the Developer between the steps of your turn.", "Card 9 Developer"
        )
    p = s.players[seat]
    dev = held(p, "DEVELOPER")
    if dev is None or dev.rotated:
        raise violation("no_developer", "You hold no unrotated Developer.", "Card 9 Developer")
    other = held(p, d.card)
    if d.card == "DEVELOPER" or other is None or not other.rotated or not C.card_types[d.card].rotates:
        raise violation(
            "nothing_to_reactivate",
            "Reactivate one other rotated card with the rotate icon.",
            "Card 9 Developer",
        )
    p = set_held(set_held(p, replace(dev, rotated=True)), replace(other, rotated=False))
    out.append(fx.CardRotated(seat=seat, card="DEVELOPER", rotated=True, reason="developer"))
    out.append(fx.CardRotated(seat=seat, card=d.card, rotated=False, reason="developer"))
    return set_player(s, p)


# --- discarding (shared with step c and production) --------------------------------------------


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


# --- what each action could do now ------------------------------------------------------------


def options(s: State, seat: int, action: str) -> list[Decision]:
    """Candidate small steps of an action (legal_decisions keeps those the rules accept)."""
    p = s.players[seat]
    opened = [g for g in range(len(GOODS)) if p.factories[g] is not None]
    out: list[Decision] = []
    if action == "BUILD":
        out += [BuildFactory(good=GOODS[g]) for g in range(len(GOODS)) if p.factories[g] is None]  # type: ignore[arg-type]
        out += [UpgradeFactory(good=GOODS[g]) for g in opened]  # type: ignore[arg-type]
        if has(p, "INVENTOR"):
            out += [UpgradeWithInventor(goods=(GOODS[g],)) for g in opened]  # type: ignore[arg-type]
            out += [
                UpgradeWithInventor(goods=(GOODS[a], GOODS[b]))  # type: ignore[arg-type]
                for i, a in enumerate(opened)
                for b in opened[i + 1 :]
            ]
    elif action == "EMPLOY":
        out += [HireWorker(good=GOODS[g]) for g in opened]  # type: ignore[arg-type]
    elif action == "AUTOMATE":
        out += [
            AddMachine(good=GOODS[g], position=w.position)  # type: ignore[arg-type]
            for g in opened
            for w in p.factories[g].workers  # type: ignore[union-attr]
        ]
    elif action == "QUALITY":
        out += _card_options(s, p, opened, quality=True)
    elif action == "DISTRIBUTION":
        out += _card_options(s, p, opened, quality=False)
    elif action == "STOCK_EXCHANGE":
        out += _exchange_options(p)
    elif action == "EXTRA_PRODUCTION":
        t = s.turn
        if t is not None and t.loose:
            out += [
                StoreGoods(storehouse=st.id, count=n)  # type: ignore[arg-type]
                for st in p.storehouses
                for n in sorted({1, min(t.loose, storehouse_room(p, st, t.loose_good))})
                if n >= 1
            ]
        for g in opened:
            f = p.factories[g]
            assert f is not None
            for k in range(len(f.workers) + 1):
                out.append(ProduceExtra(good=GOODS[g], worker_cards=k))  # type: ignore[arg-type]
                if has(p, "EXTRA_SHIFT"):
                    out.append(ProduceExtra(good=GOODS[g], worker_cards=k, extra_shift=True))  # type: ignore[arg-type]
    elif action == "EARLY_SHIPPING":
        out += ship_load_options(s, p)
    return out


def _card_options(s: State, p: Player, opened: list[int], *, quality: bool) -> list[Decision]:
    """Moves of a quality or distribution card that keep the factory caps and the allowance."""
    cards = p.quality if quality else p.distribution
    now = totals(cards)
    t = s.turn
    start = t.start_totals if t is not None and t.step == "action" and t.start_totals else now
    track = QUALITY if quality else DISTRIBUTION
    allowed = C.track_value(track, p.levels[track])
    cap = quality_cap(p) if quality else C.distribution_cap
    out: list[Decision] = []
    for c in cards:
        if c.good != RESERVE:
            out.append(
                SetQualityCard(card=c.id, good=None)  # type: ignore[arg-type]
                if quality
                else SetDistributionCard(card=c.id, good=None)  # type: ignore[arg-type]
            )
        lo, hi = card_range(s, c.id)
        for g in opened:
            for v in range(lo, hi + 1):
                after = list(now)
                if c.good != RESERVE:
                    after[c.good] -= c.value
                after[g] += v
                if after[g] > cap or sum(max(0, a - b) for a, b in zip(after, start, strict=True)) > allowed:
                    continue
                if quality:
                    for mode in ("APPEAL", "PRICE"):
                        out.append(SetQualityCard(card=c.id, good=GOODS[g], value=v, mode=mode))  # type: ignore[arg-type]
                else:
                    out.append(SetDistributionCard(card=c.id, good=GOODS[g], value=v))  # type: ignore[arg-type]
    return out


SHARE_COUNTS = 12  # share counts listed one by one; beyond, only the most affordable


def _exchange_options(p: Player) -> list[Decision]:
    out: list[Decision] = []
    for disc in range(discount_limit(p) + 1):
        rest = p.money - disc * C.half(p.share_value)
        most = rest // p.share_value if p.share_value > 0 and rest >= 0 else 0
        for full in sorted({*range(min(most, SHARE_COUNTS) + 1), most}):
            if disc + full >= 1:
                out.append(BuyShares(discounted=disc, full=full))
    room = C.loans_max - p.loans
    out += [TakeLoans(count=n) for n in sorted({1, room}) if 1 <= n <= room]
    out.append(RegainShips())
    return out


def ship_load_options(s: State, p: Player) -> list[Decision]:
    """Representative ship loads: each storehouse alone (1 or as much as fits), and a full ship."""
    cap = ship_capacity(p)
    full = [x for x in p.storehouses if x.good != RESERVE]
    out: list[Decision] = []
    customs = [False, True] if (h := held(p, "CUSTOMS_OFFICE")) is not None and not h.rotated else [False]
    loads: list[tuple[tuple[str, int], ...]] = []
    for st in full:
        for n in sorted({1, min(cap, st.goods)}):
            loads.append(((st.id, n),))
    left = cap
    greedy: list[tuple[str, int]] = []
    for st in sorted(full, key=lambda x: -values(p, x.good).ship_price):
        n = min(left, st.goods)
        if n:
            greedy.append((st.id, n))
            left -= n
    if len(greedy) > 1:
        loads.append(tuple(greedy))
    for load in loads:
        for c in customs:
            out.append(ShipStoredGoods(loads=load, customs_office=c))  # type: ignore[arg-type]
    return out

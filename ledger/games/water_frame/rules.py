"""Water Frame's rules engine: setup, the 1760 preparation round, the decade loop,
production and sale, the end of round and the end of the game (spec §3-§5).

The engine runs automatic procedures until a decision or a draw is due;
``State.awaiting`` names the seats awaited and ``State.draws`` the draws due.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import TypeAdapter

from ledger.engine import Decision, DrawOutcome, DrawRequest, Effect, Pending, Standing, TitleOptions
from ledger.games.shared import ceil_div, replace, set_at
from ledger.games.water_frame import actions
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import (
    DECISION_ADAPTER,
    AdjustPrice,
    BuildFactory,
    BuyShares,
    ChooseStartPlayer,
    CloseFactory,
    Done,
    EndTurn,
    FinishMainAction,
    FireWorkers,
    FoundFactory,
    HireWarehouseWorker,
    HireWorkers,
    ModernizeFactory,
    MoveWarehouseWorker,
    PlaceMachine,
    PlaceMarker,
    RaiseDistribution,
    RaiseQuality,
    ReleaseWarehouseWorker,
    RepayLoans,
    ReuseMarker,
    SellFromWarehouse,
    SellShares,
    SellStartShares,
    SellStoredGoods,
    StopSelling,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    appeal,
    available_for_hire,
    base_quality,
    demand,
    edge_occupied,
    edges,
    fire,
    gain,
    large_cap,
    level_now,
    move_share,
    output,
    portfolio,
    price_ok,
    production_cost,
    quality,
    reverse_order,
    set_edge,
    set_factory,
    set_player,
    settle,
    turn_order,
    violation,
    wage,
    warehouse_workers,
)
from ledger.games.water_frame.meta import META, WaterFrameOptions
from ledger.games.water_frame.state import Factory, Phase, Player, Row, Sale, State

IMPORTER = -1


# --- setup (§3.0, §4) ------------------------------------------------------------


def _shuffle(key: str, items: tuple[str, ...], label: str) -> DrawRequest:
    return DrawRequest(key=key, kind="shuffle", items=tuple(sorted(items)), hidden=True, label=label)


def _economy_pool(s_or_n: int, predetermined: bool, good: int) -> tuple[str, ...]:
    drop_three = s_or_n == 2 or predetermined
    return tuple(
        f"{GOODS[good]}-{a}{w}"
        for a, w in C.economy_markers
        if not (drop_three and w == C.economy_three_workers)
    )


def new_game(options: TitleOptions, seats: int) -> State:
    if not isinstance(options, WaterFrameOptions):
        options = WaterFrameOptions.model_validate(options.model_dump())
    if not META.min_players <= seats <= META.max_players:
        raise violation("player_count", "Water Frame is for 2 to 4 players.", "Cover")
    if options.predetermined_events_shuffled and not options.predetermined_setup:
        raise violation(
            "option_needs_predetermined",
            "Shuffled predetermined events need the predetermined setup.",
            "4.1 I",
        )
    n = seats
    fired, box = C.setup_workers[n]
    players = tuple(
        Player(
            seat=i,
            cash=0,
            shares=C.start_shares,
            bank_shares=C.shares_per_company - C.start_shares,
            loans=0,
            share_space=C.share_start,
            factories=(None, None, None, None),
            admin=(None,) * len(C.admin_spaces),
        )
        for i in range(n)
    )
    draws: list[DrawRequest] = []
    events: tuple[str, ...] = ()
    if options.predetermined_setup:
        events = tuple(C.events_predetermined[d] for d in C.decades)
        if options.predetermined_events_shuffled:
            three = tuple(events[i] for i in (0, 1, 3))
            draws.append(_shuffle("events-predetermined", three, "event markers of 1770, 1780 and 1800"))
    else:
        draws.append(
            DrawRequest("start_player", "pick", tuple(str(i) for i in range(n)), False, "start player")
        )
        pool = tuple(e for e in C.event_pool if not (n == 2 and e in C.events_removed_2p))
        draws.append(_shuffle("events", pool, "event markers"))
    for g in range(4):
        draws.append(
            _shuffle(
                f"economy:{GOODS[g]}",
                _economy_pool(n, options.predetermined_setup, g),
                f"{GOODS[g].lower()} economy markers",
            )
        )
    return State(
        players_count=n,
        options=options,
        decade=1760,
        cycle=-1,
        phase=Phase.SETUP,
        start_player=0,
        jm_empty=fired + box,
        fired=fired,
        boxed=box,
        importers=(0, 0, 0, 0),
        economy=(),
        events=events,
        players=players,
        draws=tuple(draws),
    )


def apply_draw(s: State, outcome: DrawOutcome) -> tuple[State, tuple[Effect, ...]]:
    if not s.draws:
        raise violation("no_draw_due", "No random draw is due.", "")
    req = s.draws[0]
    n = len(req.items)
    if outcome.key != req.key:
        raise violation("wrong_draw", f"The draw due is {req.key!r}.", "")
    if req.kind == "pick":
        if len(outcome.values) != 1 or not 0 <= outcome.values[0] < n:
            raise violation("bad_draw", "A pick needs one index in range.", "")
    elif sorted(outcome.values) != list(range(n)):
        raise violation("bad_draw", "A shuffle needs a permutation of the items.", "")
    out: Effects = []
    s = replace(s, draws=s.draws[1:])
    order = tuple(req.items[i] for i in outcome.values)
    if req.key == "start_player":
        s = replace(s, start_player=outcome.values[0])
        out.append(fx.StartPlayerDrawn(seat=outcome.values[0]))
    elif req.key == "events":
        # the first marker lies on 1800; the next two and Bureaucracy are shuffled onto 1770-1790
        s = replace(s, events=("", "", "", order[0], C.event_end))
        early = (order[1], order[2], C.event_bureaucracy)
        s = replace(s, draws=(_shuffle("events-early", early, "event markers of 1770-1790"), *s.draws))
        out.append(fx.DeckShuffled(deck="event markers", cards=n))
    elif req.key == "events-early":
        s = replace(s, events=(order[0], order[1], order[2], s.events[3], s.events[4]))
        out.append(fx.DeckShuffled(deck="event markers of 1770-1790", cards=n))
    elif req.key == "events-predetermined":
        s = replace(s, events=(order[0], order[1], s.events[2], order[2], s.events[4]))
        out.append(fx.DeckShuffled(deck=req.label, cards=n))
    else:  # economy:<GOOD>: one marker per decade, the rest to the box unseen
        g = GOODS.index(req.key.split(":", 1)[1])
        economy = list(s.economy) if s.economy else [""] * (len(C.decades) * 4)
        for d in range(len(C.decades)):
            economy[d * 4 + g] = order[d]
        s = replace(s, economy=tuple(economy))
        out.append(fx.DeckShuffled(deck=req.label, cards=n))
    s = _advance(s, out)
    return s, tuple(out)


def _setup_done(s: State, out: Effects) -> State:
    if not s.options.predetermined_setup:
        return replace(s, phase=Phase.FOUNDATION_1, cursor=0)
    # The predetermined setup: fixed factories, shares and capital (spec §3.1.1)
    for seat, (factories, shares_kept) in enumerate(C.predetermined[s.players_count]):
        for g, price in factories:
            s = _found(s, seat, g, price, out)
        sold = C.start_shares - shares_kept
        s = _sell_start(s, seat, sold, out)
    return replace(s, phase=Phase.PAY_FACTORIES)


def _found(s: State, seat: int, g: int, price: int, out: Effects) -> State:
    """Rows 1 and 2 filled with workers from the job market only ([R16 4.1 IV])."""
    n = C.slots(g, 0) + C.slots(g, 1)
    s = replace(s, jm_empty=s.jm_empty + n)
    f = Factory(
        level=1, price=price, rows=(Row(workers=C.slots(g, 0)), Row(workers=C.slots(g, 1)), Row(), Row())
    )
    s = set_factory(s, seat, g, f)
    p = s.players[seat]
    s = set_player(s, replace(p, start_goods=(*p.start_goods, g)))
    out.append(fx.FactoryFounded(seat=seat, good=GOODS[g], price=price, appeal=appeal(g, f), workers=n))
    return s


def _sell_start(s: State, seat: int, count: int, out: Effects) -> State:
    from ledger.games.water_frame.economy import change_shares

    s = change_shares(s, seat, -count, C.start_share_price, "start_capital", out)
    return gain(s, seat, count * C.start_share_price, "start_capital", out)


def _build_cost(p: Player) -> int:
    return sum(C.base_quality(g, 1) for g in p.start_goods)


def _sequential(s: State, order: tuple[int, ...], ready: Callable[[State, int], bool], nxt: Phase) -> State:
    """Ask the players of ``order`` one at a time from ``cursor``; skip those not concerned."""
    cursor = s.cursor
    while cursor < len(order):
        seat = order[cursor]
        if ready(s, seat):
            return replace(s, cursor=cursor, awaiting=(seat,))
        cursor += 1
    return replace(s, phase=nxt, cursor=0, awaiting=())


def _foundation_1(s: State, out: Effects) -> State:
    return _sequential(s, turn_order(s), lambda _s, _p: True, Phase.FOUNDATION_2)


def _foundation_2(s: State, out: Effects) -> State:
    return _sequential(s, reverse_order(s), lambda _s, _p: True, Phase.START_SHARES)


def _start_shares(s: State, out: Effects) -> State:
    return _sequential(s, reverse_order(s), lambda _s, _p: True, Phase.PAY_FACTORIES)


def _pay_factories(s: State, out: Effects) -> State:
    for seat in turn_order(s):
        s = settle(s, seat, _build_cost(s.players[seat]), "building_costs", out)
    return _start_decade(replace(s, decade=1770), out)


def _start_decade(s: State, out: Effects) -> State:
    out.append(fx.DecadeStarted(decade=s.decade, level=level_now(s)))
    for seat in range(s.players_count):
        if s.decade == 1770:
            out.append(
                fx.SharePriceChanged(
                    company=seat,
                    space_from=None,
                    space_to=s.players[seat].share_space,
                    value_from=None,
                    value_to=C.share_value(s.players[seat].share_space),
                    currency="pounds",
                    cause="setup",
                )
            )
    return replace(s, phase=Phase.ECONOMY, cycle=0, goods_done=())


# --- the cycle: economy, action, production (§5.3-§5.8) -----------------------------


def _economy(s: State, out: Effects) -> State:
    g = s.cycle
    out.append(fx.CycleStarted(decade=s.decade, cycle=g + 1, good=GOODS[g]))
    advance, workers = C.economy_marker(s.economy[s.decade_index * 4 + g])
    importer = min(C.importer_max, s.importers[g] + advance)
    k = min(workers, s.fired, s.jm_empty)  # the remainder is forfeit
    s = replace(
        s,
        importers=set_at(s.importers, g, importer),
        fired=s.fired - k,
        jm_empty=s.jm_empty - k,
        economy_revealed=s.economy_revealed + 1,
    )
    out.append(
        fx.EconomyMarkerRevealed(
            decade=s.decade, good=GOODS[g], advance=advance, workers=workers, importer=importer, returned=k
        )
    )
    return replace(s, phase=Phase.ACTION, cursor=0)


def _action(s: State, out: Effects) -> State:
    order = turn_order(s)
    if s.cursor < len(order):
        return replace(s, awaiting=(order[s.cursor],))
    return _start_sale(s, out)


def _start_sale(s: State, out: Effects) -> State:
    g = s.cycle
    n = s.players_count
    produced = tuple(output(g, f) if (f := p.factories[g]) is not None else 0 for p in s.players)
    for seat in range(n):
        if produced[seat]:
            out.append(fx.GoodsProduced(seat=seat, good=GOODS[g], count=produced[seat]))
    tokens = demand(s, g)
    appeals = [appeal(g, p.factories[g]) for p in s.players]
    top = max([*appeals, s.importers[g]])
    out.append(fx.SaleStarted(good=GOODS[g], demand=tokens, importer=s.importers[g]))
    sale = Sale(
        good=g,
        tokens=tokens,
        level=top,
        produced=produced,
        sold_prod=(0,) * n,
        sold_stock=(0,) * n,
        stopped=(False,) * n,
    )
    return replace(s, phase=Phase.SALE, sale=sale)


def _groups(s: State, sale: Sale) -> list[tuple[int, ...]]:
    """The callees at this level, in tie-break order: appeal, importer last among equals,
    then quality; players equal in both form one group (§5.5.1)."""
    g = sale.good
    order = turn_order(s)
    keyed: dict[tuple[int, int, int], list[int]] = {}
    for seat in order:
        f = s.players[seat].factories[g]
        a = appeal(g, f)
        if f is not None and a >= 1 and a >= sale.level:
            keyed.setdefault((a, 1, quality(g, f)), []).append(seat)
    if s.importers[g] >= sale.level:
        keyed[(s.importers[g], 0, 0)] = [IMPORTER]
    return [tuple(keyed[k]) for k in sorted(keyed, reverse=True)]


def _sold_out(s: State, sale: Sale, seat: int) -> bool:
    p = s.players[seat]
    return sale.stopped[seat] or (sale.sold_prod[seat] >= sale.produced[seat] and p.stock[sale.good] == 0)


def _wants(s: State, sale: Sale, c: int) -> bool | None:
    """True/False, or None when the player must choose (D-31)."""
    if c == IMPORTER:
        return True
    g = sale.good
    a = appeal(g, s.players[c].factories[g])
    if sale.stopped[c] or sale.sold_prod[c] + sale.sold_stock[c] >= a:
        return False
    if sale.sold_prod[c] < sale.produced[c]:
        return True  # current production must be sold while demand lasts
    if s.players[c].stock[g] == 0:
        return False  # skipped: not a voluntary stop
    return None


def _give(s: State, sale: Sale, c: int) -> tuple[State, Sale]:
    if c == IMPORTER:
        return s, replace(sale, importer_sold=sale.importer_sold + 1)
    if sale.sold_prod[c] < sale.produced[c]:
        return s, replace(sale, sold_prod=set_at(sale.sold_prod, c, sale.sold_prod[c] + 1))
    p = s.players[c]
    g = sale.good
    s = set_player(s, replace(p, stock=set_at(p.stock, g, p.stock[g] - 1)))  # type: ignore[arg-type]
    return s, replace(sale, sold_stock=set_at(sale.sold_stock, c, sale.sold_stock[c] + 1))


def _sale(s: State, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    while sale.level >= 1 and sale.tokens > 0:
        players_left = [  # the sellers: a factory of the good and appeal at least 1
            seat
            for seat in range(s.players_count)
            if appeal(sale.good, s.players[seat].factories[sale.good]) >= 1
        ]
        if (
            not s.options.importer_top_up
            and sale.group == 0
            and sale.member == 0
            and all(_sold_out(s, sale, seat) for seat in players_left)
        ):
            break  # R16-literal reading
        groups = _groups(s, sale)
        if sale.group >= len(groups):
            sale = replace(sale, level=sale.level - 1, group=0, member=0, takers=())
            continue
        group = groups[sale.group]
        while sale.member < len(group):
            c = group[sale.member]
            wants = _wants(s, sale, c)
            if wants is None:
                return replace(s, sale=sale, awaiting=(c,))
            if wants:
                sale = replace(sale, takers=(*sale.takers, c))
            sale = replace(sale, member=sale.member + 1)
        for c in sale.takers:
            s, sale = _give(s, sale, c)
        tokens = sale.tokens - len(sale.takers) if len(sale.takers) <= sale.tokens else 0
        sale = replace(sale, tokens=tokens, group=sale.group + 1, member=0, takers=())
    return replace(s, sale=sale, phase=Phase.AFTER_SALE, awaiting=())


def _sale_choice(s: State, seat: int, sell: bool) -> State:
    sale = s.sale
    assert sale is not None
    if sell:
        sale = replace(sale, takers=(*sale.takers, seat), member=sale.member + 1)
    else:
        sale = replace(sale, stopped=set_at(sale.stopped, seat, True), member=sale.member + 1)
    return replace(s, sale=sale, awaiting=())


def _bonus_winner(score: dict[int, int], importer_value: int) -> int | None:
    best = max(score.values())
    top = [p for p, v in score.items() if v == best]
    if len(top) == 1 and best > importer_value:
        return top[0]
    return None  # the charisma tie rule arrives with the development tiles


def _after_sale(s: State, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    g = sale.good
    n = s.players_count
    sold = [sale.sold_prod[i] + sale.sold_stock[i] for i in range(n)]
    out.append(fx.ImporterSold(good=GOODS[g], count=sale.importer_sold))
    # revenue at the set price [R16 III.1]
    for seat in turn_order(s):
        f = s.players[seat].factories[g]
        if sold[seat] and f is not None:
            income = f.price * sold[seat]
            out.append(
                fx.GoodsSold(
                    seat=seat,
                    good=GOODS[g],
                    from_production=sale.sold_prod[seat],
                    from_stock=sale.sold_stock[seat],
                    price=f.price,
                    income=income,
                )
            )
            s = gain(s, seat, income, "sales", out)
    # III.2 share value increase: 1 or 2 spaces, and the two bonus steps
    steps = [0 if x == 0 else 1 if x == 1 else 2 for x in sold]
    appeals = {i: appeal(g, s.players[i].factories[g]) for i in range(n)}
    w = _bonus_winner(appeals, s.importers[g])
    if w is not None and sold[w] >= 1:
        steps[w] += 1
    w = _bonus_winner(dict(enumerate(sold)), sale.importer_sold)
    if w is not None and sold[w] >= 1:
        steps[w] += 1
    for seat in range(n):
        s = move_share(s, seat, steps[seat], "sales", out)
    # III.3 wages and machines, then distribution decay
    for seat in turn_order(s):
        f = s.players[seat].factories[g]
        if f is None:
            continue
        workers, machines, amount = production_cost(s, f)
        if amount:
            out.append(
                fx.WagesPaid(
                    seat=seat, good=GOODS[g], workers=workers, machines=machines, wage=wage(s), amount=amount
                )
            )
            s = settle(s, seat, amount, "wages", out)
    for seat in turn_order(s):
        f = s.players[seat].factories[g]
        if f is None or f.distribution == 0:
            continue
        f = replace(f, distribution=f.distribution - 1)
        forced = appeal(g, f) < 0
        if forced:  # the price drops by 1 so that appeal stays 0, and the share value falls
            f = replace(f, price=f.price - 1)
        s = set_factory(s, seat, g, f)
        out.append(
            fx.DistributionDecayed(seat=seat, good=GOODS[g], level=f.distribution, forced_price_drop=forced)
        )
        if forced:
            s = move_share(s, seat, -1, "distribution_decay", out)
    # III.5 surplus: stored within capacity, the rest is lost
    for seat in turn_order(s):
        surplus = sale.produced[seat] - sale.sold_prod[seat]
        if surplus <= 0:
            continue
        p = s.players[seat]
        room = max(0, large_cap(p, g) - p.stock[g])
        stored = min(room, surplus)
        if stored:
            s = set_player(s, replace(p, stock=set_at(p.stock, g, p.stock[g] + stored)))  # type: ignore[arg-type]
        out.append(fx.GoodsStored(seat=seat, good=GOODS[g], stored=stored, lost=surplus - stored))
    return replace(s, sale=None, goods_done=(*s.goods_done, g), phase=Phase.END_OF_CYCLE)


def _end_of_cycle(s: State, out: Effects) -> State:
    if s.cycle < 3:
        start = (s.start_player + 1) % s.players_count  # the left neighbour
        out.append(fx.StartPlayerChanged(seat=start, reason="next_cycle"))
        return replace(s, start_player=start, cycle=s.cycle + 1, phase=Phase.ECONOMY)
    return replace(s, phase=Phase.RETURN_MARKERS, cycle=-1)


# --- the end of the round (§5.9, §5.10) ---------------------------------------------


def _return_markers(s: State, out: Effects) -> State:
    players = tuple(replace(p, admin=(None,) * len(C.admin_spaces)) for p in s.players)
    out.append(fx.MarkersReturned(decade=s.decade))
    return replace(s, players=players, phase=Phase.HARBOUR_WAGES)


def _harbour_wages(s: State, out: Effects) -> State:
    w = wage(s)
    for seat in turn_order(s):
        workers = warehouse_workers(s.players[seat])  # ship crews arrive with the ships
        if workers:
            out.append(fx.HarbourWagesPaid(seat=seat, workers=workers, amount=workers * w))
            s = settle(s, seat, workers * w, "harbour_wages", out)
    return replace(s, phase=Phase.RELEASE, cursor=0)


def _release(s: State, out: Effects) -> State:
    return _sequential(
        s, turn_order(s), lambda st, seat: warehouse_workers(st.players[seat]) > 0, Phase.EVENT
    )


def _event(s: State, out: Effects) -> State:
    event = s.events[s.decade_index]
    s = replace(s, events_revealed=s.events_revealed + 1)
    out.append(fx.EventRevealed(decade=s.decade, event=event))
    if event == C.event_bureaucracy:
        s = replace(s, bureaucracy=True)  # the rest of the game (U-31)
    if event == C.event_end:
        return replace(s, phase=Phase.FINAL_STOCK_EXCHANGE, cursor=0)
    return replace(s, phase=Phase.START_PLAYER)


def start_player_chooser(s: State) -> int:
    """Lowest portfolio; then less cash; then farthest clockwise from the start player (§5.9)."""
    n = s.players_count
    return min(
        range(n),
        key=lambda i: (portfolio(s.players[i]), s.players[i].cash, -((i - s.start_player) % n)),
    )


def _start_player(s: State, out: Effects) -> State:
    return replace(s, awaiting=(start_player_chooser(s),))


def _obsolescence(s: State, out: Effects) -> State:
    nxt = s.decade + 10
    lvl = C.obsolete_level_on_entering.get(nxt)
    if lvl is not None:
        targets = [
            (seat, g)
            for seat in turn_order(s)
            for g in range(4)
            if (f := s.players[seat].factories[g]) is not None and f.level == lvl and not f.obsolete
        ]
        pool = s.fired + (C.jm_cells - s.jm_empty)
        got = dict.fromkeys(targets, 0)
        if pool >= 2 * len(targets):
            got = dict.fromkeys(targets, 2)
        else:  # one worker at a time, per factory, in turn order
            left = pool
            for _ in range(2):
                for t in targets:
                    if left:
                        got[t] += 1
                        left -= 1
        for (seat, g), k in got.items():
            from_fired = min(k, s.fired)  # the fired space first, then the job market
            s = replace(s, fired=s.fired - from_fired, jm_empty=s.jm_empty + (k - from_fired))
            f = s.players[seat].factories[g]
            assert f is not None
            s = set_factory(s, seat, g, replace(f, obsolete_workers=f.obsolete_workers + k, obsolete=True))
        fee = wage(s)
        for (seat, g), k in got.items():
            f = s.players[seat].factories[g]
            assert f is not None
            out.append(
                fx.FactoryObsolete(
                    seat=seat, good=GOODS[g], level=f.level, workers=k, missing=2 - k, fee=(2 - k) * fee
                )
            )
            s = settle(s, seat, (2 - k) * fee, "obsolescence", out)
    return _start_decade(replace(s, decade=nxt), out)


def _final_stock_exchange(s: State, out: Effects) -> State:
    return _sequential(s, turn_order(s), lambda _s, _p: True, Phase.SCORING)


def _scoring(s: State, out: Effects) -> State:
    eliminated = []
    for seat in range(s.players_count):
        p = s.players[seat]
        if p.loans:
            eliminated.append(seat)
            out.append(fx.PlayerEliminated(seat=seat, loans=p.loans))
            continue
        for g in range(4):
            f = p.factories[g]
            if f is not None and f.marker_worker:  # 1810: a worker on the factory marker
                s = move_share(s, seat, -4, "end_penalty", out)
                from ledger.games.water_frame.economy import change_shares

                lost = min(2, s.players[seat].shares)
                if lost:
                    s = change_shares(s, seat, -lost, 0, "end_penalty", out)
                out.append(fx.EndPenalty(seat=seat, reason="worker_on_factory_marker", spaces=4, shares=lost))
    scores = tuple(portfolio(p) for p in s.players)
    s = replace(s, eliminated=tuple(eliminated), scores=scores, phase=Phase.FINISHED)
    ranked = standings(s)
    out.append(fx.GameScored(scores=scores, winners=tuple(x.seat for x in ranked if x.rank == 1)))
    return s


_HANDLERS: dict[Phase, Callable[[State, Effects], State]] = {
    Phase.SETUP: _setup_done,
    Phase.FOUNDATION_1: _foundation_1,
    Phase.FOUNDATION_2: _foundation_2,
    Phase.START_SHARES: _start_shares,
    Phase.PAY_FACTORIES: _pay_factories,
    Phase.ECONOMY: _economy,
    Phase.ACTION: _action,
    Phase.SALE: _sale,
    Phase.AFTER_SALE: _after_sale,
    Phase.END_OF_CYCLE: _end_of_cycle,
    Phase.RETURN_MARKERS: _return_markers,
    Phase.HARBOUR_WAGES: _harbour_wages,
    Phase.RELEASE: _release,
    Phase.EVENT: _event,
    Phase.START_PLAYER: _start_player,
    Phase.OBSOLESCENCE: _obsolescence,
    Phase.FINAL_STOCK_EXCHANGE: _final_stock_exchange,
    Phase.SCORING: _scoring,
}


def _advance(s: State, out: Effects) -> State:
    for _ in range(100_000):
        if s.draws or s.awaiting or s.phase == Phase.FINISHED:
            return s
        s = _HANDLERS[s.phase](s, out)
    raise RuntimeError("automatic procedures did not settle")  # pragma: no cover


def resume(s: State) -> tuple[State, tuple[Effect, ...]]:
    """Run the automatic procedures from a position (a hand-built one, in tests and tools)."""
    out: Effects = []
    s = _advance(s, out)
    return s, tuple(out)


# --- decisions ------------------------------------------------------------------------


def _found_decision(s: State, seat: int, d: FoundFactory, out: Effects) -> State:
    g = GOODS.index(d.good)
    p = s.players[seat]
    if s.phase == Phase.FOUNDATION_2 and g in p.start_goods:
        raise violation("same_good", "The second factory must make a different kind of goods.", "4.1 IV")
    f = Factory(level=1, price=d.price, rows=(Row(), Row(), Row(), Row()))
    if not price_ok(g, f, d.price):
        raise violation(
            "bad_price",
            f"The price must be at least £{C.price_min} and at most the base quality £{C.base_quality(g, 1)} "
            "(appeal at least 0).",
            "4.1 IV",
        )
    if C.jm_cells - s.jm_empty < C.slots(g, 0) + C.slots(g, 1):
        raise violation("no_workers", "The job market has too few workers for this factory.", "4.1 IV")
    s = _found(s, seat, g, d.price, out)
    return replace(s, cursor=s.cursor + 1, awaiting=())


def _start_sale_range(p: Player) -> tuple[int, int]:
    return ceil_div(_build_cost(p), C.start_share_price), C.max_start_sale


def _start_shares_decision(s: State, seat: int, d: SellStartShares, out: Effects) -> State:
    lo, hi = _start_sale_range(s.players[seat])
    if not lo <= d.count <= hi:
        raise violation(
            "start_shares", f"Sell between {lo} and {hi} shares: enough to pay for both factories.", "4.1 V"
        )
    s = _sell_start(s, seat, d.count, out)
    return replace(s, cursor=s.cursor + 1, awaiting=())


def _release_decision(s: State, seat: int, d: ReleaseWarehouseWorker | Done, out: Effects) -> State:
    if isinstance(d, Done):
        return replace(s, cursor=s.cursor + 1, awaiting=())
    p = s.players[seat]
    if not edge_occupied(p, d.edge):
        raise violation("no_worker_there", f"No worker stands at {d.edge}.", "6.II")
    s = fire(set_player(s, set_edge(p, d.edge, False)), 1)
    from ledger.games.water_frame.economy import trim_stock

    s, lost = trim_stock(s, seat, out)
    out.append(fx.WarehouseWorkerReleased(seat=seat, edge=d.edge, goods_lost=lost))
    return s


def _final_se_decision(s: State, seat: int, d: Decision, out: Effects) -> State:
    rule = "8.0"
    if isinstance(d, Done):
        return replace(s, cursor=s.cursor + 1, awaiting=())
    if isinstance(d, BuyShares):
        return actions.buy_shares(s, seat, d.count, out, rule)
    if isinstance(d, SellShares):
        return actions.sell_shares(s, seat, d.count, out, rule)
    if isinstance(d, RepayLoans):
        return actions.repay_loans(s, seat, d.count, out, rule)
    if isinstance(d, SellStoredGoods):
        return actions.sell_stored(s, seat, d, out, rule)
    raise AssertionError  # pragma: no cover


_PHASE_DECISIONS: dict[Phase, tuple[type[Decision], ...]] = {
    Phase.FOUNDATION_1: (FoundFactory,),
    Phase.FOUNDATION_2: (FoundFactory,),
    Phase.START_SHARES: (SellStartShares,),
    Phase.ACTION: (
        PlaceMarker,
        ReuseMarker,
        BuildFactory,
        ModernizeFactory,
        CloseFactory,
        HireWorkers,
        HireWarehouseWorker,
        MoveWarehouseWorker,
        FireWorkers,
        PlaceMachine,
        RaiseQuality,
        RaiseDistribution,
        BuyShares,
        SellShares,
        RepayLoans,
        SellStoredGoods,
        AdjustPrice,
        FinishMainAction,
        EndTurn,
    ),
    Phase.SALE: (SellFromWarehouse, StopSelling),
    Phase.RELEASE: (ReleaseWarehouseWorker, Done),
    Phase.START_PLAYER: (ChooseStartPlayer,),
    Phase.FINAL_STOCK_EXCHANGE: (BuyShares, SellShares, RepayLoans, SellStoredGoods, Done),
}


def apply(s: State, seat: int, decision: Decision) -> tuple[State, tuple[Effect, ...]]:
    if seat not in s.awaiting:
        raise violation("not_your_turn", "The game is not waiting for your decision.", "")
    allowed = _PHASE_DECISIONS.get(s.phase, ())
    if not isinstance(decision, allowed):
        names = ", ".join(d.model_fields["type"].default for d in allowed)
        raise violation("wrong_decision", f"Now ({s.phase.value}) the decision must be one of: {names}.", "")
    out: Effects = []
    d = decision
    if isinstance(d, FoundFactory):
        s = _found_decision(s, seat, d, out)
    elif isinstance(d, SellStartShares):
        s = _start_shares_decision(s, seat, d, out)
    elif s.phase == Phase.ACTION:
        s = actions.apply_turn_decision(s, seat, d, out)
    elif isinstance(d, SellFromWarehouse | StopSelling):
        s = _sale_choice(s, seat, isinstance(d, SellFromWarehouse))
    elif s.phase == Phase.RELEASE:
        s = _release_decision(s, seat, d, out)  # type: ignore[arg-type]
    elif isinstance(d, ChooseStartPlayer):
        if d.seat >= s.players_count:
            raise violation("no_such_seat", f"There is no seat {d.seat}.", "6.III")
        out.append(fx.StartPlayerChanged(seat=d.seat, reason="chosen"))
        s = replace(s, start_player=d.seat, awaiting=(), phase=Phase.OBSOLESCENCE)
    else:
        s = _final_se_decision(s, seat, d, out)
    s = _advance(s, out)
    return s, tuple(out)


# --- legal decisions -------------------------------------------------------------------


def _valid(s: State, seat: int, d: Decision) -> bool:
    from ledger.errors import RuleViolationError

    try:
        apply(s, seat, d)
    except RuleViolationError:
        return False
    return True


def _prices(g: int, f: Factory, *, every: bool) -> list[int]:
    top = min(C.price_max, quality(g, f) + f.distribution)
    if every:
        return list(range(C.price_min, top + 1))
    return sorted({p for p in (top, top - 2, top - 4, C.price_min) if C.price_min <= p <= top})


def _se_options(s: State, seat: int) -> list[Decision]:
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
    can_repay = min(p.loans, p.cash // C.loan_repay)
    for n in sorted({1, can_repay}):
        if 1 <= n <= can_repay:
            out.append(RepayLoans(count=n))
    for g in range(4):
        for n in sorted({1, p.stock[g]}):
            if 1 <= n <= p.stock[g]:
                out.append(SellStoredGoods(good=GOODS[g], count=n))  # type: ignore[arg-type]
    return out


def _turn_options(s: State, seat: int) -> list[Decision]:
    t = s.turn
    p = s.players[seat]
    if t is None:
        out: list[Decision] = []
        for action in ("FACTORY", "WORKERS", "MACHINERY", "QUALITY", "DISTRIBUTION", "STOCK_EXCHANGE"):
            if f"OWN:{action}" in p.admin:
                out.append(ReuseMarker(action=action))  # type: ignore[arg-type]
                continue
            for i, cost in enumerate(C.admin_spaces):
                if p.admin[i] is None and not (s.bureaucracy and i == 0):
                    out.append(PlaceMarker(action=action, space=cost))  # type: ignore[arg-type]
        return out
    options: list[Decision] = []
    if t.stage == "main":
        if t.action == "FACTORY":
            for g in range(4):
                f = p.factories[g]
                if f is None:
                    for level in range(1, level_now(s) + 1):
                        if (g, level) in t.closed:
                            continue
                        blank = Factory(level=level, price=C.price_min, rows=(Row(), Row(), Row(), Row()))
                        for price in _prices(g, blank, every=False):
                            options.append(BuildFactory(good=GOODS[g], level=level, price=price))  # type: ignore[arg-type]
                else:
                    if f.level < min(4, level_now(s)):
                        options.append(ModernizeFactory(good=GOODS[g]))  # type: ignore[arg-type]
                    if g not in t.built:
                        options.append(CloseFactory(good=GOODS[g]))  # type: ignore[arg-type]
        elif t.action == "WORKERS":
            free = available_for_hire(s)
            for g in range(4):
                f = p.factories[g]
                if f is None:
                    continue
                for r in range(4):
                    room = C.slots(g, r) - f.rows[r].workers - f.rows[r].machines
                    if room and free and (g, r) not in t.fired_rows:
                        for n in sorted({1, min(room, free)}):
                            options.append(HireWorkers(good=GOODS[g], row=r + 1, count=n))  # type: ignore[arg-type]
                firable = sum(f.rows[r].workers for r in (1, 2, 3))
                for n in sorted({1, firable}):
                    if n >= 1 and _valid(s, seat, FireWorkers(good=GOODS[g], count=n)):  # type: ignore[arg-type]
                        options.append(FireWorkers(good=GOODS[g], count=n))  # type: ignore[arg-type]
            taken = [e for e, occupied in edges(p) if occupied]
            empty = [e for e, occupied in edges(p) if not occupied]
            if free:
                options.extend(HireWarehouseWorker(edge=e) for e in empty)
            options.extend(MoveWarehouseWorker(from_edge=a, to_edge=b) for a in taken for b in empty)
        elif t.action == "MACHINERY":
            if t.steps < actions.max_steps(C.machinery_thresholds["OWN"], t.budget):
                for g in range(4):
                    f = p.factories[g]
                    if f is None:
                        continue
                    for r in range(4):
                        only, flex = C.row_slots[g][r]
                        if f.rows[r].machines < flex and f.rows[r].workers > only:
                            options.append(PlaceMachine(good=GOODS[g], row=r + 1))  # type: ignore[arg-type]
        elif t.action == "QUALITY":
            if t.steps < actions.max_steps(C.quality_thresholds["OWN"], t.budget):
                for g in range(4):
                    f = p.factories[g]
                    if f is not None and f.quality < C.quality_max:
                        options.append(RaiseQuality(good=GOODS[g]))  # type: ignore[arg-type]
        elif t.action == "DISTRIBUTION":
            for g in range(4):
                f = p.factories[g]
                if (
                    f is not None
                    and f.distribution < C.distribution_levels
                    and t.spent + f.distribution + 1 <= t.budget
                ):
                    options.append(RaiseDistribution(good=GOODS[g]))  # type: ignore[arg-type]
        elif t.action == "STOCK_EXCHANGE":
            options.extend(_se_options(s, seat))
        options.append(FinishMainAction())
    if t.action in actions.PRICE_ACTIONS:
        probe = s if t.stage == "additional" else replace(s, turn=replace(t, stage="additional"))
        for g in range(4):
            f = p.factories[g]
            if f is not None and actions.price_adjustment_cost(probe, g) is not None:
                for price in _prices(g, f, every=True):
                    if price != f.price:
                        options.append(AdjustPrice(good=GOODS[g], price=price))  # type: ignore[arg-type]
    options.append(EndTurn())
    return options


def legal_decisions(s: State, seat: int) -> tuple[Decision, ...]:
    if seat not in s.awaiting:
        return ()
    p = s.players[seat]
    if s.phase in (Phase.FOUNDATION_1, Phase.FOUNDATION_2):
        out: list[Decision] = []
        for g in range(4):
            if s.phase == Phase.FOUNDATION_2 and g in p.start_goods:
                continue
            probe = Factory(level=1, price=C.price_min, rows=(Row(), Row(), Row(), Row()))
            for price in _prices(g, probe, every=True):
                out.append(FoundFactory(good=GOODS[g], price=price))  # type: ignore[arg-type]
        return tuple(out)
    if s.phase == Phase.START_SHARES:
        lo, hi = _start_sale_range(p)
        return tuple(SellStartShares(count=n) for n in range(lo, hi + 1))
    if s.phase == Phase.ACTION:
        return tuple(_turn_options(s, seat))
    if s.phase == Phase.SALE:
        return (SellFromWarehouse(), StopSelling())
    if s.phase == Phase.RELEASE:
        return (*(ReleaseWarehouseWorker(edge=e) for e, occupied in edges(p) if occupied), Done())
    if s.phase == Phase.START_PLAYER:
        return tuple(ChooseStartPlayer(seat=i) for i in range(s.players_count))
    if s.phase == Phase.FINAL_STOCK_EXCHANGE:
        return (*_se_options(s, seat), Done())
    return ()


_PROMPTS = {
    Phase.FOUNDATION_1: "found your first level-I factory and set its price",
    Phase.FOUNDATION_2: "found your second factory (another kind of goods)",
    Phase.START_SHARES: "sell shares at £10 for your start-up capital",
    Phase.SALE: "sell a stored good at this call, or stop selling",
    Phase.RELEASE: "release warehouse workers, or done",
    Phase.START_PLAYER: "name the start player of the next decade",
    Phase.FINAL_STOCK_EXCHANGE: "the final stock exchange: buy and sell shares, repay loans, sell stored goods",
}


def pending(s: State) -> Pending:
    if s.draws:
        return Pending(draw=s.draws[0], prompt=f"draw: {s.draws[0].label}")
    if s.phase == Phase.FINISHED:
        return Pending(finished=True, prompt="the game is over")
    if s.phase == Phase.ACTION:
        t = s.turn
        if t is None:
            prompt = f"{GOODS[s.cycle].lower()} cycle: place or re-use an action marker"
        elif t.stage == "main":
            prompt = f"{t.action.lower().replace('_', ' ')} action: continue, finish the main action or end the turn"
        else:
            prompt = "additional action, or end your turn"
        return Pending(seats=s.awaiting, prompt=prompt)
    return Pending(seats=s.awaiting, prompt=_PROMPTS.get(s.phase, ""))


# --- standings, views, conservation ------------------------------------------------


def standings(s: State) -> tuple[Standing, ...]:
    """[R16 8.0] shares x share value; players with loans lose; ties go to more cash, then shared."""
    n = s.players_count
    scores = s.scores or tuple(portfolio(p) for p in s.players)

    def key(i: int) -> tuple[int, int, int]:
        return (0 if i in s.eliminated else 1, scores[i], s.players[i].cash)

    out = []
    for i in range(n):
        rank = 1 + sum(1 for j in range(n) if key(j) > key(i))
        p = s.players[i]
        summary = (
            "eliminated (loans)"
            if i in s.eliminated
            else (f"£{scores[i]} ({p.shares} shares at £{C.share_value(p.share_space)}), cash £{p.cash}")
        )
        out.append(Standing(seat=i, rank=rank, score=key(i), summary=summary))
    return tuple(sorted(out, key=lambda x: (x.rank, x.seat)))


def _factory_view(g: int, f: Factory | None) -> dict[str, Any] | None:
    if f is None:
        return None
    return {
        "good": GOODS[g],
        "level": f.level,
        "price": f.price,
        "base_quality": base_quality(g, f),
        "quality_marker": f.quality,
        "quality": quality(g, f),
        "distribution": f.distribution,
        "appeal": appeal(g, f),
        "output": output(g, f),
        "rows": [
            {
                "workers": r.workers,
                "machines": r.machines,
                "slots": C.slots(g, i),
                "flexible": C.row_slots[g][i][1],
                "complete": r.workers + r.machines == C.slots(g, i),
            }
            for i, r in enumerate(f.rows)
        ],
        "obsolete_workers": f.obsolete_workers,
        "obsolete": f.obsolete,
        "worker_on_marker": f.marker_worker,
    }


def view(s: State, seat: int | None) -> dict[str, Any]:
    """Everything in Water Frame is public except the face-down economy and event markers."""
    economy = []
    for i in range(s.economy_revealed):
        a, w = C.economy_marker(s.economy[i])
        economy.append({"decade": C.decades[i // 4], "good": GOODS[i % 4], "advance": a, "workers": w})
    events = [{"decade": C.decades[i], "event": s.events[i]} for i in range(s.events_revealed)]
    t = s.turn
    sale = s.sale
    return {
        "decade": s.decade,
        "level": level_now(s),
        "cycle": s.cycle + 1 if s.cycle >= 0 else None,
        "active_good": GOODS[s.cycle] if s.cycle >= 0 else None,
        "phase": s.phase.value,
        "start_player": s.start_player,
        "turn_order": list(turn_order(s)),
        "awaiting": list(s.awaiting),
        "job_market": {
            "empty_cells": s.jm_empty,
            "cells": C.jm_cells,
            "wage": wage(s),
            "demand": {GOODS[g]: demand(s, g) for g in range(4)},
        },
        "fired_workers": s.fired,
        "boxed_workers": s.boxed,
        "importers": {GOODS[g]: s.importers[g] for g in range(4)},
        "economy_markers_revealed": economy,
        "events_revealed": events,
        "bureaucracy": s.bureaucracy,
        "goods_done_this_decade": [GOODS[g] for g in s.goods_done],
        "players": [
            {
                "seat": p.seat,
                "cash": p.cash,
                "shares": p.shares,
                "bank_shares": p.bank_shares,
                "loans": p.loans,
                "share_space": p.share_space,
                "share_value": C.share_value(p.share_space),
                "portfolio": portfolio(p),
                "factories": [_factory_view(g, p.factories[g]) for g in range(4)],
                "administration": [{"cost": C.admin_spaces[i], "marker": m} for i, m in enumerate(p.admin)],
                "warehouse": {
                    "columns": [GOODS[g] for g in range(4) if p.wh_cols[g]],
                    "rows": [r + 1 for r in range(C.warehouse_rows) if p.wh_rows[r]],
                    "stock": {GOODS[g]: p.stock[g] for g in range(4)},
                    "capacity": {GOODS[g]: large_cap(p, g) for g in range(4)},
                },
            }
            for p in s.players
        ],
        "turn": None
        if t is None
        else {
            "seat": t.seat,
            "action": t.action,
            "space": C.admin_spaces[t.space],
            "paid": t.paid,
            "budget": t.budget,
            "spent": t.spent,
            "stage": t.stage,
            "main_costs": t.main_costs,
            "main_action_possible": actions.main_possible(s),
            "affected": [GOODS[g] for g in t.affected],
            "adjusted": [GOODS[g] for g in t.adjusted],
        },
        "sale": None
        if sale is None
        else {
            "good": GOODS[sale.good],
            "tokens_left": sale.tokens,
            "level": sale.level,
            "produced": list(sale.produced),
            "sold_from_production": list(sale.sold_prod),
            "sold_from_stock": list(sale.sold_stock),
            "importer_sold": sale.importer_sold,
        },
        "scores": list(s.scores) if s.scores else None,
        "eliminated": list(s.eliminated),
    }


def workers_in_play(s: State) -> int:
    total = (C.jm_cells - s.jm_empty) + s.fired + s.boxed
    for p in s.players:
        total += warehouse_workers(p)
        for f in p.factories:
            if f is not None:
                total += sum(r.workers for r in f.rows) + f.obsolete_workers
    return total


def conservation(s: State) -> list[str]:
    problems = []
    if workers_in_play(s) != C.workers_total:
        problems.append(f"workers: {workers_in_play(s)} in play, not {C.workers_total}")
    if sum(p.cash for p in s.players) + s.bank != 0:
        problems.append("money: players' cash plus the bank's balance is constant")
    for p in s.players:
        if p.shares + p.bank_shares != C.shares_per_company:
            problems.append(f"seat {p.seat}: shares held plus the bank's is 30")
        if p.cash < 0:
            problems.append(f"seat {p.seat}: cash never negative after a payment")
        for g in range(4):
            f = p.factories[g]
            if p.stock[g] > large_cap(p, g):
                problems.append(f"seat {p.seat}: stock within the warehouse's capacity")
            if f is None:
                continue
            if appeal(g, f) < 0:
                problems.append(f"seat {p.seat}: {GOODS[g]} appeal at least 0")
            if not C.price_min <= f.price <= C.price_max:
                problems.append(f"seat {p.seat}: {GOODS[g]} price within £5-£25")
            for r, row in enumerate(f.rows):
                only, flex = C.row_slots[g][r]
                if row.machines > flex or row.workers + row.machines > only + flex:
                    problems.append(f"seat {p.seat}: {GOODS[g]} row {r + 1} within its slots")
        if not C.share_min <= p.share_space <= C.share_max:
            problems.append(f"seat {p.seat}: share value on the track")
    if not 0 <= s.jm_empty <= C.jm_cells or s.fired < 0:
        problems.append("job market within its cells")
    return problems


def secrets(s: State, seat: int | None) -> set[str]:
    """Economy markers not yet revealed, and event markers not yet revealed."""
    hidden = set(s.economy[s.economy_revealed :]) | set(s.events[s.events_revealed :])
    hidden.discard("")
    hidden.discard(C.event_end)  # always public: End of the Game lies on 1810
    return hidden


def describe(effect: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    def who(seat: int) -> str:
        return (names or {}).get(seat, f"Seat {seat}")

    e = effect
    k = e["kind"]
    g = str(e.get("good", "")).lower()
    texts: dict[str, Callable[[], str]] = {
        "start_player_drawn": lambda: f"{who(e['seat'])} was drawn to start.",
        "deck_shuffled": lambda: f"The {e['deck']} were shuffled.",
        "money_changed": lambda: (
            f"{who(e['seat'])} {'received' if e['amount'] > 0 else 'paid'} £{abs(e['amount'])} ({e['reason'].replace('_', ' ')}); cash £{e['balance']}."
        ),
        "shares_changed": lambda: (
            f"{who(e['seat'])} {'bought' if e['delta'] > 0 else 'sold'} {abs(e['delta'])} share(s) at £{e['price']} ({e['reason'].replace('_', ' ')}); holds {e['held']}."
        ),
        "loans_changed": lambda: (
            f"{who(e['seat'])} {'took' if e['delta'] > 0 else 'repaid'} {abs(e['delta'])} loan(s); {e['loans']} outstanding."
        ),
        "share_price_changed": lambda: (
            f"{who(e['company'])}'s share value: space {e['space_to']} (£{e['value_to']}), {e['cause'].replace('_', ' ')}."
        ),
        "factory_founded": lambda: (
            f"{who(e['seat'])} founded a {g} factory at £{e['price']} (appeal {e['appeal']})."
        ),
        "factory_built": lambda: (
            f"{who(e['seat'])} built a level-{e['level']} {g} factory for £{e['cost']} at price £{e['price']}."
        ),
        "factory_modernized": lambda: (
            f"{who(e['seat'])} modernised the {g} factory to level {e['level']} for £{e['cost']}."
        ),
        "factory_closed": lambda: (
            f"{who(e['seat'])} closed the {g} factory ({e['workers_fired']} workers fired)."
        ),
        "workers_hired": lambda: f"{who(e['seat'])} hired {e['count']} worker(s) into {g} row {e['row']}.",
        "warehouse_worker_hired": lambda: f"{who(e['seat'])} hired a warehouse worker at {e['edge']}.",
        "warehouse_worker_moved": lambda: (
            f"{who(e['seat'])} moved a warehouse worker from {e['from_edge']} to {e['to_edge']}."
        ),
        "warehouse_worker_released": lambda: (
            f"{who(e['seat'])} released the warehouse worker at {e['edge']}."
        ),
        "workers_fired": lambda: f"{who(e['seat'])} fired {e['count']} worker(s) from the {g} factory.",
        "machine_placed": lambda: f"{who(e['seat'])} placed a machine in {g} row {e['row']}.",
        "quality_raised": lambda: f"{who(e['seat'])} raised {g} quality to +{e['level']}.",
        "distribution_raised": lambda: (
            f"{who(e['seat'])} raised {g} distribution to +{e['level']} (£{e['cost']})."
        ),
        "price_set": lambda: f"{who(e['seat'])} set the {g} price to £{e['price']} (appeal {e['appeal']}).",
        "marker_placed": lambda: (
            f"{who(e['seat'])} {'re-used' if e['reuse'] else 'placed'} the {e['action'].lower().replace('_', ' ')} marker on the £{e['space']} space (paid £{e['cost']})."
        ),
        "turn_ended": lambda: f"{who(e['seat'])} ended the turn.",
        "decade_started": lambda: f"The {e['decade']}s began (development level {e['level']}).",
        "cycle_started": lambda: f"Cycle {e['cycle']} of the {e['decade']}s: {g} is active.",
        "economy_marker_revealed": lambda: (
            f"Economy marker: the {g} importer advances {e['advance']} (now {e['importer']}); {e['returned']} workers return to the job market."
        ),
        "sale_started": lambda: f"{g.capitalize()} demand: {e['demand']}; importer at {e['importer']}.",
        "goods_produced": lambda: f"{who(e['seat'])} produced {e['count']} {g}.",
        "goods_sold": lambda: (
            f"{who(e['seat'])} sold {e['from_production'] + e['from_stock']} {g} at £{e['price']} (£{e['income']})."
        ),
        "importer_sold": lambda: f"The importer sold {e['count']} {g}.",
        "goods_stored": lambda: (
            f"{who(e['seat'])} stored {e['stored']} {g}" + (f", {e['lost']} lost." if e["lost"] else ".")
        ),
        "wages_paid": lambda: (
            f"{who(e['seat'])} paid £{e['amount']} for {e['workers']} workers at £{e['wage']} and {e['machines']} machines."
        ),
        "distribution_decayed": lambda: (
            f"{who(e['seat'])}'s {g} distribution fell to +{e['level']}"
            + (" and the price dropped by £1." if e["forced_price_drop"] else ".")
        ),
        "stored_goods_sold": lambda: f"{who(e['seat'])} sold {e['count']} stored {g} for £{e['income']}.",
        "markers_returned": lambda: "Action markers returned to their owners.",
        "harbour_wages_paid": lambda: (
            f"{who(e['seat'])} paid £{e['amount']} to {e['workers']} harbour workers."
        ),
        "event_revealed": lambda: f"Event of the {e['decade']}s: {e['event'].replace('_', ' ').title()}.",
        "start_player_changed": lambda: f"{who(e['seat'])} is the start player.",
        "factory_obsolete": lambda: (
            f"{who(e['seat'])}'s level-{e['level']} {g} factory became obsolete: {e['workers']} workers"
            + (f", £{e['fee']} for {e['missing']} missing." if e["missing"] else ".")
        ),
        "player_eliminated": lambda: f"{who(e['seat'])} has {e['loans']} loan(s) and loses.",
        "end_penalty": lambda: f"{who(e['seat'])}: end penalty ({e['reason'].replace('_', ' ')}).",
        "game_scored": lambda: (
            "Final scores: " + ", ".join(f"{who(i)} £{v}" for i, v in enumerate(e["scores"])) + "."
        ),
    }
    render = texts.get(k)
    return render() if render else k.replace("_", " ")


class WaterFrameEngine:
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
    describe = staticmethod(describe)


ENGINE = WaterFrameEngine()

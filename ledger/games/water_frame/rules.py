"""Water Frame's rules engine: setup, the 1760 preparation round, the decade loop,
production and sale, the end of round and the end of the game (spec §3-§5).

The engine runs automatic procedures until a decision or a draw is due;
``State.awaiting`` names the seats awaited and ``State.draws`` the draws due.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations
from typing import Any

from pydantic import TypeAdapter

from ledger.engine import Decision, DrawOutcome, DrawRequest, Effect, Pending, Standing, TitleOptions
from ledger.games import vocabulary
from ledger.games.shared import ceil_div, replace, run_automatic, set_at
from ledger.games.water_frame import actions, special, stock_exchange, storage, words
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS, GREY_ACTIONS, PATRONS
from ledger.games.water_frame.decisions import (
    DECISION_ADAPTER,
    AdjustPrice,
    BuildFactory,
    BuyShares,
    ChooseStartPlayer,
    CloseFactory,
    CloseLastRow,
    DeliverContract,
    Done,
    EndTurn,
    FinishMainAction,
    FireWorkers,
    FoundFactory,
    HireWarehouseWorker,
    HireWorkers,
    ModernizeFactory,
    MoveWarehouseWorker,
    PatronSale,
    PlaceContract,
    PlaceMachine,
    PlaceMarker,
    ProduceGoods,
    RaiseDistribution,
    RaiseQuality,
    ReassignTile,
    ReleaseShip,
    ReleaseWarehouseWorker,
    RepayLoans,
    ReuseMarker,
    SellFromWarehouse,
    SellShares,
    SellStartShares,
    SellStoredGoods,
    ShipContract,
    SkipSpecialMarker,
    StopSelling,
    StoreGoods,
    TakeGreyMarker,
    TakeShip,
    TakeTile,
    UseBroker,
    UseCharisma,
    UseExtraShifts,
    UsePatent,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    appeal,
    available_for_hire,
    base_quality,
    change_shares,
    demand,
    edge_occupied,
    edges,
    fire,
    gain,
    harbour_workers,
    has,
    large_cap,
    level_now,
    move_share,
    output,
    portfolio,
    price_ok,
    production_cost,
    quality,
    return_tile,
    reverse_order,
    row_complete,
    set_edge,
    set_factory,
    set_player,
    settle,
    store,
    trim_stock,
    turn_order,
    violation,
    wage,
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
    ships = [x for x in C.ships if n > 2 or x.capacity == C.two_player_ship_capacity]
    mat_ships = tuple(tuple(sorted(x.id for x in ships if x.row == r)) for r in (1, 2, 3, 4))
    draws: list[DrawRequest] = []
    events: tuple[str, ...] = ()
    mat: tuple[tuple[str, ...], ...] = ((), (), (), ())
    display: tuple[str, ...] = ()
    if options.predetermined_setup:
        events = tuple(C.events_predetermined[d] for d in C.decades)
        if options.predetermined_events_shuffled:
            three = tuple(events[i] for i in (0, 1, 3))
            draws.append(_shuffle("events-predetermined", three, "event markers of 1770, 1780 and 1800"))
        mat = C.mat_predetermined[n]
        display = tuple(sorted(C.tiles_predetermined[n]))
    else:
        draws.append(
            DrawRequest("start_player", "pick", tuple(str(i) for i in range(n)), False, "start player")
        )
        pool = tuple(e for e in _event_pool(options) if not (n == 2 and e in C.events_removed_2p))
        draws.append(_shuffle("events", pool, "event markers"))
        for shade in ("LIGHT", "DARK"):
            markers = tuple(
                f"{shade}:{a}" for a in GREY_ACTIONS for _ in range(C.mat_copies - C.mat_sets_removed[n])
            )
            draws.append(_shuffle(f"mat:{shade}", markers, f"{shade.lower()} grey action markers"))
        display = _first_display(options)
        draws.append(_shuffle("tiles", _tile_pool(options, display), "development tiles"))
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
        mat=mat,
        mat_ships=mat_ships,
        display=display,
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
        out.append(vocabulary.StartPlayerDrawn(seat=outcome.values[0]))
    elif req.key == "events":
        # the first marker lies on 1800; the next two and Bureaucracy are shuffled onto 1770-1790
        s = replace(s, events=("", "", "", order[0], C.event_end))
        early = (order[1], order[2], C.event_bureaucracy)
        s = replace(s, draws=(_shuffle("events-early", early, "event markers of 1770-1790"), *s.draws))
        out.append(vocabulary.DeckShuffled(deck="event markers", cards=n))
    elif req.key == "events-early":
        s = replace(s, events=(order[0], order[1], order[2], s.events[3], s.events[4]))
        out.append(vocabulary.DeckShuffled(deck="event markers of 1770-1790", cards=n))
    elif req.key == "events-predetermined":
        s = replace(s, events=(order[0], order[1], s.events[2], order[2], s.events[4]))
        out.append(vocabulary.DeckShuffled(deck=req.label, cards=n))
    elif req.key.startswith("mat:"):  # face up, one per space; the surplus to the box unseen
        per_row = s.players_count
        first = 0 if req.key == "mat:LIGHT" else 2
        mat = list(s.mat)
        mat[first] = tuple(sorted(order[:per_row]))
        mat[first + 1] = tuple(sorted(order[per_row : 2 * per_row]))
        s = replace(s, mat=tuple(mat), box_markers=tuple(sorted((*s.box_markers, *order[2 * per_row :]))))
        if req.key == "mat:DARK":
            out.append(fx.MarkerLaidOut(rows=s.mat, ships=s.mat_ships))
    elif req.key == "tiles":  # R-5 with the redraw rule: never as many copies on display as players
        target = (
            len(s.display)
            + (C.tiles_random_patrons if s.options.patron_variant else C.tiles_random)[s.players_count]
        )
        display = list(s.display)
        rejected: list[str] = []
        for tile in order:
            if len(display) >= target:
                break
            if display.count(tile) + 1 >= s.players_count:
                rejected.append(tile)
                continue
            display.append(tile)
        s = replace(s, display=tuple(sorted(display)))
        out.append(fx.TilesDisplayed(tiles=s.display, rejected=tuple(rejected)))
    else:  # economy:<GOOD>: one marker per decade, the rest to the box unseen
        g = GOODS.index(req.key.split(":", 1)[1])
        economy = list(s.economy) if s.economy else [""] * (len(C.decades) * 4)
        for d in range(len(C.decades)):
            economy[d * 4 + g] = order[d]
        s = replace(s, economy=tuple(economy))
        out.append(vocabulary.DeckShuffled(deck=req.label, cards=n))
    s = _advance(s, out)
    return s, tuple(out)


def _setup_done(s: State, out: Effects) -> State:
    if not s.options.predetermined_setup:
        return replace(s, phase=Phase.FOUNDATION_1, cursor=0)
    # The predetermined setup: fixed factories, shares and capital, then a tile each (spec §3.1.1)
    for seat, (factories, shares_kept) in enumerate(C.predetermined[s.players_count]):
        for g, price in factories:
            s = _found(s, seat, g, price, out)
        sold = C.start_shares - shares_kept
        s = _sell_start(s, seat, sold, out)
    out.append(fx.MarkerLaidOut(rows=s.mat, ships=s.mat_ships))
    out.append(fx.TilesDisplayed(tiles=s.display, rejected=()))
    return replace(s, phase=Phase.PREDETERMINED_TILE, cursor=0)


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
                vocabulary.SharePriceChanged(
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
    out.append(vocabulary.CycleStarted(decade=s.decade, cycle=g + 1, good=GOODS[g]))
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
    n = s.players_count
    sale = Sale(
        good=s.cycle,
        tokens=0,
        level=0,
        produced=(0,) * n,
        sold_prod=(0,) * n,
        sold_stock=(0,) * n,
        stopped=(False,) * n,
        closed_row=(-1,) * n,
        extra=(0,) * n,
        extra_window=(False,) * n,
        stock_source=("",) * n,
        patron=(0,) * n,
        patron_from_surplus=(0,) * n,
        shipped_from_surplus=(0,) * n,
    )
    return replace(s, phase=Phase.SCHOOL, sale=sale, cursor=0)


def _start_sale(s: State, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    g = sale.good
    n = s.players_count
    produced = []
    for seat, p in enumerate(s.players):
        f = p.factories[g]
        if f is None:
            produced.append(0)
            continue
        closed = sale.closed_row[seat]
        levels = C.row_output[f.level - 1]
        produced.append(sum(levels[r] for r in range(4) if r != closed and row_complete(g, f, r)))
    for seat in range(n):
        if produced[seat]:
            out.append(vocabulary.GoodsProduced(seat=seat, good=GOODS[g], count=produced[seat]))
    tokens = demand(s, g)
    appeals = [appeal(g, p.factories[g]) for p in s.players]
    top = max([*appeals, s.importers[g]])
    out.append(fx.SaleStarted(good=GOODS[g], demand=tokens, importer=s.importers[g]))
    return replace(
        s, phase=Phase.SALE, sale=replace(sale, tokens=tokens, level=top, produced=tuple(produced))
    )


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
    g = sale.good
    can_extra = has(p, "EXTRA_SHIFTS") and not sale.extra_window[seat]
    return sale.stopped[seat] or (
        sale.sold_prod[seat] >= sale.produced[seat] + sale.extra[seat]
        and p.stock[g] + p.small_stock[g] == 0
        and not can_extra
    )


def _wants(s: State, sale: Sale, c: int) -> bool | None:
    """True/False, or None when the player must choose (D-31)."""
    if c == IMPORTER:
        return True
    g = sale.good
    p = s.players[c]
    a = appeal(g, p.factories[g])
    if sale.stopped[c] or sale.sold_prod[c] + sale.sold_stock[c] >= a:
        return False
    if sale.sold_prod[c] < sale.produced[c] + sale.extra[c]:
        return True  # current production must be sold while demand lasts
    can_extra = has(p, "EXTRA_SHIFTS") and not sale.extra_window[c]
    if not can_extra and p.stock[g] + p.small_stock[g] == 0:
        return False  # skipped: not a voluntary stop
    return None


def _give(s: State, sale: Sale, c: int) -> tuple[State, Sale]:
    if c == IMPORTER:
        return s, replace(sale, importer_sold=sale.importer_sold + 1)
    if sale.sold_prod[c] < sale.produced[c] + sale.extra[c]:
        return s, replace(sale, sold_prod=set_at(sale.sold_prod, c, sale.sold_prod[c] + 1))
    p = s.players[c]
    g = sale.good
    if sale.stock_source[c] == "small":
        p = replace(p, small_stock=set_at(p.small_stock, g, p.small_stock[g] - 1))  # type: ignore[arg-type]
    else:
        p = replace(p, stock=set_at(p.stock, g, p.stock[g] - 1))  # type: ignore[arg-type]
    sale = replace(
        sale,
        sold_stock=set_at(sale.sold_stock, c, sale.sold_stock[c] + 1),
        stock_source=set_at(sale.stock_source, c, ""),
    )
    return set_player(s, p), sale


def _sale(s: State, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    while sale.level >= 1 and sale.tokens > 0:
        sellers = [
            seat
            for seat in range(s.players_count)
            if appeal(sale.good, s.players[seat].factories[sale.good]) >= 1
        ]
        if (
            not s.options.importer_top_up
            and sale.group == 0
            and sale.member == 0
            and all(_sold_out(s, sale, seat) for seat in sellers)
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
    return replace(s, sale=sale, phase=Phase.PATRON, cursor=0, awaiting=())


def _sale_choice(s: State, seat: int, d: Decision, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    g = sale.good
    p = s.players[seat]
    window = set_at(sale.extra_window, seat, True)
    if isinstance(d, UseExtraShifts):
        if not has(p, "EXTRA_SHIFTS") or sale.extra_window[seat]:
            raise violation(
                "extra_shifts_window",
                "Extra shifts only at the first call after your production is sold.",
                "III.1",
            )
        s = return_tile(s, seat, "EXTRA_SHIFTS", out)
        sale = replace(
            sale,
            extra=set_at(sale.extra, seat, sale.extra[seat] + 1),
            extra_window=window,
            takers=(*sale.takers, seat),
            member=sale.member + 1,
        )
    elif isinstance(d, SellFromWarehouse):
        stock = p.small_stock[g] if d.warehouse == "small" else p.stock[g]
        if stock == 0:
            raise violation("no_stock", f"No {GOODS[g].lower()} in your {d.warehouse} warehouse.", "III.1")
        sale = replace(
            sale,
            stock_source=set_at(sale.stock_source, seat, d.warehouse),
            extra_window=window,
            takers=(*sale.takers, seat),
            member=sale.member + 1,
        )
    else:
        sale = replace(
            sale, stopped=set_at(sale.stopped, seat, True), extra_window=window, member=sale.member + 1
        )
    return replace(s, sale=sale, awaiting=())


def _bonus_winner(s: State, score: dict[int, int], importer_value: int) -> int | None:
    """The single best, above the importer; the charisma owner wins a tie he is part of
    (a tie with the importer included, A-15)."""
    best = max(score.values())
    top = [p for p, v in score.items() if v == best]
    if len(top) == 1 and best > importer_value:
        return top[0]
    h = charisma_owner(s)
    if h is not None and h in top and best >= importer_value and (len(top) > 1 or best == importer_value):
        return h
    return None


def _after_sale(s: State, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    g = sale.good
    n = s.players_count
    sold = [sale.sold_prod[i] + sale.sold_stock[i] + sale.patron[i] for i in range(n)]
    out.append(fx.ImporterSold(good=GOODS[g], count=sale.importer_sold))
    for seat in turn_order(s):  # revenue at the set price [R16 III.1]
        f = s.players[seat].factories[g]
        if sold[seat] and f is not None:
            income = f.price * sold[seat]
            out.append(
                fx.GoodsSold(
                    seat=seat,
                    good=GOODS[g],
                    from_production=sale.sold_prod[seat],
                    from_stock=sale.sold_stock[seat] + sale.patron[seat],
                    price=f.price,
                    income=income,
                )
            )
            s = gain(s, seat, income, "sales", out)
    # III.2 share value increase: 1 or 2 spaces, and the two bonus steps
    steps = [0 if x == 0 else 1 if x == 1 else 2 for x in sold]
    appeals = {i: appeal(g, s.players[i].factories[g]) for i in range(n)}
    w = _bonus_winner(s, appeals, s.importers[g])
    if w is not None and sold[w] >= 1:
        steps[w] += 1
    w = _bonus_winner(s, dict(enumerate(sold)), sale.importer_sold)
    if w is not None and sold[w] >= 1:
        steps[w] += 1
    for seat in range(n):
        s = move_share(s, seat, steps[seat], "sales", out)
    # III.3 wages and machines (a row closed by the school costs nothing), then distribution decay
    for seat in turn_order(s):
        p = s.players[seat]
        f = p.factories[g]
        if f is None:
            continue
        rows = tuple(r for r in range(4) if r != sale.closed_row[seat])
        workers, machines, amount = production_cost(s, p, g, f, rows)
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
    return replace(s, phase=Phase.SHIPPING, cursor=0)


def _end_of_cycle(s: State, out: Effects) -> State:
    if s.cycle < 3:
        if charisma_owner(s) is not None:
            return replace(s, phase=Phase.CHARISMA, awaiting=(charisma_owner(s),))  # type: ignore[arg-type]
        return _next_cycle(s, out)
    return replace(s, phase=Phase.RETURN_MARKERS, cycle=-1)


# --- the end of the round (§5.9, §5.10) ---------------------------------------------


def _return_markers(s: State, out: Effects) -> State:
    players = tuple(replace(p, admin=(None,) * len(C.admin_spaces)) for p in s.players)
    out.append(fx.MarkersReturned(decade=s.decade))
    return replace(s, players=players, phase=Phase.HARBOUR_WAGES)


def _harbour_wages(s: State, out: Effects) -> State:
    w = wage(s)
    for seat in turn_order(s):
        workers = harbour_workers(s.players[seat])
        if workers:
            out.append(fx.HarbourWagesPaid(seat=seat, workers=workers, amount=workers * w))
            s = settle(s, seat, workers * w, "harbour_wages", out)
    return replace(s, phase=Phase.RELEASE, cursor=0)


def _release(s: State, out: Effects) -> State:
    return _sequential(
        s,
        turn_order(s),
        lambda st, seat: harbour_workers(st.players[seat]) > 0 or bool(st.players[seat].ships),
        Phase.EVENT,
    )


def _event(s: State, out: Effects) -> State:
    event = s.events[s.decade_index]
    s = replace(s, events_revealed=s.events_revealed + 1)
    out.append(fx.EventRevealed(decade=s.decade, event=event))
    if event == C.event_bureaucracy:
        s = replace(s, bureaucracy=True)  # the rest of the game (U-31)
    if event == C.event_end:
        return replace(s, phase=Phase.FINAL_STOCK_EXCHANGE, cursor=0)
    return replace(s, phase=Phase.BROKER, cursor=0)


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
                lost = min(2, s.players[seat].shares)
                if lost:
                    s = change_shares(s, seat, -lost, 0, "end_penalty", out)
                out.append(fx.EndPenalty(seat=seat, reason="worker_on_factory_marker", spaces=4, shares=lost))
        for g in range(4):
            c = s.players[seat].contracts[g]
            if c:  # an unfulfilled contract costs its space in share value
                s = move_share(s, seat, -c, "end_penalty", out)
                out.append(
                    fx.EndPenalty(
                        seat=seat, reason=f"unfulfilled_{GOODS[g].lower()}_contract", spaces=c, shares=0
                    )
                )
    scores = tuple(portfolio(p) for p in s.players)
    s = replace(s, eliminated=tuple(eliminated), scores=scores, phase=Phase.FINISHED)
    ranked = standings(s)
    out.append(vocabulary.GameScored(scores=scores, winners=tuple(x.seat for x in ranked if x.rank == 1)))
    return s


_HANDLERS: dict[Phase, Callable[[State, Effects], State]] = {}


def _advance(s: State, out: Effects) -> State:
    """Run automatic procedures until a decision or a draw is due, or the game is over."""
    return run_automatic(s, out, _HANDLERS, Phase.FINISHED)  # type: ignore[no-any-return]


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


def _release_decision(s: State, seat: int, d: Decision, out: Effects) -> State:
    if isinstance(d, Done):
        return replace(s, cursor=s.cursor + 1, awaiting=())
    p = s.players[seat]
    if isinstance(d, ReleaseShip):
        if d.ship not in p.ships:
            raise violation("no_such_ship", f"You have no ship {d.ship}.", "6.II")
        ship = C.ship(d.ship)
        p = replace(
            p,
            ships=tuple(x for x in p.ships if x != d.ship),
            admin=tuple(None if m == f"SHIP:{d.ship}" else m for m in p.admin),
        )
        mat_ships = tuple(
            tuple(sorted((*r, d.ship))) if i == ship.row - 1 else r for i, r in enumerate(s.mat_ships)
        )
        s = fire(replace(set_player(s, p), mat_ships=mat_ships), ship.crew)
        out.append(fx.ShipReleased(seat=seat, ship=d.ship, crew_fired=ship.crew))
        return s
    assert isinstance(d, ReleaseWarehouseWorker)
    if not edge_occupied(p, d.edge):
        raise violation("no_worker_there", f"No worker stands at {d.edge}.", "6.II")
    s = fire(set_player(s, set_edge(p, d.edge, False)), 1)
    s, lost = trim_stock(s, seat, out)
    out.append(fx.WarehouseWorkerReleased(seat=seat, edge=d.edge, goods_lost=lost))
    return s


_PHASE_DECISIONS: dict[Phase, tuple[type[Decision], ...]] = {
    Phase.FOUNDATION_1: (FoundFactory,),
    Phase.FOUNDATION_2: (FoundFactory,),
    Phase.START_SHARES: (SellStartShares,),
    Phase.START_SPECIAL: (TakeTile, TakeGreyMarker, TakeShip, SkipSpecialMarker),
    Phase.PREDETERMINED_TILE: (TakeTile, SkipSpecialMarker),
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
        UsePatent,
        BuyShares,
        SellShares,
        RepayLoans,
        SellStoredGoods,
        PlaceContract,
        ProduceGoods,
        DeliverContract,
        TakeTile,
        TakeGreyMarker,
        TakeShip,
        UseBroker,
        ReassignTile,
        AdjustPrice,
        FinishMainAction,
        EndTurn,
    ),
    Phase.SCHOOL: (CloseLastRow,),
    Phase.SALE: (SellFromWarehouse, UseExtraShifts, StopSelling),
    Phase.PATRON: (PatronSale,),
    Phase.SHIPPING: (ShipContract,),
    Phase.STORAGE: (StoreGoods,),
    Phase.CHARISMA: (UseCharisma,),
    Phase.RELEASE: (ReleaseShip, ReleaseWarehouseWorker, Done),
    Phase.BROKER: (BuyShares, SellShares, SellStoredGoods, Done),
    Phase.START_PLAYER: (ChooseStartPlayer,),
    Phase.FINAL_STOCK_EXCHANGE: (BuyShares, SellShares, RepayLoans, SellStoredGoods, Done),
}


def _storing(s: State) -> tuple[int, int, int] | None:
    """A production action's storage conflict awaiting the player's StoreGoods (D-34)."""
    return s.turn.storing if s.phase == Phase.ACTION and s.turn is not None else None


def _allowed(s: State) -> tuple[type[Decision], ...]:
    if _storing(s) is not None:
        return (StoreGoods,)
    return _PHASE_DECISIONS.get(s.phase, ())


def apply(s: State, seat: int, decision: Decision) -> tuple[State, tuple[Effect, ...]]:
    if seat not in s.awaiting:
        raise violation("not_your_turn", "The game is not waiting for your decision.", "")
    allowed = _allowed(s)
    if not isinstance(decision, allowed):
        names = ", ".join(d.model_fields["type"].default for d in allowed)
        raise violation("wrong_decision", f"Now ({s.phase.value}) the decision must be one of: {names}.", "")
    out: Effects = []
    d = decision
    phase = s.phase
    if isinstance(d, FoundFactory):
        s = _found_decision(s, seat, d, out)
    elif isinstance(d, SellStartShares):
        s = _start_shares_decision(s, seat, d, out)
    elif phase == Phase.START_SPECIAL:
        s = _start_special_decision(s, seat, d, out)
    elif phase == Phase.PREDETERMINED_TILE:
        s = _predetermined_tile_decision(s, seat, d, out)
    elif phase == Phase.ACTION:
        s = actions.apply_turn_decision(s, seat, d, out)
    elif isinstance(d, CloseLastRow):
        if d.close:
            sale = s.sale
            assert sale is not None
            f = s.players[seat].factories[sale.good]
            assert f is not None
            row = last_occupied_row(f)
            assert row is not None
            s = replace(s, sale=replace(sale, closed_row=set_at(sale.closed_row, seat, row)))
            out.append(fx.RowClosedBySchool(seat=seat, good=GOODS[sale.good], row=row + 1))
        s = replace(s, cursor=s.cursor + 1, awaiting=())
    elif phase == Phase.SALE:
        s = _sale_choice(s, seat, d, out)
    elif isinstance(d, PatronSale):
        s = _patron_decision(s, seat, d, out)
    elif isinstance(d, ShipContract):
        s = _ship_decision(s, seat, d, out)
    elif isinstance(d, StoreGoods):
        s = _store_decision(s, seat, d, out)
    elif isinstance(d, UseCharisma):
        s = _charisma_decision(s, seat, d, out)
    elif phase == Phase.RELEASE:
        s = _release_decision(s, seat, d, out)
    elif isinstance(d, ChooseStartPlayer):
        if d.seat >= s.players_count:
            raise violation("no_such_seat", f"There is no seat {d.seat}.", "6.III")
        out.append(vocabulary.StartPlayerChanged(seat=d.seat, reason="chosen"))
        s = replace(s, start_player=d.seat, awaiting=(), phase=Phase.OBSOLESCENCE)
    else:
        s = _trade_decision(s, seat, d, out, "6.II" if phase == Phase.BROKER else "8.0")
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


def _se_options(s: State, seat: int, *, repay: bool = True, half: bool = False) -> list[Decision]:
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


def _turn_options(s: State, seat: int) -> list[Decision]:
    t = s.turn
    p = s.players[seat]
    if t is None:
        return _marker_options(s, seat)
    options: list[Decision] = []
    if t.stage == "main":
        if t.action == "FACTORY":
            for g in range(4):
                f = p.factories[g]
                dev = [False, True] if has(p, "DEVELOPER") and g not in t.developer_on else [False]
                if f is None:
                    for level in range(1, level_now(s) + 1):
                        if (g, level) in t.closed:
                            continue
                        blank = Factory(level=level, price=C.price_min, rows=(Row(), Row(), Row(), Row()))
                        for price in _prices(g, blank, every=False):
                            for use in dev:
                                options.append(
                                    BuildFactory(good=GOODS[g], level=level, price=price, developer=use)
                                )  # type: ignore[arg-type]
                else:
                    if f.level < min(4, level_now(s)):
                        options.extend(ModernizeFactory(good=GOODS[g], developer=use) for use in dev)  # type: ignore[arg-type]
                    elif f.level == level_now(s) < 4 and has(p, "INVENTOR"):
                        options.extend(
                            ModernizeFactory(good=GOODS[g], inventor=use) for use in ("return", "pay")
                        )  # type: ignore[arg-type]
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
            if t.steps < actions.machine_limit(t):
                for g in range(4):
                    f = p.factories[g]
                    if f is None:
                        continue
                    for r in range(4):
                        only, flex = C.row_slots[g][r]
                        if (
                            f.rows[r].machines < flex
                            and f.rows[r].workers > only
                            and (g, r) not in t.hired_rows
                        ):
                            options.append(PlaceMachine(good=GOODS[g], row=r + 1))  # type: ignore[arg-type]
        elif t.action == "QUALITY":
            top = C.quality_max_engineer if has(p, "ENGINEER") else C.quality_max
            if t.steps < actions.max_steps(C.quality_thresholds[t.shade], t.budget):
                for g in range(4):
                    f = p.factories[g]
                    if f is not None and f.quality < top:
                        options.append(RaiseQuality(good=GOODS[g]))  # type: ignore[arg-type]
        elif t.action == "DISTRIBUTION":
            if has(p, "PATENT") and not t.took_special:
                options.extend(UsePatent(option=o) for o in ("extra_budget", "free_raises"))  # type: ignore[arg-type]
            for g in range(4):
                f = p.factories[g]
                cost = 0 if t.free_raises else (f.distribution + 1 if f else 0)
                if f is not None and f.distribution < C.distribution_levels and t.spent + cost <= t.budget:
                    options.append(RaiseDistribution(good=GOODS[g]))  # type: ignore[arg-type]
        elif t.action == "STOCK_EXCHANGE":
            options.extend(_se_options(s, seat))
            track = stock_exchange.contract_track(s)
            for g in range(4):
                for space in track:
                    if space > p.contracts[g]:
                        options.append(PlaceContract(good=GOODS[g], space=space))  # type: ignore[arg-type]
        elif t.action == "PRODUCTION":
            if not t.steps:
                for g in range(4):
                    if p.factories[g] is not None:
                        for rows in range(1, C.production_rows[t.shade] + 1):
                            options.append(ProduceGoods(good=GOODS[g], rows=rows))  # type: ignore[arg-type]
                            if has(p, "EXTRA_SHIFTS"):
                                options.append(ProduceGoods(good=GOODS[g], rows=rows, extra_shift=True))  # type: ignore[arg-type]
        elif t.action == "SHIP":
            for g in range(4):
                if p.contracts[g] and p.factories[g] is not None:
                    for a in [0, -1, 1] if has(p, "AGENT_IN_THE_COLONIES") and not t.agent_used else [0]:
                        d = DeliverContract(good=GOODS[g], agent=a)  # type: ignore[arg-type]
                        if _valid(s, seat, d):
                            options.append(d)
        options.append(FinishMainAction())
    if t.action in actions.PRICE_ACTIONS:
        probe = s if t.stage == "additional" else replace(s, turn=replace(t, stage="additional"))
        for g in range(4):
            f = p.factories[g]
            if f is not None and actions.price_adjustment_cost(probe, g) is not None:
                for price in _prices(g, f, every=True):
                    if price != f.price and price <= C.price_max - p.small_stock[g]:
                        options.append(AdjustPrice(good=GOODS[g], price=price))  # type: ignore[arg-type]
    if (
        t.action in actions.SPECIAL_ACTIONS
        and not (t.action == "STOCK_EXCHANGE" and t.shade != "OWN")
        and t.stage != "special_done"
    ):
        options.extend(_special_options(s, seat, start=False))
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
            blank = Factory(level=1, price=C.price_min, rows=(Row(), Row(), Row(), Row()))
            for price in _prices(g, blank, every=True):
                out.append(FoundFactory(good=GOODS[g], price=price))  # type: ignore[arg-type]
        return tuple(out)
    if s.phase == Phase.START_SHARES:
        lo, hi = _start_sale_range(p)
        return tuple(SellStartShares(count=n) for n in range(lo, hi + 1))
    if s.phase == Phase.START_SPECIAL:
        return (*_special_options(s, seat, start=True), SkipSpecialMarker())
    if s.phase == Phase.PREDETERMINED_TILE:
        return (
            *(TakeTile(tile=t) for t in box_tiles(s) if t not in p.tiles and t not in special.ASSIGNED_TILES),  # type: ignore[arg-type]
            *(
                TakeTile(tile=t, assign=GOODS[g])
                for t in box_tiles(s)
                if t in special.ASSIGNED_TILES  # type: ignore[arg-type]
                for g in range(4)
                if p.factories[g] is not None
            ),
            SkipSpecialMarker(),
        )
    if s.phase == Phase.ACTION:
        storing = _storing(s)
        if storing is not None:
            good, _, made = storing
            return tuple(storage.options(p, good, made))
        return tuple(_turn_options(s, seat))
    if s.phase == Phase.SCHOOL:
        return (CloseLastRow(close=True), CloseLastRow(close=False))
    if s.phase == Phase.SALE:
        sale = s.sale
        assert sale is not None
        g = sale.good
        opts: list[Decision] = []
        if has(p, "EXTRA_SHIFTS") and not sale.extra_window[seat]:
            opts.append(UseExtraShifts())
        if p.stock[g]:
            opts.append(SellFromWarehouse(warehouse="large"))
        if p.small_stock[g]:
            opts.append(SellFromWarehouse(warehouse="small"))
        return (*opts, StopSelling())
    if s.phase == Phase.PATRON:
        sale = s.sale
        assert sale is not None
        g = sale.good
        sources = [
            x
            for x, ok in (
                ("surplus", _surplus(sale, seat) > 0),
                ("large", p.stock[g] > 0),
                ("small", p.small_stock[g] > 0),
            )
            if ok
        ]
        return (*(PatronSale(source=x) for x in sources), PatronSale(source=None))  # type: ignore[arg-type]
    if s.phase == Phase.SHIPPING:
        sale = s.sale
        assert sale is not None
        opts = [ShipContract(fulfil=False)]
        for a in [0, -1, 1] if has(p, "AGENT_IN_THE_COLONIES") else [0]:
            d = ShipContract(fulfil=True, agent=a)
            if _valid(s, seat, d):
                opts.append(d)
                n = p.contracts[sale.good] + a
                default = _ship_sources(s, seat, n, (0, 1, 2))
                for order in permutations((0, 1, 2)):  # the other orders of taking the goods
                    x, y, z = _ship_sources(s, seat, n, order)
                    alt = ShipContract(fulfil=True, agent=a, from_surplus=x, from_large=y, from_small=z)
                    if (x, y, z) != default and alt not in opts:
                        opts.append(alt)
        return tuple(opts)
    if s.phase == Phase.STORAGE:
        sale = s.sale
        assert sale is not None
        return tuple(storage.options(p, sale.good, _surplus(sale, seat)))
    if s.phase == Phase.CHARISMA:
        return (UseCharisma(seat=None), *(UseCharisma(seat=i) for i in range(s.players_count)))
    if s.phase == Phase.RELEASE:
        return (
            *(ReleaseShip(ship=x) for x in p.ships),
            *(ReleaseWarehouseWorker(edge=e) for e, occupied in edges(p) if occupied),
            Done(),
        )
    if s.phase == Phase.BROKER:
        return (*_se_options(s, seat, repay=False), Done())
    if s.phase == Phase.START_PLAYER:
        return tuple(ChooseStartPlayer(seat=i) for i in range(s.players_count))
    if s.phase == Phase.FINAL_STOCK_EXCHANGE:
        return (*_se_options(s, seat), Done())
    return ()


_PROMPTS = {
    Phase.START_SPECIAL: "take a special marker: a light grey marker or ship of row I, or a tile, or skip",
    Phase.PREDETERMINED_TILE: "take your predetermined development tile (one not on the display)",
    Phase.SCHOOL: "school: close the last occupied row of your active factory, or not",
    Phase.PATRON: "patron: sell one more good at your price, or not",
    Phase.SHIPPING: "ship your contract of the active good now, or let it escalate",
    Phase.STORAGE: "storage: your surplus does not all fit; choose what both warehouses keep",
    Phase.CHARISMA: "charisma: return it to name the start player, or keep it",
    Phase.BROKER: "broker: sell stored goods, buy or sell shares, or done",
    Phase.FOUNDATION_1: "found your first level-I factory and set its price",
    Phase.FOUNDATION_2: "found your second factory (another kind of goods)",
    Phase.START_SHARES: "sell shares at £10 for your start-up capital",
    Phase.SALE: "sell a stored good (or use extra shifts) at this call, or stop selling",
    Phase.RELEASE: "release ships (with their crews) and warehouse workers, or done",
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
        elif t.storing is not None:
            prompt = "storage: your production does not all fit; choose what both warehouses keep"
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
        "edition": s.options.edition,
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
        "special_markers_mat": {
            "open_rows": special.mat_level(s) if s.decade >= 1760 else 1,
            "rows": [
                {
                    "row": i + 1,
                    "markers": list(s.mat[i]),
                    "ships": [
                        {"ship": x, "capacity": C.ship(x).capacity, "crew": C.ship(x).crew}
                        for x in s.mat_ships[i]
                    ],
                }
                for i in range(4)
            ],
        },
        "development_tiles_on_display": list(s.display),
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
                    "small_warehouse": {GOODS[g]: p.small_stock[g] for g in range(4)}
                    if has(p, "SMALL_WAREHOUSE")
                    else None,
                },
                "grey_markers": list(p.grey),
                "development_tiles": [
                    {"tile": t, "assigned": next((GOODS[g] for a, g in p.assigned if a == t), None)}
                    for t in p.tiles
                ],
                "ships": [
                    {"ship": x, "capacity": C.ship(x).capacity, "crew": C.ship(x).crew} for x in p.ships
                ],
                "contracts": {GOODS[g]: p.contracts[g] for g in range(4) if p.contracts[g]},
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
            "storage_choice": None
            if t.storing is None
            else {"good": GOODS[t.storing[0]], "rows": t.storing[1], "produced": t.storing[2]},
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
            "surplus": [max(0, _surplus(sale, i)) for i in range(s.players_count)],
        },
        "scores": list(s.scores) if s.scores else None,
        "eliminated": list(s.eliminated),
    }


def workers_in_play(s: State) -> int:
    total = (C.jm_cells - s.jm_empty) + s.fired + s.boxed
    for p in s.players:
        total += harbour_workers(p)
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
    if s.phase != Phase.SETUP and not s.draws:
        copies = tile_copies(s)
        held = [t for p in s.players for t in p.tiles]
        for tile in set(held) | set(s.display):
            if held.count(tile) + s.display.count(tile) > copies.get(tile, 0):
                problems.append(f"tiles: more {tile} than printed")
        ships = sorted([*(x for r in s.mat_ships for x in r), *(x for p in s.players for x in p.ships)])
        expected = sorted(
            x.id for x in C.ships if s.players_count > 2 or x.capacity == C.two_player_ship_capacity
        )
        if ships != expected:
            problems.append("ships: each on the mat or at one player's pier")
        if not s.options.predetermined_setup:
            markers = sorted(
                [*(m for r in s.mat for m in r), *(m for p in s.players for m in p.grey), *s.box_markers]
            )
            pool = sorted(
                f"{shade}:{a}"
                for shade in ("LIGHT", "DARK")
                for a in GREY_ACTIONS
                for _ in range(C.mat_copies - C.mat_sets_removed[s.players_count])
            )
            if markers != pool:
                problems.append("grey markers: each on the mat, with one player, or in the box")
    for p in s.players:
        if p.shares + p.bank_shares != C.shares_per_company:
            problems.append(f"seat {p.seat}: shares held plus the bank's is 30")
        if p.cash < 0:
            problems.append(f"seat {p.seat}: cash never negative after a payment")
        if len(p.tiles) > C.tiles_max or len(set(p.tiles)) != len(p.tiles):
            problems.append(f"seat {p.seat}: at most four tiles, no two alike")
        if len(p.ships) > C.piers or len(set(p.grey)) != len(p.grey):
            problems.append(f"seat {p.seat}: two piers; one grey marker per action and shade")
        if sum(p.small_stock) > (C.small_warehouse if has(p, "SMALL_WAREHOUSE") else 0):
            problems.append(f"seat {p.seat}: the small warehouse holds five goods")
        for g in range(4):
            f = p.factories[g]
            if p.stock[g] > large_cap(p, g) or p.stock[g] < 0 or p.small_stock[g] < 0:
                problems.append(f"seat {p.seat}: stock within the warehouse's capacity")
            if p.contracts[g] not in (0, *stock_exchange.contract_track(s)):
                problems.append(f"seat {p.seat}: contract on a track space")
            if f is None:
                continue
            if appeal(g, f) < 0:
                problems.append(f"seat {p.seat}: {GOODS[g]} appeal at least 0")
            if not C.price_min <= f.price <= C.price_max - p.small_stock[g]:
                problems.append(f"seat {p.seat}: {GOODS[g]} price within £5-£25 and the small warehouse")
            for r, row in enumerate(f.rows):
                only, flex = C.row_slots[g][r]
                if row.machines > flex or row.workers + row.machines > only + flex:
                    problems.append(f"seat {p.seat}: {GOODS[g]} row {r + 1} within its slots")
            if f.marker_worker and s.decade != 1810:
                problems.append(f"seat {p.seat}: a worker on the factory marker only in 1810")
        if not C.share_min <= p.share_space <= C.share_max:
            problems.append(f"seat {p.seat}: share value on the track")
    if not 0 <= s.jm_empty <= C.jm_cells or s.fired < 0:
        problems.append("job market within its cells")
    return problems


def secrets(s: State, seat: int | None) -> set[str]:
    """Economy and event markers not yet revealed, and the advanced markers left in the box."""
    hidden = set(s.economy[s.economy_revealed :]) | set(s.events[s.events_revealed :])
    hidden.discard("")
    hidden.discard(C.event_end)  # always public: End of the Game lies on 1810
    return hidden


def _event_pool(options: WaterFrameOptions) -> tuple[str, ...]:
    return C.event_pool if options.edition == "2016" else C.events_pool_2014


def _first_display(options: WaterFrameOptions) -> tuple[str, ...]:
    """Charisma and one inventor always; the four patrons too with the patron variant (R-5)."""
    first = ["CHARISMA", "INVENTOR"]
    if options.patron_variant:
        first.extend(PATRONS)
    return tuple(sorted(first))


def _tile_pool(options: WaterFrameOptions, displayed: tuple[str, ...]) -> tuple[str, ...]:
    pool: list[str] = []
    for tile, copies in sorted(C.tile_copies[options.edition].items()):
        pool.extend([tile] * (copies - displayed.count(tile)))
    return tuple(pool)


def tile_copies(s: State) -> dict[str, int]:
    return C.tile_copies[s.options.edition]


def _predetermined_tile(s: State, out: Effects) -> State:
    return _sequential(s, reverse_order(s), lambda _s, _p: True, Phase.PAY_FACTORIES)


def box_tiles(s: State) -> list[str]:
    """Tiles neither on display nor owned: what the predetermined set-up hands out (A-47)."""
    left = dict(tile_copies(s))
    for tile in (*s.display, *(t for p in s.players for t in p.tiles)):
        left[tile] -= 1
    return sorted(t for t, k in left.items() if k > 0)


def _start_special(s: State, out: Effects) -> State:
    return replace(s, awaiting=(reverse_order(s)[s.cursor],))


def last_occupied_row(f: Factory) -> int | None:
    rows = [r for r in range(4) if f.rows[r].workers or f.rows[r].machines]
    return rows[-1] if rows else None


def _school(s: State, out: Effects) -> State:
    """D-30: each school owner may close the last occupied row of the active factory."""
    g = s.cycle

    def ready(st: State, seat: int) -> bool:
        p = st.players[seat]
        f = p.factories[g]
        return has(p, "SCHOOL") and f is not None and last_occupied_row(f) is not None

    s = _sequential(s, turn_order(s), ready, Phase.SALE)
    if s.phase == Phase.SALE:
        return _start_sale(s, out)
    return s


def _patron(s: State, out: Effects) -> State:
    """D-32: patron owners sell one more good after the regular sale."""
    g = s.cycle

    def ready(st: State, seat: int) -> bool:
        p = st.players[seat]
        return has(p, PATRONS[g]) and p.factories[g] is not None

    return _sequential(s, turn_order(s), ready, Phase.AFTER_SALE)


def _surplus(sale: Sale, seat: int) -> int:
    return (
        sale.produced[seat]
        + sale.extra[seat]
        - sale.sold_prod[seat]
        - sale.patron_from_surplus[seat]
        - sale.shipped_from_surplus[seat]
    )


def _patron_decision(s: State, seat: int, d: PatronSale, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    g = sale.good
    if d.source is not None:
        p = s.players[seat]
        if d.source == "surplus":
            if _surplus(sale, seat) <= 0:
                raise violation("no_surplus", "No unsold production is left for the patron.", "III.1")
            sale = replace(sale, patron_from_surplus=set_at(sale.patron_from_surplus, seat, 1))
        elif d.source == "large":
            if p.stock[g] == 0:
                raise violation("no_stock", "Your large warehouse holds none of this good.", "III.1")
            s = set_player(s, replace(p, stock=set_at(p.stock, g, p.stock[g] - 1)))  # type: ignore[arg-type]
        else:
            if p.small_stock[g] == 0:
                raise violation("no_stock", "Your small warehouse holds none of this good.", "III.1")
            s = set_player(s, replace(p, small_stock=set_at(p.small_stock, g, p.small_stock[g] - 1)))  # type: ignore[arg-type]
        sale = replace(sale, patron=set_at(sale.patron, seat, 1))
        out.append(fx.PatronSold(seat=seat, good=GOODS[g], source=d.source))
    return replace(s, sale=sale, cursor=s.cursor + 1, awaiting=())


def charisma_owner(s: State) -> int | None:
    return next((p.seat for p in s.players if has(p, "CHARISMA")), None)


def _shipping(s: State, out: Effects) -> State:
    """D-33 for each player with a contract of the active good, then escalation (III.4)."""
    g = s.cycle
    s = _sequential(s, turn_order(s), lambda st, seat: st.players[seat].contracts[g] > 0, Phase.STORAGE)
    if s.phase != Phase.STORAGE:
        return s
    track = stock_exchange.contract_track(s)
    for seat in turn_order(s):
        p = s.players[seat]
        c = p.contracts[g]
        if not c:
            continue
        if c < track[-1]:
            nxt = track[track.index(c) + 1]
            s = set_player(s, replace(p, contracts=set_at(p.contracts, g, nxt)))  # type: ignore[arg-type]
            out.append(fx.ContractEscalated(seat=seat, good=GOODS[g], space=nxt, penalty=0))
        else:
            out.append(fx.ContractEscalated(seat=seat, good=GOODS[g], space=c, penalty=2))
            s = move_share(s, seat, -2, "contract_penalty", out)
    return s


def _ship_sources(s: State, seat: int, n: int, order: tuple[int, ...]) -> tuple[int, int, int]:
    """(surplus, large, small) taken in ``order`` (0 surplus, 1 large, 2 small) up to ``n`` goods;
    the default order is (0, 1, 2)."""
    sale = s.sale
    assert sale is not None
    p = s.players[seat]
    available = (max(0, _surplus(sale, seat)), p.stock[sale.good], p.small_stock[sale.good])
    taken = [0, 0, 0]
    left = n
    for i in order:
        taken[i] = min(left, available[i])
        left -= taken[i]
    return taken[0], taken[1], taken[2]


_SOURCE_NAMES = ("this production's unsold surplus", "your large warehouse", "your small warehouse")


def _check_ship_sources(
    g: int, n: int, chosen: tuple[int, int, int], available: tuple[int, int, int]
) -> None:
    for name, want, have in zip(_SOURCE_NAMES, chosen, available, strict=True):
        if want > have:
            raise violation(
                "not_enough_in_source", f"{name.capitalize()} holds {have} {GOODS[g].lower()}.", "III.4"
            )
    if sum(chosen) != n:
        raise violation(
            "sources_do_not_add_up",
            f"The shipment is {n} {GOODS[g].lower()}; the sources give {sum(chosen)}.",
            "III.4",
        )


def _ship_decision(s: State, seat: int, d: ShipContract, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    g = sale.good
    p = s.players[seat]
    if not d.fulfil and d.sources() is not None:
        raise violation(
            "sources_without_shipment", "Goods sources are named only when the contract is shipped.", "III.4"
        )
    if d.fulfil:
        f = p.factories[g]
        if f is None:
            raise violation(
                "no_factory",
                "A contract pays the building cost of your factory of that good (A-25).",
                "III.4",
            )
        if d.agent and not has(p, "AGENT_IN_THE_COLONIES"):
            raise violation(
                "no_agent", "Only the agent in the colonies changes a contract by one good.", "III.4"
            )
        n = p.contracts[g] + d.agent
        capacities = [C.ship(x).capacity for x in p.ships]
        if sum(capacities) < n:
            raise violation(
                "ships_too_small",
                f"Your ships carry {sum(capacities)} goods; the contract needs {n}.",
                "III.4",
            )
        surplus = max(0, _surplus(sale, seat))
        if surplus + p.stock[g] + p.small_stock[g] < n:
            raise violation("not_enough_goods", f"The contract needs {n} {GOODS[g].lower()}.", "III.4")
        chosen = d.sources()
        if chosen is not None:
            _check_ship_sources(g, n, chosen, (surplus, p.stock[g], p.small_stock[g]))
        from_surplus, large, small = chosen or _ship_sources(s, seat, n, (0, 1, 2))
        p = replace(
            p,
            stock=set_at(p.stock, g, p.stock[g] - large),  # type: ignore[arg-type]
            small_stock=set_at(p.small_stock, g, p.small_stock[g] - small),  # type: ignore[arg-type]
            contracts=set_at(p.contracts, g, 0),  # type: ignore[arg-type]
        )
        s = set_player(s, p)
        sale = replace(sale, shipped_from_surplus=set_at(sale.shipped_from_surplus, seat, from_surplus))
        ships_used = 1 if max(capacities) >= n else 2  # a ship that carries nothing is not used
        income = n * base_quality(g, f)
        out.append(
            fx.ContractDelivered(seat=seat, good=GOODS[g], goods=n, income=income, ships_used=ships_used)
        )
        s = gain(s, seat, income, "contract", out)
        if has(s.players[seat], "OFFICE"):
            s = gain(s, seat, C.office_bonus, "office", out)
        s = move_share(s, seat, -ships_used, "ship", out)  # after the III.2 rise: first forward, then back
    return replace(s, sale=sale, cursor=s.cursor + 1, awaiting=())


def _storage(s: State, out: Effects) -> State:
    """III.5: unsold production goes to the warehouses, in turn order. Without a real conflict
    the engine stores it (large first, then small; the rest is lost); with one, the player
    chooses what to keep (D-34)."""
    sale = s.sale
    assert sale is not None
    g = sale.good
    order = turn_order(s)
    cursor = s.cursor
    while cursor < len(order):
        seat = order[cursor]
        surplus = _surplus(sale, seat)
        if surplus > 0:
            if storage.needs_choice(s.players[seat], g, surplus):
                return replace(s, cursor=cursor, awaiting=(seat,))
            s, lost = store(s, seat, g, surplus)
            out.append(fx.GoodsStored(seat=seat, good=GOODS[g], stored=surplus - lost, lost=lost))
        cursor += 1
    return replace(
        s, sale=None, goods_done=(*s.goods_done, g), phase=Phase.END_OF_CYCLE, cursor=0, awaiting=()
    )


def _store_decision(s: State, seat: int, d: StoreGoods, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    s = storage.choose(s, seat, sale.good, _surplus(sale, seat), d, out)
    return replace(s, cursor=s.cursor + 1, awaiting=())


def _next_cycle(s: State, out: Effects, start: int | None = None) -> State:
    start = (s.start_player + 1) % s.players_count if start is None else start  # the left neighbour
    out.append(vocabulary.StartPlayerChanged(seat=start, reason="next_cycle"))
    return replace(s, start_player=start, cycle=s.cycle + 1, phase=Phase.ECONOMY, awaiting=())


def _charisma(s: State, out: Effects) -> State:
    return replace(s, awaiting=(charisma_owner(s),))  # type: ignore[arg-type]


def _charisma_decision(s: State, seat: int, d: UseCharisma, out: Effects) -> State:
    if d.seat is not None:
        if d.seat >= s.players_count:
            raise violation("no_such_seat", f"There is no seat {d.seat}.", "5.IV")
        s = return_tile(s, seat, "CHARISMA", out)
        out.append(vocabulary.StartPlayerChanged(seat=d.seat, reason="charisma"))
        if s.cycle >= 0:
            return replace(s, start_player=d.seat, cycle=s.cycle + 1, phase=Phase.ECONOMY, awaiting=())
        return replace(s, start_player=d.seat, phase=Phase.OBSOLESCENCE, awaiting=())
    if s.cycle >= 0:
        return _next_cycle(s, out)
    return replace(s, phase=Phase.START_PLAYER, awaiting=())


def _broker(s: State, out: Effects) -> State:
    """D-41: broker owners trade in the event phase (after the event, A-33)."""
    s = _sequential(s, turn_order(s), lambda st, seat: has(st.players[seat], "BROKER"), Phase.START_PLAYER)
    if s.phase == Phase.START_PLAYER and charisma_owner(s) is not None:
        return replace(s, phase=Phase.CHARISMA)
    return s


def _trade_decision(s: State, seat: int, d: Decision, out: Effects, rule: str) -> State:
    """The final stock exchange (D-42) and the broker's event-phase trade (D-41)."""
    if isinstance(d, Done):
        return replace(s, cursor=s.cursor + 1, awaiting=())
    if isinstance(d, BuyShares):
        return stock_exchange.buy_shares(s, seat, d.count, out, rule)
    if isinstance(d, SellShares):
        return stock_exchange.sell_shares(s, seat, d.count, out, rule)
    if isinstance(d, RepayLoans):
        return stock_exchange.repay_loans(s, seat, d.count, out, rule)
    if isinstance(d, SellStoredGoods):
        return stock_exchange.sell_stored(s, seat, d, out, rule)
    raise AssertionError  # pragma: no cover


def _start_special_decision(s: State, seat: int, d: Decision, out: Effects) -> State:
    if not isinstance(d, SkipSpecialMarker):
        s = special.take(s, seat, d, out, start=True)
    return replace(s, phase=Phase.START_SHARES, cursor=s.cursor + 1, awaiting=())


def _predetermined_tile_decision(s: State, seat: int, d: Decision, out: Effects) -> State:
    if isinstance(d, TakeTile):
        if d.tile not in box_tiles(s):
            raise violation(
                "tile_not_in_box", "The predetermined tile is one not on the display.", "4.1 (A-47)"
            )
        s = special.take_tile(s, seat, d, out, from_box=True)
    return replace(s, cursor=s.cursor + 1, awaiting=())


def _special_options(s: State, seat: int, *, start: bool) -> list[Decision]:
    """Every legal special marker now (tiles, grey markers, ships, broker, re-assignment)."""
    p = s.players[seat]
    out: list[Decision] = []
    others = list(p.tiles)
    for tile in sorted(set(s.display)):
        if tile in p.tiles:
            continue
        backs: list[str | None] = [None] if len(p.tiles) < C.tiles_max else list(others)
        goods: list[str | None] = [None]
        if tile in special.ASSIGNED_TILES:  # foreman and workshop name the factory they serve
            goods = [GOODS[g] for g in range(4) if p.factories[g] is not None]
        for back in backs:
            for good in goods:
                out.append(TakeTile(tile=tile, give_back=back, assign=good))  # type: ignore[arg-type]
    level = 1 if start else special.mat_level(s)
    inventor = has(p, "INVENTOR") and not start
    for row in range(1, 5):
        uses: list[str | None] = (
            [None] if row <= level else (["return", "pay"] if inventor and row == level + 1 else [])
        )
        for use in uses:
            for marker in sorted(set(s.mat[row - 1])):
                if marker not in p.grey and not (start and not marker.startswith("LIGHT:")):
                    out.append(TakeGreyMarker(marker=marker, row=row, inventor=use))  # type: ignore[arg-type]
            for ship in sorted(set(s.mat_ships[row - 1])):
                backs2: list[str | None] = (
                    [None]
                    if len(p.ships) < C.piers
                    else [x for x in p.ships if C.ship(x).capacity < C.ship(ship).capacity]
                )
                for back in backs2:
                    d = TakeShip(ship=ship, give_back=back, inventor=use)  # type: ignore[arg-type]
                    if _valid(s, seat, d):
                        out.append(d)
    if not start:
        if has(p, "BROKER") and not p.loans:
            for n in (1, 2):
                price = special.half_price(C.buy_price(p.share_space))
                if p.cash >= n * price and p.bank_shares >= n:
                    out.append(UseBroker(count=n))
        for tile in special.ASSIGNED_TILES:
            if has(p, tile):
                for g in range(4):
                    if p.factories[g] is not None and special_assigned(p, tile) != g:
                        out.append(ReassignTile(tile=tile, good=GOODS[g]))  # type: ignore[arg-type]
    return out


def special_assigned(p: Player, tile: str) -> int | None:
    return next((g for t, g in p.assigned if t == tile), None)


def _marker_options(s: State, seat: int) -> list[Decision]:
    p = s.players[seat]
    out: list[Decision] = []
    markers: list[tuple[str, str, str | None]] = [("OWN", a, None) for a in actions.OWN_ACTIONS]
    markers += [(m.split(":")[0], m.split(":")[1], None) for m in p.grey]
    markers += [("OWN", "SHIP", x) for x in p.ships]
    acc = [0] if not has(p, "ACCOUNTANT") else [-2, 0, 2]
    for shade, action, ship in markers:
        mid = f"SHIP:{ship}" if ship else f"{shade}:{action}"
        capacity = C.ship(ship).capacity if ship else 0
        if mid in p.admin:
            cost = C.admin_spaces[p.admin.index(mid)]
            for a in acc:
                if max(0, cost + a) >= capacity:
                    out.append(ReuseMarker(action=action, shade=shade, ship=ship, accountant=a))  # type: ignore[arg-type]
            continue
        for i, cost in enumerate(C.admin_spaces):
            if p.admin[i] is not None or (s.bureaucracy and i == 0 and not has(p, "ADMINISTRATOR")):
                continue
            for a in acc:
                if max(0, cost + a) >= capacity and (a == 0 or cost + a > 0):
                    out.append(PlaceMarker(action=action, space=cost, shade=shade, ship=ship, accountant=a))  # type: ignore[arg-type]
    return out


_HANDLERS.update(
    {
        Phase.SETUP: _setup_done,
        Phase.PREDETERMINED_TILE: _predetermined_tile,
        Phase.FOUNDATION_1: _foundation_1,
        Phase.FOUNDATION_2: _foundation_2,
        Phase.START_SHARES: _start_shares,
        Phase.START_SPECIAL: _start_special,
        Phase.PAY_FACTORIES: _pay_factories,
        Phase.ECONOMY: _economy,
        Phase.ACTION: _action,
        Phase.SCHOOL: _school,
        Phase.SALE: _sale,
        Phase.PATRON: _patron,
        Phase.AFTER_SALE: _after_sale,
        Phase.SHIPPING: _shipping,
        Phase.STORAGE: _storage,
        Phase.END_OF_CYCLE: _end_of_cycle,
        Phase.CHARISMA: _charisma,
        Phase.RETURN_MARKERS: _return_markers,
        Phase.HARBOUR_WAGES: _harbour_wages,
        Phase.RELEASE: _release,
        Phase.EVENT: _event,
        Phase.BROKER: _broker,
        Phase.START_PLAYER: _start_player,
        Phase.OBSOLESCENCE: _obsolescence,
        Phase.FINAL_STOCK_EXCHANGE: _final_stock_exchange,
        Phase.SCORING: _scoring,
    }
)


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
    describe = staticmethod(words.describe)


ENGINE = WaterFrameEngine()

"""The production phase of the active good (spec §3.5, §5.5-§5.8; rulebook III): the school
closes a row, production is sold against demand in order of appeal with the importer (and the
players' calls for stored goods and extra shifts), patrons buy one more, the share values rise
(III.2), wages and machines are paid and distribution decays (III.3), contracts are shipped or
escalate (III.4), and what is left goes to the warehouses (III.5)."""

from __future__ import annotations

from itertools import permutations

from ledger.engine import Decision
from ledger.errors import RuleViolationError
from ledger.games import vocabulary
from ledger.games.shared import replace, set_at
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame import stock_exchange, storage
from ledger.games.water_frame.components import GOODS, PATRONS
from ledger.games.water_frame.decisions import (
    CloseLastRow,
    PatronSale,
    SellFromWarehouse,
    ShipContract,
    StopSelling,
    StoreGoods,
    UseExtraShifts,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    Valid,
    appeal,
    ask_in_turn,
    base_quality,
    charisma_owner,
    demand,
    gain,
    has,
    last_occupied_row,
    move_share,
    production_cost,
    quality,
    return_tile,
    row_complete,
    set_factory,
    set_player,
    settle,
    store,
    turn_order,
    violation,
    wage,
)
from ledger.games.water_frame.state import Factory, Phase, Sale, State

IMPORTER = -1


# --- III.1 the school ---------------------------------------------------------------------


def school(s: State, out: Effects) -> State:
    """D-30: each school owner may close the last occupied row of the active factory, asked
    once before the sale; with ``school_timing="during_sale"`` during the sale instead."""
    if s.options.school_during_sale:
        return start_sale(s, out)
    g = s.cycle

    def ready(st: State, seat: int) -> bool:
        p = st.players[seat]
        f = p.factories[g]
        return has(p, "SCHOOL") and f is not None and last_occupied_row(f) is not None

    s = ask_in_turn(s, turn_order(s), ready, Phase.SALE)
    if s.phase == Phase.SALE:
        return start_sale(s, out)
    return s


def close_last_row(s: State, seat: int, d: CloseLastRow, out: Effects) -> State:
    """D-30 asked in turn, before the sale or (during_sale) after it."""
    if d.close:
        s = close_row(s, seat, out)
    return replace(s, cursor=s.cursor + 1, awaiting=())


def close_row(s: State, seat: int, out: Effects) -> State:
    """The last occupied row produces nothing and costs nothing (III.3); closed once the sale
    has started, its goods leave this production's count (none of them was sold)."""
    sale = s.sale
    assert sale is not None
    f = s.players[seat].factories[sale.good]
    assert f is not None
    row = last_occupied_row(f)
    assert row is not None
    produced = sale.produced
    if s.phase != Phase.SCHOOL:
        produced = set_at(produced, seat, produced[seat] - row_goods(sale.good, f, row))
    s = replace(s, sale=replace(sale, closed_row=set_at(sale.closed_row, seat, row), produced=produced))
    out.append(fx.RowClosedBySchool(seat=seat, good=GOODS[sale.good], row=row + 1))
    return s


def school_options(s: State, seat: int) -> tuple[Decision, ...]:
    return (CloseLastRow(close=True), CloseLastRow(close=False))


def row_goods(g: int, f: Factory, row: int) -> int:
    """What one production row makes: its level's output when complete, else nothing."""
    return C.row_output[f.level - 1][row] if row_complete(g, f, row) else 0


def closable_row(s: State, seat: int, sale: Sale | None = None) -> int | None:
    """school_timing="during_sale" (R14/D14 III.1, A-13): the row the school's owner may still
    close: his last occupied row, "as long as he has not sold any goods produced in this
    production row". A row's goods are the last of his production sold, so none of them is
    sold while he has sold no more than his other rows make. ``sale``: the sale as it stands
    (default: the state's)."""
    sale = sale or s.sale
    p = s.players[seat]
    if sale is None or not s.options.school_during_sale or not has(p, "SCHOOL"):
        return None
    f = p.factories[sale.good]
    row = None if f is None or sale.closed_row[seat] != -1 else last_occupied_row(f)
    if f is None or row is None or sale.sold_prod[seat] > sale.produced[seat] - row_goods(sale.good, f, row):
        return None
    return row


def school_question(s: State, seat: int, sale: Sale | None = None) -> bool:
    """during_sale: the owner is asked at the call where the next good he sells would be the
    first of that row: before it, closing changes nothing in the sale; after it, it is too late."""
    sale = sale or s.sale
    row = closable_row(s, seat, sale) if s.phase == Phase.SALE else None
    if sale is None or row is None:
        return False
    f = s.players[seat].factories[sale.good]
    assert f is not None
    return sale.sold_prod[seat] == sale.produced[seat] - row_goods(sale.good, f, row) < sale.produced[seat]


def school_after_sale(s: State, out: Effects) -> State:
    """during_sale: at the end of the sale, an owner none of whose last row's goods was sold may
    still close it (they would only go to the warehouses, and the row costs its wages)."""
    return ask_in_turn(s, turn_order(s), lambda st, seat: closable_row(st, seat) is not None, Phase.PATRON)


# --- III.1 production and sale ------------------------------------------------------------


def start_sale(s: State, out: Effects) -> State:
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
        produced.append(sum(row_goods(g, f, r) for r in range(4) if r != sale.closed_row[seat]))
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


def sale_phase(s: State, out: Effects) -> State:
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
            and all(sold_out(s, sale, seat) for seat in sellers)
        ):
            break  # R16-literal reading
        groups = callees(s, sale)
        if sale.group >= len(groups):
            sale = replace(sale, level=sale.level - 1, group=0, member=0, takers=())
            continue
        group = groups[sale.group]
        while sale.member < len(group):
            c = group[sale.member]
            wants = will_take(s, sale, c)
            if wants is None:
                return replace(s, sale=sale, awaiting=(c,))
            if wants:
                sale = replace(sale, takers=(*sale.takers, c))
            sale = replace(sale, member=sale.member + 1)
        for c in sale.takers:
            s, sale = give(s, sale, c)
        tokens = sale.tokens - len(sale.takers) if len(sale.takers) <= sale.tokens else 0
        sale = replace(sale, tokens=tokens, group=sale.group + 1, member=0, takers=())
    after = Phase.SCHOOL_AFTER_SALE if s.options.school_during_sale else Phase.PATRON
    return replace(s, sale=sale, phase=after, cursor=0, awaiting=())


def callees(s: State, sale: Sale) -> list[tuple[int, ...]]:
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


def sold_out(s: State, sale: Sale, seat: int) -> bool:
    p = s.players[seat]
    g = sale.good
    can_extra = has(p, "EXTRA_SHIFTS") and not sale.extra_window[seat]
    return sale.stopped[seat] or (
        sale.sold_prod[seat] >= sale.produced[seat] + sale.extra[seat]
        and p.stock[g] + p.small_stock[g] == 0
        and not can_extra
    )


def will_take(s: State, sale: Sale, c: int) -> bool | None:
    """True/False, or None when the player must choose (D-31)."""
    if c == IMPORTER:
        return True
    g = sale.good
    p = s.players[c]
    a = appeal(g, p.factories[g])
    if sale.stopped[c] or sale.sold_prod[c] + sale.sold_stock[c] >= a:
        return False
    if sale.sold_prod[c] < sale.produced[c] + sale.extra[c]:
        if school_question(s, c, sale):
            return None  # during_sale: the school's owner is asked first (D-30)
        return True  # current production must be sold while demand lasts
    can_extra = has(p, "EXTRA_SHIFTS") and not sale.extra_window[c]
    if not can_extra and p.stock[g] + p.small_stock[g] == 0:
        return False  # skipped: not a voluntary stop
    return None


def give(s: State, sale: Sale, c: int) -> tuple[State, Sale]:
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


def sale_call(s: State, seat: int, d: Decision, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    g = sale.good
    p = s.players[seat]
    window = set_at(sale.extra_window, seat, True)
    asked = school_question(s, seat)
    if asked and not isinstance(d, CloseLastRow):
        raise violation(
            "school_question",
            "Your next good sold comes from your last occupied row: first close that row, or not.",
            "III.1",
        )
    if isinstance(d, CloseLastRow):
        if d.close and closable_row(s, seat) is not None:  # at the question, or at any call of his
            return replace(close_row(s, seat, out), awaiting=())
        if not asked:
            raise school_refusal(s, seat)
        return replace(
            s, sale=replace(sale, takers=(*sale.takers, seat), member=sale.member + 1), awaiting=()
        )
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


def school_refusal(s: State, seat: int) -> RuleViolationError:
    """Why the school cannot close (or be declined) at this call of the sale."""
    if not has(s.players[seat], "SCHOOL"):
        return violation("no_school", "Only the school's owner closes a row.", "III.1")
    if not s.options.school_during_sale:
        return violation("school_before_sale", "The school closes a row before the sale.", "III.1")
    if closable_row(s, seat) is None:
        return violation(
            "school_too_late",
            "A good produced in your last occupied row has been sold (or the row is closed): "
            "the school can no longer close it.",
            "III.1",
        )
    return violation(
        "school_not_asked", "Keeping every row is said only when the school's question is asked.", "III.1"
    )


def sale_options(s: State, seat: int) -> tuple[Decision, ...]:
    sale = s.sale
    assert sale is not None
    if school_question(s, seat):
        return school_options(s, seat)
    close: tuple[Decision, ...] = (CloseLastRow(close=True),) if closable_row(s, seat) is not None else ()
    g = sale.good
    p = s.players[seat]
    opts: list[Decision] = []
    if has(p, "EXTRA_SHIFTS") and not sale.extra_window[seat]:
        opts.append(UseExtraShifts())
    if p.stock[g]:
        opts.append(SellFromWarehouse(warehouse="large"))
    if p.small_stock[g]:
        opts.append(SellFromWarehouse(warehouse="small"))
    return (*opts, *close, StopSelling())


# --- III.1 patrons ------------------------------------------------------------------------


def patron(s: State, out: Effects) -> State:
    """D-32: patron owners sell one more good after the regular sale."""
    g = s.cycle

    def ready(st: State, seat: int) -> bool:
        p = st.players[seat]
        return has(p, PATRONS[g]) and p.factories[g] is not None

    return ask_in_turn(s, turn_order(s), ready, Phase.AFTER_SALE)


def patron_sale(s: State, seat: int, d: PatronSale, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    g = sale.good
    if d.source is not None:
        p = s.players[seat]
        if d.source == "surplus":
            if surplus_of(sale, seat) <= 0:
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


def patron_options(s: State, seat: int) -> tuple[Decision, ...]:
    sale = s.sale
    assert sale is not None
    g = sale.good
    p = s.players[seat]
    sources = [
        x
        for x, ok in (
            ("surplus", surplus_of(sale, seat) > 0),
            ("large", p.stock[g] > 0),
            ("small", p.small_stock[g] > 0),
        )
        if ok
    ]
    return (*(PatronSale(source=x) for x in sources), PatronSale(source=None))  # type: ignore[arg-type]


def surplus_of(sale: Sale, seat: int) -> int:
    return (
        sale.produced[seat]
        + sale.extra[seat]
        - sale.sold_prod[seat]
        - sale.patron_from_surplus[seat]
        - sale.shipped_from_surplus[seat]
    )


# --- III.2 share value increase, III.3 wages, machines and distribution decay -------------


def after_sale(s: State, out: Effects) -> State:
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
    w = bonus_winner(s, appeals, s.importers[g])
    if w is not None and sold[w] >= 1:
        steps[w] += 1
    w = bonus_winner(s, dict(enumerate(sold)), sale.importer_sold)
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


def bonus_winner(s: State, score: dict[int, int], importer_value: int) -> int | None:
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


# --- III.4 shipment of the active good ----------------------------------------------------


def shipping(s: State, out: Effects) -> State:
    """D-33 for each player with a contract of the active good, then escalation (III.4)."""
    g = s.cycle
    s = ask_in_turn(s, turn_order(s), lambda st, seat: st.players[seat].contracts[g] > 0, Phase.STORAGE)
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


def shipping_options(s: State, seat: int, valid: Valid) -> tuple[Decision, ...]:
    sale = s.sale
    assert sale is not None
    p = s.players[seat]
    opts: list[Decision] = [ShipContract(fulfil=False)]
    for a in [0, -1, 1] if has(p, "AGENT_IN_THE_COLONIES") else [0]:
        d = ShipContract(fulfil=True, agent=a)
        if valid(s, seat, d):
            opts.append(d)
            n = p.contracts[sale.good] + a
            default = ship_sources(s, seat, n, (0, 1, 2))
            for order in permutations((0, 1, 2)):  # the other orders of taking the goods
                x, y, z = ship_sources(s, seat, n, order)
                alt = ShipContract(fulfil=True, agent=a, from_surplus=x, from_large=y, from_small=z)
                if (x, y, z) != default and alt not in opts:
                    opts.append(alt)
    return tuple(opts)


def ship_contract(s: State, seat: int, d: ShipContract, out: Effects) -> State:
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
        surplus = max(0, surplus_of(sale, seat))
        if surplus + p.stock[g] + p.small_stock[g] < n:
            raise violation("not_enough_goods", f"The contract needs {n} {GOODS[g].lower()}.", "III.4")
        chosen = d.sources()
        if chosen is not None:
            check_ship_sources(g, n, chosen, (surplus, p.stock[g], p.small_stock[g]))
        from_surplus, large, small = chosen or ship_sources(s, seat, n, (0, 1, 2))
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


def ship_sources(s: State, seat: int, n: int, order: tuple[int, ...]) -> tuple[int, int, int]:
    """(surplus, large, small) taken in ``order`` (0 surplus, 1 large, 2 small) up to ``n`` goods;
    the default order is (0, 1, 2)."""
    sale = s.sale
    assert sale is not None
    p = s.players[seat]
    available = (max(0, surplus_of(sale, seat)), p.stock[sale.good], p.small_stock[sale.good])
    taken = [0, 0, 0]
    left = n
    for i in order:
        taken[i] = min(left, available[i])
        left -= taken[i]
    return taken[0], taken[1], taken[2]


_SOURCE_NAMES = ("this production's unsold surplus", "your large warehouse", "your small warehouse")


def check_ship_sources(g: int, n: int, chosen: tuple[int, int, int], available: tuple[int, int, int]) -> None:
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


# --- III.5 storage ------------------------------------------------------------------------


def storage_phase(s: State, out: Effects) -> State:
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
        surplus = surplus_of(sale, seat)
        if surplus > 0:
            if storage.needs_choice(s.players[seat], g, surplus):
                return replace(s, cursor=cursor, awaiting=(seat,))
            s, lost = store(s, seat, g, surplus)
            out.append(fx.GoodsStored(seat=seat, good=GOODS[g], stored=surplus - lost, lost=lost))
        cursor += 1
    return replace(
        s, sale=None, goods_done=(*s.goods_done, g), phase=Phase.END_OF_CYCLE, cursor=0, awaiting=()
    )


def storage_options(s: State, seat: int) -> tuple[Decision, ...]:
    sale = s.sale
    assert sale is not None
    return tuple(storage.options(s.players[seat], sale.good, surplus_of(sale, seat)))


def store_goods(s: State, seat: int, d: StoreGoods, out: Effects) -> State:
    sale = s.sale
    assert sale is not None
    s = storage.choose(s, seat, sale.good, surplus_of(sale, seat), d, out)
    return replace(s, cursor=s.cursor + 1, awaiting=())

"""Water Frame's money, shares, workers and factories: the small rules every phase uses.

Spec references: §2.4 derived values, §5.1 job market, §5.2 payments, §5.7 wages.
"""

from __future__ import annotations

from collections.abc import Callable

from ledger.engine import Decision
from ledger.errors import RuleViolationError
from ledger.games import vocabulary
from ledger.games.shared import ceil_div, clockwise_from, purse_gain, replace, set_at, set_player
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS, Components, load
from ledger.games.water_frame.state import Factory, Phase, Player, State, Turn

C: Components = load()
Effects = list[fx.Effect]
Valid = Callable[[State, int, Decision], bool]
"""The engine's judge, for the options only a trial tells apart: would this decision be accepted now."""


def violation(code: str, message: str, rule: str) -> RuleViolationError:
    return RuleViolationError(f"rule/water-frame/{code}", message, rule)


# --- players and order --------------------------------------------------------------------


def turn_order(s: State) -> tuple[int, ...]:
    return clockwise_from(s.start_player, s.players_count)


def reverse_order(s: State) -> tuple[int, ...]:
    return tuple(reversed(turn_order(s)))


def level_now(s: State) -> int:
    return C.level_of_decade[s.decade]


def ask_in_turn(s: State, order: tuple[int, ...], ready: Callable[[State, int], bool], nxt: Phase) -> State:
    """Ask the players of ``order`` one at a time from ``cursor``; skip those not concerned."""
    cursor = s.cursor
    while cursor < len(order):
        seat = order[cursor]
        if ready(s, seat):
            return replace(s, cursor=cursor, awaiting=(seat,))
        cursor += 1
    return replace(s, phase=nxt, cursor=0, awaiting=())


def charisma_owner(s: State) -> int | None:
    return next((p.seat for p in s.players if has(p, "CHARISMA")), None)


def good_index(name: str) -> int:
    return GOODS.index(name)


# --- factories ----------------------------------------------------------------------------


def base_quality(good: int, f: Factory) -> int:
    return C.base_quality(good, f.level)


def quality(good: int, f: Factory) -> int:
    return base_quality(good, f) + f.quality


def appeal(good: int, f: Factory | None) -> int:
    """Quality plus distribution minus price (0 without a factory)."""
    if f is None:
        return 0
    return quality(good, f) + f.distribution - f.price


def row_complete(good: int, f: Factory, r: int) -> bool:
    row = f.rows[r]
    return row.workers + row.machines == C.slots(good, r)


def output(good: int, f: Factory) -> int:
    """Goods produced by the complete production rows (§7.4)."""
    levels = C.row_output[f.level - 1]
    return sum(levels[r] for r in range(4) if row_complete(good, f, r))


def factory_workers(f: Factory) -> int:
    return sum(r.workers for r in f.rows) + f.obsolete_workers


def set_factory(s: State, seat: int, good: int, f: Factory | None) -> State:
    p = s.players[seat]
    return set_player(s, replace(p, factories=set_at(p.factories, good, f)))  # type: ignore[arg-type]


def factory_of(s: State, seat: int, good: int, rule: str) -> Factory:
    f = s.players[seat].factories[good]
    if f is None:
        raise violation("no_factory", f"You have no {GOODS[good].lower()} factory.", rule)
    return f


def price_ok(good: int, f: Factory, price: int, small_stock: int = 0) -> bool:
    """£5-£25, appeal at least 0, and goods on the small warehouse occupy the top of the scale."""
    return C.price_min <= price <= C.price_max - small_stock and price <= quality(good, f) + f.distribution


def check_price(good: int, f: Factory, price: int, rule: str, small_stock: int = 0) -> None:
    """Refuses a price ``price_ok`` does not allow, naming the limits."""
    if not price_ok(good, f, price, small_stock):
        raise violation(
            "bad_price",
            f"The price must be £{C.price_min}-£{C.price_max - small_stock} and at most "
            f"£{quality(good, f) + f.distribution}, the factory's quality plus distribution (appeal at least 0).",
            rule,
        )


def prices(g: int, f: Factory, *, every: bool) -> list[int]:
    top = min(C.price_max, quality(g, f) + f.distribution)
    if every:
        return list(range(C.price_min, top + 1))
    return sorted({p for p in (top, top - 2, top - 4, C.price_min) if C.price_min <= p <= top})


def last_occupied_row(f: Factory) -> int | None:
    rows = [r for r in range(4) if f.rows[r].workers or f.rows[r].machines]
    return rows[-1] if rows else None


# --- development tiles --------------------------------------------------------------------


def has(p: Player, tile: str) -> bool:
    return tile in p.tiles


def assigned(p: Player, tile: str) -> int | None:
    return next((g for t, g in p.assigned if t == tile), None)


def return_tile(s: State, seat: int, tile: str, out: Effects) -> State:
    """A tile goes back to the display and its effects end at once (a small warehouse's goods
    move to the large warehouse as far as there is room)."""
    p = s.players[seat]
    tiles = list(p.tiles)
    tiles.remove(tile)
    p = replace(p, tiles=tuple(tiles), assigned=tuple(a for a in p.assigned if a[0] != tile))
    lost = 0
    if tile == "SMALL_WAREHOUSE":
        stock = list(p.stock)
        for g in range(4):
            room = large_cap(p, g) - stock[g]
            moved = min(room, p.small_stock[g])
            stock[g] += moved
            lost += p.small_stock[g] - moved
        p = replace(p, stock=tuple(stock), small_stock=(0, 0, 0, 0))  # type: ignore[arg-type]
    out.append(fx.TileReturned(seat=seat, tile=tile, goods_lost=lost))
    s = set_player(s, p)
    return replace(s, display=tuple(sorted((*s.display, tile))))


def crew(p: Player) -> int:
    return sum(C.ship(x).crew for x in p.ships)


def harbour_workers(p: Player) -> int:
    """Workers paid in the event phase: ship crews and warehouse workers."""
    return warehouse_workers(p) + crew(p)


def small_room(p: Player) -> int:
    return (C.small_warehouse - sum(p.small_stock)) if has(p, "SMALL_WAREHOUSE") else 0


def scale_cap(p: Player, good: int) -> int:
    """The most goods of ``good`` the small warehouse may hold: they occupy the top of the price
    scale, so ``price + small_stock <= 25`` while the factory stands."""
    f = p.factories[good]
    return C.price_max - f.price if f is not None else C.price_max


def auto_fill(p: Player, good: int, n: int) -> tuple[int, int]:
    """The automatic storage of ``n`` new goods: how many go to the large warehouse and how many
    to the small one (large first, stored goods left where they are); the rest is lost."""
    large = min(n, max(0, large_cap(p, good) - p.stock[good]))
    small = min(n - large, small_room(p), max(0, scale_cap(p, good) - p.small_stock[good]))
    return large, small


def store(s: State, seat: int, good: int, n: int) -> tuple[State, int]:
    """Put ``n`` goods in the warehouses: the large one first, then the small one; returns how many
    did not fit (lost). The small warehouse also respects the price scale."""
    p = s.players[seat]
    large, small = auto_fill(p, good, n)
    p = replace(
        p,
        stock=set_at(p.stock, good, p.stock[good] + large),  # type: ignore[arg-type]
        small_stock=set_at(p.small_stock, good, p.small_stock[good] + small),  # type: ignore[arg-type]
    )
    return set_player(s, p), n - large - small


# --- warehouse ----------------------------------------------------------------------------


def large_cap(p: Player, good: int) -> int:
    """5 if the good's column is open, else the number of open rows (§7.11)."""
    return C.column_capacity if p.wh_cols[good] else sum(p.wh_rows)


def warehouse_workers(p: Player) -> int:
    return sum(p.wh_cols) + sum(p.wh_rows)


def edges(p: Player) -> list[tuple[str, bool]]:
    return [(f"col:{g}", p.wh_cols[i]) for i, g in enumerate(GOODS)] + [
        (f"row:{r + 1}", p.wh_rows[r]) for r in range(C.warehouse_rows)
    ]


def set_edge(p: Player, edge: str, value: bool) -> Player:
    kind, _, name = edge.partition(":")
    if kind == "col":
        return replace(p, wh_cols=set_at(p.wh_cols, GOODS.index(name), value))  # type: ignore[arg-type]
    return replace(p, wh_rows=set_at(p.wh_rows, int(name) - 1, value))


def edge_occupied(p: Player, edge: str) -> bool:
    kind, _, name = edge.partition(":")
    return p.wh_cols[GOODS.index(name)] if kind == "col" else p.wh_rows[int(name) - 1]


def trim_stock(s: State, seat: int, out: Effects) -> tuple[State, int]:
    """Goods above the warehouse's capacity are lost, per good."""
    p = s.players[seat]
    lost = 0
    stock = list(p.stock)
    for g in range(4):
        cap = large_cap(p, g)
        if stock[g] > cap:
            lost += stock[g] - cap
            stock[g] = cap
    if lost:
        s = set_player(s, replace(p, stock=tuple(stock)))  # type: ignore[arg-type]
    return s, lost


# --- the job market (§5.1) ----------------------------------------------------------------


def available_for_hire(s: State) -> int:
    return (C.jm_cells - s.jm_empty) + s.fired


def take_for_hire(s: State, n: int) -> tuple[State, int]:
    """Job market in reading order; the fired space only once the job market is empty."""
    from_jm = min(n, C.jm_cells - s.jm_empty)
    from_fired = min(n - from_jm, s.fired)
    return replace(s, jm_empty=s.jm_empty + from_jm, fired=s.fired - from_fired), from_jm + from_fired


def fire(s: State, n: int) -> State:
    return replace(s, fired=s.fired + n)


def wage(s: State) -> int:
    return C.wage_for(s.jm_empty)


def demand(s: State, good: int) -> int:
    return C.demand_for(s.jm_empty, good)


# --- money, shares, loans (§5.2) ----------------------------------------------------------


gain: Callable[[State, int, int, str, Effects], State] = purse_gain("cash")


def move_share(s: State, seat: int, delta: int, cause: str, out: Effects) -> State:
    p = s.players[seat]
    space = max(C.share_min, min(C.share_max, p.share_space + delta))
    if space == p.share_space:
        return s
    out.append(vocabulary.share_moved(seat, p.share_space, space, cause, C.share_value))
    return set_player(s, replace(p, share_space=space))


def change_shares(s: State, seat: int, delta: int, price: int, reason: str, out: Effects) -> State:
    p = s.players[seat]
    p = replace(p, shares=p.shares + delta, bank_shares=p.bank_shares - delta)
    out.append(vocabulary.SharesChanged(seat=seat, delta=delta, held=p.shares, price=price, reason=reason))
    return set_player(s, p)


def change_loans(s: State, seat: int, delta: int, out: Effects) -> State:
    p = s.players[seat]
    p = replace(p, loans=p.loans + delta)
    out.append(vocabulary.LoansChanged(seat=seat, delta=delta, loans=p.loans))
    return set_player(s, p)


def leading_digit(s: State, space: int) -> int:
    """Spaces lost per emergency-sold share: the first digit of the space (A-11)."""
    if s.options.emergency_digit_mode == "tens":
        return space // 10
    return int(str(space)[0])


def settle(s: State, seat: int, amount: int, reason: str, out: Effects) -> State:
    """Pay ``amount``; a shortfall is met by an emergency share sale, then by loans ([R16 §7.0])."""
    if amount <= 0:
        return s
    p = s.players[seat]
    if p.cash < amount and p.shares > 0:
        price = C.share_value(p.share_space)
        n = min(p.shares, ceil_div(amount - p.cash, price))  # never more shares than needed
        drop = n * leading_digit(s, p.share_space)  # computed before moving
        s = change_shares(s, seat, -n, price, "emergency_sale", out)
        s = gain(s, seat, n * price, "emergency_sale", out)
        s = move_share(s, seat, -drop, "emergency_sale", out)
        p = s.players[seat]
    if p.cash < amount:
        k = ceil_div(amount - p.cash, C.loan)
        s = change_loans(s, seat, k, out)
        s = gain(s, seat, k * C.loan, "loan", out)
        s = move_share(s, seat, -k, "loan", out)
    return gain(s, seat, -amount, reason, out)


def portfolio(p: Player) -> int:
    return p.shares * C.share_value(p.share_space)


def production_cost(
    s: State, p: Player, good: int, f: Factory, rows: tuple[int, ...] = (0, 1, 2, 3), obsolete: bool = True
) -> tuple[int, int, int]:
    """Wages of the workers on ``rows`` (and the obsolete ones), £1 per machine, with the
    foreman (up to 4 workers £2 less, at least £1) and the workshop (machines a flat £1)
    of that factory ([R16 III.3]). Returns (workers, machines, amount)."""
    w = wage(s)
    workers = sum(f.rows[r].workers for r in rows) + (f.obsolete_workers if obsolete else 0)
    machines = sum(f.rows[r].machines for r in rows)
    if assigned(p, "FOREMAN") == good:
        k = min(4, workers)
        worker_cost = k * max(w - 2, 1) + (workers - k) * w
    else:
        worker_cost = workers * w
    if assigned(p, "WORKSHOP") == good:
        machine_cost = 1 if machines else 0
    else:
        machine_cost = machines * C.machine_cost
    return workers, machines, worker_cost + machine_cost


# --- the action phase's turn --------------------------------------------------------------


def turn_of(s: State) -> Turn:
    assert s.turn is not None
    return s.turn


def add_once(t: tuple[int, ...], x: int) -> tuple[int, ...]:
    return t if x in t else (*t, x)

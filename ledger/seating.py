"""A season round's seating: a pure, deterministic procedure anyone can re-run.

Given the players in ranking order (the standings, then the lot), how often each pair has met,
and how often each player has held each start position, ``seat_round`` splits the players into
tables and orders each table's players for their start positions:

1. **Table sizes** (``table_sizes``): ``t = ceil(n / high)`` tables; ``n mod t`` of them (the
   first ones) take ``n // t + 1`` players, the rest ``n // t``; refused when a table would have
   fewer than ``low``. 13 players at 3-4: 4, 3, 3, 3.
2. **Tables** (``partition``): a partition's *cost* is the sum over its tables of
   ``REPEAT`` (16) times the table's repeats (over every pair at the table, the times the pair
   has met before) plus the table's start-position *excess* (step 3's least excess). A
   depth-first search builds the tables one after another: a table's first player is the
   highest-ranked player not yet seated, its size is tried largest first, and its other players
   are the combinations of the players ranked below (not yet seated) in lexicographic order of
   ranking index. The first complete partition whose cost is at most the *bound* is the
   answer. The bound starts at 0; after a pass that finds nothing, it becomes the least cost
   above it that the pass met (so every pass is worth running). Each candidate player
   evaluated counts 1 and each complete table 10 against ``SEARCH_BUDGET`` (20,000) for all
   passes together.
   2b. Once the budget is spent: *greedy*, then *repair*. Greedy builds the tables largest
   first; a table's first player is the highest-ranked not yet seated, and each further player
   the first, among the next ``GREEDY_WINDOW`` (64) players not yet seated below that first
   player, with the least added cost (16 times their meetings with the table so far, plus the
   table's excess for its last seat), taking at once one that adds nothing. Repair makes up to
   ``REPAIR_SWEEPS`` (4) sweeps, until one changes nothing: for each table ``i`` with a cost,
   in order, for each table ``j`` at distance 1, 2, ... ``REPAIR_REACH`` (12) from it (``i-d``
   before ``i+d``; so players move between tables of similar ranking), for each of ``i``'s
   players and each of ``j``'s, swap them when that lowers the two tables' joint cost (then go
   on with ``i``'s next player).
3. **Start positions** (``turn_order``): at each table, among all orders of its players (the
   players listed in ranking order, the orders in ``itertools.permutations`` order), the first
   one with the least ``(excess, load)``: ``excess`` sums, over the table's players, how far
   their position counts' spread (most frequent minus least frequent of positions
   ``0 .. low-1`` and those held) would exceed one; ``load`` sums how often each has held the
   position given to them already.

The season's ``seed`` (committed when the season is created, revealed when it ends) gives the
lot (``lot``) that orders players tied on every tie-break, and each table's game seed
(``game_seed``); the game's own setup draws from that seed give its first turn order
(``first_turn_order``), and the player at start position ``i`` sits at the ``i``-th seat of that
order (``seats_from``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ledger.canonical import derive_key, hmac_hex

MAX_PLAYERS = 1000
MAX_TABLE = 6
SEARCH_BUDGET = 20_000  # candidates the search may evaluate (a table's start positions: 10)
REPAIR_SWEEPS = 4
REPAIR_REACH = 12  # a costly table swaps players with the tables at most this far from it
GREEDY_WINDOW = 64
REPEAT = 16  # a pair meeting again costs this much more than a start position's excess


class SeatingError(ValueError):
    """The players cannot be split into tables of the season's sizes."""


def lot(seed: bytes, round_no: int, player: str) -> str:
    """The player's lot for a round: orders players tied on every tie-break (smaller first)."""
    return hmac_hex(derive_key(seed, "season/lot"), f"{round_no}:{player}".encode())


def game_seed(seed: bytes, round_no: int, table: int) -> bytes:
    """The seed of the game at table ``table`` (0-based) of round ``round_no``."""
    return derive_key(seed, f"season/game:{round_no}:{table}")


def table_sizes(n: int, low: int, high: int) -> tuple[int, ...]:
    if not 1 <= low <= high <= MAX_TABLE:
        raise SeatingError(f"table sizes {low}-{high} are not within 1-{MAX_TABLE}")
    if not 0 < n <= MAX_PLAYERS:
        raise SeatingError(f"{n} players: a round seats 1 to {MAX_PLAYERS}")
    tables = -(-n // high)
    base, extra = divmod(n, tables)
    if base < low:
        raise SeatingError(f"{n} players cannot sit at tables of {low} to {high}")
    return tuple([base + 1] * extra + [base] * (tables - extra))


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


class _OutOfBudget(Exception):
    pass


def _search(
    met: list[dict[int, int]],
    sizes: Sequence[int],
    table_cost: Callable[[tuple[int, ...]], int],
    allowed: int,
    budget: int,
) -> tuple[list[tuple[int, ...]] | None, int, int]:
    """The first partition (tables of ranking indices) costing at most ``allowed``, the
    candidates evaluated, and the least cost above ``allowed`` met (the next bound worth a
    pass); ``None`` when there is none or the budget ran out."""
    n = len(met)
    used = [False] * n
    left = dict(Counter(sizes))
    tables: list[tuple[int, ...]] = []
    spent = 0
    pruned = [allowed + 1 << 20]  # the least cost over ``allowed`` met: the next pass's bound

    def combos(members: list[int], start: int, need: int, room: int) -> Iterator[tuple[tuple[int, ...], int]]:
        nonlocal spent
        if need == 0:
            yield tuple(members), 0
            return
        for c in range(start, n):
            if used[c]:
                continue
            spent += 1
            if spent > budget:
                raise _OutOfBudget
            row = met[c]
            added = sum(row.get(m, 0) for m in members) * REPEAT if row else 0
            if added > room:
                pruned[0] = min(pruned[0], allowed - room + added)
                continue
            members.append(c)
            for combo, more in combos(members, c + 1, need - 1, room - added):
                yield combo, added + more
            members.pop()

    def place(cost: int) -> bool:
        nonlocal spent
        if not tables or sum(len(t) for t in tables) < n:
            first = used.index(False)
        else:
            return True
        for size in sorted((k for k, v in left.items() if v > 0), reverse=True):
            used[first] = True
            left[size] -= 1
            for combo, added in combos([first], first + 1, size - 1, allowed - cost):
                spent += 10
                extra = table_cost(combo)
                if cost + added + extra > allowed:
                    pruned[0] = min(pruned[0], cost + added + extra)
                    continue
                for c in combo:
                    used[c] = True
                tables.append(combo)
                if place(cost + added + extra):
                    return True
                tables.pop()
                for c in combo[1:]:
                    used[c] = False
            left[size] += 1
            used[first] = False
        return False

    try:
        found = place(0)
    except _OutOfBudget:
        return None, spent, allowed + 1
    return (tables if found else None), spent, pruned[0]


def partition(
    order: Sequence[str],
    sizes: Sequence[int],
    met: Mapping[tuple[str, str], int],
    positions: Mapping[str, Sequence[int]] | None = None,
    low: int = 1,
    high: int = MAX_TABLE,
) -> tuple[tuple[str, ...], ...]:
    """The tables (each its players in ranking order), by step 2 of the procedure."""
    index = {p: i for i, p in enumerate(order)}
    rows: list[dict[int, int]] = [{} for _ in order]
    for (a, b), times in met.items():
        if times > 0 and a in index and b in index:
            rows[index[a]][index[b]] = times
            rows[index[b]][index[a]] = times
    held = positions or {}
    # how far each player's spread would exceed one, by the position they would take
    over: list[tuple[int, ...]] = []
    for p in order:
        counts = (list(held.get(p, ())) + [0] * high)[:high]
        row = []
        for pos in range(high):
            counts[pos] += 1
            row.append(max(0, spread(counts, low) - 1))
            counts[pos] -= 1
        over.append(tuple(row))
    perms = {k: tuple(itertools.permutations(range(k))) for k in set(sizes)}
    memo: dict[tuple[tuple[int, ...], ...], int] = {}

    def excess(combo: tuple[int, ...]) -> int:
        """The least excess of any order of the table (``_best_order``'s first key)."""
        rows_ = sorted(over[i] for i in combo)
        key = tuple(rows_)  # the excess depends on the players' rows only
        found = memo.get(key)
        if found is None:
            k = len(combo)
            if not any(any(r[:k]) for r in rows_):
                found = 0
            else:
                found = k * high
                for perm in perms[k]:
                    total = 0
                    for r, q in zip(rows_, perm, strict=True):
                        total += r[q]
                    if total < found:
                        found = total
                        if not total:
                            break
            memo[key] = found
        return found

    spent = 0
    allowed = 0
    chosen: list[tuple[int, ...]] | None = None
    while chosen is None and spent < SEARCH_BUDGET:
        chosen, used, allowed = _search(rows, sizes, excess, allowed, SEARCH_BUDGET - spent)
        spent += used
    if chosen is None:
        chosen = _repaired(rows, sizes, excess)
    return tuple(tuple(order[i] for i in t) for t in chosen)


def _repeats(rows: list[dict[int, int]], table: Sequence[int]) -> int:
    return sum(rows[a].get(b, 0) for x, a in enumerate(table) for b in table[x + 1 :])


def _repaired(
    rows: list[dict[int, int]], sizes: Sequence[int], excess: Callable[[tuple[int, ...]], int]
) -> list[tuple[int, ...]]:
    """Step 2b, for a field the search could not settle within its budget: the tables in ranking
    order (largest first), then, table after table, the first swap of two players between a
    costly table and any other that lowers their joint cost, until none does (at most
    ``REPAIR_SWEEPS`` sweeps)."""
    n = len(rows)
    used = [False] * n
    tables: list[list[int]] = []
    for size in sorted(sizes, reverse=True):
        table = [used.index(False)]
        used[table[0]] = True
        while len(table) < size:
            best, best_cost, scanned = -1, 0, 0
            for c in range(table[0] + 1, n):
                if used[c]:
                    continue
                added = sum(rows[c].get(m, 0) for m in table) * REPEAT
                if len(table) == size - 1:
                    added += excess(tuple(sorted((*table, c))))
                if best < 0 or added < best_cost:
                    best, best_cost = c, added
                scanned += 1
                if added == 0 or scanned >= GREEDY_WINDOW:
                    break
            table.append(best)
            used[best] = True
        tables.append(table)

    def cost(t: list[int]) -> int:
        return _repeats(rows, t) * REPEAT + excess(tuple(sorted(t)))

    costs = [cost(t) for t in tables]
    for _ in range(REPAIR_SWEEPS):
        improved = False
        for i, ti in enumerate(tables):
            if costs[i] == 0:
                continue
            near = [k for d in range(1, REPAIR_REACH + 1) for k in (i - d, i + d) if 0 <= k < len(tables)]
            for j in near:
                tj = tables[j]
                if costs[i] == 0:
                    break
                for x in range(len(ti)):
                    for y in range(len(tj)):
                        ti[x], tj[y] = tj[y], ti[x]
                        ri, rj = _repeats(rows, ti) * REPEAT, _repeats(rows, tj) * REPEAT
                        if ri + rj < costs[i] + costs[j]:
                            ci, cj = ri + excess(tuple(sorted(ti))), rj + excess(tuple(sorted(tj)))
                        else:
                            ci, cj = ri, rj
                        if ci + cj < costs[i] + costs[j]:
                            costs[i], costs[j] = ci, cj
                            improved = True
                            break
                        ti[x], tj[y] = tj[y], ti[x]
                    if costs[i] == 0:
                        break
        if not improved:
            break
    return [tuple(sorted(t)) for t in tables]


def spread(counts: Sequence[int], low: int) -> int:
    """Most frequent minus least frequent start position: positions ``0 .. low-1`` (every table
    has them) and any other position held."""
    considered = [c for i, c in enumerate(counts) if i < low or c > 0]
    return max(considered) - min(considered) if considered else 0


def _best_order(
    players: Sequence[str], positions: Mapping[str, Sequence[int]], low: int, high: int
) -> tuple[tuple[int, int], tuple[int, ...]]:
    """The least ``(excess, load)`` over every order of the players, and the first order with it
    (``perm[i]``: the position of ``players[i]``)."""
    k = len(players)
    best: tuple[int, int] | None = None
    best_perm: tuple[int, ...] = tuple(range(k))
    held = [(list(positions.get(p, ())) + [0] * high)[:high] for p in players]
    for perm in itertools.permutations(range(k)):
        excess = load = 0
        for counts, pos in zip(held, perm, strict=True):
            load += counts[pos]
            counts[pos] += 1
            excess += max(0, spread(counts, low) - 1)
            counts[pos] -= 1
        key = (excess, load)
        if best is None or key < best:
            best, best_perm = key, perm
    assert best is not None
    return best, best_perm


def turn_order(
    players: Sequence[str], positions: Mapping[str, Sequence[int]], low: int, high: int
) -> tuple[str, ...]:
    """The table's players in start-position order (position 0 first), by step 3."""
    out = [""] * len(players)
    for player, pos in zip(players, _best_order(players, positions, low, high)[1], strict=True):
        out[pos] = player
    return tuple(out)


def seat_round(
    order: Sequence[str],
    low: int,
    high: int,
    met: Mapping[tuple[str, str], int],
    positions: Mapping[str, Sequence[int]],
) -> tuple[tuple[str, ...], ...]:
    """Every player seated once: the tables, each its players in start-position order."""
    if len(set(order)) != len(order):
        raise SeatingError("a player is listed twice")
    sizes = table_sizes(len(order), low, high)
    tables = partition(order, sizes, met, positions, low, high)
    return tuple(turn_order(t, positions, low, high) for t in tables)


def seats_from(turn: Sequence[str], order: Sequence[int]) -> tuple[str, ...]:
    """Seat by seat: the player at start position ``i`` sits at seat ``order[i]`` (``order``: the
    game's first turn order, seats in the order they play)."""
    seats = [""] * len(turn)
    for pos, player in enumerate(turn):
        seats[order[pos]] = player
    return tuple(seats)


def start_positions(seats: Sequence[str], order: Sequence[int]) -> dict[str, int]:
    return {seats[seat]: pos for pos, seat in enumerate(order)}


def first_turn_order(title: str, options: Mapping[str, Any], count: int, seed: bytes) -> tuple[int, ...]:
    """A new game's first turn order (its seats in the order they play) once its setup draws are
    made from ``seed``, as the ledger will make them: Cotton Trade's drawn order
    (``first_player_drawn``); the Arkwright titles' drawn start player (the ``start_player``
    draw, or a ``start_player_drawn`` effect), then clockwise. A start player chosen by a player
    at setup cannot be foreseen: seat 0 first, then clockwise."""
    from ledger import registry
    from ledger.engine import DrawOutcome
    from ledger.rng import derive_draw

    eng = registry.engine(title)
    state = eng.new_game(eng.meta.options.model_validate(dict(options)), count)
    clockwise = tuple(range(count))
    for counter in range(1000):
        pending = eng.pending(state)
        if pending.draw is None:
            break
        values = derive_draw(seed, counter, pending.draw)
        state, effects = eng.apply_draw(state, DrawOutcome(pending.draw.key, values))
        for fx in effects:
            payload = fx.payload()
            if payload["kind"] == "first_player_drawn":
                return tuple(int(x) for x in payload["turn_order"])
            if payload["kind"] == "start_player_drawn":
                first = int(payload["seat"])
                return tuple((first + i) % count for i in range(count))
        if pending.draw.key == "start_player" and pending.draw.kind == "pick":
            return tuple((values[0] + i) % count for i in range(count))
    return clockwise

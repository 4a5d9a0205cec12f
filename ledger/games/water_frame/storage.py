"""Storing new goods: the production phase (spec §3.5 D-34, §5.8 ``store_and_decay``; [R16
§III.5]) and the production action (spec §6.8; [R16 §II.2.8]).

Unsold production, or the output of a production action, goes into the warehouses. When it
all fits (or when no choice could keep more of it) the engine stores it at once: the large
warehouse first, then the small one, the rest lost. Otherwise the player chooses: "she must
return either 1 food or 1 clothes" [R16 §III.5]; "he always may return goods from the
warehouse to the common supply ... He may also transfer goods to the large warehouse if
there is room" [R16 §II.2.8] — he may discard stored goods (no compensation) and move goods
between the small and the large warehouse to make room, and names the final contents of both
warehouses (D-34). No worker may be hired or moved meanwhile, so the capacities are those
already in place.
"""

from __future__ import annotations

from itertools import product

from ledger.games.shared import replace, set_at
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import StoreGoods
from ledger.games.water_frame.economy import (
    C,
    Effects,
    auto_fill,
    has,
    large_cap,
    scale_cap,
    set_player,
    violation,
)
from ledger.games.water_frame.state import Player, State

PerGood = tuple[int, int, int, int]


def small_cap(p: Player) -> int:
    return C.small_warehouse if has(p, "SMALL_WAREHOUSE") else 0


def held(p: Player, good: int) -> int:
    return p.stock[good] + p.small_stock[good]


def default_outcome(p: Player, good: int, n: int) -> StoreGoods:
    """The automatic fill as a decision: nothing stored is touched, the rest of the surplus is lost."""
    large, small = auto_fill(p, good, n)
    return StoreGoods(
        large=set_at(p.stock, good, p.stock[good] + large),  # type: ignore[arg-type]
        small=set_at(p.small_stock, good, p.small_stock[good] + small),  # type: ignore[arg-type]
    )


def most_keepable(p: Player, good: int, n: int) -> int:
    """The most goods of the active kind the player can hold after storing (other goods discarded)."""
    return min(held(p, good) + n, large_cap(p, good) + min(small_cap(p), scale_cap(p, good)))


def needs_choice(p: Player, good: int, n: int) -> bool:
    """A real conflict: the automatic fill loses goods that discarding or moving stored goods
    could keep. Otherwise the automatic fill keeps every stored good and as many new ones as
    any choice could, and the engine does not ask."""
    if n <= 0:
        return False
    large, small = auto_fill(p, good, n)
    return held(p, good) + large + small < most_keepable(p, good, n)


def check(p: Player, good: int, n: int, d: StoreGoods) -> None:
    """Raise the violation of an illegal final arrangement (the state is untouched)."""
    for h in range(4):
        available = held(p, h) + (n if h == good else 0)
        if d.large[h] + d.small[h] > available:
            source = "your warehouses and this production's surplus" if h == good else "your warehouses"
            raise violation(
                "goods_not_available",
                f"{available} {GOODS[h].lower()} are in {source}; new goods come only from the surplus "
                f"of {GOODS[good].lower()}.",
                "III.5",
            )
    for h in range(4):
        if d.large[h] > large_cap(p, h):
            raise violation(
                "large_warehouse_full",
                f"Your large warehouse has room for {large_cap(p, h)} {GOODS[h].lower()} (no workers may be "
                "hired or moved now).",
                "III.5",
            )
    if any(d.small) and not has(p, "SMALL_WAREHOUSE"):
        raise violation("no_small_warehouse", "You do not own the small warehouse.", "III.5")
    if sum(d.small) > C.small_warehouse:
        raise violation(
            "small_warehouse_full", f"The small warehouse holds {C.small_warehouse} goods at most.", "III.5"
        )
    for h in range(4):
        if d.small[h] > scale_cap(p, h):
            raise violation(
                "price_scale_occupied",
                f"Goods on the small warehouse may not cover your {GOODS[h].lower()} price: room for "
                f"{scale_cap(p, h)}.",
                "III.5",
            )


def new_kept(p: Player, good: int, d: StoreGoods) -> int:
    """How many of the new goods an arrangement keeps (stored goods of the kind go first)."""
    return max(0, d.large[good] + d.small[good] - held(p, good))


def choose(s: State, seat: int, good: int, n: int, d: StoreGoods, out: Effects) -> State:
    """Apply a legal D-34 decision: the warehouses become ``d.large`` and ``d.small``."""
    p = s.players[seat]
    check(p, good, n, d)
    stored = new_kept(p, good, d)
    out.append(fx.GoodsStored(seat=seat, good=GOODS[good], stored=stored, lost=n - stored))
    for h in range(4):  # stored goods returned to the supply (new goods not kept are "lost")
        gone = held(p, h) - (d.large[h] + d.small[h]) + (stored if h == good else 0)
        if gone > 0:
            out.append(fx.GoodsDiscarded(seat=seat, good=GOODS[h], count=gone))
    out.append(fx.WarehouseArranged(seat=seat, large=tuple(d.large), small=tuple(d.small)))
    return set_player(s, replace(p, stock=tuple(d.large), small_stock=tuple(d.small)))


def options(p: Player, good: int, n: int) -> list[StoreGoods]:
    """A bounded, representative list: the automatic fill first, then for every larger number of
    the active good kept, each way of making room in the small warehouse (the goods taken off it
    move to the large warehouse where there is room, otherwise they are discarded)."""
    auto = default_outcome(p, good, n)
    out = [auto]
    total = held(p, good) + n
    others = [h for h in range(4) if h != good]
    for target in range(auto.large[good] + auto.small[good] + 1, most_keepable(p, good, n) + 1):
        large_g = min(large_cap(p, good), target)
        small_g = target - large_g
        need = sum(p.small_stock[h] for h in others) + small_g - small_cap(p)
        assert small_g <= min(small_cap(p), scale_cap(p, good)) and target <= total
        for removed in product(*(range(p.small_stock[h] + 1) for h in others)):
            if sum(removed) != max(0, need):
                continue
            large = list(p.stock)
            small = list(p.small_stock)
            large[good], small[good] = large_g, small_g
            for h, r in zip(others, removed, strict=True):
                moved = min(r, large_cap(p, h) - large[h])
                small[h] -= r
                large[h] += moved
            d = StoreGoods(large=tuple(large), small=tuple(small))  # type: ignore[arg-type]
            if d not in out:
                out.append(d)
    return out

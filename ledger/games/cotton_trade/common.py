"""Helpers shared by the simple and the advanced rules: money, shares, violations.

Money is a triple of coins (pence, shillings, pounds), one currency per stage; a
value in pence-equivalents counts a coin as 1 / 3 / 9. The bank's net intake is
kept in ``State.bank`` (pence-equivalents) so that money is conserved: the
players' coins plus the bank's intake always sum to zero.
"""

from __future__ import annotations

from typing import Any

from ledger.engine import DrawRequest, Effect
from ledger.errors import RuleViolationError
from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade.components import CURRENCIES, REGIONS, Components, Region, load
from ledger.games.cotton_trade.state import UK, Player, Ship, State
from ledger.games.shared import replace, set_at, set_player

C: Components = load()
Effects = list[Effect]
UNIT = (1, 3, 9)  # pence-equivalents of a penny, a shilling, a pound


def violation(code: str, message: str, rule: str) -> RuleViolationError:
    return RuleViolationError(f"rule/cotton-trade/{code}", message, rule)


# --- players, money and shares ------------------------------------------------------------


def money(s: State, seat: int) -> int:
    """Spendable money: the coins of the stage's currency."""
    return s.players[seat].coins[s.stage]


def value(coins: tuple[int, int, int]) -> int:
    return coins[0] * UNIT[0] + coins[1] * UNIT[1] + coins[2] * UNIT[2]


def held_value(p: Player) -> int:
    """Every coin a player holds, and buy-back income kept apart, in pence-equivalents."""
    return value(p.coins) + p.separate_income * UNIT[2]


def gain(
    s: State,
    seat: int,
    amount: int,
    reason: str,
    out: Effects,
    stage: int | None = None,
    *,
    bank: bool = True,
) -> State:
    """Coins of one currency to (or, negative, from) a player; the bank is the other side
    unless ``bank`` is false (money moved between a player's own holdings)."""
    if amount == 0:
        return s
    stage = s.stage if stage is None else stage
    p = s.players[seat]
    coins = set_at(p.coins, stage, p.coins[stage] + amount)
    out.append(
        fx.MoneyChanged(
            seat=seat, amount=amount, currency=CURRENCIES[stage], balance=coins[stage], reason=reason
        )
    )
    players = set_at(s.players, seat, replace(p, coins=coins))
    if bank:  # one copy of the state for both changes
        return replace(s, players=players, bank=s.bank - amount * UNIT[stage])
    return replace(s, players=players)


def sell_to_bank(
    s: State, seat: int, share: tuple[int, int], price: int, out: Effects, *, stage: int, forced: bool
) -> State:
    """One of the seat's own shares sold to the bank for ``price`` coins of ``stage``'s currency:
    to cover a cost (Selling shares), or the forced sale at the end of a stage (step 12)."""
    p = s.players[seat]
    s = set_player(s, replace(p, shares=tuple(x for x in p.shares if x != share)))
    s = replace(s, bank_shares=tuple(sorted((*s.bank_shares, share))))
    out.append(
        fx.ShareSold(
            seat=seat,
            company=share[0],
            number=share[1],
            price=price,
            currency=CURRENCIES[stage],
            buyer="bank",
            forced=forced,
        )
    )
    return gain(s, seat, price, "forced_share_sale" if forced else "share_sale", out, stage=stage)


def currency(s: State) -> str:
    return CURRENCIES[s.stage]


def share_price(s: State, company: int) -> int:
    return C.share_value(s.stage, s.track_space[company])


def own_shares(s: State, seat: int) -> list[tuple[int, int]]:
    return sorted(sh for sh in s.players[seat].shares if sh[0] == seat)


def wealth(s: State, seat: int) -> int:
    """Rulebook 1. Turn order: money plus the value of all ships (A-29: current currency only)."""
    return money(s, seat) + sum(C.ship(sh.card).value for sh in s.players[seat].ships)


# --- ships, regions and draws -------------------------------------------------------------


def ship_of(s: State, seat: int, capacity: int) -> Ship:
    for ship in s.players[seat].ships:
        if ship.capacity == capacity:
            return ship
    raise KeyError((seat, capacity))


def replace_ship(s: State, seat: int, capacity: int, **changes: Any) -> State:
    p = s.players[seat]
    ships = tuple(replace(sh, **changes) if sh.capacity == capacity else sh for sh in p.ships)
    return set_player(s, replace(p, ships=ships))


def ships_in_uk(s: State, seat: int) -> list[Ship]:
    return [sh for sh in s.players[seat].ships if sh.location == UK]


def current_ship(s: State) -> tuple[int, int, int]:
    r = s.cursor_region
    seat, capacity = s.tracks[r][s.cursor]
    return r, seat, capacity


def region_index(region: Region | str) -> int:
    return REGIONS.index(Region(region))


def region_open(s: State, region: Region) -> bool:
    return not (s.stage == 0 and region in C.closed_in_stage_one)


def stage_region_active(stage: int, region: Region) -> bool:
    return not (stage == 0 and region in C.closed_in_stage_one)


def war_locked(s: State, region: Region) -> bool:
    return s.war is not None and s.war.region == region and s.war.side == "WAR"


def shuffle_request(key: str, items: tuple[str, ...], label: str) -> DrawRequest:
    return DrawRequest(key=key, kind="shuffle", items=tuple(sorted(items)), hidden=True, label=label)

"""Building Cotton Trade positions for tests: deterministic setups and hand-made scenes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ledger.engine import Effect
from ledger.games.cotton_trade import rules
from ledger.games.cotton_trade.components import REGIONS, Region
from ledger.games.cotton_trade.meta import CottonTradeOptions
from ledger.games.cotton_trade.state import UK, Harbour, Phase, Ship, Slot, State
from tests import draws

E = rules.ENGINE


def settle_draws(s: State, first: int = 0) -> tuple[State, list[Effect]]:
    """Every pending draw: ``first`` as start player, the identity permutation for shuffles."""
    return draws.settle_draws(E, s, first)  # type: ignore[no-any-return]


def new(n: int, first: int = 0, **options: Any) -> State:
    s = E.new_game(CottonTradeOptions(**options), n)
    s, _ = settle_draws(s, first)
    return s


def ship(card: str, location: str = UK, cargo: int = 0, stayed: bool = False) -> Ship:
    c = rules.C.ship(card)
    return Ship(card=card, capacity=c.capacity, location=location, cargo=cargo, stayed=stayed)


def with_player(s: State, seat: int, **changes: Any) -> State:
    p = s.players[seat]
    if "ships" in changes:
        changes["ships"] = tuple(sorted(changes["ships"], key=lambda x: x.capacity))
    return replace(s, players=(*s.players[:seat], replace(p, **changes), *s.players[seat + 1 :]))


def with_pence(s: State, seat: int, pence: int) -> State:
    p = s.players[seat]
    return with_player(s, seat, coins=(pence, p.coins[1], p.coins[2]))


def with_track(s: State, region: Region, refs: list[tuple[int, int]]) -> State:
    r = REGIONS.index(region)
    return replace(s, tracks=(*s.tracks[:r], tuple(refs), *s.tracks[r + 1 :]))


def with_harbour(s: State, region: Region, **tokens: int) -> State:
    r = REGIONS.index(region)
    return replace(s, harbours=(*s.harbours[:r], Harbour(**tokens), *s.harbours[r + 1 :]))


def with_row(s: State, region: Region, cards: list[str], face_up: bool = True) -> State:
    r = REGIONS.index(region)
    row = tuple(Slot(card=c, face_up=face_up) for c in cards)
    return replace(s, contract_row=(*s.contract_row[:r], row, *s.contract_row[r + 1 :]))


def at_phase(s: State, phase: Phase, **changes: Any) -> tuple[State, list[Effect]]:
    """Jump to a phase and let the engine run its automatic procedures."""
    s = replace(s, phase=phase, awaiting=(), cursor=0, cursor_region=0, **changes)
    return rules.resume(s)


def kinds(effects: Any) -> list[str]:
    return [e.kind for e in effects]


def cleared_board(s: State) -> State:
    """No cards on the board: ship row and contract rows empty."""
    empty = tuple(() for _ in REGIONS)
    return replace(s, ship_row=(), contract_row=empty)


def play(s: State, seat: int, decision: Any) -> tuple[State, tuple[Effect, ...]]:
    return E.apply(s, seat, decision)


def passive_until(s: State, round_: int, phase: Phase) -> State:
    """Everyone passes, declines and returns until (round, phase) is reached."""
    from ledger.games.cotton_trade.decisions import (
        DeclineContract,
        PassRenting,
        ReturnAllShips,
        ReturnShip,
    )

    for _ in range(10_000):
        if s.round == round_ and s.phase == phase:
            return s
        if s.draws:
            s, _ = settle_draws(s)
            continue
        seat = s.awaiting[0]
        decision = {
            Phase.RENT: PassRenting(),
            Phase.BUY: DeclineContract(),
            Phase.SELL: ReturnShip(),
            Phase.KEEP_NEW: ReturnAllShips(),
        }[s.phase]
        s, _ = E.apply(s, seat, decision)
    raise AssertionError("never reached")

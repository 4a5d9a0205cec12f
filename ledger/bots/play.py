"""Games played in memory with the pure engines: no ledger, no event store.

``advance`` runs a position forward with a policy for every seat and random draws from an
explicit generator; the arena and the strong bot's rollouts both use it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ledger.engine import Decision, DrawOutcome, DrawRequest, RulesEngine

Policy = Callable[[Any, int], Decision]
"""``policy(state, seat) -> decision``: one of the seat's legal decisions."""


def draw_values(request: DrawRequest, rng: random.Random) -> tuple[int, ...]:
    """A uniform outcome of a draw request: one index, or a permutation of the items."""
    n = len(request.items)
    if request.kind == "pick":
        return (rng.randrange(n),)
    order = list(range(n))
    rng.shuffle(order)
    return tuple(order)


def settle(eng: RulesEngine, state: Any, rng: random.Random) -> Any:
    """Make every random draw due, until a decision is awaited or the game is over."""
    while True:
        pending = eng.pending(state)
        if pending.draw is None:
            return state
        values = draw_values(pending.draw, rng)
        state, _ = eng.apply_draw(state, DrawOutcome(pending.draw.key, values))


def advance(
    eng: RulesEngine,
    state: Any,
    policies: Callable[[int], Policy],
    rng: random.Random,
    stop: Callable[[Any], bool] | None = None,
    max_steps: int = 100_000,
) -> tuple[Any, int]:
    """Play on from ``state`` until the game ends, ``stop(state)`` holds or ``max_steps``
    decisions were made; returns the position and the number of decisions made. When several
    seats are awaited at once, the first of them decides (the others' turn comes next)."""
    steps = 0
    while steps < max_steps:
        pending = eng.pending(state)
        if pending.finished:
            break
        if pending.draw is not None:
            values = draw_values(pending.draw, rng)
            state, _ = eng.apply_draw(state, DrawOutcome(pending.draw.key, values))
            continue
        if stop is not None and stop(state):
            break
        seat = pending.seats[0]
        state, _ = eng.apply(state, seat, policies(seat)(state, seat))
        steps += 1
    return state, steps

"""Settling a new position's draws the same way for every title, so that hand-built test
positions are fixed: ``first`` is the start player, every shuffle the identity; and a bot's whole
game with its draws derived from a seed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ledger.engine import DrawOutcome, Effect
from ledger.rng import derive_draw


def settle_draws(engine: Any, s: Any, first: int = 0) -> tuple[Any, list[Effect]]:
    """Apply every pending draw: ``first`` where one is picked, identity permutations for shuffles."""
    out: list[Effect] = []
    while s.draws:
        req = s.draws[0]
        values = (first,) if req.kind == "pick" else tuple(range(len(req.items)))
        s, fx = engine.apply_draw(s, DrawOutcome(req.key, values))
        out.extend(fx)
    return s, out


def bot_playout(rules: Any, bot: Any, s: Any, seed: int) -> Iterator[tuple[Any, Sequence[Effect]]]:
    """A whole game by the title's bot from ``s``, every draw derived from ``seed`` as the ledger
    derives them: yields the state and the effects after each draw or decision."""
    draws = 0
    while not (pending := rules.pending(s)).finished:
        if pending.draw is not None:
            values = derive_draw(bytes([seed]) * 32, draws, pending.draw)
            draws += 1
            s, effects = rules.apply_draw(s, DrawOutcome(pending.draw.key, values))
        else:
            seat = pending.seats[0]
            s, effects = rules.apply(s, seat, bot.choose(s, seat))
        yield s, effects

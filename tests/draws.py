"""Settling a new position's draws the same way for every title, so that hand-built test
positions are fixed: ``first`` is the start player, every shuffle the identity."""

from __future__ import annotations

from typing import Any

from ledger.engine import DrawOutcome, Effect


def settle_draws(engine: Any, s: Any, first: int = 0) -> tuple[Any, list[Effect]]:
    """Apply every pending draw: ``first`` where one is picked, identity permutations for shuffles."""
    out: list[Effect] = []
    while s.draws:
        req = s.draws[0]
        values = (first,) if req.kind == "pick" else tuple(range(len(req.items)))
        s, fx = engine.apply_draw(s, DrawOutcome(req.key, values))
        out.extend(fx)
    return s, out

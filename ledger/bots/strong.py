"""The strong bot: rollouts over sampled completions of what the seat cannot see.

``choose(title, state, seat, seed=..., budget_ms=...)`` returns one of the seat's legal
decisions. It reads the position only through the title's ``determinise`` (sampling.py),
which re-deals every hidden item (deck orders, face-down cards and markers) at random from
what the seat knows; so two positions that differ only in what the seat cannot see give the
same decision for the same seed (a test permutes every hidden item to check it).

How it decides (determinised rollouts, "Monte Carlo with the greedy bot as rollout policy"):

1. One legal decision: that one. A decision the title does not search (the small steps of
   an action whose choice the greedy bot makes as well as a search would): the greedy bot's
   choice in a sampled completion.
2. Otherwise every legal decision the title lets a search pick is a candidate (wide menus are cut to the most
   promising by a short look-ahead to the end of the seat's own steps). Each candidate is
   played in sampled completions, then every seat plays on with the title's greedy bot, to
   the end of the game or, when the budget cannot afford that, to a horizon of whole rounds;
   the position reached is scored with the title's evaluation: the seat's estimated final
   value less the best other seat's.
3. Successive halving: each round of rollouts uses a fresh completion (the same one for every
   candidate, so they are compared on equal terms) and keeps the better half, until one is
   left or the budget is spent. Ties go to the greedy bot's choice.

The budget is counted in engine steps (so a decision is reproducible from its seed), converted
from milliseconds with the title's measured speed; a wall-clock limit (a few budgets) stops a
search early on an overloaded machine, so a live table never waits long.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from ledger import registry
from ledger.bots.play import Policy, advance
from ledger.engine import Decision, RulesEngine

HARD_LIMIT_FACTOR = 3.0  # the wall-clock limit: at most this many budgets ...
HARD_LIMIT_MS = 450.0  # ... or the budget, when it is larger (a set-up decision's)
LOOK_AHEAD_STEPS = 12  # the cut's look-ahead: the seat's own steps that follow, at most
LOOK_AHEAD_SHARE = 0.25  # of the budget, at most, for the cut


@dataclass(frozen=True)
class TitleModel:
    """What the search needs from a title (its sampling module and greedy bot)."""

    determinise: Callable[[Any, int, random.Random], Any]
    evaluate: Callable[[Any], tuple[float, ...]]
    weight: Callable[[Any, int], float]  # the share of the budget a decision gets (0: none)
    choices: Callable[[Any, int, tuple[Decision, ...]], tuple[Decision, ...]]  # what a search may pick
    progress: Callable[[Any], int]  # a count of whole rounds played (rollout horizons)
    policy: Policy  # the rollout policy: the title's greedy bot
    worlds: int  # sampled completions a search uses at most
    candidates: int  # wider menus are first cut to this many by a short look-ahead
    budget_ms: float  # the default size of a search
    steps_per_round: int  # decisions in a round of a 4-player game (greedy self-play)
    steps_per_ms: float  # engine steps with the greedy bot per millisecond (this machine)


@cache
def sampling_module(title: str) -> ModuleType:
    """The title's ``ledger/games/<title>/sampling.py``."""
    package = registry.meta(title).engine_module.rsplit(".", 1)[0]
    return importlib.import_module(f"{package}.sampling")


@cache
def model(title: str) -> TitleModel:
    """The title's model, from its sampling module and its greedy bot."""
    sampling = sampling_module(title)
    policy = registry.bot(title)
    if policy is None:
        raise LookupError(f"{title} has no greedy bot to roll out with")
    functions = ("determinise", "evaluate", "weight", "progress")
    settings = ("WORLDS", "CANDIDATES", "BUDGET_MS", "STEPS_PER_ROUND", "STEPS_PER_MS")  # model.<lower case>
    return TitleModel(
        choices=getattr(sampling, "choices", lambda _s, _seat, legal: legal),
        policy=policy,
        **{name: getattr(sampling, name) for name in functions},
        **{name.lower(): getattr(sampling, name) for name in settings},
    )


def margin(values: tuple[float, ...], seat: int) -> float:
    """The seat's value less the best other seat's: what a search maximises."""
    others = [v for i, v in enumerate(values) if i != seat]
    return values[seat] - max(others) if others else values[seat]


@dataclass
class _Search:
    eng: RulesEngine
    m: TitleModel
    seat: int
    steps_left: int
    deadline: float | None

    def late(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def out_of_time(self) -> bool:
        return self.steps_left <= 0 or self.late()

    def rollout(self, world: Any, decision: Decision, rng: random.Random, horizon: int, cap: int) -> float:
        """Play ``decision`` in ``world``, then the greedy bot for everyone up to ``horizon``
        rounds (or the end, or ``cap`` decisions); the seat's margin there."""
        state, _ = self.eng.apply(world, self.seat, decision)
        target = self.m.progress(world) + horizon
        state, steps = advance(
            self.eng,
            state,
            lambda _seat: self.m.policy,
            rng,
            stop=lambda s: self.m.progress(s) >= target or self.late(),
            max_steps=cap,
        )
        self.steps_left -= steps + 1
        return margin(self.m.evaluate(state), self.seat)

    def look_ahead(self, world: Any, decision: Decision, rng: random.Random, steps: int) -> float:
        """A short look-ahead: the seat's own steps that follow (at most ``steps``), by the
        greedy bot; with no steps, the position right after the decision."""
        state, _ = self.eng.apply(world, self.seat, decision)
        if steps > 0:
            state, done = advance(
                self.eng,
                state,
                lambda _seat: self.m.policy,
                rng,
                stop=lambda s: self.seat not in self.eng.pending(s).seats,
                max_steps=steps,
            )
            self.steps_left -= done
        self.steps_left -= 1
        return margin(self.m.evaluate(state), self.seat)


def _unique(decisions: tuple[Decision, ...]) -> list[Decision]:
    seen: set[Decision] = set()
    out = []
    for d in decisions:
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def choose(
    title: str,
    state: Any,
    seat: int,
    *,
    seed: int,
    budget_ms: float | None = None,
    wall_clock: bool = True,
) -> Decision:
    """One of ``seat``'s legal decisions, from what the seat may see (see the module text).

    ``budget_ms`` (default: the title's) is the search's size in milliseconds of this machine (counted in engine
    steps, so the same seed gives the same decision); with ``wall_clock`` a search also stops
    after a few budgets of real time."""
    eng = registry.engine(title)
    legal = eng.legal_decisions(state, seat)
    if len(legal) == 1:
        return legal[0]
    m = model(title)
    rng = random.Random(seed)
    first = m.determinise(state, seat, rng)
    base = m.policy(first, seat)
    if budget_ms is None:
        budget_ms = m.budget_ms
    budget_ms *= m.weight(first, seat)
    if budget_ms <= 0:
        return base
    limit = min(HARD_LIMIT_FACTOR * budget_ms, max(HARD_LIMIT_MS, budget_ms)) / 1000
    search = _Search(
        eng=eng,
        m=m,
        seat=seat,
        steps_left=int(budget_ms * m.steps_per_ms),
        deadline=time.perf_counter() + limit if wall_clock else None,
    )
    candidates = [base, *(d for d in _unique(m.choices(first, seat, legal)) if d != base)]
    order = {d: i for i, d in enumerate(candidates)}
    if len(candidates) > m.candidates:
        quick_seed = rng.getrandbits(64)
        # a quarter of the budget at most for the cut
        steps = min(LOOK_AHEAD_STEPS, int(search.steps_left * LOOK_AHEAD_SHARE / len(candidates)) - 1)
        ahead = {d: search.look_ahead(first, d, random.Random(quick_seed), steps) for d in candidates}
        candidates = sorted(candidates, key=lambda d: (-ahead[d], order[d]))[: m.candidates]
        if base not in candidates:
            candidates[-1] = base
    totals = dict.fromkeys(candidates, 0.0)
    counts = dict.fromkeys(candidates, 0)
    survivors = list(candidates)
    for w in range(m.worlds):
        if w and search.out_of_time():
            break
        world = first if w == 0 else m.determinise(state, seat, rng)
        rollout_seed = rng.getrandbits(64)
        # the rounds a rollout can afford with this round's share of the budget; every candidate
        # of a round is played to the same horizon in the same completion
        rounds_left = max(1, min(m.worlds - w, len(survivors).bit_length()))
        per_rollout = max(0, search.steps_left) / (rounds_left * len(survivors))
        horizon = max(1, int(per_rollout / m.steps_per_round))
        cap = 2 * horizon * m.steps_per_round + m.steps_per_round
        values: dict[Decision, float] = {}
        for d in survivors:
            if w and search.late():
                break
            values[d] = search.rollout(world, d, random.Random(rollout_seed), horizon, cap)
        if len(values) < len(survivors):
            break  # a round cut short by the clock is not counted
        for d, v in values.items():
            totals[d] += v
            counts[d] += 1
        survivors.sort(key=lambda d: (-totals[d] / counts[d], order[d]))
        if w + 1 < m.worlds:
            survivors = survivors[: max(1, (len(survivors) + 1) // 2)]
        if len(survivors) == 1:
            break
    return min(survivors, key=lambda d: (-totals[d] / max(1, counts[d]), order[d]))

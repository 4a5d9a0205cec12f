"""The arena: one bot against the others, many games in memory, seats rotated.

``run(title, players, games, bot, against, seed)`` plays ``games`` games with the pure engines
(no ledger, no event store): in game ``g`` the ``bot`` sits at seat ``g % players`` and the
``against`` bot takes every other seat, so each seat (the start player is drawn) is the bot's
equally often. Games are spread over worker processes (both cores by default); every game is
reproducible from ``seed`` and its number: its draws come from its own generator, the strong
bot's searches from seeds drawn from another, and by default a search is measured by its
step budget only, so the figures do not depend on how busy the machine is.

Ties: a first place shared by ``k`` seats counts ``1/k`` of a win to each (the win shares of
all bots add up to 1). The final value is what the title ranks by: the portfolio (shares x
share value; 0 for a company eliminated for its loans or bankrupt) in the Arkwright titles, the
money in pounds (shillings and pence at the exchange rate) in Cotton Trade.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ledger import registry
from ledger.bots import strong
from ledger.bots.play import Policy, advance

BOTS = ("strong", "greedy", "random")


@dataclass(frozen=True)
class GameResult:
    game: int
    bot_seat: int
    credit: tuple[float, ...]  # share of the win per seat
    final: tuple[float, ...]  # final value per seat
    decisions: int
    bot_times: tuple[float, ...] = ()  # seconds per decision of the strong bot, when it played


@dataclass
class Summary:
    title: str
    players: int
    games: int
    bot: str
    against: str
    seed: int
    seconds: float = 0.0
    results: list[GameResult] = field(default_factory=list)

    def names(self) -> tuple[str, str]:
        """The two sides' names (the second marked when both play the same bot)."""
        return self.bot, self.against if self.against != self.bot else f"{self.against} (others)"

    def win_share(self) -> dict[str, float]:
        ours = sum(r.credit[r.bot_seat] for r in self.results)
        n = max(1, len(self.results))
        mine, theirs = self.names()
        return {mine: ours / n, theirs: (len(self.results) - ours) / n}

    def mean_final(self) -> dict[str, float]:
        mine, theirs = self.names()
        ours = [r.final[r.bot_seat] for r in self.results]
        others = [v for r in self.results for i, v in enumerate(r.final) if i != r.bot_seat]
        return {
            mine: statistics.fmean(ours) if ours else 0.0,
            theirs: statistics.fmean(others) if others else 0.0,
        }

    def decision_times(self) -> list[float]:
        return sorted(t for r in self.results for t in r.bot_times)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "title": self.title,
            "games": len(self.results),
            "players": self.players,
            "seed": self.seed,
            "win_share": {k: round(v, 4) for k, v in self.win_share().items()},
            "mean_final": {k: round(v, 2) for k, v in self.mean_final().items()},
            "fair_share": round(1 / self.players, 4),
            "seconds": round(self.seconds, 1),
        }
        times = self.decision_times()
        if times:
            out["decision_ms"] = {
                "median": round(statistics.median(times) * 1000, 1),
                "p95": round(percentile(times, 0.95) * 1000, 1),
                "max": round(times[-1] * 1000, 1),
            }
        return out


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted values (nearest rank)."""
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, max(0, round(q * len(sorted_values) + 0.5) - 1))]


def final_value(title: str, state: Any, seat: int) -> float:
    """What the title ranks a seat by at the end (its sampling module's ``final_value``)."""
    return float(strong.sampling_module(title).final_value(state, seat))


@dataclass(frozen=True)
class ArenaGame:
    """One arena game, as a worker process is handed it: ``bot`` at seat ``game % players``,
    ``against`` everywhere else; ``budget_ms`` and ``wall_clock`` size the strong bot's searches
    (see ``run``)."""

    title: str
    players: int
    game: int
    bot: str
    against: str
    seed: int
    budget_ms: float | None = None
    wall_clock: bool = False

    def play(self) -> GameResult:
        eng = registry.engine(self.title)
        bot_seat = self.game % self.players
        draws = random.Random(f"arena/{self.seed}/{self.game}/draws")
        times: list[float] = []
        mine = self._policy(self.bot, random.Random(f"arena/{self.seed}/{self.game}/bot"), times)
        theirs = self._policy(self.against, random.Random(f"arena/{self.seed}/{self.game}/against"), [])
        state = eng.new_game(eng.meta.options(), self.players)
        state, decisions = advance(eng, state, lambda seat: mine if seat == bot_seat else theirs, draws)
        if not eng.pending(state).finished:
            raise RuntimeError(f"{self.title} game {self.game} did not end")
        standings = eng.standings(state)
        first = [st.seat for st in standings if st.rank == 1]
        credit = tuple(1 / len(first) if i in first else 0.0 for i in range(self.players))
        final = tuple(final_value(self.title, state, i) for i in range(self.players))
        return GameResult(self.game, bot_seat, credit, final, decisions, tuple(times))

    def _policy(self, name: str, rng: random.Random, times: list[float]) -> Policy:
        """The bot ``name``'s policy in this game (the strong bot's decision times go to ``times``)."""
        eng = registry.engine(self.title)
        if name == "random":
            return lambda s, seat: rng.choice(eng.legal_decisions(s, seat))
        if name == "greedy":
            greedy = registry.bot(self.title)
            if greedy is None:
                raise LookupError(f"{self.title} has no greedy bot")
            return greedy

        def play_strong(s: Any, seat: int) -> Any:
            t0 = time.perf_counter()
            decision = strong.choose(
                self.title,
                s,
                seat,
                seed=rng.getrandbits(63),
                budget_ms=self.budget_ms,
                wall_clock=self.wall_clock,
            )
            times.append(time.perf_counter() - t0)
            return decision

        return play_strong


def run(
    title: str,
    players: int,
    games: int,
    bot: str,
    against: str,
    seed: int = 1,
    workers: int | None = None,
    progress: Callable[[Summary], None] | None = None,
    budget_ms: float | None = None,
    wall_clock: bool = False,
) -> Summary:
    """Play the arena's games (in ``workers`` processes; 1: in this one) and sum them up.
    ``budget_ms``: the strong bot's search size (default: each title's own), counted in engine
    steps; ``wall_clock``: its searches also stop at their wall-clock limit, as at a live table
    (on a busy machine they are then cut short, and a game replays exactly from its seed only
    when no search hit the limit)."""
    meta = registry.meta(title)
    if not meta.min_players <= players <= meta.max_players:
        raise ValueError(f"{meta.name} is for {meta.min_players} to {meta.max_players} players")
    for name in (bot, against):
        if name not in BOTS:
            raise ValueError(f"unknown bot {name!r}: one of {', '.join(BOTS)}")
    summary = Summary(title, players, games, bot, against, seed)
    jobs = [ArenaGame(title, players, g, bot, against, seed, budget_ms, wall_clock) for g in range(games)]
    workers = workers or min(os.cpu_count() or 1, 2)
    t0 = time.perf_counter()
    with _Results(jobs, workers) as results:
        for result in results:
            summary.results.append(result)
            summary.seconds = time.perf_counter() - t0
            if progress is not None:
                progress(summary)
    summary.results.sort(key=lambda r: r.game)
    return summary


class _Results:
    """The games' results as they finish, from a process pool (or in this process)."""

    def __init__(self, jobs: list[ArenaGame], workers: int) -> None:
        self.jobs = jobs
        self.workers = workers
        self.pool: Any = None

    def __enter__(self) -> Iterator[GameResult]:
        if self.workers <= 1 or len(self.jobs) <= 1:
            return (job.play() for job in self.jobs)
        self.pool = multiprocessing.get_context("spawn").Pool(self.workers)
        return self.pool.imap_unordered(ArenaGame.play, self.jobs)  # type: ignore[no-any-return]

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

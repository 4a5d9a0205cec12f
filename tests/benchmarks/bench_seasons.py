"""Seating a Swiss round: the pure procedure (``ledger.seating``) over a simulated season.

    python -m tests.benchmarks.bench_seasons

Every round is seated from the standings of the rounds before it (random places), so the later
rounds, where many pairs have met and start positions must even out, are measured too.
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections import Counter

from ledger.seating import lot, pair, seat_round


def season_times(players: int, rounds: int, low: int, high: int, seed: int = 1) -> tuple[list[float], int]:
    """Seconds to seat each round, and the repeats (pairs meeting again) over the season."""
    rng = random.Random(seed)
    ids = [f"p{i:04d}" for i in range(players)]
    key = bytes([seed]) * 32
    points: Counter[str] = Counter()
    met: Counter[tuple[str, str]] = Counter()
    positions = {p: [0] * high for p in ids}
    times, repeats = [], 0
    for r in range(1, rounds + 1):
        order = sorted(ids, key=lambda p: (-points[p], lot(key, r, p)))
        t = time.perf_counter()
        tables = seat_round(order, low, high, met, positions)
        times.append(time.perf_counter() - t)
        for table in tables:
            repeats += sum(met[pair(a, b)] for a, b in itertools.combinations(table, 2))
            for pos, p in enumerate(table):
                positions[p][pos] += 1
                points[p] += (4, 2, 1, 0)[rng.randrange(len(table))]
            for a, b in itertools.combinations(table, 2):
                met[pair(a, b)] += 1
    return times, repeats


def figures(quick: bool = False) -> list[tuple[str, str, str, bool]]:
    """(what, figure, goal, met) rows for the suite."""
    rows = []
    for players, rounds in ((200, 4 if quick else 8), (1000, 2 if quick else 4)):
        times, repeats = season_times(players, rounds, 3, 4)
        worst = max(times)
        rows.append(
            (
                f"seating {players} players at tables of 3-4, {rounds} Swiss rounds: median; slowest round",
                f"{statistics.median(times) * 1000:.0f} ms; {worst * 1000:.0f} ms ({repeats} repeats)",
                "≤ 1 s a round" if players == 200 else "",
                worst <= 1.0 or players != 200,
            )
        )
    return rows


if __name__ == "__main__":
    for what, figure, goal, _ in figures():
        print(f"{what}: {figure}  (goal {goal or '-'})")

"""The strong bot's decision times: one strong seat against three greedy ones, whole games.

    python -m tests.benchmarks.bench_bots [--games 3]

For each title, plays 4-player games in this process (seats rotated) and times every
decision the strong bot is asked for, with its default budget and wall-clock limit: the
median and p95 (goals: 50 ms and 500 ms), the slowest, and the share of games it won.
"""

from __future__ import annotations

import argparse
import statistics

from ledger import registry
from ledger.bots import arena


def measure(title: str, games: int, seed: int = 1) -> tuple[list[float], float]:
    """Every strong decision's seconds, sorted, and the strong seat's win share."""
    times: list[float] = []
    won = 0.0
    for g in range(games):
        result = arena.play_game(title, 4, g, "strong", "greedy", seed, wall_clock=True)
        times.extend(result.bot_times)
        won += result.credit[result.bot_seat]
    return sorted(times), won / games


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    print(f"{'title':<20} {'decisions':>9} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'won':>5}")
    for title in registry.TITLES:
        times, won = measure(title, args.games)
        print(
            f"{title:<20} {len(times):>9} {statistics.median(times) * 1000:>10.1f} "
            f"{arena.percentile(times, 0.95) * 1000:>8.1f} {times[-1] * 1000:>8.0f} {won:>5.0%}"
        )


if __name__ == "__main__":
    main()

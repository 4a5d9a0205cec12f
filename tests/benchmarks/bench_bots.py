"""The strong bot's decision times: one strong seat against three greedy ones, whole games.

    python -m tests.benchmarks.bench_bots [--games 3] [--stand-in]

For each title, plays 4-player games in this process (seats rotated) and times every
decision the strong bot is asked for, with its default budget and wall-clock limit (as a
stand-in at a live table): the median and p95 of the wall-clock time (goals: 50 ms and
500 ms), the same of the CPU time the process spent (what the machine's other work does not
inflate), the slowest, and the share of games it won. ``--stand-in`` times the stand-in
instead (``ledger.standin``: the strong bot with its small fixed budget, no wall-clock limit).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from ledger import registry
from ledger.bots import strong
from ledger.bots.arena import percentile
from ledger.bots.play import advance
from ledger.standin import stand_in_decision


def measure(
    title: str, games: int, seed: int = 1, stand_in: bool = False
) -> tuple[list[float], list[float], float]:
    """Every strong decision's wall-clock and CPU seconds (each sorted), and its win share."""
    eng = registry.engine(title)
    greedy = registry.bot(title)
    assert greedy is not None
    wall: list[float] = []
    cpu: list[float] = []
    won = 0.0
    for g in range(games):
        bot_seat = g % 4
        rng = random.Random(f"bench/{seed}/{g}")

        def play(s: Any, seat: int, rng: random.Random = rng) -> Any:
            t0, c0 = time.perf_counter(), time.process_time()
            if stand_in:
                decision = stand_in_decision(title, s, seat, b"bench", len(wall))
            else:
                decision = strong.choose(title, s, seat, seed=rng.getrandbits(63))
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            return decision

        state = eng.new_game(eng.meta.options(), 4)
        policies = {seat: play if seat == bot_seat else greedy for seat in range(4)}
        state, _ = advance(eng, state, policies.__getitem__, rng)
        first = [st.seat for st in eng.standings(state) if st.rank == 1]
        won += 1 / len(first) if bot_seat in first else 0.0
    return sorted(wall), sorted(cpu), won / games


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--stand-in", action="store_true", help="time the stand-in's decisions")
    args = parser.parse_args()
    print(
        f"{'title':<20} {'decisions':>9} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} "
        f"{'CPU median':>11} {'CPU p95':>8} {'won':>5}"
    )
    for title in registry.TITLES:
        wall, cpu, won = measure(title, args.games, stand_in=args.stand_in)
        print(
            f"{title:<20} {len(wall):>9} {statistics.median(wall) * 1000:>10.1f} "
            f"{percentile(wall, 0.95) * 1000:>8.1f} {wall[-1] * 1000:>8.0f} "
            f"{statistics.median(cpu) * 1000:>11.1f} {percentile(cpu, 0.95) * 1000:>8.1f} {won:>5.0%}",
            flush=True,
        )


if __name__ == "__main__":
    main()

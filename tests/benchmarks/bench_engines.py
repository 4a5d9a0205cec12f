"""Rules engines in memory: a whole random game decided and applied, and its replay.

    python -m tests.benchmarks.bench_engines [--games 5]

For each title at its largest player count: plays seeded random games (legal
decisions enumerated, one picked, applied; draws derived from a seed), then
replays each game's recorded decisions and draws from a fresh state. Prints
medians: ms per game and µs per decision to play; µs per event to replay.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from ledger import registry
from ledger.conformance import random_steps


def play(title: str, players: int, seed: int) -> tuple[float, list[tuple[Any, ...]], Any]:
    eng = registry.engine(title)
    rnd = random.Random(seed)
    moves: list[tuple[Any, ...]] = []
    t0 = time.perf_counter()
    s = eng.new_game(eng.meta.options(), players)
    for seat, move, after in random_steps(eng, s, rnd):
        moves.append((seat, move))
        s = after
    return time.perf_counter() - t0, moves, s


def replay(title: str, players: int, moves: list[tuple[Any, ...]]) -> tuple[float, Any]:
    eng = registry.engine(title)
    t0 = time.perf_counter()
    s = eng.new_game(eng.meta.options(), players)
    for seat, move in moves:
        s, _ = eng.apply_draw(s, move) if seat is None else eng.apply(s, seat, move)
    return time.perf_counter() - t0, s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    print(
        f"{'title':<14} {'players':>7} {'events':>7} {'play ms/game':>13} {'play µs/decision':>17} {'replay µs/event':>16}"
    )
    for title, meta in registry.TITLES.items():
        n = meta.max_players
        plays, per_decision, per_event, events = [], [], [], []
        for seed in range(args.games):
            dt, moves, final = play(title, n, seed)
            rt, again = replay(title, n, moves)
            assert again == final, "replay reproduces the game"
            plays.append(dt * 1000)
            per_decision.append(dt / len(moves) * 1e6)
            per_event.append(rt / len(moves) * 1e6)
            events.append(len(moves))
        print(
            f"{title:<14} {n:>7} {statistics.median(events):>7.0f} {statistics.median(plays):>13.0f} "
            f"{statistics.median(per_decision):>17.0f} {statistics.median(per_event):>16.0f}"
        )
    print("play includes enumerating the legal decisions at every step; replay applies the recorded ones")


if __name__ == "__main__":
    main()

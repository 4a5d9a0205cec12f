"""Fit a title's evaluation from greedy self-play: what a position is worth at the end.

    python -m ledger.bots.fit --title water-frame --games 400 [--seed 1]

Plays ``games`` greedy games in memory (4 players), records each seat's features (the title's
``features(state, seat)``) whenever a new round begins, and fits, per round, a least-squares
line from the features to the seat's final value (ridge-regularised on standardised features).
Writes ``ledger/games/<title>/evaluation.json``: the features' names, one row of coefficients per
round, and its provenance (this command, its arguments, the games' count). The strong bot's
rollouts that stop before the end score the position they reach with it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from ledger import registry
from ledger.bots.arena import final_value
from ledger.bots.play import advance

RIDGE = 1e-3  # on standardised features: keeps rare features from wild coefficients


def _sampling(title: str) -> Any:
    package = registry.meta(title).engine_module.rsplit(".", 1)[0]
    return importlib.import_module(f"{package}.sampling")


def samples(title: str, games: int, seed: int, players: int = 4) -> dict[int, list[tuple[list[float], float]]]:
    """(features, final value) per round begun, for every seat of ``games`` greedy games."""
    eng = registry.engine(title)
    greedy = registry.bot(title)
    if greedy is None:
        raise LookupError(f"{title} has no greedy bot")
    sampling = _sampling(title)
    out: dict[int, list[tuple[list[float], float]]] = defaultdict(list)
    for g in range(games):
        rng = random.Random(f"fit/{seed}/{g}")
        state = eng.new_game(eng.meta.options(), players)
        seen: dict[int, list[list[float]]] = {}

        def record(s: Any, seat: int, seen: dict[int, list[list[float]]] = seen) -> Any:
            p = sampling.progress(s)
            if p not in seen:
                seen[p] = [list(sampling.features(s, i)) for i in range(players)]
            return greedy(s, seat)

        state, _ = advance(eng, state, lambda _seat: record, rng)
        finals = [final_value(title, state, i) for i in range(players)]
        for p, rows in seen.items():
            for i, row in enumerate(rows):
                out[p].append((row, finals[i]))
    return out


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a small, well-conditioned system)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            continue
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] if abs(m[i][i]) >= 1e-12 else 0.0 for i in range(n)]


def fit(rows: list[tuple[list[float], float]]) -> list[float]:
    """Ridge least squares on standardised features; returns coefficients for the raw features
    with the intercept first."""
    k = len(rows[0][0])
    n = len(rows)
    means = [sum(r[0][j] for r in rows) / n for j in range(k)]
    scales = [(sum((r[0][j] - means[j]) ** 2 for r in rows) / n) ** 0.5 or 1.0 for j in range(k)]
    ys = [r[1] for r in rows]
    y_mean = sum(ys) / n
    xs = [[(r[0][j] - means[j]) / scales[j] for j in range(k)] for r in rows]
    ata = [[sum(x[i] * x[j] for x in xs) / n + (RIDGE if i == j else 0.0) for j in range(k)] for i in range(k)]
    aty = [sum(x[i] * (y - y_mean) for x, y in zip(xs, ys, strict=True)) / n for i in range(k)]
    w = _solve(ata, aty)
    coef = [w[j] / scales[j] for j in range(k)]
    intercept = y_mean - sum(c * m for c, m in zip(coef, means, strict=True))
    return [intercept, *coef]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--title", required=True, choices=sorted(registry.TITLES))
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    sampling = _sampling(args.title)
    data = samples(args.title, args.games, args.seed)
    rounds = {str(p): [round(c, 6) for c in fit(rows)] for p, rows in sorted(data.items()) if len(rows) >= 40}
    body = {
        "title": args.title,
        "provenance": (
            "derived: ridge least squares from each seat's features when a round begins to its final "
            f"value, over {args.games} four-player greedy self-play games (seed {args.seed}), by "
            f"python -m ledger.bots.fit --title {args.title} --games {args.games} --seed {args.seed}"
        ),
        "features": list(sampling.FEATURES),
        "coefficients_by_round": rounds,
    }
    path = Path(sampling.__file__).with_name("evaluation.json")
    path.write_text(json.dumps(body, indent=1) + "\n")
    sys.stdout.write(f"{path}: {len(rounds)} rounds, {sum(len(v) for v in data.values())} samples\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``gameledger arena``: one bot against the others over many in-memory games.

    gameledger arena --title water-frame --players 4 --games 200 --bot strong --against greedy

Progress goes to stderr; stdout gets each bot's win share and mean final value, then one
JSON line ``{"title", "games", "win_share": {...}, "mean_final": {...}, ...}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from ledger import registry
from ledger.bots import arena


def _say(text: str, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout  # looked up at each call: a test may have replaced it
    out.write(text + "\n")
    out.flush()


def _progress(summary: arena.Summary) -> None:
    """A line on stderr per game (rewritten in place on a terminal)."""
    done = len(summary.results)
    shares = summary.win_share()
    mine = summary.names()[0]
    eta = summary.seconds / done * (summary.games - done) if done else 0.0
    line = (
        f"game {done}/{summary.games}  {mine} wins {shares[mine]:.1%}  "
        f"{summary.seconds:.0f}s elapsed, about {eta:.0f}s to go"
    )
    if sys.stderr.isatty():
        sys.stderr.write("\r" + line + ("\n" if done == summary.games else ""))
        sys.stderr.flush()
    else:
        _say(line, sys.stderr)


def cmd_arena(args: argparse.Namespace) -> int:
    try:
        summary = arena.run(
            args.title,
            args.players,
            args.games,
            args.bot,
            args.against,
            seed=args.seed,
            workers=args.workers or None,
            progress=_progress,
            budget_ms=args.budget_ms,
            wall_clock=args.wall_clock,
        )
    except (ValueError, LookupError) as exc:
        _say(f"gameledger arena: {exc}", sys.stderr)
        return 2
    shares, finals = summary.win_share(), summary.mean_final()
    mine, theirs = summary.names()
    meta = registry.meta(args.title)
    _say(f"{meta.name}, {args.players} players, {len(summary.results)} games, {summary.seconds:.0f}s")
    _say(
        f"  {mine:<18} 1 seat   wins {shares[mine]:6.1%} (a fair share is {1 / args.players:.0%})  "
        f"mean final value {finals[mine]:.1f}"
    )
    _say(
        f"  {theirs:<18} {args.players - 1} seats  wins {shares[theirs]:6.1%}  "
        f"mean final value {finals[theirs]:.1f}"
    )
    times = summary.decision_times()
    if times:
        body = summary.as_json()["decision_ms"]
        _say(f"  strong bot: {len(times)} decisions, median {body['median']} ms, p95 {body['p95']} ms")
    _say(json.dumps(summary.as_json()))
    return 0

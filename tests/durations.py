"""Where the test run's time goes: ``pytest --durations=0`` output grouped by test file and by
phase (fixture setup, the test's call, teardown), as the README's table shows it.

    pytest --durations=0 -q > run.txt
    python -m tests.durations run.txt [more.txt ...]   # a later file's lines replace an earlier's

Prints one Markdown row a file (slowest first): its tests, the seconds of setup, call and
teardown summed over them, its total and its slowest test; then the totals.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"^(\d+(?:\.\d+)?)s (setup|call|teardown)\s+(\S+?\.py)::(\S.*)$")


def read(paths: list[str]) -> dict[tuple[str, str], dict[str, float]]:
    """{(file, test): {phase: seconds}}; a file named again later replaces its earlier lines."""
    tests: dict[tuple[str, str], dict[str, float]] = {}
    for path in paths:
        found: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
        for line in Path(path).read_text().splitlines():
            m = LINE.match(line.strip())
            if m:
                seconds, phase, file, test = m.groups()
                found[(file, test)][phase] = float(seconds)
        files = {f for f, _ in found}
        tests = {k: v for k, v in tests.items() if k[0] not in files} | dict(found)
    return tests


def table(tests: dict[tuple[str, str], dict[str, float]], top: int = 0) -> str:
    per: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    slowest: dict[str, tuple[float, str]] = {}
    for (file, test), phases in tests.items():
        total = sum(phases.values())
        per[file]["tests"] += 1
        for phase, seconds in phases.items():
            per[file][phase] += seconds
        if total > slowest.get(file, (0.0, ""))[0]:
            slowest[file] = (total, test)
    rows = sorted(per.items(), key=lambda kv: -(kv[1]["setup"] + kv[1]["call"] + kv[1]["teardown"]))
    out = [
        "| file | tests | setup s | call s | teardown s | total s | slowest test s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    shown = rows[:top] if top else rows
    for file, p in shown:
        total = p["setup"] + p["call"] + p["teardown"]
        out.append(
            f"| {Path(file).name} | {int(p['tests'])} | {p['setup']:.0f} | {p['call']:.0f} | "
            f"{p['teardown']:.0f} | {total:.0f} | {slowest[file][0]:.1f} |"
        )
    if top and len(rows) > top:
        rest = rows[top:]
        r = {k: sum(p[k] for _, p in rest) for k in ("tests", "setup", "call", "teardown")}
        out.append(
            f"| {len(rest)} other files | {int(r['tests'])} | {r['setup']:.0f} | {r['call']:.0f} | "
            f"{r['teardown']:.0f} | {r['setup'] + r['call'] + r['teardown']:.0f} | |"
        )
    t = {k: sum(p[k] for _, p in rows) for k in ("tests", "setup", "call", "teardown")}
    out.append(
        f"| **all {len(rows)} files** | {int(t['tests'])} | {t['setup']:.0f} | {t['call']:.0f} | "
        f"{t['teardown']:.0f} | {t['setup'] + t['call'] + t['teardown']:.0f} | |"
    )
    return "\n".join(out)


def main(argv: list[str]) -> int:
    top = 0
    if argv and argv[0].startswith("--top="):
        top = int(argv.pop(0).split("=", 1)[1])
    if not argv:
        print(__doc__)  # noqa: T201
        return 2
    print(table(read(argv), top))  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

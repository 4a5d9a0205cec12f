"""What the events table's EXCLUSIVE lock costs under concurrent writers (issue 29, item 3):
``threads`` writers for ``seconds`` each commit one 1 KB row at a time into a table shaped like
the library's events table (a notification id from a sequence), once without a lock and once
taking ``LOCK TABLE ... IN EXCLUSIVE MODE`` first, as the library's PostgreSQL recorder does so
that notification ids commit in order; then the library's own save of one event.

    python -m tests.benchmarks.bench_lock [--database-url postgresql://...] [--threads 6] [--seconds 8]
"""

from __future__ import annotations

import argparse
import os
import threading
import time

import psycopg

from ledger.storage import parse_database_url
from tests.benchmarks.run import PG_DEFAULT, library_rate, pg_schema


def rate(url: str, schema: str, threads: int, seconds: float, lock: bool) -> tuple[float, float]:
    """Commits per second, and the median commit in ms, of ``threads`` writers."""
    payload = os.urandom(1000)
    counts = [0] * threads
    times: list[list[float]] = [[] for _ in range(threads)]
    stop = time.monotonic() + seconds

    def loop(i: int) -> None:
        with psycopg.connect(url, autocommit=False) as conn:
            conn.execute(f"SET search_path TO {schema}")
            version = 0
            while time.monotonic() < stop:
                t = time.perf_counter()
                with conn.transaction():
                    if lock:
                        conn.execute("LOCK TABLE bench_events IN EXCLUSIVE MODE")
                    conn.execute(
                        "INSERT INTO bench_events (originator_id, originator_version, topic, state) "
                        "VALUES (%s, %s, 'x', %s)",
                        (f"w{i}", version, payload),
                    )
                times[i].append(time.perf_counter() - t)
                version += 1
                counts[i] += 1

    t0 = time.monotonic()
    ts = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    every = sorted(x for ts_ in times for x in ts_)
    return sum(counts) / (time.monotonic() - t0), every[len(every) // 2] * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--database-url", default=PG_DEFAULT)
    parser.add_argument("--threads", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=8)
    args = parser.parse_args(argv)
    with pg_schema(args.database_url) as url:
        schema = url.rsplit("schema=", 1)[-1]
        base = parse_database_url(args.database_url).conninfo()
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"SET search_path TO {schema}")
            conn.execute(
                "CREATE TABLE bench_events (originator_id text, originator_version int, topic text, "
                "state bytea, notification_id bigserial, PRIMARY KEY (originator_id, originator_version))"
            )
        for lock in (False, True, False, True):
            r, m = rate(base, schema, args.threads, args.seconds, lock)
            print(
                f"raw INSERT + COMMIT, {args.threads} writers, {'EXCLUSIVE lock' if lock else 'no lock'}: "
                f"{r:,.0f}/s (median transaction {m:.2f} ms; with the lock most wait for it in the GIL, not in the lock)",
                flush=True,
            )
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f"TRUNCATE {schema}.bench_events")
        print(
            f"library save of one event, {args.threads} threads: {library_rate(url, args.threads, args.seconds):,.0f}/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Projection catch-up throughput on 100,000 stored events.

    python -m tests.benchmarks.bench_projections [--events 100000] [--database-url URL] [--repeat 3]

Plays a handful of real Cotton Trade games through the ledger, copies their
stored events under new game ids until the log holds the requested number of
events, then times, for each projection, a catch-up from an empty view in
batched commits (``Catchup.run``) and a one-transaction rebuild; and, as the
floor, the library's own read of the whole log (notifications selected in
batches, with and without decoding them into domain events). Prints medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid
from dataclasses import replace

import psycopg

from api.services import PROJECTIONS, Services
from api.settings import Settings
from ledger.conformance import ledger_playout
from ledger.storage import parse_database_url


def fill(services: Services, events: int) -> int:
    app = services.ledger
    lg = app.create_league(creator="admin", name=f"bench-{uuid.uuid4().hex[:6]}")
    games = [ledger_playout(app, "cotton-trade", 4, seed=s, league=str(lg.id)).game_id for s in range(5)]
    originals = [list(app.recorder.select_events(uuid.UUID(g))) for g in games]
    total = app.recorder.max_notification_id() or 0
    batch: list = []
    while total < events:
        for stored in originals:
            new_id = uuid.uuid4()
            batch.extend(replace(e, originator_id=new_id) for e in stored)
            total += len(stored)
            if len(batch) >= 2000:
                app.recorder.insert_events(batch)
                batch = []
            if total >= events:
                break
    if batch:
        app.recorder.insert_events(batch)
    return app.recorder.max_notification_id() or 0


def floor(services: Services, decode: bool) -> float:
    app = services.ledger
    start, n, t0 = 0, 0, time.perf_counter()
    while True:
        ns = app.recorder.select_notifications(start=start, limit=2000, inclusive_of_start=False)
        if not ns:
            break
        if decode:
            for x in ns:
                app.mapper.to_domain_event(x)
        n += len(ns)
        start = ns[-1].id
    return n / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--database-url",
        default=os.environ.get("GAMELEDGER_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"),
    )
    args = parser.parse_args()
    url = args.database_url
    schema = None
    if url.startswith("postgres"):
        schema = "bench_" + uuid.uuid4().hex[:8]
        url += ("&" if "?" in url else "?") + f"schema={schema}"
    services = Services.start(Settings(database_url=url))
    try:
        t0 = time.perf_counter()
        head = fill(services, args.events)
        print(
            f"log: {head} events ({parse_database_url(url).kind}), filled in {time.perf_counter() - t0:.1f}s"
        )
        rows = [
            ("library read (select only)", [floor(services, False) for _ in range(args.repeat)]),
            ("library read + decode", [floor(services, True) for _ in range(args.repeat)]),
        ]
        for name in PROJECTIONS:
            catchup = services.catchups[name]
            view = catchup.projection.view
            runs, rebuilds = [], []
            for _ in range(args.repeat):
                with view.datastore.transaction(commit=True) as c:
                    view.clear(c, services.ledger.name)
                t = time.perf_counter()
                catchup.run()
                runs.append(head / (time.perf_counter() - t))
                t = time.perf_counter()
                catchup.rebuild()
                rebuilds.append(head / (time.perf_counter() - t))
            rows.append((f"{name}: catch-up (batched commits)", runs))
            rows.append((f"{name}: rebuild (one transaction)", rebuilds))
        print(f"{'what':<44} {'events/s (median)':>18} {'min':>10} {'max':>10}")
        for what, values in rows:
            print(
                f"{what:<44} {statistics.median(values):>18,.0f} {min(values):>10,.0f} {max(values):>10,.0f}"
            )
        print("events/s counts every notification in the log, whether or not the projection reads its topic")
    finally:
        services.close()
        if schema:
            db = parse_database_url(args.database_url)
            with psycopg.connect(db.conninfo(), autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()

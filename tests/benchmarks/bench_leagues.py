"""League statistics at scale: the league, title and player pages over 10,000 finished games.

    python -m tests.benchmarks.bench_leagues [--games 10000] [--database-url postgresql://...]

How the 10,000 games are made (playing them would take hours): a few real games of each title
are played through the ledger and projected as usual; their read-model rows (each seat's
result and measures) are then copied in bulk under new game ids, with players drawn from 200
registered people, into 21 leagues (7 per title), finishing one after another over a year.
The projection's own code then computes what it computes when games finish: the leagues'
ratings, the ratings per title and every published figure (leagues, titles, players). Then
each page and its API answer is requested in-process (the server's time, no network) and
timed; and, on a log of real events, the league statistics' catch-up rate.

``leagues_section`` is the ``leagues`` section of ``python -m tests.benchmarks.run``.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services
from api.settings import Settings
from ledger.conformance import ledger_playout
from projections.base import DocTable
from tests.benchmarks import run

TITLES = ("water-frame", "arkwright-card-game", "cotton-trade")
ADMIN_TOKEN = "bench-admin-token-0123456789abcdef"
PEOPLE = 200
LEAGUES_PER_TITLE = 7


def build(services: Services, games: int, seed: int = 27) -> dict[str, Any]:
    """The world of ``games`` finished games in the read models; what the pages need to name."""
    rnd = random.Random(seed)
    ledger = services.ledger
    registered = [ledger.register_player(f"Player {i:03d}") for i in range(PEOPLE)]
    people = [str(pid) for pid, _ in registered]
    leagues = {
        title: [
            str(
                ledger.create_league(
                    creator="admin", name=f"{title} league {k}", title=title, for_bots=True
                ).id
            )
            for k in range(LEAGUES_PER_TITLE)
        ]
        for title in TITLES
    }
    samples = {title: [] for title in TITLES}
    for title in TITLES:  # real games: their rows are the copies' patterns
        for s in range(2):
            result = ledger_playout(ledger, title, 2 + s, seed=seed + s, greedy=title == "water-frame")
            samples[title].append(result.game_id)
    services.refresh()
    view = services.view("leaguestats")
    patterns: dict[str, list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]] = {}
    for title, ids in samples.items():
        for gid in ids:
            seats = view.rows(f"SELECT * FROM {view.t('results')} WHERE game_id = %s ORDER BY seat", [gid])
            measured = view.rows(f"SELECT * FROM {view.t('measures')} WHERE game_id = %s", [gid])
            patterns.setdefault(title, []).append((seats, measured))
    start = datetime(2025, 1, 1, tzinfo=UTC)
    results, measures, league_games, docs = [], [], [], []
    for i in range(games):
        title = TITLES[i % 3]
        seats, measured = rnd.choice(patterns[title])
        gid = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
        players = rnd.sample(people, len(seats))
        at = (start + timedelta(minutes=50 * i)).isoformat()
        league = leagues[title][(i // 3) % LEAGUES_PER_TITLE]
        for r, p in zip(seats, players, strict=True):
            results.append(
                [
                    gid,
                    r["seat"],
                    p,
                    title,
                    r["players"],
                    r["rank"],
                    r["won"],
                    r["final_value"],
                    r["start_position"],
                    r["decisions"],
                    r["days"],
                    at,
                    r["outcome"],
                ]
            )
        measures.extend([gid, m["seat"], m["name"], m["value"]] for m in measured)
        league_games.append([league, gid, at])
        doc = {"title": title, "status": "finished", "players": players, "finished_at": at}
        docs.append([gid, json.dumps(doc), "finished", title])
    projection = services.catchups["leaguestats"].projection
    t0 = time.perf_counter()
    with view.datastore.transaction(commit=True) as c:
        view.executemany(
            c,
            f"INSERT INTO {view.t('results')} (game_id, seat, player_id, title, players, rank, won, final_value,"
            " start_position, decisions, days, finished_at, outcome)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            results,
        )
        view.executemany(c, f"INSERT INTO {view.t('measures')} VALUES (%s, %s, %s, %s)", measures)
        view.executemany(c, f"INSERT INTO {view.t('league_games')} VALUES (%s, %s, %s)", league_games)
        view.executemany(
            c, f"INSERT INTO {view.t('games')} (game_id, doc, status, title) VALUES (%s, %s, %s, %s)", docs
        )
    inserted = time.perf_counter() - t0
    t0 = time.perf_counter()
    with view.datastore.transaction(commit=True) as c:  # what the projection does as games finish
        for ids in leagues.values():
            for league_id in ids:
                projection._rate(c, league_id)
        projection._rate_titles(c, set(TITLES), [], {})
        figures: dict[str, dict[str, Any]] = {}
        for ids in leagues.values():
            for league_id in ids:
                figures[f"league:{league_id}"] = view.league(league_id, c=c)
        for title in TITLES:
            figures[f"title:{title}"] = view.title_stats(title, c=c)
        for p in people:
            figures[f"player:{p}"] = view.player_stats(p, c=c)
        DocTable(view, "figures", key="key").save(c, figures)
    computed = time.perf_counter() - t0
    services.refresh()
    return {
        "people": people,
        "token": registered[0][1],
        "leagues": leagues,
        "seats": len(results),
        "inserted": inserted,
        "computed": computed,
    }


def time_pages(
    services: Services, settings: Settings, world: dict[str, Any], n: int
) -> list[tuple[str, list[float]]]:
    """Each page and API answer requested ``n`` times in-process (after one warm-up)."""
    league = world["leagues"]["water-frame"][0]
    player = world["people"][0]
    targets = [
        ("league page", f"/leagues/{league}"),
        ("title page (Water Frame)", "/titles/water-frame"),
        ("title page (Cotton Trade)", "/titles/cotton-trade"),
        ("player page", f"/players/{player}"),
        ("API: league", f"/api/v1/leagues/{league}"),
        ("API: title statistics", "/api/v1/titles/water-frame/stats"),
        ("API: player statistics", f"/api/v1/players/{player}/stats"),
    ]
    out = []
    with TestClient(create_app(settings, services)) as client:
        client.cookies.set("gl_token", world["token"])
        headers = {"Authorization": f"Bearer {world['token']}"}
        for what, path in targets:
            first = client.get(path, headers=headers)
            assert first.status_code == 200, (path, first.status_code, first.text[:300])
            times = []
            for _ in range(n):
                t = time.perf_counter()
                client.get(path, headers=headers)
                times.append(time.perf_counter() - t)
            out.append((what, times))
    return out


def catchup_rate(pg_url: str, events: int) -> tuple[int, float]:
    """The league statistics' catch-up rate from an empty view over a log of real games."""
    from tests.benchmarks.bench_projections import fill

    with run.pg_schema(pg_url) as url, tempfile.TemporaryDirectory() as data:
        services = Services.start(Settings(database_url=url, data_dir=Path(data)))
        try:
            head = fill(services, events)
            catchup = services.catchups["leaguestats"]
            view = catchup.projection.view
            rates = []
            for _ in range(2):
                with view.datastore.transaction(commit=True) as c:
                    view.clear(c, services.ledger.name)
                catchup._known = None  # forget where this process left it: from the start
                t = time.perf_counter()
                catchup.run()
                rates.append(head / (time.perf_counter() - t))
            return head, run.median(rates)
        finally:
            services.close()


def leagues_section(report: run.Report, pg_url: str, quick: bool) -> None:
    games = 2_000 if quick else 10_000
    print(f"league statistics: {games:,} finished games, PostgreSQL", flush=True)
    with run.pg_schema(pg_url) as url, tempfile.TemporaryDirectory() as data:
        settings = Settings(database_url=url, data_dir=Path(data), admin_token=ADMIN_TOKEN)
        services = Services.start(settings)
        try:
            world = build(services, games)
            report.add(
                "leagues",
                f"{games:,} games ({world['seats']:,} results) into the read model: bulk insert, then"
                " ratings and every figure computed by the projection's code",
                f"{world['inserted']:.1f} s + {world['computed']:.1f} s",
            )
            for what, times in time_pages(services, settings, world, 10 if quick else 30):
                report.add(
                    "leagues",
                    f"{what}, {games:,} games (server time, median / p99)",
                    f"{run.ms(run.median(times))} / {run.ms(run.p99(times))}",
                    "≤ 50 ms",
                    run.verdict(run.median(times) <= 0.050),
                )
        finally:
            services.close()
    head, rate = catchup_rate(pg_url, 10_000 if quick else 30_000)
    report.add(
        "leagues",
        f"league statistics: catch-up of {head:,} events (finished games: results, ratings, figures)",
        f"{rate:,.0f} events/s",
        "≥ 20,000/s",
        run.verdict(rate >= 20_000),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--database-url", default=run.PG_DEFAULT)
    args = parser.parse_args()
    report = run.Report()
    leagues_section(report, args.database_url, args.quick)
    print(report.table())


if __name__ == "__main__":
    main()

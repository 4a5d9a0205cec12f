"""The first GET of a game by a process, in process, part by part (issue 29).

    python -m tests.benchmarks.first_read [--sqlite] [--reads 40] [--lengths 100 1000 10000]
                                          [--keep FILE] [--profile N] [--http N [--only-http]]

Builds Water Frame games as the suite's load section does (real decisions, padded with refused
undo requests to the length, then real decisions up to just before the next snapshot: the
longest tail), catches the read models up (the players' names come from the game index, as in
a server), then, ``--reads`` times a length, with nothing of the game, its players, the
token or the names in this process's memory before each (the cache's entries evicted, the
verified tokens and the kept names forgotten), times:

- the whole hot-route GET through the app (the test client's own share included);
- the load alone (``Ledger.get_game``);
- the token's verification from the store alone (``Ledger.verify_token``);
- the answer alone (``game_out`` for a loaded game: the view, legal decisions, names);
- a warm GET (the game cached, the token known): the request's own path around the game.

Prints the median of each. ``--keep FILE`` keeps the built games (the PostgreSQL schema or
the SQLite file, and the games' ids and tokens in FILE) and reuses them when FILE exists, so
that runs of two versions of the code can alternate on the same data. ``--profile N`` then
runs cProfile over N loads of the middle length's game and prints the top functions.
``--http N`` also starts a real ``gameledger serve`` (the suite's harness) and reads each of N
games of about 112 events once, its first GET by that process, then again (p50 of each);
``--only-http`` leaves out the in-process parts.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import cProfile
import json
import pstats
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from api.services import Services
from api.settings import Settings
from tests.benchmarks.run import PG_DEFAULT, make_game, median, pad, pg_schema, play_to

MAX_READS = 10_000


@contextlib.contextmanager
def store(pg_url: str, sqlite: bool, kept: dict[str, Any] | None, keep: bool) -> Iterator[str]:
    """The database URL to build in (or reuse), dropped afterwards unless kept."""
    if kept is not None:
        yield str(kept["url"])
        return
    if sqlite:
        d = tempfile.mkdtemp(prefix="gl-first-read-")
        try:
            yield f"sqlite:///{d}/ledger.sqlite3"
        finally:
            if not keep:
                shutil.rmtree(d, ignore_errors=True)
        return
    with pg_schema(pg_url, "firstread_", keep) as url:
        yield url


def build(services: Services, lengths: list[int]) -> list[dict[str, Any]]:
    games = []
    interval = services.ledger.game_snapshot_intervals["water-frame"]
    for length in lengths:
        made = make_game(services, "water-frame", 4, 30, 40 + length)
        pad(services, made, length - 1)
        version = play_to(services, made, length + interval - 8, random.Random(length))
        games.append({"version": version, "game_id": made.game_id, "token": made.tokens[0]})
    return games


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--database-url", default=PG_DEFAULT)
    p.add_argument("--sqlite", action="store_true")
    p.add_argument("--reads", type=int, default=40)
    p.add_argument("--lengths", type=int, nargs="+", default=[100, 1000, 10000])
    p.add_argument("--keep", type=Path, default=None)
    p.add_argument("--profile", type=int, default=0)
    p.add_argument("--http", type=int, default=0, help="also N first GETs over HTTP, one a game")
    p.add_argument("--only-http", action="store_true")
    args = p.parse_args(argv)
    reads = max(1, min(args.reads, MAX_READS))
    kept = json.loads(args.keep.read_text()) if args.keep and args.keep.exists() else None

    from fastapi.testclient import TestClient

    from api import presenters
    from api.app import create_app
    from api.deps import player_caller

    with store(args.database_url, args.sqlite, kept, args.keep is not None) as url:
        data = tempfile.mkdtemp(prefix="gl-first-read-data-")
        atexit.register(shutil.rmtree, data, True)
        settings = Settings(database_url=url, data_dir=Path(data), projections="off")
        services = Services.start(settings)
        try:
            games = kept["games"] if kept is not None else build(services, args.lengths)
            built = list(games)
            http_games = (kept or {}).get("http_games", [])
            if len(http_games) < min(args.http, 200):
                http_games += build(services, [100] * (min(args.http, 200) - len(http_games)))
            if args.keep:
                args.keep.write_text(json.dumps({"url": url, "games": games, "http_games": http_games}))
            for catchup in services.catchups.values():  # the game index holds the players' names
                catchup.run()
            app = services.ledger
            cache = app.repository.cache

            def forget(*ids: str) -> None:
                for i in ids:
                    with contextlib.suppress(KeyError):
                        if cache is not None:
                            cache.get(uuid.UUID(i), evict=True)
                app._authenticated.clear()
                presenters._NAMES.clear()

            if args.only_http:
                games = []
            with TestClient(create_app(settings, services)) as client:
                warm = games[0] if games else built[0]
                client.get(
                    f"/api/v1/games/{warm['game_id']}", headers={"Authorization": f"Bearer {warm['token']}"}
                )
                print(
                    f"{'events':>7} {'whole GET':>10} {'load':>8} {'token':>8} {'answer':>8} {'warm GET':>9}"
                    f"   (ms, medians of {reads})"
                )
                for g in games:
                    gid, token = g["game_id"], g["token"]
                    pid = uuid.UUID(hex=token.split("_")[1])
                    headers = {"Authorization": f"Bearer {token}"}
                    times: dict[str, list[float]] = {
                        "whole": [],
                        "load": [],
                        "token": [],
                        "answer": [],
                        "warm": [],
                    }

                    def timed(what: str, fn: Callable[[], Any], times: dict[str, list[float]] = times) -> Any:
                        t = time.perf_counter()
                        out = fn()
                        times[what].append(time.perf_counter() - t)
                        return out

                    for _ in range(reads):
                        forget(gid, str(pid))
                        r = timed(
                            "whole",
                            lambda gid=gid, headers=headers: client.get(
                                f"/api/v1/games/{gid}", headers=headers
                            ),
                        )
                        assert r.status_code == 200, r.text
                        forget(gid, str(pid))
                        game = timed("load", lambda gid=gid: app.get_game(gid))
                        forget(gid, str(pid))
                        player, token_id = timed("token", lambda token=token: app.verify_token(token))
                        caller = player_caller(player, token_id)
                        presenters._NAMES.clear()
                        timed(
                            "answer",
                            lambda game=game, caller=caller: presenters.Answer(
                                presenters.game_out(services, game, caller)
                            ),
                        )
                        client.get(
                            f"/api/v1/games/{gid}", headers=headers
                        )  # the game cached, the token known
                        timed(
                            "warm",
                            lambda gid=gid, headers=headers: client.get(
                                f"/api/v1/games/{gid}", headers=headers
                            ),
                        )
                    m = {k: median(v) * 1000 for k, v in times.items()}
                    print(
                        f"{g['version']:>7} {m['whole']:>10.2f} {m['load']:>8.2f} {m['token']:>8.2f} {m['answer']:>8.2f} {m['warm']:>9.2f}",
                        flush=True,
                    )
            if http_games and args.http:
                over_http(
                    url,
                    data,
                    kept_games=built,
                    http_games=http_games[: args.http],
                )
            if args.profile and games:
                g = games[len(games) // 2]
                prof = cProfile.Profile()
                for _ in range(min(args.profile, MAX_READS)):
                    forget(g["game_id"])
                    prof.enable()
                    app.get_game(g["game_id"])
                    prof.disable()
                pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
        finally:
            services.close()
    return 0


def over_http(
    url: str, data: str, kept_games: list[dict[str, Any]], http_games: list[dict[str, Any]]
) -> None:
    """A real ``gameledger serve`` (the suite's harness), its first request on another game, then
    each game's first GET by it, once a game (a first read can happen once a game a process)."""
    from tests import loadkit as lk
    from tests.benchmarks.run import settle, start_server

    server = start_server(url, data)
    try:
        settle(server)
        client = lk.Api(server.url)
        warm = kept_games[0] if kept_games else http_games[0]
        client.call("GET", f"/games/{warm['game_id']}", warm["token"])  # the process's first request
        first, then = [], []
        for g in http_games:
            t = time.perf_counter()
            status, _ = client.call("GET", f"/games/{g['game_id']}", g["token"])
            first.append(time.perf_counter() - t)
            assert status == 200, status
            t = time.perf_counter()
            client.call("GET", f"/games/{g['game_id']}", g["token"])
            then.append(time.perf_counter() - t)
        print(
            f"over HTTP, {len(http_games)} games of {http_games[0]['version']}-{http_games[-1]['version']} events: "
            f"first GET p50 {median(first) * 1000:.2f} ms (p90 {sorted(first)[int(0.9 * (len(first) - 1))] * 1000:.2f}), "
            f"then {median(then) * 1000:.2f} ms",
            flush=True,
        )
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())

"""The ``gameledger`` command: serve, db init, simulate, verify, export, import, backup."""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from api.settings import Settings


def _settings(args: argparse.Namespace) -> Settings:
    return Settings.from_env(
        config=getattr(args, "config", None),
        data_dir=getattr(args, "data_dir", None),
        database_url=getattr(args, "database_url", None),
    )


def cmd_serve(args: argparse.Namespace) -> int:
    import logging
    import tempfile

    import uvicorn

    from api.observability import configure_logging, logging_config
    from api.services import initialise

    settings = _settings(args)
    level = args.log_level or settings.log_level
    configure_logging(settings.log_format, level)
    if args.config:  # the worker processes read the same file
        os.environ["GAMELEDGER_CONFIG"] = str(Path(args.config).resolve())
    if settings.init_db:
        initialise(settings)  # migrations once, under a lock; the workers then skip it
    os.environ["GAMELEDGER_DATABASE_URL"] = settings.effective_database_url
    os.environ["GAMELEDGER_DATA_DIR"] = str(settings.data_dir)
    os.environ["GAMELEDGER_SKIP_INIT"] = "1"
    if args.workers > 1 and settings.metrics and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # the workers' metrics, added up by whichever worker answers /metrics
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="gameledger-metrics-")
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # a fresh start: last run's files would add up
        metrics_dir = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
        metrics_dir.mkdir(parents=True, exist_ok=True)
        for stale in metrics_dir.glob("*.db"):
            stale.unlink()
    logging.getLogger("gameledger").info(
        "serving %s on http://%s:%s with %s worker(s)",
        settings.effective_database_url.split("@")[-1],
        args.host,
        args.port,
        args.workers,
    )
    import signal

    # uvicorn re-raises the SIGTERM it handled once it has shut down gracefully; with this
    # handler in place the process then ends with status 0 (a clean stop) instead of 143
    signal.signal(signal.SIGTERM, lambda *_: None)
    uvicorn.run(
        "api.app:app_from_env",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=level,
        log_config=logging_config(settings.log_format, level),
        access_log=False,  # the request middleware writes one line per request, with its id
        proxy_headers=True,
        timeout_graceful_shutdown=int(settings.shutdown_timeout) or None,
    )
    logging.getLogger("gameledger").info("stopped")
    return 0


def cmd_db_init(args: argparse.Namespace) -> int:
    """db init and db migrate: apply every pending migration (idempotent, under a lock)."""
    from api.migrations import LATEST, migrate
    from ledger.storage import parse_database_url

    settings = _settings(args)
    db = parse_database_url(settings.effective_database_url, pool_size=settings.pool_size)
    applied = migrate(db, log=print)
    where = settings.effective_database_url.split("@")[-1]
    if not applied:
        print(f"nothing to migrate: {db.kind} ({where}) is at schema version {LATEST}")
    print(f"tables ready in {db.kind} ({where}), schema version {LATEST}")
    return 0


def cmd_db_status(args: argparse.Namespace) -> int:
    from api.migrations import status
    from ledger.storage import parse_database_url

    settings = _settings(args)
    db = parse_database_url(settings.effective_database_url, pool_size=settings.pool_size)
    rows = status(db)
    print(f"{'version':>7}  {'applied at':<26}  migration")
    for r in rows:
        print(f"{r['version']:>7}  {r['applied_at'] or 'PENDING':<26}  {r['name']}")
    waiting = [r["version"] for r in rows if r["applied_at"] is None]
    print(f"{len(waiting)} pending" + (": run gameledger db migrate" if waiting else ""))
    return 1 if waiting and args.check else 0


def cmd_config(args: argparse.Namespace) -> int:
    import json

    from api.settings import ENV, reference_markdown

    if args.action == "reference":
        print(reference_markdown(), end="")
        return 0
    settings = _settings(args)
    if args.action == "env":
        for name, value in settings.public().items():
            print(f"{ENV[name]}={value}")
        return 0
    print(json.dumps(settings.public(), indent=2))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    import random

    from api.services import Services
    from ledger import registry
    from ledger.conformance import ledger_playout, random_playout

    registry.meta(args.title)
    if args.bot != "random" and registry.bot(args.title) is None:
        print(f"{args.title} has no greedy bot; use --bot random")
        return 2
    options: dict[str, object] = dict(item.partition("=")[::2] for item in args.option or [])
    try:  # refuse a bad option before playing (pydantic turns "true" or "3" into the field's type)
        options = (
            registry.meta(args.title)
            .options.model_validate(options)
            .model_dump(mode="json", exclude_defaults=True)
        )
    except ValueError as exc:
        print(f"bad --option: {exc}")
        return 2
    used: Counter[str] = Counter()
    if args.in_memory:
        args.database_url = f"sqlite:///file:sim-{uuid.uuid4().hex}?mode=memory&cache=shared"
    settings = _settings(args)
    services = Services.start(settings)
    app = services.ledger
    app.entropy = random.Random(f"simulate-{args.seed}").randbytes  # reproducible game seeds
    league = None
    if args.league:
        from ledger.errors import NotFoundError

        try:
            league = app.get_league(args.league)
        except NotFoundError:
            league = app.create_league(creator="admin", name=args.league, title=None)
    totals: Counter[str] = Counter()
    winners: Counter[str] = Counter()
    started = time.perf_counter()
    where = "memory" if args.in_memory else settings.effective_database_url.split("@")[-1]
    print(
        f"simulating {args.games} games of {args.title} with {args.players} players (seed {args.seed}, {where})"
    )
    for g in range(args.games):
        seed = args.seed * 1_000_003 + g
        t0 = time.perf_counter()
        greedy = args.bot == "greedy" or (args.bot == "mixed" and g % 2 == 1)
        random_playout(args.title, args.players, seed, options, greedy=greedy)  # checks at every step
        result = ledger_playout(  # through the ledger, then its record verified
            app,
            args.title,
            args.players,
            seed,
            options,
            league=str(league.id) if league else None,
            greedy=greedy,
        )
        for kind in result.kinds:
            used[kind] += 1
        totals["decisions"] += result.decisions
        totals["events"] += result.events
        totals["draws"] += result.draws
        for w in result.winners:
            winners[f"seat {w}"] += 1
        print(
            f"  game {g + 1:>3}/{args.games}: {result.decisions:>4} decisions, {result.events:>4} events, "
            f"winner(s) {','.join(map(str, result.winners))}, {time.perf_counter() - t0:.2f}s  [conformance ok]",
            flush=True,
        )
    seconds = time.perf_counter() - started
    services.refresh()
    services.close()
    rows = [
        ("title", args.title),
        ("players", args.players),
        ("games", args.games),
        ("decisions", totals["decisions"]),
        ("draws", totals["draws"]),
        ("events", totals["events"]),
        ("seconds", f"{seconds:.2f}"),
        ("decisions/s", f"{totals['decisions'] / seconds:.0f}"),
        ("wins by seat", ", ".join(f"{k}: {v}" for k, v in sorted(winners.items()))),
    ]
    if league is not None:
        rows.append(("league", f"{league.name} ({league.id})"))
    if options:
        rows.append(("options", ", ".join(f"{k}={v}" for k, v in options.items())))
    watched = registry.meta(args.title).highlights
    seen = [f"{k} {used[k]}" for k in watched if used[k]]
    if seen:
        rows.append(("games using", ", ".join(seen)))
    width = max(len(k) for k, _ in rows)
    print("-" * (width + 40))
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    print("conformance: every game passed (legal moves, conservation, secrets, record verified)")
    return 0


def cmd_projections(args: argparse.Namespace) -> int:
    import logging
    import signal
    import threading

    from api.services import PROJECTIONS, Services

    settings = _settings(args).model_copy(update={"projections": "off"})
    services = Services.start(settings)
    names = args.names or list(PROJECTIONS)
    unknown = [n for n in names if n not in PROJECTIONS]
    if unknown:
        print(f"unknown projection(s): {', '.join(unknown)}; known: {', '.join(PROJECTIONS)}")
        return 2
    try:
        if args.action == "status":
            head = services.ledger.recorder.max_notification_id() or 0
            print(f"{'projection':<14} {'position':>10} {'head':>10} {'lag':>8}")
            for name in names:
                position = services.projections[name].view.position(services.ledger.name)
                print(f"{name:<14} {position:>10} {head:>10} {head - position:>8}")
            return 0
        if args.action == "rebuild":
            for name in names:
                t0 = time.perf_counter()
                n = services.catchups[name].rebuild()
                dt = time.perf_counter() - t0
                print(f"rebuilt {name}: {n} events in {dt:.2f}s ({n / dt if dt else 0:.0f} events/s)")
            return 0
        # run: a worker process; PostgreSQL wakes it through a subscription, SQLite is polled
        stop = threading.Event()
        wake = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        if services.db.kind == "postgres":

            def listen() -> None:
                while not stop.is_set():  # a lost connection (database restarted): subscribe again
                    try:
                        head = services.ledger.recorder.max_notification_id() or 0
                        with services.ledger.recorder.subscribe(gt=head) as subscription:
                            for _ in subscription:
                                wake.set()
                                if stop.is_set():
                                    return
                    except Exception:
                        wake.set()
                        stop.wait(1.0)

            threading.Thread(target=listen, daemon=True, name="subscription").start()
        from api.observability import configure_logging

        configure_logging(settings.log_format, settings.log_level)
        worker_log = logging.getLogger("gameledger.worker")
        if not args.once:
            services.start_workers()  # clocks, webhooks, digests: the servers leave them to the worker
        worker_log.info("projections worker: %s (%s)", ", ".join(names), services.db.kind)
        print(f"projections worker: {', '.join(names)} ({services.db.kind}); Ctrl-C to stop", flush=True)
        from api.services import STOP_CHECK_BATCHES

        while not stop.is_set():
            busy = False
            for name in names:
                if stop.is_set():
                    break
                try:
                    # a few batches at a time, so that SIGTERM is answered between two of them
                    n = services.catchups[name].run(max_batches=None if args.once else STOP_CHECK_BATCHES)
                except Exception as exc:  # the database away: keep the worker, try again
                    if args.once:
                        raise
                    print(f"{name}: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
                    stop.wait(1.0)
                    continue
                busy = busy or n > 0
                if n and args.verbose:
                    print(f"{name}: +{n}", flush=True)
            if args.once:
                break
            if not busy:
                if wake.wait(args.interval) and args.coalesce > 0:
                    stop.wait(args.coalesce)  # let a burst of writes arrive: one transaction for them
                wake.clear()
        worker_log.info("projections worker stopping: every applied batch is committed with its position")
        return 0
    finally:
        services.close()


def cmd_play(args: argparse.Namespace) -> int:
    """A random-move client over HTTP: plays the seats of the given tokens to the end."""
    import json
    import random
    import urllib.error
    import urllib.request

    api = args.url.rstrip("/") + "/api/v1"
    rnd = random.Random(args.seed)

    def call(method: str, path: str, token: str, body: object = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(api + path, data=data, method=method)  # noqa: S310
        req.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")

    decisions = 0
    while True:
        moved = False
        for token in args.token:
            status, game = call("GET", f"/games/{args.game}", token)
            if status != 200:
                print(f"error {status}: {game}")
                return 1
            if game["status"] == "abandoned":
                print(f"the game was abandoned at version {game['version']}")
                return 0
            if game["status"] == "finished":
                for s in game["standings"]:
                    name = game["seats"][s["seat"]]["name"]
                    print(f"rank {s['rank']}: {name} ({s['summary']})")
                print(f"{decisions} decisions played; the game is finished at version {game['version']}")
                return 0
            if not game["legal_decisions"]:
                continue
            decision = rnd.choice(game["legal_decisions"])
            status, result = call(
                "POST",
                f"/games/{args.game}/decisions",
                token,
                {"expected_version": game["version"], "decision": decision},
            )
            if status == 409:
                continue  # someone moved first: look again
            if status == 429:
                time.sleep(1)  # the server's rate limit: wait (Retry-After is at least 1 s) and look again
                continue
            if status != 200:
                print(f"refused {status}: {result}")
                return 1
            decisions += 1
            moved = True
            if args.verbose:
                for line in result["log"]:
                    print("  " + line)
        if not moved:
            time.sleep(0.2)


def cmd_verify(args: argparse.Namespace) -> int:
    import json

    from ledger.verify import verify_export

    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    digest = json.loads(Path(args.digest).read_text()) if args.digest else None
    report = verify_export(text.splitlines(), digest, args.public_key)
    print(report.text())
    return 0 if report.ok else 1


def _offline_services(args: argparse.Namespace) -> Any:
    from api.services import Services

    settings = _settings(args).model_copy(
        update={"projections": "off", "clock_interval": 0, "webhook_interval": 0, "digest_interval": 0}
    )
    return Services.start(settings)


def cmd_audit(args: argparse.Namespace) -> int:
    """The operator's audit of one game (everything, or one seat's view with --seat)."""
    import json

    from ledger.audit import audit_game

    services = _offline_services(args)
    try:
        full = args.seat is None
        player = None
        if not full:
            game = services.ledger.get_game(args.game)
            player = game.seats[args.seat]
        result = audit_game(services.ledger, args.game, player, full_view=full)
    finally:
        services.close()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"game {result['game_id']} ({result.get('title')}, {result.get('rules_version')}), {result.get('events')} events"
        )
        for c in result["checks"]:
            print(f"{'PASS' if c['ok'] else 'FAIL'}  {c['name']}{': ' + c['detail'] if c['detail'] else ''}")
        if args.log:
            print()
            print("\n".join(result["log"]))
        print("audit passed" if result["ok"] else "AUDIT FAILED")
    return 0 if result["ok"] else 1


def cmd_resimulate(args: argparse.Namespace) -> int:
    """Replay every stored game under the current rules and report what would change."""
    import json

    services = _offline_services(args)
    try:
        report = services.resimulate(args.title)
    finally:
        services.close()
    if args.json:
        print(json.dumps(report, indent=2, default=str))
        return 0
    for g in report["games"]:
        line = f"{g['game_id']}  {g['title']:<20} {g['recorded_rules']:<22} {g['outcome']}"
        if g["at"] is not None:
            line += f" at event {g['at']}"
        if g.get("difference"):
            d = g["difference"]
            line += f" ({d['what']}: recorded {json.dumps(d.get('recorded'))[:120]}, now {json.dumps(d.get('now'))[:120]})"
        if g.get("standings", {}).get("changed"):
            line += "; standings change"
        print(line)
    for league in report["leagues"]:
        for player, r in league["ratings"].items():
            print(f"league {league['league_id']}: {player} rating {r['before']} -> {r['after']}")
    print(
        "summary: " + ", ".join(f"{k} {v}" for k, v in sorted(report["summary"].items()))
        if report["summary"]
        else "no games"
    )
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    services = _offline_services(args)
    try:
        result = services.ledger.migrate(args.game, force=args.force)
    finally:
        services.close()
    print(f"migrated {args.game} to {result['current_rules']} ({result['outcome']})")
    return 0


def cmd_digest(args: argparse.Namespace) -> int:
    """Issue (or show) the signed digest of all games' heads, with a game's proof."""
    import json

    services = _offline_services(args)
    try:
        doc = services.digest(args.game)
    finally:
        services.close()
    text = json.dumps(doc, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n")
        print(f"digest of {doc['games']} games, root {doc['root']}, written to {args.out}")
    else:
        print(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Record a finished game's export in this ledger, after verifying it."""
    from ledger.errors import LedgerError
    from ledger.importer import import_export

    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    services = _offline_services(args)
    try:
        result = import_export(services.ledger, text.splitlines())
        services.refresh()
    except LedgerError as exc:
        print(f"not imported: {exc.code}: {exc.message}")
        return 1
    finally:
        services.close()
    for name, ok, detail in result.checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}{': ' + detail if detail else ''}")
    print(
        f"imported game {result.game_id} ({result.title}, {result.status}): {result.events} events, head {result.head}"
    )
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    """A consistent copy of the store while it is in use: SQLite's online backup API for the
    ledger file and every read model's file (read models first, so that none is ahead of the
    ledger's copy); for PostgreSQL, pg_dump of the schema."""
    from ledger.storage import parse_database_url

    settings = _settings(args)
    db = parse_database_url(settings.effective_database_url)
    dest = Path(args.dest)
    dest.mkdir(parents=True, exist_ok=True)
    if db.kind == "postgres":
        return _pg_dump(db, dest)
    if db.is_memory:
        print("an in-memory database has nothing to back up")
        return 2
    import sqlite3

    from api.services import PROJECTIONS
    from projections.digests import DigestsView

    ledger_file = Path(db.sqlite_path)
    if not ledger_file.exists():
        print(f"no ledger at {ledger_file}")
        return 2
    views = [view.view_name for _, view in PROJECTIONS.values()] + [DigestsView.view_name]
    files = [Path(db.view_sqlite_path(v)) for v in views]
    files = [f for f in files if f.exists()] + [ledger_file]  # the ledger last
    for source in files:
        target = dest / source.name
        t0 = time.perf_counter()
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
        tmp = target.with_name(target.name + ".partial")
        tmp.unlink(missing_ok=True)
        out = sqlite3.connect(tmp)
        try:
            src.backup(out, pages=1024, sleep=0.005)  # steps: writers go on between them
            check = out.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            out.close()
            src.close()
        if check != "ok":
            print(f"{source.name}: the copy fails its integrity check: {check}")
            return 1
        tmp.replace(target)
        print(f"{source.name} -> {target} ({target.stat().st_size} bytes, {time.perf_counter() - t0:.2f}s)")
    print(
        f"backup of {len(files)} files in {dest}; restore: stop the server, copy them into the data directory"
    )
    return 0


def _pg_dump(db: Any, dest: Path) -> int:
    import shutil
    import subprocess

    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        print("pg_dump is not installed (Debian: apt-get install postgresql-client)")
        return 2
    target = dest / f"gameledger-{db.dbname}-{db.schema}.dump"
    env = os.environ | ({"PGPASSWORD": db.password} if db.password else {})
    argv = [pg_dump, "--format=custom", f"--schema={db.schema}", f"--file={target}"]
    argv += [f"--host={db.host}", f"--port={db.port}", f"--username={db.user}", f"--dbname={db.dbname}"]
    # an argument list, no shell: the URL's parts cannot become options or commands
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode != 0:
        print(f"pg_dump failed: {done.stderr.strip()}")
        return 1
    print(f"schema {db.schema} of {db.dbname} -> {target} ({target.stat().st_size} bytes)")
    print(f"restore: createdb NEW && pg_restore --dbname=NEW {target}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gameledger", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def storage_args(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--data-dir", help="directory of the embedded SQLite files (default ./gameledger-data)"
        )
        p.add_argument(
            "--database-url",
            help="sqlite:///path or postgresql://user:pw@host:port/db (env GAMELEDGER_DATABASE_URL)",
        )
        p.add_argument(
            "--config", help="a TOML file of settings (env GAMELEDGER_CONFIG); the environment overrides it"
        )

    serve = sub.add_parser("serve", help="run the HTTP server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers", type=int, default=1, help="server processes (PostgreSQL for more than one)"
    )
    serve.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error", "critical"],
        help="default: GAMELEDGER_LOG_LEVEL (info)",
    )
    storage_args(serve)
    serve.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="database management")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    init = db_sub.add_parser("init", help="create the tables (idempotent, safe to run concurrently)")
    storage_args(init)
    init.set_defaults(func=cmd_db_init)
    dbm = db_sub.add_parser("migrate", help="apply the pending schema migrations (idempotent, under a lock)")
    storage_args(dbm)
    dbm.set_defaults(func=cmd_db_init)
    dbs = db_sub.add_parser("status", help="the schema migrations, applied or pending")
    dbs.add_argument("--check", action="store_true", help="exit 1 when a migration is pending")
    storage_args(dbs)
    dbs.set_defaults(func=cmd_db_status)

    cfg = sub.add_parser("config", help="the settings: show (secrets masked), env, or the reference")
    cfg.add_argument("action", choices=["show", "env", "reference"])
    storage_args(cfg)
    cfg.set_defaults(func=cmd_config)

    sim = sub.add_parser("simulate", help="play random games through the ledger with conformance checks")
    sim.add_argument("--title", required=True)
    sim.add_argument("--players", type=int, required=True)
    sim.add_argument("--games", type=int, default=10)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--league", help="count the games in this league (created if missing)")
    sim.add_argument("--option", action="append", help="a title option, e.g. edition=2014 (repeatable)")
    sim.add_argument(
        "--bot",
        choices=["random", "greedy", "mixed"],
        default="random",
        help="random legal decisions, the title's greedy bot, or every other game each",
    )
    sim.add_argument("--in-memory", action="store_true", help="a throwaway in-memory database")
    storage_args(sim)
    sim.set_defaults(func=cmd_simulate)

    proj = sub.add_parser("projections", help="read models: status, rebuild, or run as a worker")
    proj.add_argument("action", choices=["status", "rebuild", "run"])
    proj.add_argument("names", nargs="*", help="projections (default: all)")
    proj.add_argument("--once", action="store_true", help="run: catch up once and exit")
    proj.add_argument("--interval", type=float, default=1.0, help="run: seconds between polls")
    proj.add_argument(
        "--coalesce",
        type=float,
        default=0.05,
        help="run: seconds to wait after a wake-up so that a burst of events is applied in one batch",
    )
    proj.add_argument("--verbose", action="store_true")
    storage_args(proj)
    proj.set_defaults(func=cmd_projections)

    play = sub.add_parser(
        "play", help="play the seats of the given tokens with random legal decisions over HTTP"
    )
    play.add_argument("--url", default="http://127.0.0.1:8000")
    play.add_argument("--game", required=True)
    play.add_argument(
        "--token", action="append", required=True, help="a player's token (repeat for several seats)"
    )
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--verbose", action="store_true", help="print the log of every decision")
    play.set_defaults(func=cmd_play)

    ver = sub.add_parser("verify", help="verify a game export offline")
    ver.add_argument("file", help="an export (JSON lines), or - for standard input")
    ver.add_argument(
        "--digest", help="a published digest with this game's proof (GET /api/v1/ledger/digest?game=ID)"
    )
    ver.add_argument(
        "--public-key", help="the ledger's pinned Ed25519 key (base64); default: the digest's own"
    )
    ver.set_defaults(func=cmd_verify)

    aud = sub.add_parser("audit", help="audit one game: chain, commitments, draws, replay, conservation")
    aud.add_argument("game", help="the game's id")
    aud.add_argument("--seat", type=int, help="show the record as this seat may see it (default: everything)")
    aud.add_argument("--json", action="store_true", help="the full audit as JSON")
    aud.add_argument("--log", action="store_true", help="print the log in words")
    storage_args(aud)
    aud.set_defaults(func=cmd_audit)

    res = sub.add_parser("resimulate", help="replay every stored game under the current rules")
    res.add_argument("--title", help="only this title's games")
    res.add_argument("--json", action="store_true")
    storage_args(res)
    res.set_defaults(func=cmd_resimulate)

    mig = sub.add_parser("migrate", help="move a game to the current rules version (after re-simulating it)")
    mig.add_argument("game")
    mig.add_argument("--force", action="store_true", help="accept a diverging re-simulation")
    storage_args(mig)
    mig.set_defaults(func=cmd_migrate)

    dig = sub.add_parser("digest", help="issue or show the signed digest of every game's head")
    dig.add_argument("--game", help="add this game's inclusion proof")
    dig.add_argument("--out", help="write it to this file")
    storage_args(dig)
    dig.set_defaults(func=cmd_digest)

    imp = sub.add_parser("import", help="record a finished game's export here, after verifying it")
    imp.add_argument("file", help="an export (JSON lines) of a game that is over, or - for standard input")
    storage_args(imp)
    imp.set_defaults(func=cmd_import)

    from api.arena import add_command as add_arena

    add_arena(sub)

    bak = sub.add_parser("backup", help="copy the store while it is in use (SQLite backup API; pg_dump)")
    bak.add_argument("dest", help="a directory for the copies")
    storage_args(bak)
    bak.set_defaults(func=cmd_backup)

    args = parser.parse_args(argv)
    from pydantic import ValidationError

    from api.settings import ConfigError, explain

    try:
        return int(args.func(args))
    except (ValidationError, ConfigError) as exc:
        if isinstance(exc, ValidationError) and exc.title != "Settings":
            raise
        print(f"gameledger: configuration refused:\n{explain(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

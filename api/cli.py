"""The gameledger command: serve, simulate, play, verify, audit, export, import, digest,
backup and the database's upkeep.

A failure is one line on standard error saying what is wrong and what to do; the exit status
is 2 when the command was misused (an argument, a file to read, the configuration) and 1 when
an operation failed (a database or server that does not answer, a record that does not
verify, a game that is not there). --debug adds the traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from api.settings import Settings

MISUSE = 2  # the command was given something it cannot use
FAILED = 1  # the command was right, the operation did not succeed


class CliError(Exception):
    """A failure explained in one line: what is wrong, then what to do."""

    def __init__(self, message: str, status: int = FAILED, prog: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.prog = prog


def _settings(args: argparse.Namespace) -> Settings:
    return Settings.from_env(
        config=getattr(args, "config", None),
        data_dir=getattr(args, "data_dir", None),
        database_url=getattr(args, "database_url", None),
    )


def _where(settings: Settings) -> str:
    """The database without its credentials, for messages."""
    return settings.effective_database_url.split("@")[-1]


def _read_input(path: str, what: str) -> str:
    """A file the command was given (``-``: standard input)."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text()
    except UnicodeDecodeError as exc:
        raise CliError(f"{path} is not text: give {what}", MISUSE) from exc
    except OSError as exc:
        raise CliError(
            f"cannot read {path} ({exc.strerror or exc}): give the path of {what}, or - for standard input",
            MISUSE,
        ) from exc


def _existing_ledger(settings: Settings) -> None:
    """Refuse to work on a SQLite ledger that is not there (instead of making an empty one in
    whatever folder the command was run from)."""
    from ledger.storage import parse_database_url

    db = parse_database_url(settings.effective_database_url)
    if db.kind == "sqlite" and not db.is_memory and not Path(db.sqlite_path).exists():
        raise CliError(
            f"no ledger at {db.sqlite_path}: give the server's --data-dir or --database-url "
            "(or GAMELEDGER_DATABASE_URL)",
            MISUSE,
        )


def _seat_of(game: Any, seat: int) -> str | None:
    """The player at a seat of a game; a seat the game does not have is refused."""
    if not 0 <= seat < len(game.seats):
        raise CliError(
            f"game {game.id} has seats 0 to {len(game.seats) - 1}: --seat {seat} is not one of them", MISUSE
        )
    return game.seats[seat]  # type: ignore[no-any-return]


def cmd_serve(args: argparse.Namespace) -> int:
    import logging
    import tempfile

    import uvicorn

    from api.observability import configure_logging, logging_config
    from api.services import initialise

    settings = _settings(args)
    _check_address(args.host, args.port)
    if not settings.public_url:
        if not _loopback(args.host):
            raise CliError(
                f"serving on {args.host} needs GAMELEDGER_PUBLIC_URL, the address people reach this server "
                "at (the links in mails point there): without one they could only point at this machine's "
                "loopback. Set it, or serve on 127.0.0.1.",
                MISUSE,
            )
        # the links in mails point at this machine, on the port served on (never at a request's Host)
        host = (
            f"[{args.host}]" if ":" in args.host else "127.0.0.1" if args.host == "localhost" else args.host
        )
        os.environ["GAMELEDGER_PUBLIC_URL"] = f"http://{host}:{args.port}"
    level = args.log_level or settings.log_level
    configure_logging(settings.log_format, level)
    if args.config:  # the worker processes read the same file
        os.environ["GAMELEDGER_CONFIG"] = str(Path(args.config).resolve())
    if settings.init_db:
        initialise(settings)  # migrations once, under a lock; the workers then skip it
    else:  # the database answers (and says what it lacks) before the workers start
        from api.migrations import pending
        from ledger.storage import parse_database_url

        pending(parse_database_url(settings.effective_database_url))
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
    try:
        _run_uvicorn(uvicorn, args, settings, level, logging_config)
    except SystemExit as exc:  # uvicorn gave up (it has logged why)
        if exc.code in (0, None):
            raise
        raise CliError("the server stopped at start: the log above says why") from exc
    logging.getLogger("gameledger").info("stopped")
    return 0


def _run_uvicorn(
    uvicorn: Any, args: argparse.Namespace, settings: Settings, level: str, logging_config: Any
) -> None:
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
        forwarded_allow_ips=settings.trusted_proxies,  # whose X-Forwarded-For is believed
        timeout_graceful_shutdown=int(settings.shutdown_timeout) or None,
    )


def _loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_address(host: str, port: int) -> None:
    """The address can be listened on, before the database is touched (uvicorn would say so
    only after the start, in a log line)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise CliError(
            f"--host {host} is not an address here ({exc}): give an IP address or a host name", MISUSE
        ) from exc
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise CliError(
                f"cannot listen on {host}:{port} ({exc.strerror or exc}): stop what uses that port, or give another --port"
            ) from exc


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
    """Bot games through the ledger. ``--seed`` fixes the games (every decision and draw) and
    nothing else: the players are new bots with ids and tokens from the system's entropy, and
    the games get fresh ids, so the same command run again adds games beside the first ones."""
    import random

    from api.services import Services
    from ledger import registry
    from ledger.conformance import ledger_playout, random_playout

    meta = registry.meta(args.title)
    if not meta.min_players <= args.players <= meta.max_players:
        raise CliError(
            f"{meta.name} is for {meta.min_players} to {meta.max_players} players: "
            f"give --players {meta.min_players} to {meta.max_players}",
            MISUSE,
        )
    if args.bot != "random" and registry.bot(args.title) is None:
        raise CliError(f"{meta.name} has no greedy bot: use --bot random", MISUSE)
    options = _title_options(args.title, args.option or [])
    used: Counter[str] = Counter()
    if args.in_memory:
        args.database_url = f"sqlite:///file:sim-{uuid.uuid4().hex}?mode=memory&cache=shared"
    settings = _settings(args)
    services = Services.start(settings)
    app = services.ledger
    game_seeds = random.Random(f"simulate-{args.seed}")  # the draws of game g: the seed's g-th
    try:
        league = None
        if args.league:
            from ledger.errors import NotFoundError

            try:
                league = app.get_league(args.league)
            except NotFoundError:  # a league of simulated players: it counts bots
                league = app.create_league(creator="admin", name=args.league, title=None, for_bots=True)
        totals: Counter[str] = Counter()
        winners: Counter[str] = Counter()
        started = time.perf_counter()
        where = "memory" if args.in_memory else _where(settings)
        print(
            f"simulating {args.games} games of {args.title} with {args.players} players (seed {args.seed}, {where})"
        )
        for g in range(args.games):
            seed = args.seed * 1_000_003 + g
            t0 = time.perf_counter()
            greedy = args.bot == "greedy" or (args.bot == "mixed" and g % 2 == 1)
            random_playout(  # checks at every step
                args.title,
                args.players,
                seed,
                options,
                greedy=greedy,
                policy=_strong(args.bot, args.title, seed),
            )
            result = ledger_playout(  # through the ledger, then its record verified
                app,
                args.title,
                args.players,
                seed,
                options,
                league=str(league.id) if league else None,
                greedy=greedy,
                game_seed=game_seeds.randbytes(32),
                policy=_strong(args.bot, args.title, seed),
            )
            for kind in result.kinds:
                used[kind] += 1
            totals["decisions"] += result.decisions
            totals["events"] += result.events
            totals["draws"] += result.draws
            for w in result.winners:
                winners[f"seat {w}"] += 1
            print(
                f"  game {g + 1:>3}/{args.games} {result.game_id}: {result.decisions:>4} decisions, {result.events:>4} events, "
                f"winner(s) {','.join(map(str, result.winners))}, {time.perf_counter() - t0:.2f}s  [conformance ok]",
                flush=True,
            )
        seconds = time.perf_counter() - started
        services.refresh()
    finally:
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
    watched = meta.highlights
    seen = [f"{k} {used[k]}" for k in watched if used[k]]
    if seen:
        rows.append(("games using", ", ".join(seen)))
    width = max(len(k) for k, _ in rows)
    print("-" * (width + 40))
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    print("conformance: every game passed (legal moves, conservation, secrets, record verified)")
    return 0


def _strong(bot: str, title: str, seed: int) -> Any:
    """The strong bot as a simulation's policy (``None`` for the others): its searches seeded
    from the game's seed and measured by their step budget only, so a run can be repeated."""
    if bot != "strong":
        return None
    import random

    from ledger.bots import strong

    searches = random.Random(f"strong-{seed}")
    return lambda state, seat: strong.choose(
        title, state, seat, seed=searches.getrandbits(63), wall_clock=False
    )


def _title_options(title: str, items: Sequence[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` items checked against the title's options (pydantic turns
    "true" or "3" into the field's type); only the ones differing from the defaults."""
    from pydantic import ValidationError

    from ledger import registry

    meta = registry.meta(title)
    options: dict[str, object] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise CliError(f"--option {item!r} is not NAME=VALUE, e.g. --option edition=2014", MISUSE)
        options[name.strip()] = value.strip()
    try:
        return meta.options.model_validate(options).model_dump(mode="json", exclude_defaults=True)  # type: ignore[no-any-return]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'options'}: {e['msg']}" for e in exc.errors(include_url=False)
        )
        raise CliError(
            f"bad --option for {meta.name} ({problems}): see gameledger simulate --help for its options",
            MISUSE,
        ) from exc


def cmd_projections(args: argparse.Namespace) -> int:
    import logging
    import signal
    import threading

    from api.services import PROJECTIONS, Services

    names = args.names or list(PROJECTIONS)
    unknown = [n for n in names if n not in PROJECTIONS]
    if unknown:
        raise CliError(
            f"unknown projection(s) {', '.join(unknown)}: name some of {', '.join(PROJECTIONS)}", MISUSE
        )
    settings = _settings(args).model_copy(update={"projections": "off"})
    _existing_ledger(settings)
    services = Services.start(settings)
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
            services.start_workers()  # clocks, webhooks, digests, mail: the servers leave them to the worker
        worker_log.info("projections worker: %s (%s)", ", ".join(names), services.db.kind)
        print(f"projections worker: {', '.join(names)} ({services.db.kind}); Ctrl-C to stop", flush=True)
        from api.services import STOP_CHECK_BATCHES
        from projections.base import share_read, unshare

        while not stop.is_set():
            busy = False
            try:
                # the log's head read once for all the read models: a round trip each saved
                now: int | None = services.ledger.recorder.max_notification_id() or 0
            except Exception:  # the database away: each read model finds out below
                now = None
            round_ = [services.catchups[name] for name in names]
            try:
                if now is not None and not args.once:
                    share_read(round_, now)  # one read of the new events for all of them
            except Exception:  # each reads its own below
                unshare(round_)
            for name in names:
                if stop.is_set():
                    break
                try:
                    # a few batches at a time, so that SIGTERM is answered between two of them
                    n = services.catchups[name].run(
                        max_batches=None if args.once else STOP_CHECK_BATCHES, head=now
                    )
                except Exception as exc:  # the database away: keep the worker, try again
                    if args.once:
                        raise
                    print(f"{name}: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
                    stop.wait(1.0)
                    continue
                busy = busy or n > 0
                if n and args.verbose:
                    print(f"{name}: +{n}", flush=True)
            unshare(round_)
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

    from api.words import plural, signed

    api = args.url.rstrip("/") + "/api/v1"
    rnd = random.Random(args.seed)
    unreachable = "start it with gameledger serve, or give its address with --url"

    def call(method: str, path: str, token: str, body: object = None) -> tuple[int, dict[str, Any]]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(api + path, data=data, method=method)  # noqa: S310
        req.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310
                    return resp.status, json.loads(resp.read())
            except urllib.error.HTTPError as err:
                return err.code, json.loads(err.read() or b"{}")
        except urllib.error.URLError as exc:
            raise CliError(f"cannot reach the server at {args.url} ({exc.reason}): {unreachable}") from exc
        except OSError as exc:  # a timeout, or the connection dropped mid-answer
            raise CliError(f"the server at {args.url} did not answer ({exc}): {unreachable}") from exc
        except ValueError as exc:
            raise CliError(f"{args.url} did not answer as a gameledger server: check --url") from exc

    def refused(what: str, status: int, answer: dict[str, Any]) -> CliError:
        hint = {401: "check the --token values", 404: "check --game"}.get(status, "see the server's log")
        return CliError(
            f"the server refused {what}: {status} {answer.get('code', '')}: {str(answer.get('message', answer)).rstrip('.')}; {hint}"
        )

    decisions = 0
    while True:
        moved = False
        for token in args.token:
            status, game = call("GET", f"/games/{args.game}", token)
            if status != 200:
                raise refused(f"to show game {args.game}", status, game)
            if game["status"] == "abandoned":
                print(f"the game was abandoned at version {game['version']}")
                return 0
            if game["status"] == "finished":
                for s in game["standings"]:
                    name = game["seats"][s["seat"]]["name"]
                    print(f"rank {s['rank']}: {name} ({signed(s['summary'])})")
                print(
                    f"{plural(decisions, 'decision')} played; the game is finished at version {game['version']}"
                )
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
                raise refused(f"a decision in game {args.game}", status, result)
            decisions += 1
            moved = True
            if args.verbose:
                for line in result["log"]:
                    print("  " + signed(line))
        if not moved:
            time.sleep(0.2)


def cmd_verify(args: argparse.Namespace) -> int:
    import json

    from ledger.verify import verify_export

    text = _read_input(args.file, "a game's export (GET /api/v1/games/ID/export, or gameledger export)")
    digest = None
    if args.digest:
        what = "a published digest (GET /api/v1/ledger/digest?game=ID)"
        try:
            digest = json.loads(_read_input(args.digest, what))
        except ValueError as exc:
            raise CliError(f"{args.digest} is not JSON: give {what}", MISUSE) from exc
        if not isinstance(digest, dict):
            raise CliError(f"{args.digest} is not a digest: give {what}", MISUSE)
    report = verify_export(text.splitlines(), digest, args.public_key)
    print(report.text())
    return 0 if report.ok else 1


def cmd_verify_league(args: argparse.Namespace) -> int:
    import json

    from ledger.league_verify import verify_league

    what = "a league's record (GET /api/v1/leagues/ID/export)"
    try:
        doc = json.loads(_read_input(args.file, what))
    except ValueError as exc:
        raise CliError(f"{args.file} is not JSON: give {what}", MISUSE) from exc
    report = verify_league(doc, args.public_key)
    print(report.text())
    return 0 if report.ok else 1


def _offline_services(args: argparse.Namespace, *, existing: bool = True) -> Any:
    """The store without its background work; ``existing``: a SQLite ledger must be there."""
    from api.services import Services

    settings = _settings(args).model_copy(
        update={
            "projections": "off",
            "clock_interval": 0,
            "webhook_interval": 0,
            "digest_interval": 0,
            "mail_interval": 0,
        }
    )
    if existing:
        _existing_ledger(settings)
    return Services.start(settings)


def cmd_audit(args: argparse.Namespace) -> int:
    """The operator's audit of one game (everything, or one seat's view with --seat)."""
    import json

    from ledger.audit import audit_game

    services = _offline_services(args)
    try:
        game = services.ledger.get_game(args.game)
        full = args.seat is None
        player = None if full else _seat_of(game, args.seat)
        result = audit_game(services.ledger, game.id, player, full_view=full)
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
            print(f"      {c['sentence']}")
        print(result["summary"])
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
        if args.game is not None:
            args.game = str(services.ledger.get_game(args.game).id)
        doc = services.digest(args.game)
    finally:
        services.close()
    text = json.dumps(doc, indent=2)
    if args.out:
        _write_output(args.out, text + "\n")
        print(f"digest of {doc['games']} games, root {doc['root']}, written to {args.out}")
    else:
        print(text)
    return 0


def _write_output(path: str, text: str) -> None:
    try:
        Path(path).write_text(text)
    except OSError as exc:
        raise CliError(
            f"cannot write {path} ({exc.strerror or exc}): give a file you may write", MISUSE
        ) from exc


def cmd_export(args: argparse.Namespace) -> int:
    """A game's record from the store, as GET /games/{id}/export gives it: as one seat may see
    it (``--seat``), as a spectator may (``--spectator``), or complete for the operator."""
    from ledger.export import game_export

    services = _offline_services(args)
    try:
        game = services.ledger.get_game(args.game)
        seats = [] if args.seat is None else [args.seat]
        for seat in seats:
            _seat_of(game, seat)
        complete = args.seat is None and not args.spectator
        lines = list(game_export(services.ledger, game, seats, complete=complete))
    finally:
        services.close()
    if complete and not game.over:
        print(
            f"gameledger export: warning: game {game.id} is {game.status}, and this export holds every "
            "hidden part: show it to no player (--seat N gives a seat's view, --spectator the public one)",
            file=sys.stderr,
        )
    text = "".join(line + "\n" for line in lines)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    _write_output(args.out, text)
    print(f"exported game {game.id} ({game.title}, {game.status}, {len(lines) - 1} events) to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Record a finished game's export in this ledger, after verifying it."""
    from ledger.errors import LedgerError
    from ledger.importer import import_export

    text = _read_input(args.file, "the export of a game that is over (GET /api/v1/games/ID/export)")
    services = _offline_services(args, existing=False)  # a fresh server may take its first game
    try:
        result = import_export(services.ledger, text.splitlines())
        services.refresh()
    except LedgerError as exc:
        raise CliError(f"not imported: {exc.code}: {exc.message}") from exc
    finally:
        services.close()
    for name, ok, detail in result.checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}{': ' + detail if detail else ''}")
    print(
        f"imported game {result.game_id} ({result.title}, {result.status}): {result.events} events, head {result.head}"
    )
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    from api.arena import cmd_arena as run_arena

    return run_arena(args)


def cmd_backup(args: argparse.Namespace) -> int:
    """A consistent copy of the store while it is in use: SQLite's online backup API for the
    ledger file and every read model's file (read models first, so that none is ahead of the
    ledger's copy); for PostgreSQL, pg_dump of the schema."""
    from ledger.storage import parse_database_url

    settings = _settings(args)
    db = parse_database_url(settings.effective_database_url)
    dest = Path(args.dest)
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(
            f"cannot make the folder {dest} ({exc.strerror or exc}): give a folder you may write", MISUSE
        ) from exc
    if db.kind == "postgres":
        return _pg_dump(db, dest)
    if db.is_memory:
        raise CliError(
            "an in-memory database has nothing to back up: give the server's --data-dir or --database-url",
            MISUSE,
        )
    import sqlite3

    from api.services import PROJECTIONS, STORES

    _existing_ledger(settings)
    ledger_file = Path(db.sqlite_path)
    views = [view.view_name for _, view in PROJECTIONS.values()] + [store.view_name for store in STORES]
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
            raise CliError(
                f"the copy of {source.name} fails its integrity check ({check}): run the backup again"
            )
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
        raise CliError(
            "pg_dump is not installed: install PostgreSQL's client (Debian: apt-get install postgresql-client)"
        )
    target = dest / f"gameledger-{db.dbname}-{db.schema}.dump"
    env = os.environ | ({"PGPASSWORD": db.password} if db.password else {})
    argv = [pg_dump, "--format=custom", f"--schema={db.schema}", f"--file={target}"]
    argv += [f"--host={db.host}", f"--port={db.port}", f"--username={db.user}", f"--dbname={db.dbname}"]
    # an argument list, no shell: the URL's parts cannot become options or commands
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode != 0:
        raise CliError(f"pg_dump failed: {' '.join(done.stderr.split())}")
    print(f"schema {db.schema} of {db.dbname} -> {target} ({target.stat().st_size} bytes)")
    print(f"restore: createdb NEW && pg_restore --dbname=NEW {target}")
    return 0


class Parser(argparse.ArgumentParser):
    """argparse, whose refusals are one line (what is wrong, then where the help is)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message}: see {self.prog} --help", MISUSE, self.prog)


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if n < low or (high is not None and n > high):
            raise argparse.ArgumentTypeError(
                f"{n} is not between {low} and {high}" if high is not None else f"{n} is less than {low}"
            )
        return n

    return parse


def _seconds(low: float, *, inclusive: bool = True) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        import math

        if not math.isfinite(x) or not (x >= low if inclusive else x > low):
            raise argparse.ArgumentTypeError(
                f"{text} is not {'at least' if inclusive else 'more than'} {low}"
            )
        return x

    return parse


def _titles_help() -> str:
    from ledger import registry

    return "; ".join(
        f"{t} ({m.name}, {m.min_players}-{m.max_players} players)" for t, m in registry.TITLES.items()
    )


def _options_help() -> str:
    """Each title's options, for the help of ``--option``."""
    import json
    import textwrap
    from types import UnionType
    from typing import Literal, Union, get_args, get_origin

    from ledger import registry

    def values(annotation: Any) -> str:
        named = [a for a in get_args(annotation) if a is not type(None)]
        if get_origin(annotation) in (Union, UnionType) and len(named) == 1:  # X | None: may stay unset
            return values(named[0])
        if get_origin(annotation) is Literal:
            return "|".join(str(v) or '""' for v in get_args(annotation))
        return "true|false" if annotation is bool else getattr(annotation, "__name__", "VALUE").upper()

    out = ["each title's options (--option NAME=VALUE, repeatable):"]
    for title, meta in registry.TITLES.items():
        out.append(f"  {title}:")
        for name, field in meta.options.model_fields.items():
            d = field.default
            default = json.dumps(d) if isinstance(d, bool) or d == "" else d  # true, "", 2016
            text = f"{name}={values(field.annotation)} (default {default}): {field.description}"
            out.append(textwrap.fill(text, 100, initial_indent="    ", subsequent_indent="        "))
    return "\n".join(out)


def build_parser() -> Parser:
    from ledger import registry

    parser = Parser(
        prog="gameledger", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--debug", action="store_true", help="show the traceback of a failure")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="one of these; COMMAND --help says more"
    )

    def command(
        parent: Any,
        name: str,
        func: Callable[[argparse.Namespace], int],
        help: str,
        actions: dict[str, str] | None = None,
        **kw: Any,
    ) -> Parser:
        """A sub-command; with ``actions`` (each action's meaning), its first argument names one."""
        p: Parser = parent.add_parser(name, help=help, description=help, **kw)
        p.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help="show the traceback of a failure"
        )
        if actions:
            meanings = "; ".join(f"{action}: {meaning}" for action, meaning in actions.items())
            p.add_argument("action", choices=list(actions), help=meanings)
        p.set_defaults(func=func)
        return p

    def storage_args(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--data-dir", help="directory of the embedded SQLite files (default ./gameledger-data)"
        )
        p.add_argument(
            "--database-url",
            help="sqlite:///path or postgresql://user:pw@host:port/db?schema=s (env GAMELEDGER_DATABASE_URL)",
        )
        p.add_argument(
            "--config", help="a TOML file of settings (env GAMELEDGER_CONFIG); the environment overrides it"
        )

    from ledger.bots.arena import BOTS

    titles = list(registry.TITLES)
    title_help = f"one of: {_titles_help()}"

    serve = command(sub, "serve", cmd_serve, "run the HTTP server (the API and the web pages)")
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0: every interface)",
    )
    serve.add_argument("--port", type=_whole(1, 65535), default=8000, help="port to listen on (default 8000)")
    serve.add_argument(
        "--workers",
        type=_whole(1),
        default=1,
        help="server processes (default 1; PostgreSQL for more than one)",
    )
    serve.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error", "critical"],
        help="lowest level logged (default: GAMELEDGER_LOG_LEVEL, info)",
    )
    storage_args(serve)

    db = sub.add_parser("db", help="the database: create the tables, apply migrations, show their status")
    db_sub = db.add_subparsers(dest="db_command", required=True, metavar="ACTION", help="one of these")
    storage_args(
        command(db_sub, "init", cmd_db_init, "create the tables (idempotent, safe to run concurrently)")
    )
    storage_args(
        command(
            db_sub, "migrate", cmd_db_init, "apply the pending schema migrations (idempotent, under a lock)"
        )
    )
    dbs = command(db_sub, "status", cmd_db_status, "the schema migrations, applied or pending")
    dbs.add_argument("--check", action="store_true", help="exit 1 when a migration is pending")
    storage_args(dbs)

    cfg = command(
        sub,
        "config",
        cmd_config,
        "the settings: show (secrets masked), env, or the reference",
        actions={
            "show": "the effective settings as JSON",
            "env": "as environment variables",
            "reference": "deploy/CONFIG.md",
        },
    )
    storage_args(cfg)

    sim = command(
        sub,
        "simulate",
        cmd_simulate,
        "play bot games through the ledger with conformance checks",
        epilog=_options_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim.add_argument("--title", required=True, choices=titles, metavar="TITLE", help=title_help)
    sim.add_argument(
        "--players", type=_whole(1), required=True, help="players per game, within the title's range"
    )
    sim.add_argument("--games", type=_whole(1), default=10, help="how many games (default 10)")
    sim.add_argument(
        "--seed",
        type=int,
        default=1,
        help="fixes every decision and draw, so that a run can be repeated (default 1); the bots' "
        "ids and tokens never come from it",
    )
    sim.add_argument("--league", help="count the games in this league, by id or name (created if missing)")
    sim.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="a title option (repeatable); each title's are listed below",
    )
    sim.add_argument(
        "--bot",
        choices=["greedy", "strong", "random", "mixed"],
        default="greedy",
        help="the title's greedy bot (default), the strong bot (a search from each seat's view), random "
        "legal decisions (fuzzing), or random and greedy in every other game",
    )
    sim.add_argument("--in-memory", action="store_true", help="a throwaway in-memory database")
    storage_args(sim)

    proj = command(
        sub,
        "projections",
        cmd_projections,
        "read models: status, rebuild, or run as a worker",
        actions={
            "status": "each read model's position and lag",
            "rebuild": "recompute from the log",
            "run": "a worker process",
        },
    )
    proj.add_argument("names", nargs="*", help="projections (default: all)")
    proj.add_argument("--once", action="store_true", help="run: catch up once and exit")
    proj.add_argument(
        "--interval",
        type=_seconds(0, inclusive=False),
        default=1.0,
        help="run: seconds between polls (default 1)",
    )
    proj.add_argument(
        "--coalesce",
        type=_seconds(0),
        default=0.05,
        help="run: seconds to wait after a wake-up so that a burst of events is applied in one batch (default 0.05)",
    )
    proj.add_argument("--verbose", action="store_true", help="run: print the events each projection applies")
    storage_args(proj)

    play = command(
        sub, "play", cmd_play, "play the seats of the given tokens with random legal decisions over HTTP"
    )
    play.add_argument(
        "--url", default="http://127.0.0.1:8000", help="the server (default http://127.0.0.1:8000)"
    )
    play.add_argument("--game", required=True, help="the game's id")
    play.add_argument(
        "--token", action="append", required=True, help="a player's token (repeat for several seats)"
    )
    play.add_argument("--seed", type=int, default=1, help="seed of the random choices (default 1)")
    play.add_argument("--verbose", action="store_true", help="print the log of every decision")

    ver = command(sub, "verify", cmd_verify, "verify a game's export offline")
    ver.add_argument("file", help="an export (JSON lines), or - for standard input")
    ver.add_argument(
        "--digest", help="a published digest with this game's proof (GET /api/v1/ledger/digest?game=ID)"
    )
    ver.add_argument(
        "--public-key",
        help="the ledger's Ed25519 key (base64, GET /api/v1/ledger/public-key) that signs the digest; "
        "without it the digest's own key is used, with a warning",
    )

    vl = command(
        sub,
        "verify-league",
        cmd_verify_league,
        "verify a league's record offline: seatings, results, points, tie-breaks, standings, rating inputs",
    )
    vl.add_argument("file", help="a league's record (GET /api/v1/leagues/ID/export), or - for standard input")
    vl.add_argument(
        "--public-key", help="the ledger's Ed25519 key (base64); without it the record's own key is used"
    )

    aud = command(sub, "audit", cmd_audit, "audit one game: chain, commitments, draws, replay, conservation")
    aud.add_argument("game", help="the game's id")
    aud.add_argument(
        "--seat", type=_whole(0), help="show the record as this seat may see it (default: everything)"
    )
    aud.add_argument("--json", action="store_true", help="the full audit as JSON")
    aud.add_argument("--log", action="store_true", help="print the log in words")
    storage_args(aud)

    exp = command(
        sub, "export", cmd_export, "write a game's record as JSON lines, as GET /games/{id}/export does"
    )
    exp.add_argument("game", help="the game's id")
    view = exp.add_mutually_exclusive_group()
    view.add_argument(
        "--seat",
        type=_whole(0),
        help="as this seat may see it: the other seats' hidden parts left out until the game is over "
        "(default: complete, every hidden part, for the operator)",
    )
    view.add_argument(
        "--spectator", action="store_true", help="as a spectator may see it: public parts only until the end"
    )
    exp.add_argument("--out", help="write it to this file (default: standard output)")
    storage_args(exp)

    res = command(sub, "resimulate", cmd_resimulate, "replay every stored game under the current rules")
    res.add_argument(
        "--title", choices=titles, metavar="TITLE", help=f"only this title's games; {title_help}"
    )
    res.add_argument("--json", action="store_true", help="the full report as JSON")
    storage_args(res)

    mig = command(
        sub, "migrate", cmd_migrate, "move a game to the current rules version (after re-simulating it)"
    )
    mig.add_argument("game", help="the game's id")
    mig.add_argument("--force", action="store_true", help="accept a diverging re-simulation")
    storage_args(mig)

    dig = command(sub, "digest", cmd_digest, "issue or show the signed digest of every game's head")
    dig.add_argument("--game", help="add this game's inclusion proof")
    dig.add_argument("--out", help="write it to this file (default: standard output)")
    storage_args(dig)

    imp = command(sub, "import", cmd_import, "record a finished game's export here, after verifying it")
    imp.add_argument("file", help="an export (JSON lines) of a game that is over, or - for standard input")
    storage_args(imp)

    arn = command(
        sub,
        "arena",
        cmd_arena,
        "play one bot against others in memory, seats rotated, and print win shares",
        epilog="Progress goes to standard error; standard output gets each bot's win share and mean "
        'final value, then one JSON line {"title", "games", "win_share", "mean_final", ...}. A first '
        "place shared by k seats counts 1/k of a win to each.",
    )
    arn.add_argument("--title", required=True, choices=titles, metavar="TITLE", help=title_help)
    arn.add_argument("--players", type=_whole(1), default=4, help="players per game (default 4)")
    arn.add_argument("--games", type=_whole(1), default=20, help="how many games (default 20)")
    arn.add_argument(
        "--bot", choices=BOTS, default="strong", help="the bot measured, in one seat (default strong)"
    )
    arn.add_argument(
        "--against", choices=BOTS, default="greedy", help="the bot in every other seat (default greedy)"
    )
    arn.add_argument("--seed", type=int, default=1, help="the same seed plays the same games (default 1)")
    arn.add_argument("--workers", type=_whole(0), default=0, help="processes (default 0: one per core)")
    arn.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help="the strong bot's search size per decision, in ms (default: the title's own)",
    )
    arn.add_argument(
        "--wall-clock",
        action="store_true",
        help="the strong bot's searches also stop at their wall-clock limit, as at a live table "
        "(on a busy machine: weaker play, games no longer exactly reproducible)",
    )

    bak = command(sub, "backup", cmd_backup, "copy the store while it is in use (SQLite backup API; pg_dump)")
    bak.add_argument("dest", help="a directory for the copies")
    storage_args(bak)
    return parser


def explain_failure(exc: BaseException, args: argparse.Namespace) -> tuple[str, int]:
    """What went wrong, in one line that says what to do, and the exit status."""
    from pydantic import ValidationError

    from api.settings import ConfigError, explain
    from ledger.conformance import ConformanceError
    from ledger.errors import LedgerError, NotFoundError, UnavailableError

    if isinstance(exc, CliError):
        return str(exc), exc.status
    if isinstance(exc, ConfigError) or (isinstance(exc, ValidationError) and exc.title == "Settings"):
        problems = "; ".join(explain(exc).splitlines())
        return f"configuration refused: {problems} (deploy/CONFIG.md lists every setting)", MISUSE
    if _is_database_error(exc) or isinstance(exc, UnavailableError):
        try:
            where = f" {_where(_settings(args))}"
        except Exception:
            where = ""
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return (
            f"the database{where} cannot be used ({reason}): check --database-url or "
            "GAMELEDGER_DATABASE_URL, and that the database is running",
            FAILED,
        )
    if isinstance(exc, NotFoundError):
        return (
            f"{exc.message.rstrip('.')} ({exc.code}): check the id, and that --data-dir or --database-url names "
            "the ledger that holds it",
            FAILED,
        )
    if isinstance(exc, LedgerError):
        return f"refused: {exc.code}: {exc.message}", FAILED
    if isinstance(exc, ConformanceError):
        return (
            f"a game broke the conformance checks ({exc}): a bug in a rules engine or the ledger; "
            "report it with the output of --debug",
            FAILED,
        )
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}: check the path and its permissions", FAILED
    return (
        f"unexpected {type(exc).__name__}: {exc}: run it again with --debug and report the traceback",
        FAILED,
    )


def _is_database_error(exc: BaseException) -> bool:
    import sqlite3

    from eventsourcing.persistence import PersistenceError

    kinds: list[type[BaseException]] = [sqlite3.Error, PersistenceError]
    try:
        import psycopg

        kinds.append(psycopg.Error)
    except ImportError:  # pragma: no cover - psycopg is a dependency
        pass
    return isinstance(exc, tuple(kinds))


def main(argv: list[str] | None = None) -> int:
    """Run one command; every failure ends here as one line on standard error."""
    import traceback

    try:
        args = build_parser().parse_args(argv)
    except CliError as exc:
        print(f"{exc.prog}: {exc}", file=sys.stderr)
        return exc.status
    prog = " ".join(["gameledger", args.command, *([args.db_command] if args.command == "db" else [])])
    try:
        return int(args.func(args))
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the final flush does not fail again
        return FAILED
    except KeyboardInterrupt:
        if args.debug:
            traceback.print_exc()
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        message, status = explain_failure(exc, args)
        if args.debug:
            traceback.print_exc()
        print(f"{prog}: {' '.join(message.split())}", file=sys.stderr)
        return status


if __name__ == "__main__":
    raise SystemExit(main())

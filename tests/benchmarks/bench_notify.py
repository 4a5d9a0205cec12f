"""Notification mails: how fast the outbox empties into an SMTP server, and what notifications cost
a decision.

    python -m tests.benchmarks.bench_notify [--quick] [--database-url postgresql://...]

- drain: 1,000 mails queued in the outbox, then delivered by the drain (``MailDelivery.run_once``,
  200 a round over one SMTP connection) to a real SMTP server on this machine (aiosmtpd, in this
  process), on SQLite and PostgreSQL; goal: 1,000 mails in at most 60 s.
- decisions: the in-process time of a decision (``Ledger.decide``) in two-player Cotton Trade games
  whose players all have confirmed addresses, with the workers on (projections, the channels' scan
  and the mail drain every 0.2 s, mailing each notification at once) and with only the projections
  running. The
  decision never waits for any of it: the two should agree within noise.

``mail_section`` is the ``mail`` section of ``python -m tests.benchmarks.run``.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import random
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from api.mail import Mail
from api.services import Services
from api.settings import Settings
from tests import loadkit as lk
from tests.benchmarks import run
from tests.mailkit import free_port, smtp_server

MAILS = 1000


def drain(report: run.Report, kind: str, url: str, mails: int) -> None:
    with smtp_server() as server:
        services = Services.start(Settings(database_url=url, smtp_url=server.url, mail_interval=0))
        try:
            assert services.mail is not None
            for i in range(mails):
                services.mail.queue(
                    Mail(kind="bench/mail", to=f"p{i}@example.org", subject=f"Your turn {i}", text="x\n" * 20)
                )
            t0 = time.perf_counter()
            delivered = 0
            while delivered < mails and time.perf_counter() - t0 < 300:
                delivered += services.mail.run_once()
            seconds = time.perf_counter() - t0
            received = len(server.inbox.messages)
        finally:
            services.close()
    report.add(
        "mail",
        f"{kind}: {mails:,} queued mails delivered to a local SMTP server",
        f"{seconds:.1f} s ({received / seconds:.0f} mails/s, {received} received)",
        f"{mails:,} in ≤ 60 s",
        run.verdict(received == mails and seconds <= 60),
    )


def decisions_over_http(url: str, data: str, games: list[run.Made], n: int, smtp_url: str) -> list[float]:
    """``n`` decisions POSTed to a server (its read models left to a worker process); with
    ``smtp_url`` the worker also turns every notification into a mail and sends it, every 0.2 s."""
    notify = {
        "GAMELEDGER_SMTP_URL": smtp_url,
        "GAMELEDGER_WEBHOOK_INTERVAL": "0.2" if smtp_url else "0",
        "GAMELEDGER_MAIL_INTERVAL": "0.2" if smtp_url else "0",
    }
    server = run.start_server(url, data, GAMELEDGER_PROJECTIONS="off")
    worker = lk.projection_worker(
        lk.server_env(url, Path(data), GAMELEDGER_POOL_SIZE="5", **notify), Path(data) / "worker.log"
    )
    worker.start()
    try:
        client = lk.Api(server.url)
        rnd = random.Random(len(smtp_url) + n)
        times: list[float] = []
        for g in games:
            times += run.play_over_http(client, g.game_id, g.tokens, n // len(games), rnd)
        time.sleep(1.0)  # the last notifications' mails
        return times
    finally:
        server.stop()
        worker.stop()


def _smtp_sink(port: int, received: Any, stop: Any) -> None:
    """A local SMTP server in a process of its own (so that receiving is not what the client measures)."""
    with smtp_server(port=port) as server:
        while not stop.wait(0.2):
            received.value = len(server.inbox.messages)
        received.value = len(server.inbox.messages)


@contextlib.contextmanager
def smtp_process() -> Iterator[tuple[str, Any]]:
    port = free_port()
    received, stop = multiprocessing.Value("i", 0), multiprocessing.Event()
    process = multiprocessing.Process(target=_smtp_sink, args=(port, received, stop), daemon=True)
    process.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            break
        time.sleep(0.1)
    try:
        yield f"smtp://127.0.0.1:{port}", received
    finally:
        stop.set()
        process.join(10)


def latency(report: run.Report, kind: str, url: str, n: int) -> None:
    """Decision latency over HTTP with every notification mailed (the worker process turning them
    into mails and sending them) and without, alternating twice so that drift hits both alike."""
    with tempfile.TemporaryDirectory() as data, smtp_process() as (smtp_url, received):
        services = Services.start(Settings(database_url=url, data_dir=Path(data), projections="off"))
        try:
            assert services.accounts is not None
            games = [run.make_game(services, "water-frame", 4, 40, seed) for seed in range(4)]
            for g in games:  # every player has a confirmed address: every notification is a mail
                for seat, pid in g.ids.items():
                    services.accounts.players.confirm_email(pid, f"{g.game_id[:8]}-{seat}@example.org")
        finally:
            services.close()
        off: list[float] = []
        on: list[float] = []
        for mailing in (False, True, False, True):
            times = decisions_over_http(url, data, games, n // 2, smtp_url if mailing else "")
            (on if mailing else off).extend(times)
        time.sleep(0.5)
        mailed = int(received.value)
    for state, times in (("off", off), ("on, every notification mailed", on)):
        report.add(
            "mail",
            f"{kind}: POST decision p50 / p99 over HTTP, notifications {state} ({len(times)} decisions)",
            f"{run.ms(run.median(times))} / {run.ms(run.p99(times))}"
            + (f"; {mailed} mails sent" if on is times else ""),
        )
    ratio = run.median(on) / run.median(off)
    report.add(
        "mail",
        f"{kind}: decision p50 with notifications on / off",
        f"{ratio:.2f}×",
        "unchanged within noise",
        run.verdict(0.8 <= ratio <= 1.25),
    )


def mail_section(report: run.Report, pg_url: str, quick: bool) -> None:
    print("notification mails", flush=True)
    mails = 200 if quick else MAILS
    n = 80 if quick else 200
    for kind, ctx in (("PostgreSQL", run.pg_schema(pg_url)), ("SQLite", run.sqlite_url())):
        with ctx as url:
            drain(report, kind, url, mails)
    for kind, ctx in (("PostgreSQL", run.pg_schema(pg_url)), ("SQLite", run.sqlite_url())):
        with ctx as url:
            latency(report, kind, url, n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--database-url", default=run.PG_DEFAULT)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    report = run.Report()
    mail_section(report, args.database_url, args.quick)
    print()
    print(report.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

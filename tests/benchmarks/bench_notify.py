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
import random
import tempfile
import time
from pathlib import Path

from api.mail import Mail
from api.services import Services
from api.settings import Settings
from tests.benchmarks import run
from tests.mailkit import smtp_server

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


def decisions(report: run.Report, kind: str, url: str, data: str, n: int, notify: bool) -> list[float]:
    with smtp_server() as server:
        settings = Settings(
            database_url=url,
            data_dir=Path(data),
            smtp_url=server.url if notify else "",
            mail_interval=0.2 if notify else 0,
            webhook_interval=0.2 if notify else 0,
            clock_interval=0,
            digest_interval=0,
        )
        services = Services.start(settings, background=True)  # the projections run alike in both
        try:
            ledger = services.ledger
            assert services.accounts is not None
            ids = [str(ledger.register_player(f"P{i}")[0]) for i in range(8)]
            for i, pid in enumerate(ids):
                services.accounts.players.confirm_email(pid, f"p{i}-{int(notify)}@example.org")
            rnd = random.Random(11)
            times: list[float] = []
            games = [
                ledger.create_game(creator=ids[2 * g], title="cotton-trade", players=ids[2 * g : 2 * g + 2])
                for g in range(4)
            ]
            while len(times) < n and games:
                for game in list(games):
                    g = ledger.get_game(game.id)
                    if g.status != "active":
                        games.remove(game)
                        continue
                    seat = g.awaiting[0]
                    decision = rnd.choice(g.engine.legal_decisions(g.state, seat)).model_dump(mode="json")
                    t0 = time.perf_counter()
                    ledger.decide(g.id, g.seats[seat], g.version, decision)
                    times.append(time.perf_counter() - t0)
            mailed = len(server.inbox.messages)
            if notify:
                time.sleep(1)
                mailed = len(server.inbox.messages)
        finally:
            services.close()
    state = "notifications on (every notification mailed at once)" if notify else "notifications off"
    report.add(
        "mail",
        f"{kind}: a decision in process, {state}: p50 / p99 ({len(times)} decisions)",
        f"{run.ms(run.median(times))} / {run.ms(run.p99(times))}"
        + (f", {mailed} mails sent meanwhile" if notify else ""),
    )
    return times


def mail_section(report: run.Report, pg_url: str, quick: bool) -> None:
    print("notification mails", flush=True)
    mails = 200 if quick else MAILS
    n = 100 if quick else 400
    for kind, ctx in (("PostgreSQL", run.pg_schema(pg_url)), ("SQLite", run.sqlite_url())):
        with ctx as url:
            drain(report, kind, url, mails)
    for kind, make in (("PostgreSQL", lambda: run.pg_schema(pg_url)), ("SQLite", run.sqlite_url)):
        off = on = []
        for notify in (False, True):
            with make() as url, tempfile.TemporaryDirectory() as data:
                if notify:
                    on = decisions(report, kind, url, data, n, True)
                else:
                    off = decisions(report, kind, url, data, n, False)
        ratio = run.median(on) / run.median(off)
        report.add(
            "mail",
            f"{kind}: decision p50 with notifications on / off",
            f"{ratio:.2f}×",
            "unchanged within noise",
            run.verdict(ratio <= 1.25),
        )


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

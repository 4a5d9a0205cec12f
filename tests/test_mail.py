"""The mail module: an outbox drained through a real SMTP server in the test process (aiosmtpd),
over plain SMTP, STARTTLS and implicit TLS, with a login; retried with backoff while the server
is away, given up on a permanent refusal, claimed so that two drains never send a mail twice,
written to the log when no server is configured; and a request never waits for any of it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from api.app import create_app
from api.mail import (
    BACKOFF,
    ERASED,
    MAX_ATTEMPTS,
    Mail,
    MailDelivery,
    build_message,
    mask_smtp_url,
    parse_smtp_url,
    transport_for,
)
from api.services import Services
from api.settings import Settings
from tests.api_helpers import API
from tests.mailkit import free_port, smtp_server, text_of, tls_pair


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2030, 1, 1, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def mail_services(settings: Settings) -> Iterator[Services]:
    svc = Services.start(settings.model_copy(update={"mail_from": "Gameledger <noreply@play.test>"}))
    yield svc
    svc.close()


def drain(services: Services, transport: Any, clock: Clock | None = None) -> MailDelivery:
    """The services' outbox with this transport (and clock): a drain as the workers run it."""
    assert services.mail is not None
    return MailDelivery(services.mail.outbox, transport, services.mail.sender, now=clock or Clock())


def queue(delivery: MailDelivery, n: int = 1, **extra: Any) -> list[str]:
    return [
        delivery.queue(
            Mail(kind="test/hello", to=f"p{i}@example.org", subject=f"Hello {i}", text=f"Text {i}\n", **extra)
        )
        for i in range(n)
    ]


# -- settings -----------------------------------------------------------------------------------


def test_smtp_urls_are_read_and_bad_ones_refused_at_start() -> None:
    t = parse_smtp_url("smtp://ann%40example.org:p%3Ass@mail.example.org")
    assert (t.tls, t.host, t.port, t.user, t.password) == (
        False,
        "mail.example.org",
        587,
        "ann@example.org",
        "p:ss",
    )
    t = parse_smtp_url("smtps://mail.example.org")
    assert (t.tls, t.port, t.user) == (True, 465, "")
    assert parse_smtp_url("smtp://127.0.0.1:2525").port == 2525
    assert "p:ss" not in repr(parse_smtp_url("smtp://u:p:ss@h"))
    for bad in ("http://mail.example.org", "smtp://", "smtp://host:99999", "mail.example.org:25"):
        with pytest.raises(ValidationError, match="GAMELEDGER_SMTP_URL|smtp_url|SMTP URL"):
            Settings(smtp_url=bad)
    assert mask_smtp_url("smtp://ann:secret@mail.example.org:587") == "smtp://ann:***@mail.example.org:587"
    shown = Settings(smtp_url="smtps://ann:secret@mail.example.org").public()
    assert "secret" not in str(shown) and shown["smtp_url"] == "smtps://ann:***@mail.example.org"
    with pytest.raises(ValidationError):
        Settings(mail_from="not an address")
    with pytest.raises(ValidationError):
        Settings(public_url="play.example.org")
    assert Settings(public_url="https://play.example.org/").public_url == "https://play.example.org"
    production = {
        "environment": "production",
        "admin_token": "a" * 30,
        "signing_key": "k" * 44,
        "database_url": "postgresql://gameledger@db/gameledger",
    }
    with pytest.raises(ValidationError, match="GAMELEDGER_PUBLIC_URL"):
        Settings(**production)  # mailed links would point wherever a request said it was
    with pytest.raises(ValidationError, match="placeholder in GAMELEDGER_SMTP_URL"):
        Settings(
            **production,
            public_url="https://play.example.org",
            smtp_url="smtp://u:change-me@mail.example.org",
        )
    assert Settings(**production, public_url="https://play.example.org").environment == "production"


def test_a_mail_refuses_line_breaks_in_its_headers() -> None:
    """No header injection: a subject or recipient with a line break never becomes a header."""
    for mail in (
        Mail(kind="k", to="ann@example.org", subject="Hi\r\nBcc: eve@example.org", text="x"),
        Mail(kind="k", to="ann@example.org\nBcc: eve@example.org", subject="Hi", text="x"),
    ):
        with pytest.raises(ValueError):
            build_message(mail, "gameledger <noreply@play.test>")
    msg = build_message(Mail(kind="k", to="ann@example.org", subject="Hi", text="Grüße\n"), "g <n@play.test>")
    assert msg["Auto-Submitted"] == "auto-generated" and msg["Message-ID"].endswith("@play.test>")


# -- delivery -------------------------------------------------------------------------------------


def test_mails_are_delivered_to_an_smtp_server_and_logged(mail_services: Services) -> None:
    with smtp_server() as server:
        clock = Clock()
        delivery = drain(mail_services, transport_for(server.url, 5), clock)
        ids = queue(delivery, 3, headers={"List-Unsubscribe": "<https://play.test/u/x>"})
        ids += queue(delivery, 1, keep_text=False)
        assert delivery.run_once() == 4
        assert delivery.run_once() == 0, "each mail once"
    got = server.inbox.to("p0@example.org")
    assert len(got) == 2 and len(server.inbox.messages) == 4
    # the two mails to p0 were queued in the same instant (the test's clock): either may go first
    first = next(m for m in got if ids[0] in m["Message-ID"])
    assert first["From"] == "Gameledger <noreply@play.test>" and first["Subject"] == "Hello 0"
    assert first["List-Unsubscribe"] == "<https://play.test/u/x>" and text_of(first) == "Text 0\n"
    assert ids[0] in first["Message-ID"] and first["Message-ID"].endswith("@play.test>")
    outbox = delivery.outbox
    row = outbox.get(ids[0])
    assert (
        row is not None
        and row["status"] == "delivered"
        and row["attempts"] == 1
        and row["body"] == "Text 0\n"
    )
    assert row["sent_at"] == clock().isoformat()
    erased = outbox.get(ids[3])
    assert erased is not None and erased["status"] == "delivered" and erased["body"] == ERASED
    assert [a["result"] for a in outbox.attempts(ids[0])] == ["delivered"]


def test_starttls_with_a_login_and_implicit_tls(mail_services: Services, tmp_path: Path) -> None:
    server_ctx, client_ctx = tls_pair(tmp_path)
    with smtp_server(login=("ann", "pa ss"), tls="starttls", context=server_ctx) as server:
        delivery = drain(
            mail_services, transport_for(server.url.replace("ann:pa ss", "ann:pa%20ss"), 5, client_ctx)
        )
        queue(delivery, 2)
        assert delivery.run_once() == 2
        assert server.inbox.logins == [("ann", True)], "one login, over TLS, for the round"
    with smtp_server(login=("ann", "pw"), tls="implicit", context=server_ctx) as server:
        assert server.url.startswith("smtps://")
        delivery = drain(mail_services, transport_for(server.url, 5, client_ctx))
        queue(delivery, 1)
        assert delivery.run_once() == 1 and len(server.inbox.messages) == 1
        assert server.inbox.logins == [("ann", True)]
    # an untrusted certificate: not sent, retried later
    with smtp_server(tls="implicit", context=server_ctx) as server:
        delivery = drain(mail_services, transport_for(server.url, 5))
        (mail_id,) = queue(delivery, 1)
        assert delivery.run_once() == 0 and not server.inbox.messages
        row = delivery.outbox.get(mail_id)
        assert row is not None and row["status"] == "pending" and "CERTIFICATE" in str(row["reason"]).upper()


def test_a_password_is_not_sent_in_the_clear_to_a_server_elsewhere(
    mail_services: Services, monkeypatch: Any
) -> None:
    from api import mail

    with smtp_server(login=("ann", "pw")) as server:  # no STARTTLS offered
        monkeypatch.setattr(mail, "_loopback", lambda host: False)  # as if the server were elsewhere
        delivery = drain(mail_services, transport_for(server.url, 5))
        (mail_id,) = queue(delivery, 1)
        assert delivery.run_once() == 0 and not server.inbox.logins
        row = delivery.outbox.get(mail_id)
        assert row is not None and row["status"] == "pending" and "in the clear" in str(row["reason"])


def test_a_server_that_is_down_loses_no_mail_it_is_retried_with_backoff(mail_services: Services) -> None:
    port = free_port()
    clock = Clock()
    delivery = drain(mail_services, transport_for(f"smtp://127.0.0.1:{port}", 2), clock)
    (mail_id,) = queue(delivery, 1)
    assert delivery.run_once() == 0
    row = delivery.outbox.get(mail_id)
    assert row is not None and row["status"] == "pending" and row["attempts"] == 1
    assert "Connection" in str(row["reason"]) or "refused" in str(row["reason"]).lower()
    assert row["next_attempt_at"] == (clock() + timedelta(seconds=BACKOFF[0])).isoformat()
    clock.advance(BACKOFF[0] - 1)
    assert delivery.run_once() == 0 and delivery.outbox.get(mail_id)["attempts"] == 1, "not before its time"  # type: ignore[index]
    with smtp_server(port=port) as server:  # the server is back, at the same address
        clock.advance(2)
        assert delivery.run_once() == 1
    assert len(server.inbox.messages) == 1
    assert [a["result"] for a in delivery.outbox.attempts(mail_id)] == ["pending", "delivered"]


def test_a_mail_is_given_up_after_its_attempts_or_a_permanent_refusal(mail_services: Services) -> None:
    clock = Clock()
    delivery = drain(mail_services, transport_for(f"smtp://127.0.0.1:{free_port()}", 2), clock)
    (mail_id,) = queue(delivery, 1, keep_text=False)
    for _ in range(MAX_ATTEMPTS + 2):
        delivery.run_once()
        clock.advance(BACKOFF[-1] + 1)
    row = delivery.outbox.get(mail_id)
    assert row is not None and (row["status"], row["attempts"]) == ("failed", MAX_ATTEMPTS)
    assert row["body"] == ERASED, "a one-time link leaves the outbox when the mail is given up"
    with smtp_server() as server:
        server.inbox.refuse.add("p0@example.org")
        delivery = drain(mail_services, transport_for(server.url, 5), clock)
        refused, fine = queue(delivery, 2)
        assert delivery.run_once() == 1
    row = delivery.outbox.get(refused)
    assert (
        row is not None and (row["status"], row["attempts"]) == ("failed", 1) and "550" in str(row["reason"])
    )
    assert delivery.outbox.get(fine)["status"] == "delivered"  # type: ignore[index]


def test_two_drains_at_once_send_each_mail_once(mail_services: Services) -> None:
    with smtp_server() as server:
        first = drain(mail_services, transport_for(server.url, 5))
        second = drain(mail_services, transport_for(server.url, 5))
        queue(first, 30)
        start = threading.Barrier(2)

        def run(d: MailDelivery) -> None:
            start.wait()
            d.run_once()

        threads = [threading.Thread(target=run, args=(d,)) for d in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert first.run_once() + second.run_once() == 0
    assert sorted(m["Subject"] for m in server.inbox.messages) == sorted(f"Hello {i}" for i in range(30))
    assert first.outbox.counts() == {"delivered": 30}


def test_without_an_smtp_server_mails_go_to_the_log(
    mail_services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    assert mail_services.settings.smtp_url == ""
    assert mail_services.mail is not None
    with caplog.at_level(logging.WARNING, logger="gameledger.mail"):
        mail_services.mail.queue(
            Mail(kind="k", to="ann@example.org", subject="Hi", text="the link: https://x/y\n")
        )
        assert mail_services.mail.run_once() == 1
    assert (
        "GAMELEDGER_SMTP_URL" in caplog.text
        and "ann@example.org" in caplog.text
        and "https://x/y" in caplog.text
    )


def test_a_request_never_waits_for_the_mail_server(settings: Settings) -> None:
    """With the drain running in the server process and a mail server that holds every mail
    until released, sign-ups that mail a confirmation link are answered all the same."""
    release = threading.Event()
    sending = threading.Event()

    class Stuck:
        def send(self, message: Any) -> None:
            sending.set()
            release.wait(30)

        def close(self) -> None:
            pass

    svc = Services.start(settings.model_copy(update={"mail_interval": 0.05}))
    assert svc.mail is not None
    svc.mail.transport = Stuck
    svc.start_workers()
    try:
        with TestClient(create_app(svc.settings, svc)) as client:
            first = client.post(f"{API}/players", json={"name": "Ann", "email": "ann@example.org"})
            assert first.status_code == 201
            assert sending.wait(10), "the drain took the mail"
            # the drain is stuck inside the mail server; requests go on
            for i in range(3):
                r = client.post(f"{API}/players", json={"name": f"P{i}", "email": f"p{i}@example.org"})
                assert r.status_code == 201, r.text
                assert (
                    client.post(f"{API}/players/recover", json={"email": "ann@example.org"}).status_code
                    == 202
                )
            assert not release.is_set()
    finally:
        release.set()
        svc.close()

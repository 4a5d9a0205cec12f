"""The services mailing through a test SMTP server (``tests.mailkit``), with a client of the app
on them: the world of the tests of accounts and of notifications."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services
from api.settings import Settings
from tests.mailkit import SmtpServer

PUBLIC = "http://play.test"


def mailing(settings: Settings, smtp: SmtpServer, **more: Any) -> Settings:
    """These settings, mailing through ``smtp`` as gameledger, their links pointing at PUBLIC."""
    return settings.model_copy(
        update={"smtp_url": smtp.url, "public_url": PUBLIC, "mail_from": "gameledger <noreply@play.test>"}
        | more
    )


@contextmanager
def served(
    settings: Settings, prepare: Callable[[Services], None] | None = None
) -> Iterator[tuple[Services, TestClient]]:
    """Services started on these settings (``prepare`` sets them up before the app starts) and a
    client of the app on them; the services are closed after."""
    services = Services.start(settings)
    try:
        if prepare is not None:
            prepare(services)
        with TestClient(create_app(settings, services)) as client:
            yield services, client
    finally:
        services.close()


@dataclass
class MailWorld:
    client: TestClient
    services: Services
    smtp: SmtpServer

    def mails_to(self, address: str) -> list[Any]:
        """Every mail sent to ``address`` so far, the outbox drained first."""
        assert self.services.mail is not None
        self.services.mail.run_once()
        return self.smtp.inbox.to(address)

"""A real SMTP server inside the test process (aiosmtpd), and what it received.

``smtp_server()`` starts one on a free port of 127.0.0.1 (plain, STARTTLS, implicit TLS, with
or without a login); its ``Inbox`` keeps every message as an ``EmailMessage``. ``tls_pair()``
makes a self-signed certificate for 127.0.0.1 and the client context that trusts it.
"""

from __future__ import annotations

import contextlib
import datetime
import email
import email.policy
import ipaddress
import re
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

LINK = re.compile(r"(https?://\S+?)(/account/(?:confirm|recover))#token=(glk_\S+)")


@dataclass
class Inbox:
    """An aiosmtpd handler keeping what it receives; recipients in ``refuse`` get 550."""

    messages: list[EmailMessage] = field(default_factory=list)
    envelopes: list[tuple[str, list[str]]] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)
    logins: list[tuple[str, bool]] = field(default_factory=list)  # (user, over TLS)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:  # noqa: N802
        if address.lower() in self.refuse:
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._lock:
            self.messages.append(message)  # type: ignore[arg-type]
            self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 Message accepted"

    def to(self, address: str, accounts_only: bool = False) -> list[EmailMessage]:
        """The mails to ``address`` (``accounts_only``: not the notifications, which carry List-Unsubscribe)."""
        with self._lock:
            return [
                m
                for m in self.messages
                if m["To"] == address and not (accounts_only and m["List-Unsubscribe"])
            ]

    def wait_for(
        self, address: str, count: int = 1, seconds: float = 15, accounts_only: bool = False
    ) -> list[EmailMessage]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            got = self.to(address, accounts_only)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(
            f"{count} mail(s) to {address} did not arrive; got {len(self.to(address, accounts_only))}"
        )


def text_of(message: EmailMessage) -> str:
    return str(message.get_content()).replace("\r\n", "\n")


def link_in(message: EmailMessage) -> tuple[str, str, str]:
    """(base URL, page path, token) of the one-time link in a mail."""
    found = LINK.search(text_of(message))
    assert found, text_of(message)
    return found.group(1), found.group(2), found.group(3)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class SmtpServer:
    inbox: Inbox
    port: int
    url: str


@contextlib.contextmanager
def smtp_server(
    *,
    login: tuple[str, str] | None = None,
    tls: str = "",
    context: ssl.SSLContext | None = None,
    port: int | None = None,
    **kwargs: Any,
) -> Iterator[SmtpServer]:
    """``tls``: "" (plain), "starttls" (offered and required) or "implicit" (smtps)."""
    inbox = Inbox()
    port = port or free_port()
    options: dict[str, Any] = dict(kwargs)
    if login is not None:

        def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
            ok = isinstance(data, LoginPassword) and (data.login.decode(), data.password.decode()) == login
            if ok:  # (aiosmtpd sees TLS it started itself; implicit TLS is TLS from the first byte)
                inbox.logins.append((data.login.decode(), session.ssl is not None or tls == "implicit"))
            return AuthResult(success=ok)

        # aiosmtpd offers AUTH over implicit TLS only without its STARTTLS requirement
        options.update(authenticator=authenticator, auth_required=True, auth_require_tls=tls == "starttls")
    if tls == "starttls":
        options.update(tls_context=context, require_starttls=True)
    if tls == "implicit":
        options.update(ssl_context=context)
    controller = Controller(inbox, hostname="127.0.0.1", port=port, **options)
    controller.start()
    scheme = "smtps" if tls == "implicit" else "smtp"
    user = f"{login[0]}:{login[1]}@" if login else ""
    try:
        yield SmtpServer(inbox, port, f"{scheme}://{user}127.0.0.1:{port}")
    finally:
        controller.stop()


def tls_pair(folder: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context, client context trusting it) for a self-signed certificate of 127.0.0.1."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "smtp-cert.pem", folder / "smtp-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert_path, key_path)
    client = ssl.create_default_context(cafile=str(cert_path))
    return server, client

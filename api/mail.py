"""Mail: an outbox of messages, drained by a worker through SMTP (or into the log).

Whoever wants a mail sent (the account pages now; the notifications later) puts it in the
outbox: its kind, recipient, subject, text and extra headers. Nothing waits for a mail
server: a request writes one row. The drain (``MailDelivery.run_once``, run every
``GAMELEDGER_MAIL_INTERVAL`` seconds by the workers, and woken at once in the process
that queued a mail) claims due messages (so that two processes never both send one),
sends them over one SMTP connection per round and records every attempt; a failure is
retried after 10 s, 30 s, 90 s ... up to ``MAX_ATTEMPTS`` attempts, an address the server
refuses for good (5xx) fails at once. Delivery is at least once: a process that dies
between sending and recording sends that mail again after ``STUCK``.

``GAMELEDGER_SMTP_URL``: ``smtp://user:password@host:port`` (STARTTLS when the server
offers it; a password is only sent over TLS, or to a server on this machine),
``smtps://...`` (TLS from the first byte; port 465 by default). Without it, every mail
is written to the log (logger ``gameledger.mail``, level WARNING) for the operator to
pass on, and counted as delivered.

A mail that holds a secret (a one-time link) is queued with ``keep_text=False``: once it
is delivered or given up its text is erased from the outbox.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import secrets
import smtplib
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from typing import Any, Protocol
from urllib.parse import unquote, urlparse

from api.outbound import default_tls_context
from projections.base import SqlView

log = logging.getLogger("gameledger.mail")

MAX_ATTEMPTS = 8
BACKOFF = (10, 30, 90, 270, 810, 2430, 7290)  # seconds before attempt 2, 3, ...
STUCK = timedelta(minutes=2)  # a claimed mail not recorded by then is tried again
ERASED = "(erased after sending: it held a one-time link)"


# -- where mail goes -----------------------------------------------------------------------


@dataclass(frozen=True)
class SmtpTarget:
    tls: bool  # smtps: TLS from the start; smtp: STARTTLS when offered
    host: str
    port: int
    user: str = ""
    password: str = field(default="", repr=False)


def parse_smtp_url(url: str) -> SmtpTarget:
    """``smtp://[user[:password]@]host[:port]`` or ``smtps://...``; a ValueError says what is wrong."""
    parsed = urlparse(url)
    if parsed.scheme not in ("smtp", "smtps"):
        raise ValueError(
            f"an SMTP URL starts with smtp:// (STARTTLS) or smtps:// (TLS), not {parsed.scheme or url!r}"
        )
    try:
        port = parsed.port
    except ValueError:
        raise ValueError("the SMTP URL's port is not a number from 1 to 65535") from None
    if not parsed.hostname:
        raise ValueError("the SMTP URL names no host: smtp://user:password@host:587")
    tls = parsed.scheme == "smtps"
    return SmtpTarget(
        tls=tls,
        host=parsed.hostname,
        port=port or (465 if tls else 587),
        user=unquote(parsed.username or ""),
        password=unquote(parsed.password or ""),
    )


def mask_smtp_url(url: str) -> str:
    """The URL without its password (``gameledger config show``)."""
    parsed = urlparse(url)
    if not parsed.password:
        return url
    host = parsed.netloc.rsplit("@", 1)[1]
    return f"{parsed.scheme}://{unquote(parsed.username or '')}:***@{host}{parsed.path}"


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -- a mail ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mail:
    kind: str  # what it is about, e.g. "account/confirm_email" (the delivery log shows it)
    to: str
    subject: str
    text: str
    headers: dict[str, str] = field(default_factory=dict)  # extra headers (List-Unsubscribe ...)
    player_id: str | None = None  # whom it is for, when it is for a player
    keep_text: bool = True  # False: erase the text once sent (a one-time link)


MAIL_POLICY = policy.SMTP.clone(max_line_length=998)


def build_message(mail: Mail, sender: str, message_id: str | None = None) -> EmailMessage:
    """The RFC 5322 message (EmailMessage refuses line breaks in a header: no header injection).
    Lines may be as long as RFC 5322 allows (998): folded at 78, a header made of one long word
    (List-Unsubscribe's ``<URI>``) became RFC 2047 encoded words, which mail programs do not read
    as a URI."""
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = sender
    msg["To"] = mail.to
    msg["Subject"] = mail.subject
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    msg["Message-ID"] = message_id or make_msgid(domain=(parseaddr(sender)[1].rpartition("@")[2] or None))
    msg["Auto-Submitted"] = "auto-generated"
    for name, value in mail.headers.items():
        msg[name] = value
    msg.set_content(mail.text)
    return msg


class PermanentFailure(Exception):
    """The server refused the mail for good (a 5xx answer to the recipient or the data)."""


class Transport(Protocol):
    def send(self, message: EmailMessage) -> None: ...

    def close(self) -> None: ...


class LogTransport:
    """No SMTP server configured: each mail is written to the log for the operator."""

    def send(self, message: EmailMessage) -> None:
        log.warning(
            "no SMTP server configured (GAMELEDGER_SMTP_URL): mail to %s, %r, not sent:\n%s",
            message["To"],
            message["Subject"],
            message.get_content(),
        )

    def close(self) -> None:
        pass


class SmtpTransport:
    """One SMTP connection, opened on the first mail and kept for the rest of a round."""

    def __init__(
        self, target: SmtpTarget, timeout: float = 10.0, context: ssl.SSLContext | None = None
    ) -> None:
        self.target = target
        self.timeout = timeout
        self.context = context or default_tls_context()
        self._smtp: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        t = self.target
        smtp: smtplib.SMTP
        if t.tls:
            smtp = smtplib.SMTP_SSL(t.host, t.port, timeout=self.timeout, context=self.context)
        else:
            smtp = smtplib.SMTP(t.host, t.port, timeout=self.timeout)
        try:
            smtp.ehlo()
            if not t.tls:
                if smtp.has_extn("starttls"):
                    smtp.starttls(context=self.context)
                    smtp.ehlo()
                elif t.user and not _loopback(t.host):
                    raise smtplib.SMTPException(
                        f"{t.host} offers no STARTTLS: the password is not sent in the clear "
                        "(use smtps://, or a server that offers STARTTLS)"
                    )
            if t.user:
                smtp.login(t.user, t.password)
        except BaseException:
            with contextlib.suppress(Exception):
                smtp.close()
            raise
        return smtp

    def send(self, message: EmailMessage) -> None:
        if self._smtp is None:
            self._smtp = self._connect()
        try:
            self._smtp.send_message(message)
        except smtplib.SMTPRecipientsRefused as exc:
            self.close_quietly()
            codes = [code for code, _ in exc.recipients.values()]
            if codes and all(500 <= c < 600 for c in codes):
                raise PermanentFailure(f"recipient refused: {codes[0]}") from exc
            raise
        except smtplib.SMTPResponseException as exc:
            self.close_quietly()
            if 500 <= exc.smtp_code < 600 and isinstance(
                exc, smtplib.SMTPDataError | smtplib.SMTPSenderRefused
            ):
                raise PermanentFailure(f"{exc.smtp_code} {exc.smtp_error!r}") from exc
            raise
        except BaseException:
            self.close_quietly()
            raise

    def close_quietly(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            with contextlib.suppress(Exception):
                smtp.close()

    def close(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            try:
                smtp.quit()
            except Exception:
                smtp.close()


# -- the outbox ---------------------------------------------------------------------------------


class MailOutbox(SqlView):
    """Queued mails and every attempt to send them (not a read model: a rebuild never touches it)."""

    view_name = "mail"
    TABLE_NAMES = ("outbox", "attempts")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {outbox} ("
        " mail_id TEXT PRIMARY KEY, kind TEXT NOT NULL, player_id TEXT, recipient TEXT NOT NULL,"
        " subject TEXT NOT NULL, body TEXT NOT NULL, headers TEXT NOT NULL, keep_text INTEGER NOT NULL,"
        " created_at TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,"
        " next_attempt_at TEXT NOT NULL, updated_at TEXT NOT NULL, reason TEXT, sent_at TEXT)",
        "CREATE INDEX IF NOT EXISTS mail_outbox_due ON {outbox} (status, next_attempt_at)",
        "CREATE INDEX IF NOT EXISTS mail_outbox_player ON {outbox} (player_id, created_at)",
        "CREATE TABLE IF NOT EXISTS {attempts} ("
        " mail_id TEXT NOT NULL, attempt INTEGER NOT NULL, at TEXT NOT NULL, result TEXT NOT NULL,"
        " reason TEXT, duration_ms INTEGER NOT NULL, PRIMARY KEY (mail_id, attempt))",
    )

    def enqueue(self, mail: Mail, now: datetime, mail_id: str | None = None) -> str | None:
        """The mail's id, or None when a mail of this id is queued already (a notification scanned twice)."""
        mail_id = mail_id or secrets.token_hex(12)
        at = now.isoformat()
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"INSERT INTO {self.t('outbox')} (mail_id, kind, player_id, recipient, subject, body, headers,"
                " keep_text, created_at, status, attempts, next_attempt_at, updated_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, 'pending', 0, %s, %s) ON CONFLICT DO NOTHING",
                [
                    mail_id,
                    mail.kind,
                    mail.player_id,
                    mail.to,
                    mail.subject,
                    mail.text,
                    json.dumps(mail.headers),
                    int(mail.keep_text),
                    at,
                    at,
                    at,
                ],
            )
            added = rowcount(c) == 1
        return mail_id if added else None

    def due(self, now: str, stuck_before: str, limit: int) -> list[dict[str, Any]]:
        return self.rows(
            f"SELECT * FROM {self.t('outbox')} WHERE (status = 'pending' AND next_attempt_at <= %s)"
            " OR (status = 'sending' AND updated_at <= %s) ORDER BY next_attempt_at, created_at, mail_id LIMIT %s",
            [now, stuck_before, limit],
        )

    def claim(self, row: dict[str, Any], now: str) -> bool:
        """Take a mail for sending unless another process changed it first (compare and set)."""
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"UPDATE {self.t('outbox')} SET status = 'sending', updated_at = %s"
                " WHERE mail_id = %s AND status = %s AND updated_at = %s",
                [now, row["mail_id"], row["status"], row["updated_at"]],
            )
            return rowcount(c) == 1

    def record(self, row: dict[str, Any], attempt: dict[str, Any], next_at: str) -> None:
        final = attempt["result"] in ("delivered", "failed")
        erase = final and not row["keep_text"]
        with self.datastore.transaction(commit=True) as c:
            if erase and self.dialect == "sqlite":
                c.execute("PRAGMA secure_delete = ON")  # the old text's bytes are overwritten in the file
            self.execute(
                c,
                f"UPDATE {self.t('outbox')} SET status = %s, attempts = %s, next_attempt_at = %s, updated_at = %s,"
                " reason = %s, sent_at = %s" + (", body = %s" if erase else "") + " WHERE mail_id = %s",
                [
                    attempt["result"],
                    attempt["attempt"],
                    next_at,
                    attempt["at"],
                    attempt["reason"],
                    attempt["at"] if attempt["result"] == "delivered" else None,
                    *([ERASED] if erase else []),
                    row["mail_id"],
                ],
            )
            self.execute(
                c,
                f"INSERT INTO {self.t('attempts')} (mail_id, attempt, at, result, reason, duration_ms)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                [
                    row["mail_id"],
                    attempt["attempt"],
                    attempt["at"],
                    attempt["result"],
                    attempt["reason"],
                    attempt["duration_ms"],
                ],
            )
        if erase and self.dialect == "sqlite":
            self._checkpoint()

    def _checkpoint(self) -> None:
        """Fold SQLite's write-ahead log into the file and empty it, so that the erased text is in
        neither (best effort: a reader still on an older snapshot keeps the log until it ends)."""
        with self.datastore.get_connection(commit=True) as conn:
            conn._sqlite_conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def get(self, mail_id: str) -> dict[str, Any] | None:
        rows = self.rows(f"SELECT * FROM {self.t('outbox')} WHERE mail_id = %s", [mail_id])
        return rows[0] if rows else None

    def attempts(self, mail_id: str) -> list[dict[str, Any]]:
        return self.rows(f"SELECT * FROM {self.t('attempts')} WHERE mail_id = %s ORDER BY attempt", [mail_id])

    def recent(self, player_id: str, limit: int = 20) -> list[dict[str, Any]]:
        """A player's latest mails and how their delivery went (never their text)."""
        return self.rows(
            f"SELECT mail_id, kind, recipient, subject, created_at, status, attempts, reason, sent_at"
            f" FROM {self.t('outbox')} WHERE player_id = %s ORDER BY created_at DESC LIMIT %s",
            [player_id, limit],
        )

    def counts(self) -> dict[str, int]:
        rows = self.rows(f"SELECT status, COUNT(*) AS n FROM {self.t('outbox')} GROUP BY status")
        return {r["status"]: int(r["n"]) for r in rows}


def rowcount(c: Any) -> int:
    """Rows the last statement changed (eventsourcing's SQLite cursor wraps sqlite3's)."""
    inner = getattr(c, "sqlite_cursor", c)
    return int(inner.rowcount)


# -- the drain ------------------------------------------------------------------------------------


class MailDelivery:
    """Sends what is due in the outbox; ``queue`` adds a mail and wakes the drain of this process."""

    def __init__(
        self,
        outbox: MailOutbox,
        transport: Callable[[], Transport],
        sender: str,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        chat: Any = None,
    ) -> None:
        self.outbox = outbox
        self.transport = transport
        self.sender = sender
        self.now = now
        self.chat = chat  # posts the rows of kind chat/... (api.channels.ChatTransport)
        self.wake = threading.Event()
        self._lock = threading.Lock()  # one round at a time in a process

    def queue(self, mail: Mail, mail_id: str | None = None) -> str | None:
        """Put a mail in the outbox (None: one of this ``mail_id`` is there already) and wake the drain."""
        queued = self.outbox.enqueue(mail, self.now(), mail_id)
        self.wake.set()
        return queued

    def run_once(self, limit: int = 200) -> int:
        """One round: every due mail (up to ``limit``) tried once; returns how many were delivered."""
        with self._lock:
            now = self.now()
            due = self.outbox.due(now.isoformat(), (now - STUCK).isoformat(), limit)
            if not due:
                return 0
            transport = self.transport()
            delivered = 0
            try:
                for row in due:
                    if self.outbox.claim(row, self.now().isoformat()):  # else another process has it
                        delivered += self._send(transport, row)
            finally:
                transport.close()
            return delivered

    def _send(self, transport: Transport, row: dict[str, Any]) -> int:
        attempt = int(row["attempts"]) + 1
        mail = Mail(
            kind=row["kind"],
            to=row["recipient"],
            subject=row["subject"],
            text=row["body"],
            headers=json.loads(row["headers"]),
        )
        message_id = make_msgid(
            idstring=row["mail_id"], domain=(parseaddr(self.sender)[1].rpartition("@")[2] or None)
        )
        reason: str | None = None
        t0 = time.perf_counter()
        try:
            if row["kind"].startswith("chat/"):  # a Discord or Slack message: posted, not mailed
                if self.chat is None:
                    raise PermanentFailure("no chat transport in this process")
                self.chat.send(row)
            else:
                transport.send(build_message(mail, self.sender, message_id))
            result = "delivered"
        except PermanentFailure as exc:
            result, reason = "failed", str(exc)[:300]
        except (OSError, smtplib.SMTPException, ValueError) as exc:  # the server away, refusing for now
            result = "failed" if attempt >= MAX_ATTEMPTS else "pending"
            reason = f"{type(exc).__name__}: {exc}"[:300]
        duration = round((time.perf_counter() - t0) * 1000)
        now = self.now()
        delay = BACKOFF[min(attempt - 1, len(BACKOFF) - 1)]
        self.outbox.record(
            row,
            {
                "result": result,
                "attempt": attempt,
                "at": now.isoformat(),
                "reason": reason,
                "duration_ms": duration,
            },
            (now + timedelta(seconds=delay)).isoformat(),
        )
        if result == "failed":
            log.warning(
                "mail %s (%s) to %s given up after %s attempts: %s",
                row["mail_id"],
                row["kind"],
                row["recipient"],
                attempt,
                reason,
            )
        elif reason:
            log.info(
                "mail %s (%s) not sent yet (attempt %s): %s", row["mail_id"], row["kind"], attempt, reason
            )
        return 1 if result == "delivered" else 0

    def loop(self, stop: threading.Event, interval: float) -> None:
        """The worker thread: a round every ``interval`` seconds, or as soon as a mail is queued here."""
        while not stop.is_set():
            try:
                self.run_once()
            except Exception:
                log.exception("mail round failed")
            self.wake.wait(interval)
            self.wake.clear()


def transport_for(
    smtp_url: str, timeout: float, context: ssl.SSLContext | None = None
) -> Callable[[], Transport]:
    """A factory of transports for each round: SMTP when configured, else the log."""
    if not smtp_url:
        return LogTransport
    target = parse_smtp_url(smtp_url)
    return lambda: SmtpTransport(target, timeout, context)

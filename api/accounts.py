"""Accounts on the server: passwords, sessions, one-time links, sign-in limits, account mail.

The ledger records what belongs to the player's record (a confirmed address, a password's
hash, named tokens: ``ledger/accounts.py``). This module keeps the rest, in the accounts
store beside the read models (never rebuilt from the log, like the signed digests):

- **sessions**: a sign-in, by password, token, recovery link or at sign-up. Its bearer
  ``gls_<id>_<secret>`` is the web pages' HttpOnly cookie (or an API client's bearer
  token); only its SHA-256 is kept. A session lasts ``session_days`` after its last use and
  ends at sign-out. A page proves that a write comes from it with ``X-CSRF-Token``: an
  HMAC of the session's secret, which a page of another site can neither read nor compute.
- **links**: one-time links (``glk_<id>_<secret>``, SHA-256 kept) that confirm an address
  (``confirm_link_hours``), sign a player in who lost access (``recovery_link_minutes``), or
  sign in from a "your turn" mail (``TURN_LINK``, for players who chose such links; a session
  opened so is no recovery: it cannot set a password without the old one). Each works once; a
  newer one of the same kind (for a turn link: of the same game) replaces the older ones.
- **attempts**: failed sign-ins per email address and per client address, recovery requests
  per client address, account mails per address, in sliding windows, so that every server
  process counts the same.

Passwords are hashed with argon2id (argon2-cffi's RFC 9106 low-memory profile: 64 MiB,
3 passes), at most ``HASHING_AT_ONCE`` at a time per process; a sign-in with an unknown
address or an account without a password verifies against a dummy hash, so the answer
takes as long and says the same.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from api.mail import Mail, MailDelivery
from ledger.accounts import ACCOUNT, PlayerAccounts, check_password, normalise_email, token_scope
from ledger.errors import AuthError, ConflictError, ForbiddenError, NotFoundError, RateLimitedError
from projections.base import SqlView

SESSION_PREFIX = "gls"
LINK_PREFIX = "glk"
CONFIRM, RECOVER = "confirm_email", "recover"
TURN = "turn"  # the link of a "your turn" mail, for a player who chose links that sign in
TURN_LINK = timedelta(hours=24)
SIGNIN_WINDOW = timedelta(minutes=15)
HOUR = timedelta(hours=1)
HASHING_AT_ONCE = 2  # argon2 hashes computed at once per process (64 MiB each)
CACHE_SECONDS = 2.0  # a verified session is trusted this long before the store is asked again
SEEN_EVERY = timedelta(minutes=5)  # last use (and the sliding expiry) written at most this often
RECOVERY_GRACE = timedelta(hours=1)  # a recovery sign-in sets a new password without the old one this long
KEEP_ENDED = timedelta(days=30)  # ended sessions and expired links are forgotten after this
PRUNE_EVERY = 50  # writes to the store between two prunings


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def split_secret(value: str, prefix: str) -> tuple[str, str] | None:
    """``<prefix>_<32 hex id>_<secret>`` -> (id, whole value); None when it is not one."""
    parts = value.split("_", 2)
    if len(parts) != 3 or parts[0] != prefix or len(parts[1]) != 32 or not parts[2]:
        return None
    try:
        int(parts[1], 16)
    except ValueError:
        return None
    return parts[1], value


def csrf_proof(session_token: str) -> str:
    """The anti-forgery proof of a session: only a page that was given it can send it."""
    return hmac.new(session_token.encode(), b"gameledger csrf", hashlib.sha256).hexdigest()


# -- passwords ----------------------------------------------------------------------------------


_DUMMIES: dict[tuple[Any, ...], str] = {}


def _dummy_hash(hasher: PasswordHasher) -> str:
    """A hash of no one's password under ``hasher``'s parameters, made once a process (one argon2
    hash, 0.1 to 0.2 s of processor time; the tests start the service hundreds of times)."""
    key = (
        hasher.time_cost,
        hasher.memory_cost,
        hasher.parallelism,
        hasher.hash_len,
        hasher.salt_len,
        hasher.type,
    )
    if key not in _DUMMIES:
        _DUMMIES[key] = hasher.hash("not a password of anyone's")
    return _DUMMIES[key]


class Passwords:
    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self.hasher = hasher or PasswordHasher()  # argon2id, RFC 9106 low-memory profile
        self._slots = threading.BoundedSemaphore(HASHING_AT_ONCE)
        self._dummy = _dummy_hash(self.hasher)

    def hash(self, password: str) -> str:
        with self._slots:
            return self.hasher.hash(password)

    def verify(self, password_hash: str | None, password: str) -> bool:
        """Always one argon2 verification (a dummy one without a hash): the same time either way."""
        with self._slots:
            try:
                return (
                    self.hasher.verify(password_hash or self._dummy, password) and password_hash is not None
                )
            except (VerificationError, InvalidHashError):
                return False

    def needs_rehash(self, password_hash: str) -> bool:
        return self.hasher.check_needs_rehash(password_hash)


# -- the store ------------------------------------------------------------------------------------


class AccountStore(SqlView):
    """Sessions, one-time links and attempt counts (not a read model: a rebuild never touches it)."""

    view_name = "accounts"
    TABLE_NAMES = ("sessions", "links", "attempts")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {sessions} ("
        " session_id TEXT PRIMARY KEY, player_id TEXT NOT NULL, secret_hash TEXT NOT NULL,"
        " opened_with TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT NOT NULL,"
        " last_seen_at TEXT NOT NULL, revoked_at TEXT, user_agent TEXT NOT NULL, client TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS accounts_sessions_player ON {sessions} (player_id, created_at)",
        "CREATE TABLE IF NOT EXISTS {links} ("
        " link_id TEXT PRIMARY KEY, kind TEXT NOT NULL, player_id TEXT NOT NULL, email TEXT NOT NULL,"
        " secret_hash TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT NOT NULL, used_at TEXT)",
        "CREATE INDEX IF NOT EXISTS accounts_links_player ON {links} (player_id, kind)",
        "CREATE TABLE IF NOT EXISTS {attempts} (key TEXT NOT NULL, at TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS accounts_attempts_key ON {attempts} (key, at)",
    )

    def _insert(self, c: Any, table: str, row: dict[str, Any]) -> None:
        cols = list(row)
        self.execute(
            c,
            f"INSERT INTO {self.t(table)} ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))})",
            [row[k] for k in cols],
        )

    def _one(self, table: str, key: str, value: str) -> dict[str, Any] | None:
        rows = self.rows(f"SELECT * FROM {self.t(table)} WHERE {key} = %s", [value])
        return rows[0] if rows else None

    # sessions
    def add_session(self, row: dict[str, Any]) -> None:
        with self.datastore.transaction(commit=True) as c:
            self._insert(c, "sessions", row)

    def session(self, session_id: str) -> dict[str, Any] | None:
        return self._one("sessions", "session_id", session_id)

    def seen(self, session_id: str, at: str, expires_at: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"UPDATE {self.t('sessions')} SET last_seen_at = %s, expires_at = %s"
                " WHERE session_id = %s AND revoked_at IS NULL",
                [at, expires_at, session_id],
            )

    def sessions_of(self, player_id: str, now: str) -> list[dict[str, Any]]:
        return self.rows(
            f"SELECT * FROM {self.t('sessions')} WHERE player_id = %s AND revoked_at IS NULL AND expires_at > %s"
            " ORDER BY created_at",
            [player_id, now],
        )

    def revoke_sessions(
        self,
        player_id: str,
        at: str,
        only: str | None = None,
        keep: str | None = None,
        opened_with: str | None = None,
    ) -> int:
        """End the player's sessions (just ``only``, or all but ``keep``, or those opened with
        ``opened_with``); returns how many ended."""
        sql = f"UPDATE {self.t('sessions')} SET revoked_at = %s WHERE player_id = %s AND revoked_at IS NULL"
        params: list[Any] = [at, player_id]
        if opened_with is not None:
            sql += " AND opened_with = %s"
            params.append(opened_with)
        if only is not None:
            sql += " AND session_id = %s"
            params.append(only)
        if keep is not None:
            sql += " AND session_id <> %s"
            params.append(keep)
        with self.datastore.transaction(commit=True) as c:
            self.execute(c, sql, params)
            return rowcount(c)

    # links
    def _cancel(self, c: Any, player_id: str, kind: str, why: str) -> None:
        self.execute(
            c,
            f"UPDATE {self.t('links')} SET used_at = %s WHERE player_id = %s AND kind = %s AND used_at IS NULL",
            [why, player_id, kind],
        )

    def cancel_links(self, player_id: str, kind: str, at: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            self._cancel(c, player_id, kind, "cancelled " + at)

    def add_link(self, row: dict[str, Any]) -> None:
        """A new link: the player's unused links of the same kind stop working."""
        with self.datastore.transaction(commit=True) as c:
            self._cancel(c, row["player_id"], row["kind"], "replaced " + row["created_at"])
            self._insert(c, "links", row)

    def link(self, link_id: str) -> dict[str, Any] | None:
        return self._one("links", "link_id", link_id)

    def use_link(self, link: dict[str, Any], at: str) -> bool:
        """Mark the link used, and the player's other unused links of its kind; False if it was already."""
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"UPDATE {self.t('links')} SET used_at = %s WHERE link_id = %s AND used_at IS NULL",
                [at, link["link_id"]],
            )
            if rowcount(c) != 1:
                return False
            self._cancel(c, link["player_id"], link["kind"], "replaced " + at)
            return True

    def pending_link(self, player_id: str, kind: str, now: str) -> dict[str, Any] | None:
        rows = self.rows(
            f"SELECT * FROM {self.t('links')} WHERE player_id = %s AND kind = %s AND used_at IS NULL"
            " AND expires_at > %s ORDER BY created_at DESC LIMIT 1",
            [player_id, kind, now],
        )
        return rows[0] if rows else None

    # attempts in a sliding window
    def count(self, key: str, since: str) -> tuple[int, str | None]:
        """Attempts under ``key`` after ``since``, and the oldest of them."""
        rows = self.rows(
            f"SELECT COUNT(*) AS n, MIN(at) AS oldest FROM {self.t('attempts')} WHERE key = %s AND at > %s",
            [key, since],
        )
        return (int(rows[0]["n"]), rows[0]["oldest"]) if rows else (0, None)

    def note(self, keys: list[str], at: str, forget_before: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            for key in keys:
                self.execute(
                    c, f"DELETE FROM {self.t('attempts')} WHERE key = %s AND at <= %s", [key, forget_before]
                )
                self.execute(c, f"INSERT INTO {self.t('attempts')} (key, at) VALUES (%s, %s)", [key, at])

    def reserve(self, limits: list[tuple[str, int]], at: str, since: str) -> tuple[str, str | None] | None:
        """Note an attempt under every key at once, unless one of them already has its ``limit``
        attempts after ``since``: then nothing is noted, and that key and its oldest attempt are
        returned. One transaction, under the view's lock on PostgreSQL (and SQLite's one writer),
        so that concurrent attempts cannot all pass a count taken before any of them was noted."""
        with self.datastore.transaction(commit=True) as c:
            self._lock(c)
            for key, limit in limits:
                if limit <= 0:
                    continue
                (row,) = self.fetch(
                    c,
                    f"SELECT COUNT(*) AS n, MIN(at) AS oldest FROM {self.t('attempts')} WHERE key = %s AND at > %s",
                    [key, since],
                )
                if int(row["n"]) >= limit:
                    return key, row["oldest"]
            for key, limit in limits:
                if limit > 0:
                    self.execute(c, f"INSERT INTO {self.t('attempts')} (key, at) VALUES (%s, %s)", [key, at])
        return None

    def release(self, key: str, at: str) -> None:
        """Take back one attempt noted under ``key`` at ``at`` (it succeeded)."""
        with self.datastore.transaction(commit=True) as c:
            self.execute(c, f"DELETE FROM {self.t('attempts')} WHERE key = %s AND at = %s", [key, at])

    def forget(self, key: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            self.execute(c, f"DELETE FROM {self.t('attempts')} WHERE key = %s", [key])

    def prune(self, attempts_before: str, ended_before: str) -> None:
        """Forget attempts past every window, and sessions and links long ended."""
        with self.datastore.transaction(commit=True) as c:
            self.execute(c, f"DELETE FROM {self.t('attempts')} WHERE at <= %s", [attempts_before])
            self.execute(
                c,
                f"DELETE FROM {self.t('sessions')} WHERE expires_at <= %s OR revoked_at <= %s",
                [ended_before, ended_before],
            )
            self.execute(c, f"DELETE FROM {self.t('links')} WHERE expires_at <= %s", [ended_before])


def rowcount(c: Any) -> int:
    from api.mail import rowcount as count

    return count(c)


# -- the service -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Session:
    """A verified session: who, how it was opened, and its page's anti-forgery proof."""

    session_id: str
    player_id: str
    name: str
    bot: bool
    opened_with: str
    csrf: str
    created_at: str
    scope: str = ACCOUNT  # a session opened with a token for playing may only play

    @property
    def is_operator(self) -> bool:
        return self.player_id == "admin"


@dataclass(frozen=True)
class Client:
    """Where a request came from (as the server sees it: behind a proxy, run uvicorn with --proxy-headers)."""

    address: str = "?"
    user_agent: str = ""


class AccountService:
    def __init__(
        self,
        ledger: Any,
        store: AccountStore,
        mail: MailDelivery,
        settings: Any,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        passwords: Passwords | None = None,
    ) -> None:
        self.ledger = ledger
        self.players = PlayerAccounts(ledger)
        self.store = store
        self.mail = mail
        self.settings = settings
        self.now = now
        self._passwords = passwords
        self._cache: dict[str, tuple[Session, float]] = {}  # session token hash -> (session, until)
        self._lock = threading.Lock()
        self._writes = 0

    @property
    def passwords(self) -> Passwords:
        if self._passwords is None:  # made on first use: the dummy hash costs one argon2 hash
            with self._lock:
                if self._passwords is None:
                    self._passwords = Passwords()
        return self._passwords

    def _secret(self, prefix: str) -> tuple[str, str]:
        """(id, value) of a new random secret ``<prefix>_<id>_<secret>`` (from the ledger's entropy)."""
        ident = self.ledger.entropy(16).hex()
        secret = base64.urlsafe_b64encode(self.ledger.entropy(32)).decode().rstrip("=")
        return ident, f"{prefix}_{ident}_{secret}"

    # -- limits ---------------------------------------------------------------------------

    def _over(
        self, key: str, limit: int, window: timedelta, what: str, code: str = "request/rate_limited"
    ) -> None:
        """Refuse (429) once ``limit`` attempts were noted under ``key`` within ``window``."""
        if limit <= 0:
            return
        now = self.now()
        n, oldest = self.store.count(key, (now - window).isoformat())
        if n >= limit:
            free_at = datetime.fromisoformat(oldest) + window if oldest else now + window
            raise RateLimitedError(what, int((free_at - now).total_seconds()) + 1, code)

    def _reserve(self, limits: list[tuple[str, int, str]], window: timedelta) -> str:
        """Reserve an attempt under each key (``(key, limit, refusal)``) before the slow check,
        or refuse (429 ``auth/too_many_attempts``) with the refusal of the first key at its limit;
        the time noted, to take the attempt back when it succeeds."""
        now = self.now()
        at = now.isoformat()
        over = self.store.reserve([(k, n) for k, n, _ in limits], at, (now - window).isoformat())
        self._wrote()
        if over is not None:
            key, oldest = over
            free_at = datetime.fromisoformat(oldest) + window if oldest else now + window
            what = next(w for k, _, w in limits if k == key)
            raise RateLimitedError(what, int((free_at - now).total_seconds()) + 1, "auth/too_many_attempts")
        return at

    def _note(self, *keys: str, window: timedelta) -> None:
        now = self.now()
        self.store.note(list(keys), now.isoformat(), (now - window).isoformat())
        self._wrote()

    def _wrote(self) -> None:
        """Every ``PRUNE_EVERY`` writes, forget what no window or list needs any more."""
        self._writes += 1
        if self._writes % PRUNE_EVERY == 0:
            self.prune()

    def prune(self) -> None:
        now = self.now()
        self.store.prune((now - HOUR).isoformat(), (now - KEEP_ENDED).isoformat())

    def _mail_budget(self, kind: str, email: str, client: Client) -> list[str] | None:
        """The keys a mail of this kind to ``email`` is counted under, or None when one of them
        had its mails for the hour. Confirmations and recoveries are counted apart, so that the
        answer to a sign-up never shows whether a recovery mail went to the address (only a known
        one gets those), and recoveries per asking client address too, so that nobody else's
        requests keep the owner's recovery mail from them."""
        address = _sha256(email)
        per = self.settings.account_mails_per_hour
        if kind == CONFIRM:
            limits = [("mail:confirm:" + address, per)]
        else:
            limits = [
                (f"mail:recover:{address}:{_sha256(client.address)[:16]}", per),
                ("mail:recover:" + address, self.settings.recovery_mails_per_hour_all),
            ]
        now = self.now()
        for key, limit in limits:
            if limit > 0 and self.store.count(key, (now - HOUR).isoformat())[0] >= limit:
                return None
        return [key for key, _ in limits]

    # -- mail -------------------------------------------------------------------------------

    def _link(self, kind: str, player_id: str, email: str, lifetime: timedelta) -> tuple[str, datetime]:
        link_id, value = self._secret(LINK_PREFIX)
        now = self.now()
        expires = now + lifetime
        self.store.add_link(
            {
                "link_id": link_id,
                "kind": kind,
                "player_id": player_id,
                "email": email,
                "secret_hash": _sha256(value),
                "created_at": now.isoformat(),
                "expires_at": expires.isoformat(),
                "used_at": None,
            }
        )
        return value, expires

    def _mail_link(
        self,
        kind: str,
        player: Any,
        email: str,
        lifetime: timedelta,
        client: Client,
        subject: str,
        text: str,
        budget: list[str],
    ) -> datetime:
        """A one-time link of this kind mailed to ``email`` (in ``text`` at ``{url}``); the mail
        counts under its ``budget`` keys and leaves the outbox once sent."""
        value, expires = self._link(kind, str(player.id), email, lifetime)
        page = "confirm" if kind == CONFIRM else "recover"
        url = f"{self.settings.link_base}/account/{page}#token={value}"
        self._note(*budget, window=HOUR)
        self.mail.queue(
            Mail(
                kind=f"account/{kind}",
                to=email,
                subject=subject,
                text=f"Hello {player.name},\n\n" + text.replace("{url}", url),
                player_id=str(player.id),
                keep_text=False,
            )
        )
        return expires

    def send_confirmation(self, player: Any, email: str, client: Client) -> datetime | None:
        """Mail a link that confirms ``email`` for the player (unless the address had its mails
        for the hour); returns when the link stops working."""
        budget = self._mail_budget(CONFIRM, email, client)
        if budget is None:
            return None
        hours = self.settings.confirm_link_hours
        text = (
            f"to confirm that {email} is the address of your gameledger account, open this link "
            f"within {hours} hours (it works once):\n\n{{url}}\n\n"
            "With a confirmed address you can sign in with your password and get back into your account "
            "if you lose access to it. If you did not ask for this, ignore this mail: nothing changes.\n"
        )
        subject = "Confirm your email address for gameledger"
        return self._mail_link(CONFIRM, player, email, timedelta(hours=hours), client, subject, text, budget)

    def _send_recovery(self, player: Any, email: str, client: Client, budget: list[str]) -> None:
        minutes = self.settings.recovery_link_minutes
        text = (
            f"someone (we hope you) asked to sign in to the gameledger account of {email} without a "
            f"password or token. Open this link within {minutes} minutes to sign in (it works once):\n\n"
            "{url}\n\n"
            "Once signed in you can set a new password and issue new tokens in your settings. If you did not "
            "ask for this, ignore this mail: nobody can use the link without reading your mail.\n"
        )
        self._mail_link(
            RECOVER, player, email, timedelta(minutes=minutes), client, "Sign in to gameledger", text, budget
        )

    def _tell(self, player: Any, email: str, subject: str, text: str) -> None:
        """A notice about the account (no link in it): sent whatever the hourly limit."""
        self.mail.queue(
            Mail(
                kind="account/notice",
                to=email,
                subject=subject,
                text=f"Hello {player.name},\n\n{text}",
                player_id=str(player.id),
            )
        )

    # -- sign-up, addresses, passwords -----------------------------------------------------

    def check_signup(self, name: str, email: str | None, password: str | None) -> str | None:
        """Bad input is refused before the player is registered: the normalised address."""
        address = normalise_email(email) if email else None
        if password is not None:
            check_password(password, name=name, email=address)
        return address

    def after_signup(
        self, player_id: str, email: str | None, password: str | None, client: Client
    ) -> dict[str, Any]:
        if password is not None:
            self.players.set_password(player_id, self.passwords.hash(password))
        expires = None
        if email:
            expires = self.send_confirmation(self.ledger.get_player(player_id), email, client)
        return {"pending_email": email, "confirmation_expires_at": expires.isoformat() if expires else None}

    def request_email(self, player_id: str, email: str, client: Client) -> dict[str, Any]:
        address = normalise_email(email)
        player = self.ledger.get_player(player_id)
        if getattr(player, "email", None) == address:
            raise ConflictError("This is already your confirmed address.", code="email/already_confirmed")
        self._over(
            "confirm:" + player_id,
            max(1, self.settings.account_mails_per_hour) * 2,
            HOUR,
            "Too many confirmation mails asked for this hour; try again later.",
        )
        self._note("confirm:" + player_id, window=HOUR)
        expires = self.send_confirmation(player, address, client)
        return {
            "pending_email": address,
            "confirmation_expires_at": expires.isoformat() if expires else None,
            "sent": expires is not None,
        }

    def pending_email(self, player_id: str) -> str | None:
        link = self.store.pending_link(player_id, CONFIRM, self.now().isoformat())
        return str(link["email"]) if link else None

    def cancel_pending_email(self, player_id: str) -> None:
        self.store.cancel_links(player_id, CONFIRM, self.now().isoformat())

    def _redeem(self, value: str, *kinds: str) -> dict[str, Any]:
        """A one-time link of one of these kinds, checked and used up; a refusal with a code otherwise."""
        split = split_secret(value.strip(), LINK_PREFIX)
        link = self.store.link(split[0]) if split else None
        digest = _sha256(value.strip())
        if (
            link is None
            or not hmac.compare_digest(link["secret_hash"], digest)
            or link["kind"].split(":")[0] not in kinds
        ):
            raise NotFoundError("This link is not one of ours, or was mistyped.", code="link/unknown")
        now = self.now()
        if link["used_at"] is not None:
            raise ConflictError(
                "This link was used already, or replaced by a newer one: ask for a new one.", code="link/used"
            )
        if datetime.fromisoformat(link["expires_at"]) <= now:
            raise ConflictError("This link has expired: ask for a new one.", code="link/expired")
        if not self.store.use_link(link, now.isoformat()):
            raise ConflictError("This link was used already: ask for a new one.", code="link/used")
        return link

    def confirm_email(self, value: str) -> Any:
        link = self._redeem(value, CONFIRM)
        before = getattr(self.ledger.get_player(link["player_id"]), "email", None)
        player = self.players.confirm_email(link["player_id"], link["email"])
        if before and before != link["email"]:
            self._tell(
                player,
                before,
                "Your gameledger address has changed",
                f"your gameledger account now uses {link['email']} instead of this address. If you did not "
                "do this, sign in and change your password, or write to the operator.\n",
            )
        return player

    def remove_email(self, player_id: str) -> Any:
        return self.players.remove_email(player_id)

    def recovering(self, caller: Any) -> bool:
        """Signed in by a recovery link within the hour: a new password needs no old one."""
        if caller.opened_with != "recovery" or caller.session_id is None:
            return False
        row = self.store.session(caller.session_id)
        return row is not None and self.now() - datetime.fromisoformat(row["created_at"]) < RECOVERY_GRACE

    def set_password(self, caller: Any, password: str, current: str | None) -> Any:
        """Set or change the caller's password. A change needs the current password, except within
        an hour of a sign-in by a recovery link; the player's other sessions end."""
        player = self.ledger.get_player(caller.player_id)
        check_password(password, name=player.name, email=getattr(player, "email", None))
        has = getattr(player, "password_hash", None)
        if has is not None and not self.recovering(caller):
            if not current:
                raise ForbiddenError("Give your current password to change it.", code="auth/current_password")
            key = "password:" + caller.player_id
            limit = max(1, self.settings.signin_attempts_per_account)
            at = self._reserve([(key, limit, "Too many wrong passwords; try again later.")], SIGNIN_WINDOW)
            if not self.passwords.verify(has, current):
                raise ForbiddenError("That is not your current password.", code="auth/current_password")
            self.store.release(key, at)
        player = self.players.set_password(caller.player_id, self.passwords.hash(password))
        now = self.now().isoformat()
        self.store.revoke_sessions(caller.player_id, now, keep=caller.session_id)
        self._forget(caller.player_id)
        if getattr(player, "email", None):
            self._tell(
                player,
                player.email,
                "Your gameledger password has changed",
                "the password of your gameledger account was just set; your other sign-ins have ended. If you "
                "did not do this, get back in with 'Lost access?' on the sign-in page.\n",
            )
        return player

    # -- recovery ---------------------------------------------------------------------------

    def check_recovery(self, email: str, client: Client) -> str:
        """Before answering: the address's form, and the client address's hourly limit."""
        address = normalise_email(email)
        key = "recover:" + client.address
        self._over(
            key,
            self.settings.recover_requests_per_client,
            HOUR,
            "Too many recovery requests from your address; try again later.",
        )
        self._note(key, window=HOUR)
        return address

    def recover(self, address: str, client: Client) -> None:
        """After answering (the same answer whatever happens): mail a sign-in link to the address
        if it is a player's confirmed one and it had fewer than its hourly mails."""
        budget = self._mail_budget(RECOVER, address, client)
        if budget is None:
            return
        player = self.players.player_for_email(address)
        if player is None:
            return
        self._send_recovery(player, address, client, budget)

    # -- sign-in and sessions -----------------------------------------------------------------

    def sign_in_password(self, email: str, password: str, client: Client) -> tuple[str, Session]:
        address = normalise_email(email)
        # per account from this client, so that someone else's guesses never lock the owner out;
        # per account from everywhere, against guesses spread over many client addresses
        every_key = "signin:" + _sha256(address)
        account_key = f"{every_key}:{_sha256(client.address)[:16]}"
        client_key = "signin-client:" + client.address
        refusal = "Too many failed sign-ins with this address; try again later, or use 'Lost access?'."
        at = self._reserve(
            [
                (
                    client_key,
                    self.settings.signin_attempts_per_client,
                    "Too many failed sign-ins from your address; try again later.",
                ),
                (account_key, self.settings.signin_attempts_per_account, refusal),
                (every_key, self.settings.signin_attempts_per_account_all, refusal),
            ],
            SIGNIN_WINDOW,
        )
        player = self.players.player_for_email(address)
        stored = getattr(player, "password_hash", None) if player is not None else None
        if not self.passwords.verify(stored, password) or player is None:
            raise AuthError("Wrong email address or password.", code="auth/bad_credentials")
        self.store.forget(account_key)
        self.store.release(client_key, at)
        self.store.release(every_key, at)
        if stored and self.passwords.needs_rehash(stored):
            self.players.set_password(str(player.id), self.passwords.hash(password))
        return self.open_session(str(player.id), "password", client)

    def sign_in_token(self, token: str, client: Client) -> tuple[str, Session]:
        admin = self.settings.admin_token
        if admin and hmac.compare_digest(token.encode(), admin.encode()):
            return self.open_session("admin", "operator:" + _sha256(admin)[:16], client)
        try:
            player, token_id = self.ledger.verify_token(token)
        except AuthError:
            self._over(
                "signin-client:" + client.address,
                self.settings.signin_attempts_per_client,
                SIGNIN_WINDOW,
                "Too many failed sign-ins from your address; try again later.",
                "auth/too_many_attempts",
            )
            self._note("signin-client:" + client.address, window=SIGNIN_WINDOW)
            raise
        return self.open_session(str(player.id), f"token:{token_id}", client)

    def sign_in_link(self, value: str, client: Client) -> tuple[str, Session]:
        link = self._redeem(value, RECOVER, TURN)
        player = self.ledger.get_player(link["player_id"])
        if getattr(player, "email", None) != link["email"]:
            raise ConflictError(
                "This link was for an address the account no longer uses.", code="link/expired"
            )
        return self.open_session(
            str(player.id), "recovery" if link["kind"] == RECOVER else "mail_link", client
        )

    def turn_link(self, player_id: str, email: str, game_id: str) -> str:
        """A one-time sign-in link's token for a "your turn" mail to ``email`` about a game (valid
        ``TURN_LINK``; the player's older turn links of that game stop working)."""
        value, _ = self._link(f"{TURN}:{game_id}", player_id, email, TURN_LINK)
        return value

    def open_session(self, player_id: str, opened_with: str, client: Client) -> tuple[str, Session]:
        session_id, token = self._secret(SESSION_PREFIX)
        now = self.now()
        self.store.add_session(
            {
                "session_id": session_id,
                "player_id": player_id,
                "secret_hash": _sha256(token),
                "opened_with": opened_with,
                "created_at": now.isoformat(),
                "expires_at": (now + timedelta(days=self.settings.session_days)).isoformat(),
                "last_seen_at": now.isoformat(),
                "revoked_at": None,
                "user_agent": client.user_agent[:200],
                "client": client.address[:100],
            }
        )
        self._wrote()
        session = self.session(token)
        assert session is not None
        return token, session

    def session(self, token: str) -> Session | None:
        """The live session this bearer (or cookie) opens, or None (unknown, ended, expired)."""
        split = split_secret(token, SESSION_PREFIX)
        if split is None:
            return None
        digest = _sha256(token)
        cached = self._cache.get(digest)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        row = self.store.session(split[0])
        now = self.now()
        if (
            row is None
            or not hmac.compare_digest(row["secret_hash"], digest)
            or row["revoked_at"] is not None
            or datetime.fromisoformat(row["expires_at"]) <= now
        ):
            self._cache.pop(digest, None)
            return None
        if row["player_id"] == "admin":
            admin = self.settings.admin_token
            if not admin or row["opened_with"] != "operator:" + _sha256(admin)[:16]:
                return None  # the operator's token has changed since
            name, bot, scope = "admin", False, ACCOUNT
        else:
            try:
                player = self.ledger.get_player(row["player_id"])
            except NotFoundError:
                return None
            name, bot = player.name, bool(getattr(player, "bot", False))
            how, _, token_id = row["opened_with"].partition(":")
            scope = token_scope(player, token_id) if how == "token" else ACCOUNT
        if now - datetime.fromisoformat(row["last_seen_at"]) >= SEEN_EVERY:
            self.store.seen(
                row["session_id"],
                now.isoformat(),
                (now + timedelta(days=self.settings.session_days)).isoformat(),
            )
        session = Session(
            session_id=row["session_id"],
            player_id=row["player_id"],
            name=name,
            bot=bot,
            opened_with=row["opened_with"].split(":", 1)[0],
            csrf=csrf_proof(token),
            created_at=row["created_at"],
            scope=scope,
        )
        if len(self._cache) >= 50_000:
            self._cache.clear()
        self._cache[digest] = (session, time.monotonic() + CACHE_SECONDS)
        return session

    def _forget(self, player_id: str) -> None:
        for digest, (session, _) in list(self._cache.items()):
            if session.player_id == player_id:
                self._cache.pop(digest, None)
        if player_id != "admin":
            self.ledger.forget_credentials(player_id)

    def sessions_of(self, player_id: str, current: str | None) -> list[dict[str, Any]]:
        rows = self.store.sessions_of(player_id, self.now().isoformat())
        return [
            {
                "session_id": r["session_id"],
                "opened_with": r["opened_with"].split(":", 1)[0],
                "created_at": r["created_at"],
                "last_seen_at": r["last_seen_at"],
                "expires_at": r["expires_at"],
                "user_agent": r["user_agent"],
                "client": r["client"],
                "current": r["session_id"] == current,
            }
            for r in rows
        ]

    def end_session(self, player_id: str, session_id: str) -> None:
        if not self.store.revoke_sessions(player_id, self.now().isoformat(), only=session_id):
            raise NotFoundError(f"You have no session {session_id} open.", code="session/not_found")
        self._forget(player_id)

    def revoke_token(self, player_id: str, token_id: str) -> Any:
        """Revoke a named token, and end the sessions it opened (a session must not outlive the
        token that opened it: it could issue new tokens for 30 days)."""
        player = self.players.revoke_token(player_id, token_id)
        self.store.revoke_sessions(player_id, self.now().isoformat(), opened_with=f"token:{token_id}")
        self._forget(player_id)
        return player

    def session_live(self, session_id: str) -> bool:
        """Whether the session is still open (read from the store, never from this process's
        cache: a stream asks it at each wake-up, whichever process ended the session)."""
        row = self.store.session(session_id)
        return (
            row is not None
            and row["revoked_at"] is None
            and datetime.fromisoformat(row["expires_at"]) > self.now()
        )

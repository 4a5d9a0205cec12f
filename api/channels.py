"""Notifications by mail, Discord and Slack (issue 19, items 2 and 3).

The notifications projection (``projections/notifications.py``) writes what each player is
told. ``Channels.scan`` reads those rows after its own cursor and turns each into what the
player chose:

- **mail** to the player's confirmed address: each notification at once (``each``), or one
  digest at most every ``digest_hours`` hours (``digest``), or none (``off``). Every mail
  links to the game page and carries a one-click unsubscribe (RFC 8058: the
  ``List-Unsubscribe`` and ``List-Unsubscribe-Post`` headers, and a link in the text) whose
  token names the player and the day the mail was written and is signed (HMAC-SHA256) with
  the player's unsubscribe secret, 32 random bytes kept in this store that no mail carries:
  each day's mails carry a new token, and each works for ``UNSUBSCRIBE_DAYS``;
- **a Discord or Slack incoming webhook** of the player, and the one a game's creator gave
  for the whole table (told of games starting, finishing and whose turn it is), in each
  service's own format (Discord ``content``, Slack ``text``).

Everything leaves through the mail outbox (``api/mail.py``): its rows are claimed, retried
with backoff and logged; a chat message is an outbox row of kind ``chat/...`` that the drain
posts instead of mailing. A row's id is derived from the notification, so a scan that runs
twice queues nothing twice. A decision never waits for any of it: the scan runs in the
workers. "Your clock is running low" (below 20 % of the allotment) is no event of a game:
``check_clocks`` looks at the awaited seats of timed games now and then, once per turn.

Preferences, hooks, digest items and the cursor are operational state beside the read
models (no rebuild touches them), like the accounts' sessions.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlparse

from api.accounts import TURN_LINK
from api.mail import Mail, MailDelivery, PermanentFailure, rowcount
from api.outbound import OutboundPolicy, OutboundRefused, describe_failure, literal_address
from ledger.application import ADMIN, NOTIFICATION_KINDS
from ledger.errors import InvalidRequestError
from ledger.registry import engine as title_engine
from projections.base import SqlView

log = logging.getLogger("gameledger.channels")

CHANNEL_KINDS = (*NOTIFICATION_KINDS, "clock_low")  # clock_low: mail and chat only
MAIL_MODES = ("each", "digest", "off")
CHAT_SERVICES = ("discord", "slack")
TABLE_KINDS = ("game_started", "your_turn", "game_finished")  # what a table's hook is told
CLOCK_LOW = 0.2  # "running low": below this share of the allotment
CLOCK_CHECK_SECONDS = 60.0
DEFAULT_DIGEST_HOURS = 24
UNSUBSCRIBE_PREFIX = "glu_"
# glu_<player id, hex>_<day number>_<HMAC-SHA256 of both under the player's secret, 16 bytes base64url>
UNSUBSCRIBE_TOKEN = re.compile(r"glu_([0-9a-f]{32})_([0-9]{1,6})_([A-Za-z0-9_-]{22})")
UNSUBSCRIBE_DAYS = 120  # how long a mail's unsubscribe link works
CHAT_HOSTS = {
    "discord": (
        {"discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"},
        ("/api/webhooks/",),
    ),
    "slack": ({"hooks.slack.com"}, ("/services/", "/workflows/", "/triggers/")),
}
CHAT_POST_TIMEOUT = 5.0
MAX_CHAT_TEXT = 1900  # Discord's content holds 2,000 characters


# -- the store -----------------------------------------------------------------------------------


def _unsubscribe_mac(secret: str, pid: str, day: int) -> str:
    digest = hmac.new(secret.encode(), f"unsubscribe:{pid}:{day}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


class ChannelStore(SqlView):
    """Each player's choices, each table's hook, pending digest items, the scan's cursor."""

    view_name = "channels"
    TABLE_NAMES = ("prefs", "tables", "digest", "cursor", "warned")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {prefs} ("
        " player_id TEXT PRIMARY KEY, mail TEXT NOT NULL, digest_hours INTEGER NOT NULL, kinds TEXT,"
        " unsubscribe TEXT NOT NULL, chat_service TEXT, chat_url TEXT, last_digest_at TEXT,"
        " updated_at TEXT NOT NULL, signin_links INTEGER NOT NULL DEFAULT 0)",
        "CREATE UNIQUE INDEX IF NOT EXISTS channels_prefs_unsubscribe ON {prefs} (unsubscribe)",
        "CREATE TABLE IF NOT EXISTS {tables} ("
        " game_id TEXT PRIMARY KEY, service TEXT NOT NULL, url TEXT NOT NULL, set_by TEXT NOT NULL,"
        " updated_at TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS {digest} ("
        " player_id TEXT NOT NULL, item TEXT NOT NULL, at TEXT NOT NULL, game_id TEXT NOT NULL,"
        " line TEXT NOT NULL, PRIMARY KEY (player_id, item))",
        "CREATE TABLE IF NOT EXISTS {cursor} (name TEXT PRIMARY KEY, position BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS {warned} ("
        " game_id TEXT NOT NULL, seat INTEGER NOT NULL, since TEXT NOT NULL, PRIMARY KEY (game_id, seat, since))",
    )

    def write_one(self, statement: str, params: Sequence[Any]) -> int:
        """One statement in a transaction of its own; the number of rows it wrote."""
        with self.datastore.transaction(commit=True) as c:
            self.execute(c, statement, params)
            return rowcount(c)

    def prefs(self, player_id: str) -> dict[str, Any] | None:
        rows = self.rows(f"SELECT * FROM {self.t('prefs')} WHERE player_id = %s", [player_id])
        return rows[0] if rows else None

    def ensure(self, player_id: str, token: Callable[[], str], now: str) -> dict[str, Any]:
        """The player's row, made with the defaults (mail each notification, no chat) if missing."""
        row = self.prefs(player_id)
        if row is None:
            self.write_one(
                f"INSERT INTO {self.t('prefs')} (player_id, mail, digest_hours, kinds, unsubscribe,"
                " updated_at) VALUES (%s, 'each', %s, NULL, %s, %s) ON CONFLICT DO NOTHING",
                [player_id, DEFAULT_DIGEST_HOURS, token(), now],
            )
            row = self.prefs(player_id)
        assert row is not None
        return row

    def update(self, player_id: str, **values: Any) -> None:
        sets = ", ".join(f"{k} = %s" for k in values)
        self.write_one(
            f"UPDATE {self.t('prefs')} SET {sets} WHERE player_id = %s", [*values.values(), player_id]
        )

    def by_unsubscribe(self, token: str) -> dict[str, Any] | None:
        rows = self.rows(f"SELECT * FROM {self.t('prefs')} WHERE unsubscribe = %s", [token])
        return rows[0] if rows else None

    def table_hook(self, game_id: str) -> dict[str, Any] | None:
        rows = self.rows(f"SELECT * FROM {self.t('tables')} WHERE game_id = %s", [game_id])
        return rows[0] if rows else None

    def set_table_hook(self, game_id: str, service: str | None, url: str | None, by: str, now: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            self.execute(c, f"DELETE FROM {self.t('tables')} WHERE game_id = %s", [game_id])
            if service and url:
                self.execute(
                    c,
                    f"INSERT INTO {self.t('tables')} (game_id, service, url, set_by, updated_at)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    [game_id, service, url, by, now],
                )

    def cursor(self, name: str) -> int:
        rows = self.rows(f"SELECT position FROM {self.t('cursor')} WHERE name = %s", [name])
        return int(rows[0]["position"]) if rows else 0

    def start_cursor(self, name: str, position: int) -> None:
        """Where a scan starts when it has never run (kept if it has)."""
        self.write_one(
            f"INSERT INTO {self.t('cursor')} (name, position) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            [name, position],
        )

    def set_cursor(self, name: str, position: int) -> None:
        self.write_one(
            f"INSERT INTO {self.t('cursor')} (name, position) VALUES (%s, %s)"
            " ON CONFLICT (name) DO UPDATE SET position = excluded.position",
            [name, position],
        )

    def add_digest(self, rows: list[list[Any]]) -> None:
        """Digest items (player_id, item, at, game_id, line), each kept once."""
        with self.datastore.transaction(commit=True) as c:
            self.executemany(
                c,
                f"INSERT INTO {self.t('digest')} (player_id, item, at, game_id, line) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                rows,
            )

    def digest_players(self) -> list[str]:
        return [r["player_id"] for r in self.rows(f"SELECT DISTINCT player_id FROM {self.t('digest')}")]

    def digest_items(self, player_id: str) -> list[dict[str, Any]]:
        return self.rows(
            f"SELECT * FROM {self.t('digest')} WHERE player_id = %s ORDER BY at, item", [player_id]
        )

    def drop_digest(self, player_id: str, items: list[str], sent_at: str | None) -> None:
        with self.datastore.transaction(commit=True) as c:
            for item in items:
                self.execute(
                    c, f"DELETE FROM {self.t('digest')} WHERE player_id = %s AND item = %s", [player_id, item]
                )
            if sent_at is not None:
                self.execute(
                    c,
                    f"UPDATE {self.t('prefs')} SET last_digest_at = %s WHERE player_id = %s",
                    [sent_at, player_id],
                )

    def unwarn(self, game_id: str, seat: int) -> None:
        self.write_one(f"DELETE FROM {self.t('warned')} WHERE game_id = %s AND seat = %s", [game_id, seat])

    def warn_once(self, game_id: str, seat: int, since: str) -> bool:
        """True the first time (game, seat, what) is noted: its clock warning is due."""
        added = self.write_one(
            f"INSERT INTO {self.t('warned')} (game_id, seat, since) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            [game_id, seat, since],
        )
        return added == 1


# -- addresses of Discord and Slack hooks -----------------------------------------------------------


def check_chat_url(service: str, url: str, allowed: Callable[[str], bool] = lambda host: False) -> str:
    """The hook's URL if it is the service's own incoming-webhook address (https, its host, its path),
    or one the operator allows (``allowed(host)``: a relay, a test receiver); otherwise
    ``request/invalid_chat_webhook`` saying why."""

    def refuse(why: str) -> InvalidRequestError:
        return InvalidRequestError(
            f"That is no {service} incoming-webhook URL: {why}.", code="request/invalid_chat_webhook"
        )

    if service not in CHAT_HOSTS:
        raise InvalidRequestError(
            f"Chat service {service!r} is not one of {list(CHAT_SERVICES)}.",
            code="request/invalid_chat_webhook",
        )
    url = url.strip()
    if any(c.isspace() or not c.isprintable() for c in url) or len(url) > 500:
        raise refuse("it holds spaces or control characters, or is over 500 characters")
    try:
        parsed = urlparse(url)
        host = (parsed.hostname or "").lower()
        parsed.port  # noqa: B018 - a bad port raises
    except ValueError:
        raise refuse("it cannot be read as a URL (its host or port)") from None
    if parsed.username or parsed.password:
        raise refuse("it holds a user name or password")
    if host and allowed(host) and parsed.scheme in ("http", "https"):
        return url
    hosts, paths = CHAT_HOSTS[service]
    if parsed.scheme != "https":
        raise refuse("it is not https")
    if host not in hosts or parsed.port not in (None, 443):
        raise refuse(f"its host is not {' or '.join(sorted(hosts))}")
    if not parsed.path.startswith(paths) or len(parsed.path.rstrip("/")) <= len(paths[0]):
        raise refuse(f"its path does not start with {' or '.join(paths)} and a hook's id")
    return url


def mask_url(url: str) -> str:
    """A hook's URL without its secret part (the path's end): for the pages and the delivery log."""
    parsed = urlparse(url)
    path = parsed.path.rstrip("/")
    keep = path[: max(0, len(path) - 12)].rsplit("/", 1)[0]
    return f"{parsed.scheme}://{parsed.netloc}{keep}/…"


def chat_payload(service: str, text: str) -> dict[str, Any]:
    """The body each service documents: Discord's ``content`` (no mentions parsed: a player's name
    cannot ping a channel), Slack's ``text`` (mrkdwn; &, < and > escaped as Slack asks)."""
    text = text[:MAX_CHAT_TEXT]
    if service == "discord":
        return {"content": text, "username": "gameledger", "allowed_mentions": {"parse": []}}
    return {"text": text}


def slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def discord_escape(text: str) -> str:
    """Markdown characters shown as written (a name cannot bold, hide or link anything)."""
    return "".join("\\" + c if c in "\\*_~`|>[]()#-@<" else c for c in text)


def escape(service: str, text: str) -> str:
    return slack_escape(text) if service == "slack" else discord_escape(text)


def link(service: str, url: str, label: str) -> str:
    """A link in each service's markup: Slack ``<url|label>``, Discord's masked link ``[label](url)``."""
    if service == "slack":
        return f"<{url}|{slack_escape(label)}>"
    return f"[{discord_escape(label)}]({url})"


class ChatTransport:
    """Posts the outbox's chat rows (the URL in the row's headers, the JSON body as its text) through
    the outbound guard (``api/outbound.py``: the address vetted again after resolution, no redirect
    followed). 2xx: delivered; 429, 5xx or no answer: tried again later; a refused address or any
    other answer: given up. The log keeps a short reason, never what the service answered."""

    def __init__(self, policy: OutboundPolicy | None = None) -> None:
        self.policy = policy or OutboundPolicy()
        self.poster: Callable[[str, bytes], int] = self._post

    def _post(self, url: str, body: bytes) -> int:
        headers = {"Content-Type": "application/json", "User-Agent": "gameledger-notifications/1"}
        return self.policy.post(url, body, headers, timeout=CHAT_POST_TIMEOUT)

    def send(self, row: dict[str, Any]) -> None:
        url = json.loads(row["headers"])["url"]
        try:
            status = self.poster(url, row["body"].encode())
        except OutboundRefused as exc:
            raise PermanentFailure(describe_failure(exc)) from exc
        except OSError as exc:
            raise ConnectionError(describe_failure(exc)) from exc
        if 200 <= status < 300:
            return
        if status == 429 or status >= 500:
            raise ConnectionError(f"HTTP {status}")
        raise PermanentFailure(f"HTTP {status}")


# -- from notifications to mails and chat messages -------------------------------------------------


def _item_id(*parts: Any) -> str:
    return hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()[:24]


def game_name(title: str, game_id: str) -> str:
    try:
        name = title_engine(title).meta.name
    except Exception:
        name = title
    return f"{name} game {str(game_id)[:8]}"


SUBJECTS = {
    "your_turn": "Your turn in {game}",
    "game_started": "{game} has started",
    "game_finished": "{game} is over",
    "timed_out": "Your clock ran out in {game}",
    "dispute_opened": "A dispute in {game}",
    "undo_requested": "A request to take back a decision in {game}",
    "dispute_resolved": "A dispute in {game} was resolved",
    "clock_low": "Your clock is running low in {game}",
}


class Channels:
    def __init__(
        self,
        store: ChannelStore,
        notifications: Any,
        ledger: Any,
        mail: MailDelivery,
        settings: Any,
        policy: OutboundPolicy | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.policy = policy or OutboundPolicy()
        self.store = store
        self.notifications = notifications
        self.ledger = ledger
        self.mail = mail
        self.settings = settings
        self.now = now
        self._clock_checked = 0.0
        self.timed_games: Callable[[], list[str]] | None = None  # the active timed games (the game index)
        # a one-time sign-in link's token for a "your turn" mail (the accounts' ``turn_link``)
        self.turn_link: Callable[[str, str, str], str] | None = None

    @property
    def base(self) -> str:
        return str(self.settings.link_base)

    def allowed(self, host: str) -> bool:
        """Whether the operator lets hooks go to this host although it is no service's own: a name
        or an address GAMELEDGER_OUTBOUND_ALLOW lists (a relay, a test's receiver)."""
        address = literal_address(host)
        if address is not None:
            return self.policy.allowed(address)
        return host.lower().rstrip(".") in self.policy.allow_hosts

    def check_hook(self, service: str, url: str) -> str:
        """A hook's URL as it is kept, or a 422 saying why not: the service's own address (or one
        the operator allows) that the address rules let the server reach (``api/outbound.py``)."""
        url = check_chat_url(service, url, self.allowed)
        self.policy.vet(url, unresolved_ok=True)  # vetted again, resolved, at every post
        return url

    def _token(self) -> str:
        return UNSUBSCRIBE_PREFIX + base64.urlsafe_b64encode(self.ledger.entropy(32)).decode().rstrip("=")

    # -- preferences -------------------------------------------------------------------------

    def prefs(self, player_id: str) -> dict[str, Any]:
        return self.store.ensure(player_id, self._token, self.now().isoformat())

    def settings_of(self, player_id: str) -> dict[str, Any]:
        p = self.prefs(player_id)
        player = self.ledger.get_player(player_id)
        return {
            "email": getattr(player, "email", None),
            "mail": p["mail"],
            "digest_hours": int(p["digest_hours"]),
            "kinds": None if p["kinds"] is None else json.loads(p["kinds"]),
            "available_kinds": list(CHANNEL_KINDS),
            "chat": None
            if not p["chat_url"]
            else {"service": p["chat_service"], "url": mask_url(p["chat_url"])},
            "last_digest_at": p["last_digest_at"],
            "signin_links": bool(p.get("signin_links")),
            "mails": self.mail.outbox.recent(player_id),
        }

    def change(
        self,
        player_id: str,
        *,
        mail: str | None = None,
        digest_hours: int | None = None,
        kinds: list[str] | bool | None = False,  # False: unchanged
        chat: dict[str, Any] | bool | None = False,  # False: unchanged; None: removed
        signin_links: bool | None = None,
    ) -> dict[str, Any]:
        """Change what the player chose; every value is checked before anything is written."""
        values: dict[str, Any] = {}
        if signin_links is not None:
            values["signin_links"] = 1 if signin_links else 0
        if mail is not None:
            if mail not in MAIL_MODES:
                raise InvalidRequestError(
                    f"Mail is one of {list(MAIL_MODES)}.", code="request/invalid_mail_mode"
                )
            values["mail"] = mail
        if digest_hours is not None:
            values["digest_hours"] = digest_hours
        if kinds is not False:
            if kinds is not None:
                unknown = sorted(set(kinds) - set(CHANNEL_KINDS))  # type: ignore[arg-type]
                if unknown:
                    raise InvalidRequestError(
                        f"Unknown notification kinds {unknown}; choose from {list(CHANNEL_KINDS)}.",
                        code="request/invalid_notification_kind",
                    )
            values["kinds"] = None if kinds is None else json.dumps(sorted(set(kinds)))  # type: ignore[arg-type]
        if chat is not False:
            if chat is None:
                values.update(chat_service=None, chat_url=None)
            else:
                assert isinstance(chat, dict)
                url = self.check_hook(chat["service"], chat["url"])
                values.update(chat_service=chat["service"], chat_url=url)
        self.prefs(player_id)
        if values:
            self.store.update(player_id, **values, updated_at=self.now().isoformat())
        return self.settings_of(player_id)

    def unsubscribe_token(self, player_id: str, secret: str, day: int | None = None) -> str:
        """The token of a mail written on ``day`` (days since 1970, today by default)."""
        day = self._day() if day is None else day
        pid = uuid.UUID(player_id).hex
        return f"{UNSUBSCRIBE_PREFIX}{pid}_{day}_{_unsubscribe_mac(secret, pid, day)}"

    def _day(self) -> int:
        return int(self.now().timestamp() // 86400)

    def by_token(self, token: str) -> dict[str, Any] | None:
        """The player's choices an unsubscribe token stands for (None: not a token we sent, or
        one older than ``UNSUBSCRIBE_DAYS``)."""
        match = UNSUBSCRIBE_TOKEN.fullmatch(token)
        if match is None:
            return None
        pid, day, mac = match[1], int(match[2]), match[3]
        if not self._day() - UNSUBSCRIBE_DAYS <= day <= self._day() + 1:
            return None
        row = self.store.prefs(str(uuid.UUID(hex=pid)))
        if row is None or not hmac.compare_digest(_unsubscribe_mac(row["unsubscribe"], pid, day), mac):
            return None
        return row

    def unsubscribe(self, token: str) -> dict[str, Any] | None:
        """One click: no more notification mails for the token's player (None: no such token)."""
        row = self.by_token(token)
        if row is None:
            return None
        self.store.update(row["player_id"], mail="off", updated_at=self.now().isoformat())
        self.store.drop_digest(
            row["player_id"], [r["item"] for r in self.store.digest_items(row["player_id"])], None
        )
        return row

    # -- the scan -----------------------------------------------------------------------------

    def run_once(self) -> int:
        queued = self.scan()
        queued += self.flush_digests()
        mono = datetime.now(UTC).timestamp()
        if mono - self._clock_checked >= CLOCK_CHECK_SECONDS:
            self._clock_checked = mono
            queued += self.check_clocks()
        return queued

    def scan(self, limit: int = 500) -> int:
        """New notifications since the cursor, each to the channels its player chose."""
        rows = self.notifications.outbox_after(self.store.cursor("channels"), limit)
        if not rows:
            return 0
        queued = 0
        players: dict[str, Any] = {}
        tables: dict[tuple[str, int, str], list[dict[str, Any]]] = {}  # one table message per event and kind
        for r in rows:
            note = json.loads(r["payload"])
            queued += self._tell_player(r, note, players)
            if r["kind"] in TABLE_KINDS:
                tables.setdefault((r["game_id"], int(r["version"]), r["kind"]), []).append(
                    note | {"player_id": r["player_id"]}
                )
        for (game_id, version, kind), notes in tables.items():
            queued += self._tell_table(game_id, version, kind, notes, players)
        self.store.set_cursor("channels", max(int(r["position"]) for r in rows))
        return queued

    def _player(self, pid: str, cache: dict[str, Any]) -> Any:
        if pid not in cache:
            try:
                cache[pid] = self.ledger.get_player(pid)
            except Exception:
                cache[pid] = None
        return cache[pid]

    def _tell_player(self, r: dict[str, Any], note: dict[str, Any], players: dict[str, Any]) -> int:
        if r["player_id"] == ADMIN:  # the operator: a dispute or a ruling, to the operator's address
            return self._tell_operator(r, note)
        player = self._player(r["player_id"], players)
        if player is None:
            return 0
        item = _item_id(r["position"], r["game_id"], r["version"], r["kind"], r["player_id"])
        return self.tell(player, note, item, players.setdefault("prefs", {}))

    def tell(self, player: Any, note: dict[str, Any], item: str, cache: dict[str, Any] | None = None) -> int:
        """Mail (or keep for the digest) and post one notification to whatever the player chose."""
        pid = str(player.id)
        if cache is None or pid not in cache:
            prefs = self.prefs(pid)
            if cache is not None:
                cache[pid] = prefs
        else:
            prefs = cache[pid]
        kinds = None if prefs["kinds"] is None else json.loads(prefs["kinds"])
        if kinds is not None and note["kind"] not in kinds:
            return 0
        queued = 0
        game = game_name(note.get("title", ""), note["game_id"])
        url = self._url(note)
        sentence = self._sentence(note)
        email = getattr(player, "email", None)
        if email and prefs["mail"] == "each":
            kind = "undo_requested" if note.get("dispute") == "undo" else note["kind"]
            subject = SUBJECTS.get(kind, "{game}").format(game=game)
            page = "the dispute" if "/disputes/" in url else "the game"
            opened = f"Open {page}: {url}"
            if kind == "your_turn" and prefs.get("signin_links") and self.turn_link is not None:
                # the player chose links that sign in: this one does, once, for a day (the fragment
                # never reaches a server's log; the page asks before it signs in)
                token = self.turn_link(pid, email, str(note["game_id"]))
                hours = int(TURN_LINK.total_seconds() // 3600)
                opened = (
                    f"Open the game (this link also signs you in, once, within {hours} hours; "
                    f"do not pass this mail on): {url.split('#')[0]}#decide&signin={token}"
                )
            text = f"{sentence}\n\n{opened}\n{self._details(note)}"
            queued += self._mail(player, email, prefs, f"notify/{note['kind']}", subject, text, item)
        elif email and prefs["mail"] == "digest":
            line = f"{note.get('at', '')[:16].replace('T', ' ')} {game}: {sentence}\n  {url}"
            self.store.add_digest(
                [[str(player.id), item, note.get("at") or self.now().isoformat(), note["game_id"], line]]
            )
        if prefs["chat_url"]:
            service = prefs["chat_service"]
            text = f"{escape(service, player.name)}: {escape(service, sentence)} {link(service, url, game)}"
            queued += self._chat(
                service, prefs["chat_url"], text, f"chat/{note['kind']}", str(player.id), "p" + item
            )
        return queued

    def _tell_table(
        self, game_id: str, version: int, kind: str, notes: list[dict[str, Any]], players: dict[str, Any]
    ) -> int:
        hook = self.store.table_hook(game_id)
        if hook is None:
            return 0
        service = hook["service"]
        game = link(service, f"{self.base}/games/{game_id}", game_name(notes[0].get("title", ""), game_id))
        names = sorted({getattr(self._player(n["player_id"], players), "name", "?") for n in notes})
        if kind == "your_turn":
            game = link(
                service, f"{self.base}/games/{game_id}#decide", game_name(notes[0].get("title", ""), game_id)
            )
            text = f"{game}: it is {' and '.join(escape(service, n) for n in names)}'s turn."
        elif kind == "game_started":
            text = f"{game} has started: {escape(service, ', '.join(names))}."
        else:
            text = f"{game} is over.{escape(service, self._standings(game_id))}"
        return self._chat(
            service, hook["url"], text, f"chat/table/{kind}", None, _item_id("table", game_id, version, kind)
        )

    def _tell_operator(self, r: dict[str, Any], note: dict[str, Any]) -> int:
        """A dispute opened or ruled on, mailed to ``GAMELEDGER_OPERATOR_EMAIL`` (if set)."""
        address = getattr(self.settings, "operator_email", "")
        if not address or note["kind"] not in ("dispute_opened", "dispute_resolved"):
            return 0
        game = game_name(note.get("title", ""), note["game_id"])
        text = (
            f"Hello,\n\n{self._sentence(note)}\n\nThe dispute's page: {self._url(note)}\n"
            f"Every open dispute: {self.base}/disputes\n"
            "\n-- \nYou get these mails as the operator of this gameledger (GAMELEDGER_OPERATOR_EMAIL).\n"
        )
        item = _item_id(r["position"], r["game_id"], r["version"], r["kind"], ADMIN)
        mail = Mail(
            kind=f"notify/{note['kind']}",
            to=address,
            subject=SUBJECTS[note["kind"]].format(game=game),
            text=text,
        )
        return 1 if self.mail.queue(mail, mail_id="m" + item) else 0

    def _url(self, note: dict[str, Any]) -> str:
        """The page a notification points at: its own (a dispute's), else the game's; "your
        turn" opens the game at the decision (``#decide``: on a phone, the pinned sheet)."""
        path = str(note.get("url") or "")
        if not path.startswith(f"/games/{note['game_id']}"):
            path = f"/games/{note['game_id']}"
        if note.get("kind") == "your_turn" and "#" not in path:
            path += "#decide"
        return self.base + path

    # -- words ---------------------------------------------------------------------------------

    def _sentence(self, note: dict[str, Any]) -> str:
        """The notification's sentence, the game named as people see it (not by its title's id)."""
        text = str(note.get("text") or note["kind"])
        title = str(note.get("title") or "")
        if title:
            name = game_name(title, note["game_id"])
            text = text.replace(f"{title} game", name).replace(title, name)
        return text

    def _standings(self, game_id: str) -> str:
        try:
            game = self.ledger.get_game(game_id)
        except Exception:
            return ""
        if not game.standings:
            return ""
        lines = []
        for s in game.standings:
            seat = int(s["seat"])
            pid = game.seats[seat] if seat < len(game.seats) else None
            name = getattr(self._player(pid, {}), "name", f"seat {seat}") if pid else f"seat {seat}"
            extra = f" ({s['summary']})" if s.get("summary") else ""
            lines.append(f"\n  {s['rank']}. {name}{extra}{' (forfeited)' if s.get('forfeited') else ''}")
        return "\nStandings:" + "".join(lines)

    def _details(self, note: dict[str, Any]) -> str:
        if note["kind"] == "game_finished":
            return self._standings(note["game_id"]) + "\n"
        if note["kind"] == "clock_low" and note.get("left"):
            return f"\nTime left: {note['left']}.\n"
        return ""

    def _unsubscribe_url(self, prefs: dict[str, Any]) -> str:
        return f"{self.base}/unsubscribe/{self.unsubscribe_token(prefs['player_id'], prefs['unsubscribe'])}"

    def _footer(self, prefs: dict[str, Any]) -> str:
        return (
            "\n-- \nYou get these mails because you play on gameledger with this address."
            f"\nStop them with one click: {self._unsubscribe_url(prefs)}"
            f"\nChoose which mails you get, or a digest instead: {self.base}/settings\n"
        )

    def _mail(
        self, player: Any, email: str, prefs: dict[str, Any], kind: str, subject: str, text: str, item: str
    ) -> int:
        unsubscribe = self._unsubscribe_url(prefs)
        mail_id = self.mail.queue(
            Mail(
                kind=kind,
                to=email,
                subject=subject,
                text=f"Hello {player.name},\n\n{text}{self._footer(prefs)}",
                headers={
                    "List-Unsubscribe": f"<{unsubscribe}>",
                    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                },
                player_id=str(player.id),
            ),
            mail_id="m" + item,
        )
        return 1 if mail_id else 0

    def _chat(self, service: str, url: str, text: str, kind: str, player_id: str | None, item: str) -> int:
        body = json.dumps(chat_payload(service, text))
        mail_id = self.mail.queue(
            Mail(
                kind=kind,
                to=f"{service}: {mask_url(url)}",
                subject=f"{service} message",
                text=body,
                headers={"url": url},
                player_id=player_id,
            ),
            mail_id="c" + item,
        )
        return 1 if mail_id else 0

    # -- digests --------------------------------------------------------------------------------

    def flush_digests(self) -> int:
        """One mail per player whose digest is due (or who chose mails one by one since)."""
        now = self.now()
        sent = 0
        for pid in self.store.digest_players():
            prefs = self.prefs(pid)
            items = self.store.digest_items(pid)
            player = self._player(pid, {})
            email = getattr(player, "email", None)
            if prefs["mail"] == "off" or not email:
                self.store.drop_digest(pid, [i["item"] for i in items], None)
                continue
            last = prefs["last_digest_at"]
            if (
                prefs["mail"] == "digest"
                and last
                and now < datetime.fromisoformat(last) + timedelta(hours=int(prefs["digest_hours"]))
            ):
                continue
            games = len({i["game_id"] for i in items})
            text = (
                f"what happened in your games ({len(items)} notification{'s' if len(items) != 1 else ''},"
                f" {games} game{'s' if games != 1 else ''}):\n\n" + "\n".join(i["line"] for i in items) + "\n"
            )
            item = _item_id("digest", pid, items[0]["item"], items[-1]["item"], len(items))
            sent += self._mail(player, email, prefs, "notify/digest", "Your gameledger digest", text, item)
            self.store.drop_digest(pid, [i["item"] for i in items], now.isoformat())
        return sent

    # -- clocks running low -----------------------------------------------------------------------

    def check_clocks(self, game_ids: list[str] | None = None) -> int:
        """Tell each awaited seat of a timed game whose clock is below 20 % of its allotment (the
        starting bank): once, until a move brings it above again."""
        if game_ids is None:
            game_ids = self.timed_games() if self.timed_games is not None else []
        now = self.now()
        queued = 0
        for gid in game_ids:
            try:
                game = self.ledger.get_game(gid)
            except Exception:  # one broken game must not stop the others' warnings
                log.exception("clock check of game %s failed", gid)
                continue
            if not game.clocks.timed or game.status != "active":
                continue
            allotment = float(game.clocks.control["initial"])
            for seat in game.awaiting:
                if seat in game.forfeited or not game.seats[seat]:
                    continue
                left = game.clocks.remaining(seat, list(game.awaiting), now)
                if left is None or left <= 0:
                    continue
                if left >= CLOCK_LOW * allotment:
                    self.store.unwarn(str(gid), seat)
                    continue
                if not self.store.warn_once(str(gid), seat, "low"):
                    continue
                player = self._player(game.seats[seat], {})
                if player is None:
                    continue
                hours, rest = divmod(int(left), 3600)
                note = {
                    "kind": "clock_low",
                    "game_id": str(gid),
                    "title": game.title,
                    "version": game.version,
                    "text": f"Your clock in {game_name(game.title, str(gid))} is below"
                    f" {int(CLOCK_LOW * 100)} % of its starting time.",
                    "left": f"{hours} h {rest // 60:02d} min",
                    "at": now.isoformat(),
                }
                queued += self.tell(player, note, _item_id("clock", gid, seat, game.version))
        return queued

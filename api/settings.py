"""Settings, from a TOML file, the environment (GAMELEDGER_*) and the command line, validated at start.

Precedence, lowest first: the defaults below, the file named by ``GAMELEDGER_CONFIG`` (or
``--config``; its top-level keys are the field names), the environment variables of ``ENV``,
then the command line. ``gameledger config reference`` prints deploy/CONFIG.md from this model.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

DEFAULT_DATA_DIR = "gameledger-data"
LOCAL_URL = "http://127.0.0.1:8000"  # the links' address without a public URL (serve sets the port)


def setting(env: str, default: Any, *, meaning: str, **constraints: Any) -> Any:
    """A setting's row: its environment variable, default, meaning (deploy/CONFIG.md) and the
    constraints of its value (``ge``, ``gt``, ``le``; ``repr=False`` for a secret)."""
    return Field(default=default, description=meaning, json_schema_extra={"env": env}, **constraints)


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # one setting a line, read as a table (the formatter would spread each over several)
    # fmt: off
    environment: Literal["development", "production"] = setting("GAMELEDGER_ENV", "development", meaning="production refuses to start without a PostgreSQL URL, an admin token of 24+ characters, a signing key and the public URL, or with the templates' placeholder secrets (change-me).")
    data_dir: Path = setting("GAMELEDGER_DATA_DIR", Path(DEFAULT_DATA_DIR), meaning="Where the embedded SQLite files live.")
    database_url: str = setting("GAMELEDGER_DATABASE_URL", "", meaning="sqlite:///path or postgresql://...; empty: SQLite in data_dir.")
    admin_token: str = setting("GAMELEDGER_ADMIN_TOKEN", "", meaning="Bearer token of the operator (league organiser).")
    max_body_bytes: int = setting("GAMELEDGER_MAX_BODY_BYTES", 64 * 1024, ge=1024, meaning="Largest request body accepted (413 beyond).")
    max_json_depth: int = setting("GAMELEDGER_MAX_JSON_DEPTH", 32, ge=4, meaning="Deepest JSON nesting accepted in a request body (422 beyond).")
    pool_size: int = setting("GAMELEDGER_POOL_SIZE", 5, ge=1, meaning="The event store's database connections per process (the pool may overflow to twice this).")
    pg_pre_ping: bool = setting("GAMELEDGER_PG_PRE_PING", False, meaning="Check every pooled PostgreSQL connection before use (a round trip per statement); off, a statement on a connection broken by a database restart is retried on a fresh one.")
    init_db: bool = setting("GAMELEDGER_INIT_DB", True, meaning="Apply the pending schema migrations at start (under a lock); false where a Job runs `gameledger db migrate`.")
    projections: Literal["inline", "off"] = setting("GAMELEDGER_PROJECTIONS", "inline", meaning="Run the read models in the server process, or leave them to workers.")
    clock_interval: float = setting("GAMELEDGER_CLOCK_INTERVAL", 30.0, ge=0, meaning="Seconds between the clock scheduler's checks for timeouts (0: off).")
    webhook_interval: float = setting("GAMELEDGER_WEBHOOK_INTERVAL", 2.0, ge=0, meaning="Seconds between webhook delivery rounds, and between the rounds that turn notifications into mails and Discord and Slack messages (0: off).")
    outbound_allow: str = setting("GAMELEDGER_OUTBOUND_ALLOW", "", meaning="Host names and networks (comma-separated: hooks.internal, 10.1.0.0/16, 127.0.0.1) that webhooks may reach although they are not public; every other loopback, private, link-local, multicast or reserved address is refused when a webhook is saved and again when it is sent. Discord and Slack hooks go to discord.com and hooks.slack.com, or to a host listed here (a relay).")
    vacation_days_per_year: int = setting("GAMELEDGER_VACATION_DAYS", 30, ge=0, le=366, meaning="Vacation allowance per player.")
    signing_key: str = setting("GAMELEDGER_SIGNING_KEY", "", repr=False, meaning="Ed25519 key (32 bytes, base64) that signs the ledger digests; development makes one.")
    digest_interval: float = setting("GAMELEDGER_DIGEST_INTERVAL", 3600.0, ge=0, meaning="Seconds between published digests of all games' heads (0: on demand).")
    projection_batch: int = setting("GAMELEDGER_PROJECTION_BATCH", 2000, ge=1, meaning="Notifications per projection transaction when catching up.")
    log_format: Literal["json", "text"] = setting("GAMELEDGER_LOG_FORMAT", "json", meaning="json: one JSON object per line (time, level, logger, message, request_id...).")
    log_level: Literal["debug", "info", "warning", "error"] = setting("GAMELEDGER_LOG_LEVEL", "info", meaning="Lowest level logged.")
    ready_max_lag: int = setting("GAMELEDGER_READY_MAX_LAG", 5000, ge=0, meaning="/ready answers 503 when a projection is more events than this behind the log (0: no lag check).")
    shutdown_timeout: float = setting("GAMELEDGER_SHUTDOWN_TIMEOUT", 20.0, ge=0, meaning="Seconds that in-flight requests get to finish after SIGTERM before connections are closed.")
    metrics: bool = setting("GAMELEDGER_METRICS", True, meaning="Serve Prometheus metrics at /metrics.")

    signup_rate: float = setting("GAMELEDGER_SIGNUP_RATE", 20.0, ge=0, meaning="Sign-ups allowed per minute per client address (0: no limit).")
    signup_burst: int = setting("GAMELEDGER_SIGNUP_BURST", 20, ge=1, meaning="Sign-ups allowed at once before the rate applies.")
    decision_rate: float = setting("GAMELEDGER_DECISION_RATE", 30.0, ge=0, meaning="Decisions allowed per second per player (0: no limit).")
    decision_burst: int = setting("GAMELEDGER_DECISION_BURST", 120, ge=1, meaning="Decisions allowed at once before the rate applies.")
    fork_rate: float = setting("GAMELEDGER_FORK_RATE", 20.0, ge=0, meaning="What-if forks allowed per hour per player (0: no limit); the decisions their bots make count as the player's decisions too.")
    fork_burst: int = setting("GAMELEDGER_FORK_BURST", 5, ge=1, meaning="Forks allowed at once before the rate applies.")
    streams_per_player: int = setting("GAMELEDGER_STREAMS_PER_PLAYER", 50, ge=0, meaning="Live-update streams (a game's, a player's notifications) one player may hold open at once in each server process; beyond, 429 request/too_many_streams (0: no limit).")
    streams_per_client: int = setting("GAMELEDGER_STREAMS_PER_CLIENT", 500, ge=0, meaning="Live-update streams one client address may hold open at once in each server process, whoever opens them (0: no limit).")
    public_read_rate: float = setting("GAMELEDGER_PUBLIC_READ_RATE", 5.0, ge=0, meaning="Reads of the public digest endpoints (/ledger/digest, /ledger/digests, /ledger/public-key, no token needed) allowed per second per client address (0: no limit).")
    public_read_burst: int = setting("GAMELEDGER_PUBLIC_READ_BURST", 30, ge=1, meaning="Reads of the public digests allowed at once.")
    dispute_rate: float = setting("GAMELEDGER_DISPUTE_RATE", 6.0, ge=0, meaning="Disputes a player may open per hour, after the burst; a game takes twice as many from all its players together (0: no limit).")
    dispute_burst: int = setting("GAMELEDGER_DISPUTE_BURST", 3, ge=1, meaning="Disputes a player may open at once before the rate applies (a game: twice this).")

    public_url: str = setting("GAMELEDGER_PUBLIC_URL", "", meaning="The address people reach the server at (https://play.example.org): the links in mails point there, and https:// marks the session cookie Secure. Empty (refused in production, and by serve on any address but loopback): this machine's loopback, http://127.0.0.1 and the port served on.")
    trusted_proxies: str = setting("GAMELEDGER_TRUSTED_PROXIES", "127.0.0.1", meaning="The addresses and networks (comma-separated: 10.0.0.0/8, 192.0.2.7) of the proxies in front of the server, whose X-Forwarded-For and X-Forwarded-Proto are believed: the client address every per-client limit counts by (sign-ins, sign-ups, recovery, streams). Behind an ingress or a load balancer, its address; never * unless nothing else can reach the server.")
    smtp_url: str = setting("GAMELEDGER_SMTP_URL", "", repr=False, meaning="Where mail goes: smtp://user:password@host:587 (STARTTLS when the server offers it; the password is sent only over TLS or to this machine) or smtps://user:password@host:465 (TLS). Empty: every mail (its one-time links included) is written to the log, logger gameledger.mail at WARNING, for the operator to pass on. Account mails and notification mails (your turn, digests) alike.")
    smtp_timeout: float = setting("GAMELEDGER_SMTP_TIMEOUT", 10.0, gt=0, le=300, meaning="Seconds an SMTP connection or command may take before the attempt fails (and is retried).")
    mail_from: str = setting("GAMELEDGER_MAIL_FROM", "gameledger <gameledger@localhost>", meaning="The From address of every mail.")
    operator_email: str = setting("GAMELEDGER_OPERATOR_EMAIL", "", meaning="The operator's address: mailed every dispute opened and every ruling, with a link to the dispute's page (empty: the operator reads them in the disputes queue, /disputes).")
    mail_interval: float = setting("GAMELEDGER_MAIL_INTERVAL", 2.0, ge=0, meaning="Seconds between rounds of the mail outbox's drain (0: off); a process sends the mails it queued itself at once.")
    session_days: int = setting("GAMELEDGER_SESSION_DAYS", 30, ge=1, le=400, meaning="How long a sign-in (web or API session) lasts; signing out ends it sooner.")
    recovery_link_minutes: int = setting("GAMELEDGER_RECOVERY_LINK_MINUTES", 30, ge=5, le=1440, meaning="How long a mailed sign-in (recovery) link works; it works once.")
    confirm_link_hours: int = setting("GAMELEDGER_CONFIRM_LINK_HOURS", 48, ge=1, le=720, meaning="How long a mailed link confirming an email address works; it works once.")
    signin_attempts_per_account: int = setting("GAMELEDGER_SIGNIN_ATTEMPTS_PER_ACCOUNT", 10, ge=0, meaning="Failed sign-ins allowed per email address from one client address in 15 minutes; beyond, sign-ins with it from there are refused (429) until the window has passed, while its owner elsewhere still signs in (0: no limit).")
    signin_attempts_per_account_all: int = setting("GAMELEDGER_SIGNIN_ATTEMPTS_PER_ACCOUNT_ALL", 100, ge=0, meaning="Failed sign-ins allowed per email address from all client addresses together in 15 minutes: guessing spread over many addresses (0: no limit).")
    signin_attempts_per_client: int = setting("GAMELEDGER_SIGNIN_ATTEMPTS_PER_CLIENT", 50, ge=0, meaning="Failed sign-ins allowed per client address in 15 minutes (0: no limit).")
    account_mails_per_hour: int = setting("GAMELEDGER_ACCOUNT_MAILS_PER_HOUR", 3, ge=0, meaning="Confirmation mails sent to one address in an hour, and recovery mails to one address asked for from one client address; beyond, none is sent and the answer is the same. The two are counted apart, so that nobody can tell from the one whether the other was sent (0: no limit).")
    recovery_mails_per_hour_all: int = setting("GAMELEDGER_RECOVERY_MAILS_PER_HOUR_ALL", 10, ge=0, meaning="Recovery mails sent to one address in an hour, asked for from any client address (0: no limit).")
    recover_requests_per_client: int = setting("GAMELEDGER_RECOVER_REQUESTS_PER_CLIENT", 20, ge=0, meaning="Account recovery requests per client address in an hour (0: no limit).")
    # fmt: on

    @field_validator("public_url")
    @classmethod
    def _a_public_url(cls, url: str) -> str:
        from urllib.parse import urlparse

        if url:
            parsed = urlparse(url)
            if (
                parsed.scheme not in ("http", "https")
                or not parsed.hostname
                or parsed.query
                or parsed.fragment
            ):
                raise ValueError(
                    "the public URL is http(s)://host[:port][/path], as in https://play.example.org"
                )
        return url.rstrip("/")

    @field_validator("outbound_allow")
    @classmethod
    def _an_allow_list(cls, text: str) -> str:
        from api.outbound import parse_allow

        parse_allow(text)  # a ValueError names the entry
        return text

    @field_validator("smtp_url")
    @classmethod
    def _an_smtp_url(cls, url: str) -> str:
        from api.mail import parse_smtp_url

        if url:
            parse_smtp_url(url)
        return url

    @field_validator("mail_from")
    @classmethod
    def _a_from_address(cls, text: str) -> str:
        from email.utils import parseaddr

        if "\n" in text or "\r" in text or "@" not in parseaddr(text)[1]:
            raise ValueError("the From address is an address, as in: gameledger <noreply@example.org>")
        return text

    @field_validator("database_url")
    @classmethod
    def _a_database_url(cls, url: str) -> str:
        """Refused at start, not when the first request reaches for the database."""
        from ledger.storage import parse_database_url

        if url:
            parse_database_url(url)  # a ValueError: an unknown scheme, a SQLite URL without a file
        return url

    @model_validator(mode="after")
    def _production_needs_secrets(self) -> Settings:
        if self.environment == "production":
            if len(self.admin_token) < 24:
                raise ValueError("production needs GAMELEDGER_ADMIN_TOKEN of at least 24 characters")
            if not self.database_url.startswith("postgres"):
                raise ValueError("production needs GAMELEDGER_DATABASE_URL pointing at PostgreSQL")
            if not self.signing_key:
                raise ValueError("production needs GAMELEDGER_SIGNING_KEY (32 bytes, base64) to sign digests")
            for name in ("admin_token", "signing_key", "smtp_url"):
                if any(p in getattr(self, name).lower() for p in PLACEHOLDERS):
                    raise ValueError(
                        f"production refuses the template's placeholder in {ENV[name]}: set a real secret"
                    )
            if not self.public_url:
                raise ValueError(
                    "production needs GAMELEDGER_PUBLIC_URL (https://your.host): the links in mails point there"
                )
        return self

    @property
    def link_base(self) -> str:
        """Where the links in mails and chat posts point: the public URL, or this machine's
        loopback (``gameledger serve`` sets the URL for the port it listens on), never the
        address a request names (its Host header is whatever the client wrote)."""
        return (self.public_url or LOCAL_URL).rstrip("/")

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'ledger.sqlite3').resolve()}"

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """The file (``GAMELEDGER_CONFIG``), then the environment, then ``overrides`` (None: unset)."""
        env = os.environ
        values: dict[str, object] = {}
        path = overrides.pop("config", None) or env.get("GAMELEDGER_CONFIG")
        if path:
            values.update(read_config_file(Path(str(path))))
        if env.get("GAMELEDGER_SKIP_INIT") == "1":
            values["init_db"] = False
        for name, var in ENV.items():
            if env.get(var):
                values[name] = env[var]
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)

    def public(self) -> dict[str, Any]:
        """The effective settings with the secrets masked (``gameledger config show``)."""
        out = self.model_dump(mode="json")
        for name in SECRETS:
            out[name] = "***" if out[name] else ""
        if out["smtp_url"]:
            from api.mail import mask_smtp_url

            out["smtp_url"] = mask_smtp_url(out["smtp_url"])
        if "@" in out["database_url"]:
            scheme, _, rest = out["database_url"].partition("://")
            out["database_url"] = f"{scheme}://***@{rest.split('@', 1)[1]}"
        return out


ENV: dict[str, str] = {
    name: cast(dict[str, str], field.json_schema_extra)["env"]
    for name, field in Settings.model_fields.items()
}
"""Every setting's environment variable, from its row in ``Settings``."""

EXTRA_ENV = {
    "GAMELEDGER_CONFIG": "Path of a TOML file of settings (top-level keys: the setting names); the environment overrides it.",
    "GAMELEDGER_SKIP_INIT": "1: do not create tables at start (set by `serve` for its worker processes).",
    "PROMETHEUS_MULTIPROC_DIR": "A writable, empty directory shared by the worker processes of one `serve --workers N`, so that /metrics adds them up; `serve` makes one when N > 1 and it is unset.",
}
"""Variables read outside the model."""

SECRETS = ("admin_token", "signing_key")
PLACEHOLDERS = ("change-me", "changeme", "replace-me")


def read_config_file(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration file {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    data = data.get("gameledger", data)  # a [gameledger] table, or top-level keys
    unknown = sorted(set(data) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}; see deploy/CONFIG.md")
    return dict(data)


class ConfigError(ValueError):
    """A configuration that cannot start the service, in words for the operator."""


def explain(exc: ValidationError | ConfigError) -> str:
    """One line per problem, naming the environment variable to fix."""
    if isinstance(exc, ConfigError):
        return str(exc)
    lines = []
    for err in exc.errors():
        loc = [str(x) for x in err.get("loc", ())]
        msg = str(err.get("msg", "")).removeprefix("Value error, ")
        if loc:
            lines.append(f"{ENV.get(loc[0], loc[0])} ({loc[0]}): {msg}")
        else:
            lines.append(msg)
    return "\n".join(lines)


def reference_markdown() -> str:
    """deploy/CONFIG.md: every setting with its variable, default and meaning."""
    out = [
        "# Configuration reference",
        "",
        "Generated by `gameledger config reference` from `api/settings.py`; a test fails when",
        "this file and the model disagree. Settings come from, lowest precedence first: the",
        "defaults, a TOML file (`GAMELEDGER_CONFIG=/etc/gameledger.toml` or `--config`; top-level",
        "keys or a `[gameledger]` table, named as in the first column), the environment, the",
        "command line. They are validated at start: a bad value stops the process with a",
        "message naming the variable, and exit status 2.",
        "",
        "| setting | environment variable | default | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for name, field in Settings.model_fields.items():
        default = field.default
        shown = f"`{default}`" if default not in ("", None) else "(empty)"
        meaning = field.description or ""
        if field.annotation is not None and getattr(field.annotation, "__origin__", None) is Literal:
            meaning += f" One of: {', '.join(field.annotation.__args__)}."
        out.append(f"| `{name}` | `{ENV[name]}` | {shown} | {meaning.strip()} |")
    out += ["", "Read outside the model:", "", "| variable | meaning |", "| --- | --- |"]
    out += [f"| `{k}` | {v} |" for k, v in EXTRA_ENV.items()]
    return "\n".join(out) + "\n"

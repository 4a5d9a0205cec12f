"""Settings, from a TOML file, the environment (GAMELEDGER_*) and the command line, validated at start.

Precedence, lowest first: the defaults below, the file named by ``GAMELEDGER_CONFIG`` (or
``--config``; its top-level keys are the field names), the environment variables of ``ENV``,
then the command line. ``gameledger config reference`` prints deploy/CONFIG.md from this model.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

DEFAULT_DATA_DIR = "gameledger-data"


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    environment: Literal["development", "production"] = Field(
        default="development",
        description="production refuses to start without a PostgreSQL URL, an admin token of 24+ "
        "characters, a signing key and the public URL, or with the templates' placeholder secrets (change-me).",
    )
    data_dir: Path = Field(
        default=Path(DEFAULT_DATA_DIR), description="Where the embedded SQLite files live."
    )
    database_url: str = Field(
        default="", description="sqlite:///path or postgresql://...; empty: SQLite in data_dir."
    )
    admin_token: str = Field(default="", description="Bearer token of the operator (league organiser).")
    max_body_bytes: int = Field(
        default=64 * 1024, ge=1024, description="Largest request body accepted (413 beyond)."
    )
    max_json_depth: int = Field(
        default=32, ge=4, description="Deepest JSON nesting accepted in a request body (422 beyond)."
    )
    pool_size: int = Field(
        default=5,
        ge=1,
        description="The event store's database connections per process (the pool may overflow to twice this).",
    )
    pg_pre_ping: bool = Field(
        default=False,
        description="Check every pooled PostgreSQL connection before use (a round trip per statement); "
        "off, a statement on a connection broken by a database restart is retried on a fresh one.",
    )
    init_db: bool = Field(
        default=True,
        description="Apply the pending schema migrations at start (under a lock); false where a Job runs `gameledger db migrate`.",
    )
    projections: Literal["inline", "off"] = Field(
        default="inline", description="Run the read models in the server process, or leave them to workers."
    )
    clock_interval: float = Field(
        default=30.0, ge=0, description="Seconds between the clock scheduler's checks for timeouts (0: off)."
    )
    webhook_interval: float = Field(
        default=2.0, ge=0, description="Seconds between webhook delivery rounds (0: off)."
    )
    vacation_days_per_year: int = Field(
        default=30, ge=0, le=366, description="Vacation allowance per player."
    )
    signing_key: str = Field(
        default="",
        description="Ed25519 key (32 bytes, base64) that signs the ledger digests; development makes one.",
        repr=False,
    )
    digest_interval: float = Field(
        default=3600.0,
        ge=0,
        description="Seconds between published digests of all games' heads (0: on demand).",
    )
    projection_batch: int = Field(
        default=2000, ge=1, description="Notifications per projection transaction when catching up."
    )
    log_format: Literal["json", "text"] = Field(
        default="json", description="json: one JSON object per line (time, level, logger, message, request_id...)."
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(default="info", description="Lowest level logged.")
    ready_max_lag: int = Field(
        default=5000,
        ge=0,
        description="/ready answers 503 when a projection is more events than this behind the log (0: no lag check).",
    )
    shutdown_timeout: float = Field(
        default=20.0,
        ge=0,
        description="Seconds that in-flight requests get to finish after SIGTERM before connections are closed.",
    )
    metrics: bool = Field(default=True, description="Serve Prometheus metrics at /metrics.")

    signup_rate: float = Field(
        default=20.0, ge=0, description="Sign-ups allowed per minute per client address (0: no limit)."
    )
    signup_burst: int = Field(default=20, ge=1, description="Sign-ups allowed at once before the rate applies.")
    decision_rate: float = Field(
        default=30.0, ge=0, description="Decisions allowed per second per bearer token (0: no limit)."
    )
    decision_burst: int = Field(
        default=120, ge=1, description="Decisions allowed at once before the rate applies."
    )

    public_url: str = Field(
        default="",
        description="The address people reach the server at (https://play.example.org): the links in mails point "
        "there, and https:// marks the session cookie Secure. Empty (refused in production): the address each "
        "request came to.",
    )
    smtp_url: str = Field(
        default="",
        repr=False,
        description="Where mail goes: smtp://user:password@host:587 (STARTTLS when the server offers it; the "
        "password is sent only over TLS or to this machine) or smtps://user:password@host:465 (TLS). Empty: every "
        "mail (its one-time links included) is written to the log, logger gameledger.mail at WARNING, for the "
        "operator to pass on.",
    )
    smtp_timeout: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description="Seconds an SMTP connection or command may take before the attempt fails (and is retried).",
    )
    mail_from: str = Field(
        default="gameledger <gameledger@localhost>", description="The From address of every mail."
    )
    mail_interval: float = Field(
        default=2.0,
        ge=0,
        description="Seconds between rounds of the mail outbox's drain (0: off); a process sends the mails it "
        "queued itself at once.",
    )
    session_days: int = Field(
        default=30,
        ge=1,
        le=400,
        description="How long a sign-in (web or API session) lasts; signing out ends it sooner.",
    )
    recovery_link_minutes: int = Field(
        default=30,
        ge=5,
        le=1440,
        description="How long a mailed sign-in (recovery) link works; it works once.",
    )
    confirm_link_hours: int = Field(
        default=48,
        ge=1,
        le=720,
        description="How long a mailed link confirming an email address works; it works once.",
    )
    signin_attempts_per_account: int = Field(
        default=10,
        ge=0,
        description="Failed sign-ins allowed per email address in 15 minutes; beyond, sign-ins with it are refused "
        "(429) until the window has passed (0: no limit).",
    )
    signin_attempts_per_client: int = Field(
        default=50,
        ge=0,
        description="Failed sign-ins allowed per client address in 15 minutes (0: no limit).",
    )
    account_mails_per_hour: int = Field(
        default=3,
        ge=0,
        description="Confirmation and recovery mails sent to one address in an hour; beyond, none is sent and the "
        "answer is the same (0: no limit).",
    )
    recover_requests_per_client: int = Field(
        default=20, ge=0, description="Account recovery requests per client address in an hour (0: no limit)."
    )

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
                    raise ValueError(f"production refuses the template's placeholder in {ENV[name]}: set a real secret")
            if not self.public_url:
                raise ValueError(
                    "production needs GAMELEDGER_PUBLIC_URL (https://your.host): the links in mails point there"
                )
        return self

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
    "environment": "GAMELEDGER_ENV",
    "data_dir": "GAMELEDGER_DATA_DIR",
    "database_url": "GAMELEDGER_DATABASE_URL",
    "admin_token": "GAMELEDGER_ADMIN_TOKEN",
    "max_body_bytes": "GAMELEDGER_MAX_BODY_BYTES",
    "max_json_depth": "GAMELEDGER_MAX_JSON_DEPTH",
    "pool_size": "GAMELEDGER_POOL_SIZE",
    "pg_pre_ping": "GAMELEDGER_PG_PRE_PING",
    "init_db": "GAMELEDGER_INIT_DB",
    "projections": "GAMELEDGER_PROJECTIONS",
    "clock_interval": "GAMELEDGER_CLOCK_INTERVAL",
    "webhook_interval": "GAMELEDGER_WEBHOOK_INTERVAL",
    "vacation_days_per_year": "GAMELEDGER_VACATION_DAYS",
    "signing_key": "GAMELEDGER_SIGNING_KEY",
    "digest_interval": "GAMELEDGER_DIGEST_INTERVAL",
    "projection_batch": "GAMELEDGER_PROJECTION_BATCH",
    "log_format": "GAMELEDGER_LOG_FORMAT",
    "log_level": "GAMELEDGER_LOG_LEVEL",
    "ready_max_lag": "GAMELEDGER_READY_MAX_LAG",
    "shutdown_timeout": "GAMELEDGER_SHUTDOWN_TIMEOUT",
    "metrics": "GAMELEDGER_METRICS",
    "signup_rate": "GAMELEDGER_SIGNUP_RATE",
    "signup_burst": "GAMELEDGER_SIGNUP_BURST",
    "decision_rate": "GAMELEDGER_DECISION_RATE",
    "decision_burst": "GAMELEDGER_DECISION_BURST",
    "public_url": "GAMELEDGER_PUBLIC_URL",
    "smtp_url": "GAMELEDGER_SMTP_URL",
    "smtp_timeout": "GAMELEDGER_SMTP_TIMEOUT",
    "mail_from": "GAMELEDGER_MAIL_FROM",
    "mail_interval": "GAMELEDGER_MAIL_INTERVAL",
    "session_days": "GAMELEDGER_SESSION_DAYS",
    "recovery_link_minutes": "GAMELEDGER_RECOVERY_LINK_MINUTES",
    "confirm_link_hours": "GAMELEDGER_CONFIRM_LINK_HOURS",
    "signin_attempts_per_account": "GAMELEDGER_SIGNIN_ATTEMPTS_PER_ACCOUNT",
    "signin_attempts_per_client": "GAMELEDGER_SIGNIN_ATTEMPTS_PER_CLIENT",
    "account_mails_per_hour": "GAMELEDGER_ACCOUNT_MAILS_PER_HOUR",
    "recover_requests_per_client": "GAMELEDGER_RECOVER_REQUESTS_PER_CLIENT",
}
"""Every setting's environment variable (a test checks that none is missing)."""

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

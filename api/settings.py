"""Settings, from the environment (GAMELEDGER_*) and the command line, validated at start."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_DATA_DIR = "gameledger-data"


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    environment: Literal["development", "production"] = "development"
    data_dir: Path = Field(
        default=Path(DEFAULT_DATA_DIR), description="Where the embedded SQLite files live."
    )
    database_url: str = Field(
        default="", description="sqlite:///path or postgresql://...; empty: SQLite in data_dir."
    )
    admin_token: str = Field(default="", description="Bearer token of the operator (league organiser).")
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    max_json_depth: int = Field(default=32, ge=4)
    pool_size: int = Field(default=5, ge=1)
    pg_pre_ping: bool = Field(
        default=False,
        description="Check every pooled PostgreSQL connection before use (a round trip per statement); "
        "off, a statement on a connection broken by a database restart is retried on a fresh one.",
    )
    init_db: bool = Field(default=True, description="Create tables at start (under a lock).")
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

    @model_validator(mode="after")
    def _production_needs_secrets(self) -> Settings:
        if self.environment == "production":
            if len(self.admin_token) < 24:
                raise ValueError("production needs GAMELEDGER_ADMIN_TOKEN of at least 24 characters")
            if not self.database_url.startswith("postgres"):
                raise ValueError("production needs GAMELEDGER_DATABASE_URL pointing at PostgreSQL")
            if not self.signing_key:
                raise ValueError("production needs GAMELEDGER_SIGNING_KEY (32 bytes, base64) to sign digests")
        return self

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'ledger.sqlite3').resolve()}"

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        env = os.environ
        values: dict[str, object] = {}
        mapping = {
            "GAMELEDGER_ENV": "environment",
            "GAMELEDGER_DATA_DIR": "data_dir",
            "GAMELEDGER_DATABASE_URL": "database_url",
            "GAMELEDGER_ADMIN_TOKEN": "admin_token",
            "GAMELEDGER_MAX_BODY_BYTES": "max_body_bytes",
            "GAMELEDGER_MAX_JSON_DEPTH": "max_json_depth",
            "GAMELEDGER_POOL_SIZE": "pool_size",
            "GAMELEDGER_PG_PRE_PING": "pg_pre_ping",
            "GAMELEDGER_PROJECTIONS": "projections",
            "GAMELEDGER_CLOCK_INTERVAL": "clock_interval",
            "GAMELEDGER_WEBHOOK_INTERVAL": "webhook_interval",
            "GAMELEDGER_VACATION_DAYS": "vacation_days_per_year",
            "GAMELEDGER_SIGNING_KEY": "signing_key",
            "GAMELEDGER_DIGEST_INTERVAL": "digest_interval",
            "GAMELEDGER_SIGNUP_RATE": "signup_rate",
            "GAMELEDGER_SIGNUP_BURST": "signup_burst",
            "GAMELEDGER_DECISION_RATE": "decision_rate",
            "GAMELEDGER_DECISION_BURST": "decision_burst",
        }
        if env.get("GAMELEDGER_SKIP_INIT") == "1":
            values["init_db"] = False
        for var, name in mapping.items():
            if env.get(var):
                values[name] = env[var]
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)

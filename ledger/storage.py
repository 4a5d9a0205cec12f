"""Where the ledger lives: a database URL turned into eventsourcing's environment.

- ``sqlite:///path/to/ledger.sqlite3`` — the embedded default; projections keep
  their own SQLite files beside it (``<stem>.<view>.sqlite3``), because SQLite's
  tracking table is shared per file (notes §6).
- ``postgresql://user:password@host:port/dbname?schema=name`` — events,
  snapshots, projections and their tracking tables in one schema.

No SQL driver is imported here: eventsourcing's persistence modules do the storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace("'", "\\'")


@dataclass(frozen=True)
class Database:
    url: str
    kind: str  # "sqlite" or "postgres"
    sqlite_path: str = ""  # a file path, or a "file:...?mode=memory&cache=shared" URI
    host: str = ""
    port: int = 5432
    user: str = ""
    password: str = ""
    dbname: str = ""
    schema: str = "public"
    pool_size: int = 5
    pre_ping: bool = False  # check each pooled connection before use (a round trip each time)

    @property
    def is_memory(self) -> bool:
        return self.sqlite_path.startswith("file:") and "mode=memory" in self.sqlite_path

    def conninfo(self) -> str:
        """A libpq connection string (key=value, values quoted)."""
        parts = {"host": self.host, "port": str(self.port), "user": self.user, "dbname": self.dbname}
        if self.password:
            parts["password"] = self.password
        return " ".join(f"{k}='{_quote(v)}'" for k, v in parts.items())

    def ledger_env(self, *, create_table: bool) -> dict[str, str]:
        flag = "y" if create_table else "n"
        if self.kind == "sqlite":
            return {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": self.sqlite_path,
                "CREATE_TABLE": flag,
            }
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": self.dbname,
            "POSTGRES_HOST": self.host,
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_USER": self.user,
            "POSTGRES_PASSWORD": self.password,
            "POSTGRES_SCHEMA": self.schema,
            "POSTGRES_POOL_SIZE": str(self.pool_size),
            "POSTGRES_MAX_OVERFLOW": str(self.pool_size * 2),
            "POSTGRES_LOCK_TIMEOUT": "10",
            "POSTGRES_CONNECT_TIMEOUT": "5",
            # Off by default: the library retries a statement on a broken connection with a
            # fresh one, so a database restart costs no request more; on, it is a round trip
            # before every statement.
            "POSTGRES_PRE_PING": "y" if self.pre_ping else "n",
            "CREATE_TABLE": flag,
        }

    def view_sqlite_path(self, view: str) -> str:
        """The SQLite file (or shared-memory URI) of one projection."""
        if self.is_memory:
            head, _, query = self.sqlite_path.partition("?")
            return f"{head}-{view}?{query}"
        p = Path(self.sqlite_path)
        return str(p.with_name(f"{p.stem}.{view}.sqlite3"))


def parse_database_url(url: str, *, pool_size: int = 5, pre_ping: bool = False) -> Database:
    if url.startswith("sqlite:"):
        path = url[len("sqlite:") :]
        if path.startswith("//"):
            path = path[3:] if path.startswith("///") else path[2:]  # sqlite:///rel, sqlite:////abs
        if not path:
            raise ValueError("a sqlite URL needs a file: sqlite:///path/to/ledger.sqlite3")
        if path.startswith("file:"):
            return Database(url=url, kind="sqlite", sqlite_path=path)
        return Database(url=url, kind="sqlite", sqlite_path=str(Path(path).expanduser()))
    parsed = urlparse(url)
    if parsed.scheme not in ("postgresql", "postgres", "postgresql+psycopg"):
        raise ValueError(
            f"unsupported database URL scheme {parsed.scheme!r}: use sqlite:/// or postgresql://"
        )
    query = parse_qs(parsed.query)
    return Database(
        url=url,
        kind="postgres",
        host=parsed.hostname or "127.0.0.1",
        port=parsed.port or 5432,
        user=unquote(parsed.username or "postgres"),
        password=unquote(parsed.password or ""),
        dbname=(parsed.path or "/postgres").lstrip("/") or "postgres",
        schema=query.get("schema", ["public"])[0],
        pool_size=pool_size,
        pre_ping=pre_ping,
    )

"""The signed digests the ledger has issued (kept apart from the projections: a rebuild of
the read models never touches them), and the development signing key."""

from __future__ import annotations

import json
from typing import Any

from projections.base import SqlView


class DigestsView(SqlView):
    view_name = "digests"
    TABLE_NAMES = ("digests", "keys")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {digests} ("
        " root TEXT NOT NULL, issued_at TEXT NOT NULL, position BIGINT NOT NULL, games INTEGER NOT NULL,"
        " doc TEXT NOT NULL, leaves TEXT NOT NULL, PRIMARY KEY (issued_at, root))",
        "CREATE INDEX IF NOT EXISTS digests_position ON {digests} (position)",
        "CREATE TABLE IF NOT EXISTS {keys} (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    )

    def latest(self) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        rows = self.rows(
            f"SELECT doc, leaves FROM {self.t('digests')} ORDER BY position DESC, issued_at DESC LIMIT 1"
        )
        if not rows:
            return None
        return json.loads(rows[0]["doc"]), json.loads(rows[0]["leaves"])

    def find(self, root: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        rows = self.rows(f"SELECT doc, leaves FROM {self.t('digests')} WHERE root = %s LIMIT 1", [root])
        if not rows:
            return None
        return json.loads(rows[0]["doc"]), json.loads(rows[0]["leaves"])

    def listing(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = self.rows(
            f"SELECT doc FROM {self.t('digests')} ORDER BY position DESC, issued_at DESC LIMIT %s", [limit]
        )
        return [json.loads(r["doc"]) for r in rows]

    def store(self, doc: dict[str, Any], leaves: list[dict[str, Any]]) -> None:
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"INSERT INTO {self.t('digests')} VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                [
                    doc["root"],
                    doc["issued_at"],
                    doc["position"],
                    doc["games"],
                    json.dumps(doc),
                    json.dumps(leaves),
                ],
            )

    def development_key(self, make: Any) -> str:
        """The signing key of a development server without one configured: made once, kept here."""
        rows = self.rows(f"SELECT value FROM {self.t('keys')} WHERE name = %s", ["signing"])
        if rows:
            return str(rows[0]["value"])
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"INSERT INTO {self.t('keys')} VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
                ["signing", make()],
            )
        return str(self.rows(f"SELECT value FROM {self.t('keys')} WHERE name = %s", ["signing"])[0]["value"])

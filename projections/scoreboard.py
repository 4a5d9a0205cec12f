"""Scoreboard: per game and seat, cash, shares, share value, portfolio, loans, rank.

Reduced from the public effects of the game's events by the title's reducer
(``projections.titles``), so it shows only what every seat may see.
"""

from __future__ import annotations

from typing import Any, ClassVar

from eventsourcing.utils import get_topic

from ledger.domain import Game
from projections.base import BatchProjection, DocTable, SqlView
from projections.titles import reducer


class ScoreboardView(SqlView):
    view_name = "scoreboard"
    TABLE_NAMES = ("boards",)
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {boards} ("
        " game_id TEXT PRIMARY KEY, doc TEXT NOT NULL, version INTEGER NOT NULL, updated_at TEXT NOT NULL)",
    )

    def board(self, game_id: str) -> dict[str, Any] | None:
        import json

        rows = self.rows(
            f"SELECT doc, version, updated_at FROM {self.t('boards')} WHERE game_id = %s", [game_id]
        )
        if not rows:
            return None
        doc = json.loads(rows[0]["doc"])
        return {"game_id": game_id, "version": rows[0]["version"], "updated_at": rows[0]["updated_at"], **doc}


class Scoreboard(BatchProjection[ScoreboardView]):
    name = "scoreboard"
    topics: ClassVar[tuple[str, ...]] = tuple(  # type: ignore[misc]
        get_topic(cls)
        for cls in (
            Game.Created,
            Game.Started,
            Game.DrawRecorded,
            Game.DecisionRecorded,
            Game.Finished,
            Game.Abandoned,
        )
    )

    def process_batch(self, c: Any, events: list[Any]) -> None:
        table = DocTable(self.view, "boards")
        ids = {str(e.originator_id) for e in events}
        docs = table.load(c, ids)
        touched: dict[str, dict[str, Any]] = {}
        for e in events:
            gid = str(e.originator_id)
            if isinstance(e, Game.Created):
                r = reducer(e.public["title"])
                if r is None:
                    continue
                docs[gid] = r.initial(e.public)
                docs[gid]["status"] = "waiting"
            doc = docs.get(gid)
            if doc is None:
                continue
            r = reducer(doc["title"])
            assert r is not None
            for effect in e.public.get("effects", ()):
                r.apply(doc, effect)
            if isinstance(e, Game.Started):
                doc["status"] = "active"
            elif isinstance(e, Game.Finished):
                doc["status"] = "finished"
                doc["standings"] = e.public["standings"]
            elif isinstance(e, Game.Abandoned):
                doc["status"] = "abandoned"
            doc["_version"] = e.originator_version
            doc["_at"] = e.timestamp.isoformat()
            touched[gid] = doc
        for doc in touched.values():
            r = reducer(doc["title"])
            assert r is not None
            r.finish(doc)
        table.save(
            c,
            touched,
            extra=lambda d: (d["_version"], d["_at"]),
            columns=("version", "updated_at"),
        )

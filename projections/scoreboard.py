"""Scoreboard: per game and seat, cash, shares, share value, portfolio, loans, rank.

Reduced from the public effects of the game's events by the title's reducer
(``projections.titles``), so it shows only what every seat may see.
"""

from __future__ import annotations

from typing import Any

from projections.base import BatchProjection, DocTable, Fact, SqlView, effective
from projections.titles import reducer
from projections.topics import ABANDONED, ANNULLED, CREATED, DECISION, DRAW, ENDED, FINISHED, STARTED, UNDONE


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
    topics = (CREATED, STARTED, DRAW, DECISION, UNDONE, *ENDED)

    def process_batch(self, c: Any, events: list[Fact]) -> None:
        table = DocTable(self.view, "boards")
        docs = table.load(c, {e.originator_id for e in events})
        touched: dict[str, dict[str, Any]] = {}
        for e in events:
            gid = e.originator_id
            if e.topic == UNDONE and self.history is not None:
                docs.pop(gid, None)  # recompute the game from the events still in force
                for f in effective([*self.history(gid, e.version), e]):
                    self._apply(docs, f)
            else:
                self._apply(docs, e)
            if gid in docs:
                touched[gid] = docs[gid]
        for doc in touched.values():
            r = reducer(doc["title"])
            assert r is not None
            r.finish(doc)
        table.save(c, touched, extra=lambda d: (d["_version"], d["_at"]), columns=("version", "updated_at"))

    @staticmethod
    def _apply(docs: dict[str, dict[str, Any]], e: Fact) -> None:
        gid = e.originator_id
        if e.topic == CREATED:
            r = reducer(e.public["title"])
            if r is None:
                return
            docs[gid] = r.initial(e.public)
            docs[gid]["status"] = "waiting"
        doc = docs.get(gid)
        if doc is None:
            return
        r = reducer(doc["title"])
        assert r is not None
        for effect in e.public.get("effects", ()):
            r.apply(doc, effect)
        if e.topic == DECISION:  # who made each seat's decisions
            by = doc.setdefault("decided_by", {}).setdefault(str(e.public["seat"]), {})
            key = e.public.get("by") or "person"
            by[key] = by.get(key, 0) + 1
        if e.topic == STARTED:
            doc["status"] = "active"
        elif e.topic == FINISHED:
            doc["status"] = "finished"
            doc["standings"] = e.public["standings"]
        elif e.topic == ABANDONED:
            doc["status"] = "abandoned"
        elif e.topic == ANNULLED:
            doc["status"] = "annulled"
        doc["_version"] = e.version
        doc["_at"] = e.at

"""ShareValueHistory: one point per change of any company's share value.

Each point carries the game version, the period (round and stage, or decade and
cycle), the cause recorded by the rules engine and the time.
"""

from __future__ import annotations

import json
from typing import Any

from projections.base import BatchProjection, DocTable, Fact, SqlView, effective
from projections.topics import CREATED, DECISION, DRAW, UNDONE

PERIOD_EFFECTS = {"round_started": ("round", "stage"), "cycle_started": ("decade", "cycle", "good")}
POINT_COLUMNS = (
    "game_id",
    "seq",
    "version",
    "company",
    "space_from",
    "space_to",
    "value_from",
    "value_to",
    "currency",
    "period",
    "cause",
    "at",
)


class ShareValueView(SqlView):
    view_name = "sharevalues"
    TABLE_NAMES = ("points", "context")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {points} ("
        " game_id TEXT NOT NULL, seq INTEGER NOT NULL, version INTEGER NOT NULL, company INTEGER NOT NULL,"
        " space_from INTEGER, space_to INTEGER, value_from INTEGER, value_to INTEGER NOT NULL,"
        " currency TEXT, period TEXT NOT NULL, cause TEXT NOT NULL, at TEXT NOT NULL,"
        " PRIMARY KEY (game_id, seq))",
        "CREATE TABLE IF NOT EXISTS {context} (game_id TEXT PRIMARY KEY, doc TEXT NOT NULL)",
    )

    def points(self, game_id: str) -> list[dict[str, Any]]:
        rows = self.rows(f"SELECT * FROM {self.t('points')} WHERE game_id = %s ORDER BY seq", [game_id])
        for r in rows:
            r["period"] = json.loads(r["period"])
        return rows

    def known(self, game_id: str) -> bool:
        return bool(self.rows(f"SELECT 1 AS x FROM {self.t('context')} WHERE game_id = %s", [game_id]))


class ShareValueHistory(BatchProjection[ShareValueView]):
    name = "sharevalues"
    topics = (CREATED, DRAW, DECISION, UNDONE)

    def process_batch(self, c: Any, events: list[Fact]) -> None:
        table = DocTable(self.view, "context")
        contexts = table.load(c, {e.originator_id for e in events})
        touched: dict[str, dict[str, Any]] = {}
        points: list[list[Any]] = []
        for e in events:
            gid = e.originator_id
            if e.topic == UNDONE and self.history is not None:
                # the points of undone events go: recompute the game from the events in force
                self.view.execute(c, f"DELETE FROM {self.view.t('points')} WHERE game_id = %s", [gid])
                points = [p for p in points if p[0] != gid]
                contexts.pop(gid, None)
                for f in effective([*self.history(gid, e.version), e]):
                    self._apply(contexts, points, f)
            else:
                self._apply(contexts, points, e)
            if gid in contexts:
                touched[gid] = contexts[gid]
        self.view.executemany(
            c,
            f"INSERT INTO {self.view.t('points')} ({', '.join(POINT_COLUMNS)}) "
            f"VALUES ({', '.join(['%s'] * len(POINT_COLUMNS))})",
            points,
        )
        table.save(c, touched)

    @staticmethod
    def _apply(contexts: dict[str, dict[str, Any]], points: list[list[Any]], e: Fact) -> None:
        gid = e.originator_id
        if e.topic == CREATED:
            contexts[gid] = {"seq": 0, "period": {}, "seats": e.public["seat_count"]}
        ctx = contexts.get(gid)
        if ctx is None:
            return
        for fx in e.public.get("effects", ()):
            kind = fx["kind"]
            if kind in PERIOD_EFFECTS:
                ctx["period"] = {k: fx[k] for k in PERIOD_EFFECTS[kind]}
            elif kind == "share_price_changed":
                ctx["seq"] += 1
                points.append(
                    [
                        gid,
                        ctx["seq"],
                        e.version,
                        fx["company"],
                        fx["space_from"],
                        fx["space_to"],
                        fx["value_from"],
                        fx["value_to"],
                        fx["currency"],
                        json.dumps(ctx["period"]),
                        fx["cause"],
                        e.at,
                    ]
                )

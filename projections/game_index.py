"""GameIndex: which games exist, their status, seats and whose decision they await.

Fed by the game and player events' public parts (never by re-running rules);
serves the lobby listings ``GET /games`` and ``GET /me/turns``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from eventsourcing.utils import get_topic

from ledger.domain import Game, Player
from projections.base import BatchProjection, SqlView


class GameIndexView(SqlView):
    view_name = "gameindex"
    TABLE_NAMES = ("games", "seats", "players")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {games} ("
        " game_id TEXT PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL,"
        " seat_count INTEGER NOT NULL, created_by TEXT NOT NULL, options TEXT NOT NULL,"
        " created_at TEXT NOT NULL, updated_at TEXT NOT NULL, version INTEGER NOT NULL,"
        " standings TEXT)",
        "CREATE TABLE IF NOT EXISTS {seats} ("
        " game_id TEXT NOT NULL, seat INTEGER NOT NULL, player_id TEXT,"
        " awaited INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, seat))",
        "CREATE INDEX IF NOT EXISTS gameindex_seats_player ON {seats} (player_id)",
        "CREATE TABLE IF NOT EXISTS {players} ("
        " player_id TEXT PRIMARY KEY, name TEXT NOT NULL, registered_at TEXT NOT NULL)",
    )

    # -- writes (inside a batch transaction) ----------------------------------

    def game_created(self, c: Any, game_id: str, p: dict[str, Any], at: str) -> None:
        c.execute(
            self.q(f"INSERT INTO {self.t('games')} VALUES (%s, %s, 'waiting', %s, %s, %s, %s, %s, 1, NULL)"),
            (game_id, p["title"], p["seat_count"], p["created_by"], json.dumps(p["options"]), at, at),
        )
        for seat, player in enumerate(p["seats"]):
            c.execute(
                self.q(f"INSERT INTO {self.t('seats')} VALUES (%s, %s, %s, 0)"), (game_id, seat, player)
            )

    def seat_claimed(self, c: Any, game_id: str, seat: int, player: str) -> None:
        c.execute(
            self.q(f"UPDATE {self.t('seats')} SET player_id = %s WHERE game_id = %s AND seat = %s"),
            (player, game_id, seat),
        )

    def progressed(
        self, c: Any, game_id: str, version: int, at: str, status: str | None, awaiting: list[int] | None
    ) -> None:
        if status is None:
            c.execute(
                self.q(f"UPDATE {self.t('games')} SET version = %s, updated_at = %s WHERE game_id = %s"),
                (version, at, game_id),
            )
        else:
            c.execute(
                self.q(
                    f"UPDATE {self.t('games')} SET version = %s, updated_at = %s, status = %s WHERE game_id = %s"
                ),
                (version, at, status, game_id),
            )
        if awaiting is not None:
            c.execute(
                self.q(f"UPDATE {self.t('seats')} SET awaited = 0 WHERE game_id = %s AND awaited = 1"),
                (game_id,),
            )
            for seat in awaiting:
                c.execute(
                    self.q(f"UPDATE {self.t('seats')} SET awaited = 1 WHERE game_id = %s AND seat = %s"),
                    (game_id, seat),
                )

    def finished(self, c: Any, game_id: str, standings: list[dict[str, Any]]) -> None:
        c.execute(
            self.q(f"UPDATE {self.t('games')} SET standings = %s WHERE game_id = %s"),
            (json.dumps(standings), game_id),
        )

    def player_registered(self, c: Any, player_id: str, name: str, at: str) -> None:
        c.execute(
            self.q(f"INSERT INTO {self.t('players')} VALUES (%s, %s, %s) ON CONFLICT (player_id) DO NOTHING"),
            (player_id, name, at),
        )

    # -- reads ---------------------------------------------------------------

    def list_games(
        self,
        *,
        status: str | None = None,
        title: str | None = None,
        player: str | None = None,
        awaiting_player: str | None = None,
        open_seats: bool = False,
        limit: int = 50,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        where, params = [], []
        if status:
            where.append("g.status = %s")
            params.append(status)
        if title:
            where.append("g.title = %s")
            params.append(title)
        if player:
            where.append(
                f"EXISTS (SELECT 1 FROM {self.t('seats')} s WHERE s.game_id = g.game_id AND s.player_id = %s)"
            )
            params.append(player)
        if awaiting_player:
            where.append(
                f"EXISTS (SELECT 1 FROM {self.t('seats')} s WHERE s.game_id = g.game_id"
                " AND s.player_id = %s AND s.awaited = 1)"
            )
            params.append(awaiting_player)
        if open_seats:
            where.append(
                f"EXISTS (SELECT 1 FROM {self.t('seats')} s WHERE s.game_id = g.game_id AND s.player_id IS NULL)"
            )
        sql = f"SELECT * FROM {self.t('games')} g"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY g.updated_at DESC, g.game_id LIMIT %s OFFSET %s"
        games = self.rows(sql, [*params, limit, offset])
        if not games:
            return []
        ids = [g["game_id"] for g in games]
        marks = ", ".join(["%s"] * len(ids))
        seats = self.rows(
            f"SELECT s.game_id, s.seat, s.player_id, s.awaited, p.name FROM {self.t('seats')} s"
            f" LEFT JOIN {self.t('players')} p ON p.player_id = s.player_id"
            f" WHERE s.game_id IN ({marks}) ORDER BY s.game_id, s.seat",
            ids,
        )
        by_game: dict[str, list[dict[str, Any]]] = {}
        for s in seats:
            by_game.setdefault(s["game_id"], []).append(
                {
                    "seat": s["seat"],
                    "player_id": s["player_id"],
                    "name": s["name"],
                    "awaited": bool(s["awaited"]),
                }
            )
        out = []
        for g in games:
            out.append(
                {
                    "game_id": g["game_id"],
                    "title": g["title"],
                    "status": g["status"],
                    "seat_count": g["seat_count"],
                    "version": g["version"],
                    "created_by": g["created_by"],
                    "created_at": g["created_at"],
                    "updated_at": g["updated_at"],
                    "options": json.loads(g["options"]),
                    "seats": by_game.get(g["game_id"], []),
                    "standings": json.loads(g["standings"]) if g["standings"] else None,
                }
            )
        return out

    def player_names(self, ids: list[str]) -> dict[str, str]:
        if not ids:
            return {}
        marks = ", ".join(["%s"] * len(ids))
        rows = self.rows(f"SELECT player_id, name FROM {self.t('players')} WHERE player_id IN ({marks})", ids)
        return {r["player_id"]: r["name"] for r in rows}


class GameIndex(BatchProjection[GameIndexView]):
    name = "gameindex"
    topics: ClassVar[tuple[str, ...]] = tuple(  # type: ignore[misc]
        get_topic(cls)
        for cls in (
            Game.Created,
            Game.SeatClaimed,
            Game.Started,
            Game.DrawRecorded,
            Game.DecisionRecorded,
            Game.Finished,
            Player.Created,
        )
    )

    def apply(self, c: Any, event: Any) -> None:
        view = self.view
        gid = str(event.originator_id)
        at = event.timestamp.isoformat()
        if isinstance(event, Player.Created):
            view.player_registered(c, gid, event.name, at)
        elif isinstance(event, Game.Created):
            view.game_created(c, gid, event.public, at)
        elif isinstance(event, Game.SeatClaimed):
            view.seat_claimed(c, gid, event.public["seat"], event.public["player"])
            view.progressed(c, gid, event.originator_version, at, None, None)
        elif isinstance(event, Game.Started):
            view.progressed(c, gid, event.originator_version, at, "active", event.public["awaiting"])
        elif isinstance(event, Game.DrawRecorded | Game.DecisionRecorded):
            view.progressed(c, gid, event.originator_version, at, None, event.public["awaiting"])
        elif isinstance(event, Game.Finished):
            view.progressed(c, gid, event.originator_version, at, "finished", [])
            view.finished(c, gid, event.public["standings"])

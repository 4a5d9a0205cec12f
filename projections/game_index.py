"""GameIndex: which games exist, their status, seats and whose decision they await.

Fed by the public parts of game and player events (never by re-running rules);
serves the lobby listings ``GET /games`` and ``GET /me/turns``.
"""

from __future__ import annotations

import json
from typing import Any

from ledger.domain import GAME_TOPICS
from projections.base import BatchProjection, Fact, SqlView, chunks
from projections.topics import (
    ABANDONED,
    ANNULLED,
    CREATED,
    FINISHED,
    INVITATION_ISSUED,
    PLAYER_CREATED,
    SEAT_CLAIMED,
    STARTED,
    TALK_CREATED,
    TALK_TOPICS,
)

# the games table's columns, declared once: its DDL, and the order save_games writes them in
GAME_TABLE = (
    "game_id TEXT PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL,"
    " seat_count INTEGER NOT NULL, created_by TEXT NOT NULL, options TEXT NOT NULL,"
    " created_at TEXT NOT NULL, updated_at TEXT NOT NULL, version INTEGER NOT NULL,"
    " standings TEXT, league_id TEXT"
)
GAME_COLUMNS = tuple(column.split()[0] for column in GAME_TABLE.split(","))


class GameIndexView(SqlView):
    view_name = "gameindex"
    TABLE_NAMES = ("games", "seats", "players", "timed", "heads", "talkheads", "private", "invited")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {games} (" + GAME_TABLE + ")",
        "CREATE INDEX IF NOT EXISTS gameindex_games_updated ON {games} (updated_at)",
        "CREATE INDEX IF NOT EXISTS gameindex_games_status ON {games} (status, updated_at)",  # migration 3
        "CREATE TABLE IF NOT EXISTS {seats} ("
        " game_id TEXT NOT NULL, seat INTEGER NOT NULL, player_id TEXT,"
        " awaited INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, seat))",
        "CREATE INDEX IF NOT EXISTS gameindex_seats_player ON {seats} (player_id)",
        "CREATE TABLE IF NOT EXISTS {players} ("
        " player_id TEXT PRIMARY KEY, name TEXT NOT NULL, registered_at TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS {timed} (game_id TEXT PRIMARY KEY, time_control TEXT NOT NULL)",
        # every game's latest event hash: the leaves of the signed digest
        "CREATE TABLE IF NOT EXISTS {heads} (game_id TEXT PRIMARY KEY, version INTEGER NOT NULL, hash TEXT NOT NULL)",
        # every game's table talk's latest event hash, signed in the game's leaf beside its head
        "CREATE TABLE IF NOT EXISTS {talkheads} (conversation_id TEXT PRIMARY KEY, game_id TEXT NOT NULL,"
        " version INTEGER NOT NULL, hash TEXT NOT NULL)",
        # private tables (migration 11), listed only to their creator, seated and invited players
        "CREATE TABLE IF NOT EXISTS {private} (game_id TEXT PRIMARY KEY)",
        "CREATE TABLE IF NOT EXISTS {invited} (game_id TEXT NOT NULL, player_id TEXT NOT NULL,"
        " PRIMARY KEY (game_id, player_id))",
    )

    def save_private(self, c: Any, private: list[str], invited: list[tuple[str, str]]) -> None:
        self.executemany(
            c,
            f"INSERT INTO {self.t('private')} VALUES (%s) ON CONFLICT (game_id) DO NOTHING",
            [[g] for g in private],
        )
        self.executemany(
            c,
            f"INSERT INTO {self.t('invited')} VALUES (%s, %s) ON CONFLICT (game_id, player_id) DO NOTHING",
            [list(x) for x in invited],
        )

    def save_heads(self, c: Any, heads: dict[str, tuple[int, str]]) -> None:
        self.executemany(
            c,
            f"INSERT INTO {self.t('heads')} VALUES (%s, %s, %s) ON CONFLICT (game_id) DO UPDATE SET"
            " version = excluded.version, hash = excluded.hash",
            [[gid, v, h] for gid, (v, h) in heads.items()],
        )

    def save_talk_heads(
        self, c: Any, started: dict[str, tuple[str, str]], heads: dict[str, tuple[int, str]]
    ) -> None:
        """``started``: conversation id -> (game id, its first hash); ``heads``: conversation id
        -> (version, hash) of its latest event in the batch."""
        self.executemany(
            c,
            f"INSERT INTO {self.t('talkheads')} VALUES (%s, %s, 1, %s) ON CONFLICT (conversation_id) DO NOTHING",
            [[cid, gid, h] for cid, (gid, h) in started.items()],
        )
        self.executemany(
            c,
            f"UPDATE {self.t('talkheads')} SET version = %s, hash = %s WHERE conversation_id = %s AND version < %s",
            [[v, h, cid, v] for cid, (v, h) in heads.items()],
        )

    def heads(self) -> list[dict[str, Any]]:
        """Every game's head, with its table talk's when it has one (the digest's leaves)."""
        return self.rows(
            f"SELECT h.game_id, h.version, h.hash, k.version AS talk_version, k.hash AS talk_hash"
            f" FROM {self.t('heads')} h LEFT JOIN {self.t('talkheads')} k ON k.game_id = h.game_id"
            " ORDER BY h.game_id"
        )

    def save_timed(self, c: Any, game_id: str, time_control: dict[str, Any]) -> None:
        self.execute(
            c,
            f"INSERT INTO {self.t('timed')} VALUES (%s, %s) ON CONFLICT (game_id) DO NOTHING",
            [game_id, json.dumps(time_control)],
        )

    def timed_active_games(self) -> list[str]:
        """Active games with a clock: the ones the scheduler looks at."""
        rows = self.rows(
            f"SELECT g.game_id FROM {self.t('games')} g JOIN {self.t('timed')} t ON t.game_id = g.game_id"
            " WHERE g.status = 'active' ORDER BY g.game_id"
        )
        return [r["game_id"] for r in rows]

    def active_games_of(self, player_id: str) -> list[str]:
        rows = self.rows(
            f"SELECT DISTINCT g.game_id FROM {self.t('games')} g JOIN {self.t('seats')} s"
            " ON s.game_id = g.game_id WHERE g.status = 'active' AND s.player_id = %s",
            [player_id],
        )
        return [r["game_id"] for r in rows]

    # -- batch writes ------------------------------------------------------------

    def load_games(self, c: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
        games: dict[str, dict[str, Any]] = {}
        for part in chunks(ids):
            marks = ", ".join(["%s"] * len(part))
            for row in self.fetch(c, f"SELECT * FROM {self.t('games')} WHERE game_id IN ({marks})", part):
                games[row["game_id"]] = {**row, "seats": {}}
            for row in self.fetch(c, f"SELECT * FROM {self.t('seats')} WHERE game_id IN ({marks})", part):
                games[row["game_id"]]["seats"][row["seat"]] = [row["player_id"], row["awaited"]]
        return games

    def save_games(self, c: Any, games: dict[str, dict[str, Any]]) -> None:
        cols = ", ".join(GAME_COLUMNS)
        marks = ", ".join(["%s"] * len(GAME_COLUMNS))
        updates = ", ".join(f"{col} = excluded.{col}" for col in GAME_COLUMNS[1:])
        self.executemany(
            c,
            f"INSERT INTO {self.t('games')} ({cols}) VALUES ({marks}) ON CONFLICT (game_id) DO UPDATE SET {updates}",
            [[g[col] for col in GAME_COLUMNS] for g in games.values()],
        )
        ids = list(games)
        for part in chunks(ids):
            marks = ", ".join(["%s"] * len(part))
            self.execute(c, f"DELETE FROM {self.t('seats')} WHERE game_id IN ({marks})", part)
        self.executemany(
            c,
            f"INSERT INTO {self.t('seats')} (game_id, seat, player_id, awaited) VALUES (%s, %s, %s, %s)",
            [[gid, seat, p, a] for gid, g in games.items() for seat, (p, a) in g["seats"].items()],
        )

    def save_players(self, c: Any, players: list[tuple[str, str, str]]) -> None:
        self.executemany(
            c,
            f"INSERT INTO {self.t('players')} VALUES (%s, %s, %s) ON CONFLICT (player_id) DO NOTHING",
            players,
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
        league: str | None = None,
        game_ids: list[str] | None = None,
        limit: int = 50,
        offset: int = 0,
        viewer: str | None = None,
    ) -> list[dict[str, Any]]:
        """``viewer``: the games listed to this player (a private table only to its creator, its
        seated and its invited players); None: every game (the operator, the server's own work)."""
        where, params = [], []
        if game_ids is not None:
            if not game_ids:
                return []
            where.append(f"g.game_id IN ({', '.join(['%s'] * len(game_ids))})")
            params.extend(game_ids)
        if status:
            where.append("g.status = %s")
            params.append(status)
        if title:
            where.append("g.title = %s")
            params.append(title)
        if league:
            where.append("g.league_id = %s")
            params.append(league)
        seats = self.t("seats")
        if viewer is not None:
            where.append(
                f"(NOT EXISTS (SELECT 1 FROM {self.t('private')} v WHERE v.game_id = g.game_id)"
                " OR g.created_by = %s"
                f" OR EXISTS (SELECT 1 FROM {seats} s WHERE s.game_id = g.game_id AND s.player_id = %s)"
                f" OR EXISTS (SELECT 1 FROM {self.t('invited')} i WHERE i.game_id = g.game_id AND i.player_id = %s))"
            )
            params.extend([viewer, viewer, viewer])
        if player:
            where.append(f"EXISTS (SELECT 1 FROM {seats} s WHERE s.game_id = g.game_id AND s.player_id = %s)")
            params.append(player)
        if awaiting_player:
            where.append(
                f"EXISTS (SELECT 1 FROM {seats} s WHERE s.game_id = g.game_id"
                " AND s.player_id = %s AND s.awaited = 1)"
            )
            params.append(awaiting_player)
        if open_seats:
            where.append(
                f"EXISTS (SELECT 1 FROM {seats} s WHERE s.game_id = g.game_id AND s.player_id IS NULL)"
            )
        sql = (
            f"SELECT g.*, (SELECT COUNT(*) FROM {self.t('private')} v WHERE v.game_id = g.game_id) AS private_table"
            f" FROM {self.t('games')} g"
        )
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY g.updated_at DESC, g.game_id LIMIT %s OFFSET %s"
        games = self.rows(sql, [*params, limit, offset])
        if not games:
            return []
        ids = [g["game_id"] for g in games]
        marks = ", ".join(["%s"] * len(ids))
        seat_rows = self.rows(
            f"SELECT s.game_id, s.seat, s.player_id, s.awaited, p.name FROM {seats} s"
            f" LEFT JOIN {self.t('players')} p ON p.player_id = s.player_id"
            f" WHERE s.game_id IN ({marks}) ORDER BY s.game_id, s.seat",
            ids,
        )
        by_game: dict[str, list[dict[str, Any]]] = {}
        for s in seat_rows:
            by_game.setdefault(s["game_id"], []).append(
                {
                    "seat": s["seat"],
                    "player_id": s["player_id"],
                    "name": s["name"],
                    "awaited": bool(s["awaited"]),
                }
            )
        return [
            {
                "game_id": g["game_id"],
                "title": g["title"],
                "status": g["status"],
                "seat_count": g["seat_count"],
                "version": g["version"],
                "created_by": g["created_by"],
                "created_at": g["created_at"],
                "updated_at": g["updated_at"],
                "league_id": g["league_id"],
                "options": json.loads(g["options"]),
                "seats": by_game.get(g["game_id"], []),
                "standings": json.loads(g["standings"]) if g["standings"] else None,
                "private_table": bool(g["private_table"]),  # joined by invitation only
            }
            for g in games
        ]

    def player_names(self, ids: list[str]) -> dict[str, str]:
        if not ids:
            return {}
        marks = ", ".join(["%s"] * len(ids))
        rows = self.rows(f"SELECT player_id, name FROM {self.t('players')} WHERE player_id IN ({marks})", ids)
        return {r["player_id"]: r["name"] for r in rows}


class GameIndex(BatchProjection[GameIndexView]):
    name = "gameindex"
    # every game event moves its head, every talk event its talk's head (the digest's leaf)
    topics = (*GAME_TOPICS, *TALK_TOPICS, PLAYER_CREATED)

    def process_batch(self, c: Any, events: list[Fact]) -> None:
        view = self.view
        players = [(e.originator_id, e.data["name"], e.at) for e in events if e.topic == PLAYER_CREATED]
        view.save_players(c, players)
        talk = [e for e in events if e.topic in TALK_TOPICS]
        if talk:
            started = {
                e.originator_id: (e.public["game"], e.data["hash"]) for e in talk if e.topic == TALK_CREATED
            }
            view.save_talk_heads(c, started, {e.originator_id: (e.version, e.data["hash"]) for e in talk})
        game_events = [e for e in events if e.topic != PLAYER_CREATED and e.topic not in TALK_TOPICS]
        if not game_events:
            return
        games = view.load_games(c, sorted({e.originator_id for e in game_events}))
        heads: dict[str, tuple[int, str]] = {}
        private = [e.originator_id for e in game_events if e.topic == CREATED and e.public.get("private")]
        invited = [
            (e.originator_id, e.public["player"])
            for e in game_events
            if e.topic == INVITATION_ISSUED and e.public.get("player")
        ]
        if private or invited:
            view.save_private(c, private, invited)
        for e in game_events:
            if e.data.get("hash"):
                heads[e.originator_id] = (e.version, e.data["hash"])
            gid = e.originator_id
            p = e.public
            if e.topic == CREATED:
                games[gid] = {
                    "game_id": gid,
                    "title": p["title"],
                    "status": "waiting",
                    "seat_count": p["seat_count"],
                    "created_by": p["created_by"],
                    "options": json.dumps(p["options"]),
                    "created_at": e.at,
                    "standings": None,
                    "league_id": p.get("league"),
                    "seats": {i: [player, 0] for i, player in enumerate(p["seats"])},
                }
                if p.get("time_control"):
                    view.save_timed(c, gid, p["time_control"])
            g = games.get(gid)
            if g is None:
                continue
            g["version"] = e.version
            g["updated_at"] = e.at
            if e.topic == SEAT_CLAIMED:
                g["seats"][p["seat"]][0] = p["player"]
            elif e.topic == STARTED:
                g["status"] = "active"
            elif e.topic in (FINISHED, ABANDONED):
                g["status"] = "finished" if e.topic == FINISHED else "abandoned"
                g["standings"] = json.dumps(p.get("standings") or None)
                p = {"awaiting": []}
            elif e.topic == ANNULLED:
                g["status"] = "annulled"
                p = {"awaiting": []}
            if "awaiting" in p:
                for seat, entry in g["seats"].items():
                    entry[1] = 1 if seat in p["awaiting"] else 0
        view.save_games(c, games)
        view.save_heads(c, heads)

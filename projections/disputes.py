"""DisputeQueue: every game's disputes, whom they are for and who rules on them, for the queues
of the organisers and the operator and each player's "disputes in my games".

A dispute is an event of its game (opened, then resolved naming who ruled); who rules on it is
read here as the ledger decides it (``ledger.application.disputes``): the organiser of the
game's league, unless they hold a seat of the game; otherwise the operator. So the projection
follows the leagues (created, with their organiser; a game added after its creation) and the
games' seats. Fed by public parts only; rebuildable."""

from __future__ import annotations

import json
from typing import Any

from ledger.domain import ADMIN, League
from projections.base import BatchProjection, DocTable, Fact, SqlView
from projections.topics import CREATED, DISPUTE_OPENED, DISPUTE_RESOLVED, SEAT_CLAIMED

L_CREATED, L_GAME = League.Created.TOPIC, League.GameAdded.TOPIC
COLUMNS = (
    "game_id, number, title, league_id, seat, player_id, versions, opened_at, version, status, outcome,"
    " ruled_by, resolved_at"
)


class DisputeQueueView(SqlView):
    view_name = "disputes"
    TABLE_NAMES = ("disputes", "games", "players", "leagues")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {disputes} ("
        " game_id TEXT NOT NULL, number INTEGER NOT NULL, title TEXT NOT NULL, league_id TEXT,"
        " seat INTEGER NOT NULL, player_id TEXT NOT NULL, versions TEXT NOT NULL, opened_at TEXT NOT NULL,"
        " version INTEGER NOT NULL, status TEXT NOT NULL, outcome TEXT, ruled_by TEXT, resolved_at TEXT,"
        " PRIMARY KEY (game_id, number))",
        "CREATE INDEX IF NOT EXISTS disputes_status ON {disputes} (status, opened_at)",
        "CREATE INDEX IF NOT EXISTS disputes_league ON {disputes} (league_id, status)",
        "CREATE TABLE IF NOT EXISTS {games} (game_id TEXT PRIMARY KEY, doc TEXT NOT NULL)",
        # who holds a seat of a game that has had a dispute (or may have one): its players
        "CREATE TABLE IF NOT EXISTS {players} (game_id TEXT NOT NULL, player_id TEXT NOT NULL,"
        " PRIMARY KEY (game_id, player_id))",
        "CREATE INDEX IF NOT EXISTS disputes_players_player ON {players} (player_id)",
        "CREATE TABLE IF NOT EXISTS {leagues} (league_id TEXT PRIMARY KEY, name TEXT NOT NULL,"
        " organiser TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS disputes_leagues_organiser ON {leagues} (organiser)",
    )

    def _select(self, where: str, params: list[Any], limit: int) -> list[dict[str, Any]]:
        rows = self.rows(
            f"SELECT d.*, l.name AS league_name, l.organiser FROM {self.t('disputes')} d"
            f" LEFT JOIN {self.t('leagues')} l ON l.league_id = d.league_id WHERE {where}"
            " ORDER BY CASE WHEN d.status = 'open' THEN 0 ELSE 1 END, d.opened_at DESC, d.game_id, d.number"
            " LIMIT %s",
            [*params, limit],
        )
        if not rows:
            return []
        seated = self._players({r["game_id"] for r in rows})
        return [self._row(r, seated.get(r["game_id"], set())) for r in rows]

    def _players(self, games: set[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        ids = sorted(games)
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            marks = ", ".join(["%s"] * len(part))
            for r in self.rows(
                f"SELECT game_id, player_id FROM {self.t('players')} WHERE game_id IN ({marks})", part
            ):
                out.setdefault(r["game_id"], set()).add(r["player_id"])
        return out

    @staticmethod
    def _row(r: dict[str, Any], seated: set[str]) -> dict[str, Any]:
        organiser = r.get("organiser")
        ruler = organiser if organiser and organiser != ADMIN and organiser not in seated else ADMIN
        return {
            "game_id": r["game_id"],
            "number": r["number"],
            "title": r["title"],
            "league_id": r["league_id"],
            "league_name": r.get("league_name"),
            "seat": r["seat"],
            "player_id": r["player_id"],
            "versions": json.loads(r["versions"]),
            "opened_at": r["opened_at"],
            "status": r["status"],
            "outcome": r["outcome"],
            "ruled_by": r["ruled_by"],
            "resolved_at": r["resolved_at"],
            "rules": ruler,  # who rules on it: the league's organiser, or the operator (admin)
            "players": sorted(seated),
            "url": f"/games/{r['game_id']}/disputes/{r['number']}",
        }

    # -- the queues ----------------------------------------------------------------------

    def for_organiser(self, player_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """The disputes of the games of the leagues the player organises, those they rule on
        (not the games they play in: the operator rules on those)."""
        rows = self._select("l.organiser = %s", [player_id], limit)
        return [r for r in rows if r["rules"] == player_id]

    def for_operator(self, limit: int = 500) -> list[dict[str, Any]]:
        """Every game's disputes (the operator may rule on any); ``rules`` says whose each is."""
        return self._select("1 = 1", [], limit)

    def in_games_of(self, player_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """The disputes of the games the player holds a seat in."""
        return self._select(
            f"d.game_id IN (SELECT game_id FROM {self.t('players')} WHERE player_id = %s)", [player_id], limit
        )


class DisputeQueue(BatchProjection[DisputeQueueView]):
    name = "disputes"
    topics = (L_CREATED, L_GAME, CREATED, SEAT_CLAIMED, DISPUTE_OPENED, DISPUTE_RESOLVED)

    def process_batch(self, c: Any, events: list[Fact]) -> None:
        view = self.view
        table = DocTable(view, "games")
        ids = {e.originator_id for e in events if e.topic not in (L_CREATED, L_GAME)}
        docs = table.load(c, ids | {str(e.data["game_id"]) for e in events if e.topic == L_GAME})
        touched: dict[str, dict[str, Any]] = {}
        seats: list[list[str]] = []
        for e in events:
            gid, p = e.originator_id, e.public
            if e.topic == L_CREATED:
                view.execute(
                    c,
                    f"INSERT INTO {view.t('leagues')} VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    [gid, e.data["name"], e.data["created_by"]],
                )
            elif e.topic == L_GAME:
                game = str(e.data["game_id"])
                if game in docs:
                    docs[game]["league"] = gid
                    touched[game] = docs[game]
                view.execute(
                    c, f"UPDATE {view.t('disputes')} SET league_id = %s WHERE game_id = %s", [gid, game]
                )
            elif e.topic == CREATED:
                if p.get("sandbox"):
                    continue  # a what-if fork has nothing to dispute
                docs[gid] = touched[gid] = {"title": p["title"], "league": p.get("league")}
                seats += [[gid, s] for s in p["seats"] if s]
            elif e.topic == SEAT_CLAIMED:
                if gid in docs:
                    seats.append([gid, p["player"]])
            elif e.topic == DISPUTE_OPENED and gid in docs:
                view.execute(
                    c,
                    f"INSERT INTO {view.t('disputes')} ({COLUMNS}) VALUES"
                    " (%s, %s, %s, %s, %s, %s, %s, %s, %s, 'open', NULL, NULL, NULL) ON CONFLICT DO NOTHING",
                    [
                        gid,
                        p["dispute"],
                        docs[gid]["title"],
                        docs[gid].get("league"),
                        p["seat"],
                        p["player"],
                        json.dumps(p["versions"]),
                        e.at,
                        e.version,
                    ],
                )
            elif e.topic == DISPUTE_RESOLVED:
                view.execute(
                    c,
                    f"UPDATE {view.t('disputes')} SET status = 'resolved', outcome = %s, ruled_by = %s,"
                    " resolved_at = %s WHERE game_id = %s AND number = %s",
                    [p["outcome"], p.get("by") or ADMIN, e.at, gid, p["dispute"]],
                )
        view.executemany(c, f"INSERT INTO {view.t('players')} VALUES (%s, %s) ON CONFLICT DO NOTHING", seats)
        table.save(c, touched)

"""PlayerPace: how long each player takes to decide, and which games wait on whom since when.

For every seat a game awaits, the time it became awaited (the event that first named it in
``awaiting``); when the seat's decision is recorded, the time to decide is that span less
the part of it the player spent on vacation (the player's own vacation events: a vacation
stops the clock whether or not the game is timed). Decisions forced by a timeout or a
forfeit are not times to decide: they count as timeouts. Per player and title: every time to
decide (median and 90th percentile are read from them), timeouts, forfeits, and games
abandoned while the player sat in them. Sandbox forks count in no statistics (but wait on
their player like any game); the bot's seats count nowhere.

The open waits (active games, the seat's player, since when) are what the header's "next
game waiting on me" and the lobby's order read. Fed by public parts only; rebuildable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ledger.domain import BOT, GAME_TOPICS, Player
from projections.base import BatchProjection, DocTable, Fact, SqlView, chunks
from projections.topics import (
    ABANDONED,
    ANNULLED,
    CREATED,
    DECISION,
    FINISHED,
    SEAT_CLAIMED,
    STARTED,
    TIMED_OUT,
)

VACATION_STARTED, VACATION_ENDED = Player.VacationStarted.TOPIC, Player.VacationEnded.TOPIC
ENDS = {FINISHED: "finished", ABANDONED: "abandoned", ANNULLED: "annulled"}


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile (``share`` 0.5: the median) of the values, None if none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def overlap(start: datetime, end: datetime, spans: Iterable[tuple[str, str]]) -> float:
    """Seconds of [start, end) inside the spans (vacations as ISO [from, until])."""
    total = 0.0
    for s, u in spans:
        lo, hi = max(start, datetime.fromisoformat(s)), min(end, datetime.fromisoformat(u))
        total += max(0.0, (hi - lo).total_seconds())
    return total


class PlayerPaceView(SqlView):
    view_name = "pace"
    TABLE_NAMES = ("games", "waits", "decisions", "tallies", "vacations")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {games} (game_id TEXT PRIMARY KEY, doc TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS {waits} ("
        " game_id TEXT NOT NULL, seat INTEGER NOT NULL, player_id TEXT NOT NULL, title TEXT NOT NULL,"
        " since TEXT NOT NULL, PRIMARY KEY (game_id, seat))",
        "CREATE INDEX IF NOT EXISTS pace_waits_player ON {waits} (player_id, since)",
        "CREATE TABLE IF NOT EXISTS {decisions} ("
        " game_id TEXT NOT NULL, version INTEGER NOT NULL, player_id TEXT NOT NULL, title TEXT NOT NULL,"
        " seconds REAL NOT NULL, PRIMARY KEY (game_id, version))",
        "CREATE INDEX IF NOT EXISTS pace_decisions_player ON {decisions} (player_id, title)",
        "CREATE TABLE IF NOT EXISTS {tallies} (player_id TEXT PRIMARY KEY, doc TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS {vacations} (player_id TEXT PRIMARY KEY, doc TEXT NOT NULL)",
    )

    def waiting_on(self, player_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """The active games awaiting the player, the longest waiting first (one row per game)."""
        rows = self.rows(
            f"SELECT game_id, title, MIN(since) AS since FROM {self.t('waits')} WHERE player_id = %s"
            " GROUP BY game_id, title ORDER BY since, game_id LIMIT %s",
            [player_id, limit],
        )
        return [{"game_id": r["game_id"], "title": r["title"], "waiting_since": r["since"]} for r in rows]

    def pace(self, player_id: str) -> dict[str, dict[str, Any]]:
        """Per title: decisions, median and 90th-percentile seconds to decide, timeouts,
        forfeits and abandoned games."""
        times: dict[str, list[float]] = {}
        for r in self.rows(
            f"SELECT title, seconds FROM {self.t('decisions')} WHERE player_id = %s", [player_id]
        ):
            times.setdefault(r["title"], []).append(float(r["seconds"]))
        tallies = DocTable(self, "tallies", key="player_id")
        with self.datastore.transaction(commit=False) as c:
            counts = tallies.load(c, [player_id]).get(player_id, {})
        out: dict[str, dict[str, Any]] = {}
        for title in sorted(set(times) | set(counts)):
            spans = times.get(title, [])
            tally = counts.get(title, {})
            median, p90 = percentile(spans, 0.5), percentile(spans, 0.9)
            out[title] = {
                "decisions": len(spans),
                "median_seconds": None if median is None else round(median, 1),
                "p90_seconds": None if p90 is None else round(p90, 1),
                "timeouts": tally.get("timeouts", 0),
                "forfeits": tally.get("forfeits", 0),
                "abandoned_games": tally.get("abandoned", 0),
            }
        return out


class PlayerPace(BatchProjection[PlayerPaceView]):
    name = "pace"
    topics = (*GAME_TOPICS, VACATION_STARTED, VACATION_ENDED)

    def process_batch(self, c: Any, events: list[Fact]) -> None:
        view = self.view
        games_table = DocTable(view, "games")
        tallies_table = DocTable(view, "tallies", key="player_id")
        vacations_table = DocTable(view, "vacations", key="player_id")
        game_ids = {e.originator_id for e in events if e.topic in GAME_TOPICS}
        games = games_table.load(c, game_ids)
        players = {p for g in games.values() for p in g["seats"] if p} | {
            e.originator_id for e in events if e.topic not in GAME_TOPICS
        }
        players |= {e.public["player"] for e in events if e.topic == SEAT_CLAIMED}
        players |= {p for e in events if e.topic == CREATED for p in e.public["seats"] if p}
        vacations = vacations_table.load(c, players)
        tallies = tallies_table.load(c, players)
        decisions: list[list[Any]] = []
        touched_tallies: set[str] = set()
        touched_vacations: set[str] = set()
        for e in events:
            if e.topic == VACATION_STARTED:
                vacations.setdefault(e.originator_id, {"spans": []})["spans"].append(
                    [e.data["start"], e.data["until"]]
                )
                touched_vacations.add(e.originator_id)
                continue
            if e.topic == VACATION_ENDED:
                spans = vacations.get(e.originator_id, {}).get("spans")
                if spans:
                    spans[-1][1] = e.data["at"]
                    touched_vacations.add(e.originator_id)
                continue
            if e.topic == CREATED:
                p = e.public
                games[e.originator_id] = {
                    "title": p["title"],
                    "counted": not p.get("sandbox"),
                    "seats": list(p["seats"]),
                    "since": {},
                    "status": "waiting",
                }
            g = games.get(e.originator_id)
            if g is None:
                continue
            counted_for = self._apply(g, e, vacations, decisions)
            for player, key in counted_for:
                tally = tallies.setdefault(player, {}).setdefault(g["title"], {})
                tally[key] = tally.get(key, 0) + 1
                touched_tallies.add(player)
        games_table.save(c, {gid: games[gid] for gid in game_ids if gid in games})
        tallies_table.save(c, {p: tallies[p] for p in touched_tallies})
        vacations_table.save(c, {p: vacations[p] for p in touched_vacations})
        view.executemany(
            c,
            f"INSERT INTO {view.t('decisions')} VALUES (%s, %s, %s, %s, %s) ON CONFLICT (game_id, version) DO NOTHING",
            decisions,
        )
        self._save_waits(c, {gid: games[gid] for gid in game_ids if gid in games})

    @staticmethod
    def _apply(
        g: dict[str, Any], e: Fact, vacations: dict[str, dict[str, Any]], decisions: list[list[Any]]
    ) -> list[tuple[str, str]]:
        """Apply one game event; returns the (player, tally) counts it adds."""
        p = e.public
        since: dict[str, str] = g["since"]
        counts: list[tuple[str, str]] = []

        def person(seat: int) -> str | None:
            player = g["seats"][seat] if 0 <= seat < len(g["seats"]) else None
            return player if g["counted"] and player and player != BOT else None

        if e.topic == SEAT_CLAIMED:
            g["seats"][p["seat"]] = p["player"]
        elif e.topic == STARTED:
            g["status"] = "active"
        elif e.topic == DECISION:
            seat, started = p["seat"], since.pop(str(p["seat"]), None)
            player = person(seat)
            if started is not None and player and not p.get("forced"):
                begin, end = datetime.fromisoformat(started), datetime.fromisoformat(e.at)
                away = overlap(begin, end, vacations.get(player, {}).get("spans", []))
                seconds = max(0.0, (end - begin).total_seconds() - away)
                decisions.append([e.originator_id, e.version, player, g["title"], seconds])
        elif e.topic == TIMED_OUT:
            player = person(p["seat"])
            if player:
                counts.append((player, "timeouts"))
                if p["consequence"] == "forfeit":
                    counts.append((player, "forfeits"))
        elif e.topic in ENDS:
            g["status"] = ENDS[e.topic]
            if e.topic == ABANDONED:
                counts += [(pl, "abandoned") for s in range(len(g["seats"])) if (pl := person(s))]
            p = {"awaiting": []}
        if "awaiting" in p:
            awaited = {str(s) for s in p["awaiting"]}
            for seat in list(since):
                if seat not in awaited:
                    del since[seat]
            for seat in sorted(awaited - set(since)):
                since[seat] = e.at
        return counts

    def _save_waits(self, c: Any, games: dict[str, dict[str, Any]]) -> None:
        view = self.view
        for part in chunks(list(games)):
            marks = ", ".join(["%s"] * len(part))
            view.execute(c, f"DELETE FROM {view.t('waits')} WHERE game_id IN ({marks})", part)
        rows = [
            [gid, int(seat), g["seats"][int(seat)], g["title"], at]
            for gid, g in games.items()
            if g["status"] == "active"
            for seat, at in g["since"].items()
            if g["seats"][int(seat)] not in (None, BOT)
        ]
        view.executemany(c, f"INSERT INTO {view.t('waits')} VALUES (%s, %s, %s, %s, %s)", rows)

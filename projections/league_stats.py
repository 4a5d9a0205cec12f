"""LeagueStats: leagues, finished results, ratings, player and title statistics.

Only finished games count; abandoned games are reported separately. Ratings
use openskill's Plackett-Luce model over each league's finished games in the
order they finished (ties share a rank), recomputed for a league whenever a
result or a game joins it, and kept as a history so that "rating as of" a date
is a lookup.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import orjson
from openskill.models import PlackettLuce

from ledger.domain import League
from projections.base import BatchProjection, DocTable, Fact, SqlView, chunks, effective
from projections.figures import (
    ELIMINATED,
    FORFEITED,
    MEASURES,
    PLAYED,
    add_measures,
    final_value,
    first_turn_order,
    measures_of,
    outcome,
    value_unit,
    wilson,
)
from projections.topics import (
    ABANDONED,
    ANNULLED,
    CREATED,
    DECISION,
    DRAW,
    ENDED,
    FINISHED,
    PLAYER_CREATED,
    UNDONE,
)

MODEL = PlackettLuce()
DECIDERS = ("person", "order", "reply", "bot")  # who made a seat's decision (the event's ``by``)


def rate_in_order(
    games: dict[str, list[tuple[str, int]]], current: dict[str, Any] | None = None, first: int = 1
) -> list[tuple[int, str, str, Any]]:
    """Plackett-Luce ratings after each game, in the order given: (seq, game, player, rating);
    ``current``: the ratings before the first (updated), ``first``: its sequence number."""
    current = {} if current is None else current
    out = []
    rated_games = {
        gid: entries for gid, entries in games.items() if len(entries) > 1
    }  # a lone seat: no contest
    for seq, (gid, entries) in enumerate(rated_games.items(), start=first):
        players = [p for p, _ in entries]
        teams = [[current.get(p) or MODEL.rating(name=p)] for p in players]
        rated = MODEL.rate(teams, ranks=[rank for _, rank in entries])
        for p, team in zip(players, rated, strict=True):
            current[p] = team[0]
            out.append((seq, gid, p, team[0]))
    return out


def history_by_player(rows: Iterable[dict[str, Any]]) -> dict[str, list[tuple[Any, ...]]]:
    """A title's rating rows as each player's history (what their published figure shows)."""
    out: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for r in sorted(rows, key=lambda r: (r["seq"], r["player_id"])):
        out[r["player_id"]].append((r["seq"], r["game_id"], r["at"], r["mu"], r["sigma"]))
    return out


# Issue 27: what winners did (per seat), ratings per title (every finished game of the title, in
# finishing order), and the published figures, computed when their games change (never per request).
FIGURE_TABLES = (
    "CREATE TABLE IF NOT EXISTS {measures} (game_id TEXT NOT NULL, seat INTEGER NOT NULL, name TEXT NOT NULL,"
    " value INTEGER NOT NULL, PRIMARY KEY (game_id, seat, name))",
    "CREATE TABLE IF NOT EXISTS {title_ratings} ("
    " title TEXT NOT NULL, seq INTEGER NOT NULL, player_id TEXT NOT NULL, game_id TEXT NOT NULL,"
    " at TEXT NOT NULL, mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL,"
    " ordinal DOUBLE PRECISION NOT NULL, PRIMARY KEY (title, seq, player_id))",
    "CREATE INDEX IF NOT EXISTS leaguestats_title_ratings_player ON {title_ratings} (player_id)",
    "CREATE TABLE IF NOT EXISTS {figures} (key TEXT PRIMARY KEY, doc TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS {figures_due} (key TEXT PRIMARY KEY)",
)


class LeagueStatsView(SqlView):
    view_name = "leaguestats"
    TABLE_NAMES = (
        "leagues",
        "league_games",
        "games",
        "results",
        "ratings",
        "bots",
        "bot_leagues",
        "decided_by",
        "measures",
        "title_ratings",
        "figures",
        "figures_due",
    )
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {leagues} ("
        " league_id TEXT PRIMARY KEY, name TEXT NOT NULL, title TEXT, created_by TEXT NOT NULL,"
        " created_at TEXT NOT NULL, closed_at TEXT)",
        "CREATE TABLE IF NOT EXISTS {league_games} ("
        " league_id TEXT NOT NULL, game_id TEXT NOT NULL, added_at TEXT NOT NULL, PRIMARY KEY (league_id, game_id))",
        "CREATE INDEX IF NOT EXISTS leaguestats_league_games_game ON {league_games} (game_id)",
        "CREATE TABLE IF NOT EXISTS {games} (game_id TEXT PRIMARY KEY, doc TEXT NOT NULL, status TEXT NOT NULL,"
        " title TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS {results} ("
        " game_id TEXT NOT NULL, seat INTEGER NOT NULL, player_id TEXT, title TEXT NOT NULL,"
        " players INTEGER NOT NULL, rank INTEGER NOT NULL, won INTEGER NOT NULL, final_value INTEGER,"
        " start_position INTEGER, decisions INTEGER NOT NULL, days REAL NOT NULL, finished_at TEXT NOT NULL,"
        " outcome TEXT NOT NULL DEFAULT 'played', PRIMARY KEY (game_id, seat))",
        "CREATE INDEX IF NOT EXISTS leaguestats_results_player ON {results} (player_id)",
        "CREATE INDEX IF NOT EXISTS leaguestats_results_title ON {results} (title)",
        "CREATE TABLE IF NOT EXISTS {ratings} ("
        " league_id TEXT NOT NULL, seq INTEGER NOT NULL, player_id TEXT NOT NULL, game_id TEXT NOT NULL,"
        " at TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL, ordinal REAL NOT NULL,"
        " PRIMARY KEY (league_id, seq, player_id))",
        # players registered as bots, and the leagues created for bots (which count them)
        "CREATE TABLE IF NOT EXISTS {bots} (player_id TEXT PRIMARY KEY)",
        "CREATE TABLE IF NOT EXISTS {bot_leagues} (league_id TEXT PRIMARY KEY)",
        # a finished game's decisions per seat by who made them: person, order or bot (stand-in)
        "CREATE TABLE IF NOT EXISTS {decided_by} (game_id TEXT NOT NULL, seat INTEGER NOT NULL,"
        " by TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (game_id, seat, by))",
        *FIGURE_TABLES,
    )

    def _rows(self, c: Any, statement: str, params: Any = ()) -> list[dict[str, Any]]:
        """Rows read inside the caller's transaction (``c``, a projection's batch) or on their own."""
        return self.fetch(c, statement, params) if c is not None else self.rows(statement, params)

    def for_bots(self, league_id: str, c: Any = None) -> bool:
        return bool(
            self._rows(c, f"SELECT 1 AS x FROM {self.t('bot_leagues')} WHERE league_id = %s", [league_id])
        )

    def counted(self, league_id: str, results: list[dict[str, Any]], c: Any = None) -> list[dict[str, Any]]:
        """The results a league's standings count: a bot player's only in a league for bots."""
        if self.for_bots(league_id, c):
            return results
        bots = {r["player_id"] for r in self._rows(c, f"SELECT player_id FROM {self.t('bots')}")}
        return [r for r in results if r["player_id"] not in bots]

    def figure(self, key: str) -> dict[str, Any] | None:
        """A published figure as the projection last computed it (``league:``, ``title:``, ``player:``)."""
        found = self.rows(f"SELECT doc FROM {self.t('figures')} WHERE key = %s", [key])
        return orjson.loads(found[0]["doc"]) if found else None  # type: ignore[no-any-return]

    # -- reads -----------------------------------------------------------------

    def league_results(self) -> dict[str, dict[str, list[dict[str, Any]]]]:
        """Every league's counted results, game by game in finishing order (for re-simulation)."""
        rows = self.rows(
            f"SELECT lg.league_id, r.game_id, r.seat, r.player_id, r.rank FROM {self.t('results')} r"
            f" JOIN {self.t('league_games')} lg ON lg.game_id = r.game_id"
            " ORDER BY lg.league_id, r.finished_at, r.game_id, r.seat"
        )
        by_league: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            by_league.setdefault(r["league_id"], []).append(r)
        out: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for league_id, results in by_league.items():
            for r in self.counted(league_id, results):
                out.setdefault(league_id, {}).setdefault(r["game_id"], []).append(r)
        return out

    def leagues(self) -> list[dict[str, Any]]:
        rows = self.rows(f"SELECT * FROM {self.t('leagues')} ORDER BY created_at, league_id")
        counts = self.rows(
            f"SELECT league_id, COUNT(*) AS n FROM {self.t('league_games')} GROUP BY league_id"
        )
        n = {r["league_id"]: r["n"] for r in counts}
        return [{**r, "games": n.get(r["league_id"], 0)} for r in rows]

    def league(self, league_id: str, as_of: datetime | None = None, c: Any = None) -> dict[str, Any] | None:
        """A league's standings, ratings and rating history: the projection's figure (as of now), or
        computed for ``as_of``."""
        if as_of is None and c is None:
            cached = self.figure(f"league:{league_id}")
            if cached is not None:
                return cached
        found = self._rows(c, f"SELECT * FROM {self.t('leagues')} WHERE league_id = %s", [league_id])
        if not found:
            return None
        games = self._rows(
            c,
            f"SELECT lg.game_id, lg.added_at, g.status FROM {self.t('league_games')} lg"
            f" LEFT JOIN {self.t('games')} g ON g.game_id = lg.game_id WHERE lg.league_id = %s ORDER BY lg.added_at",
            [league_id],
        )
        cutoff = as_of.isoformat() if as_of else None
        every = [
            r
            for r in self._rows(
                c,
                f"SELECT r.* FROM {self.t('results')} r JOIN {self.t('league_games')} lg ON lg.game_id = r.game_id"
                " WHERE lg.league_id = %s ORDER BY r.finished_at, r.game_id, r.seat",
                [league_id],
            )
            if cutoff is None or r["finished_at"] <= cutoff
        ]
        results = self.counted(league_id, every, c)
        ratings_rows = self._rows(
            c, f"SELECT * FROM {self.t('ratings')} WHERE league_id = %s ORDER BY seq", [league_id]
        )
        latest: dict[str, dict[str, Any]] = {}
        history = []
        for r in ratings_rows:
            if cutoff is None or r["at"] <= cutoff:
                latest[r["player_id"]] = r
                history.append(
                    {
                        "player_id": r["player_id"],
                        "seq": r["seq"],
                        "game_id": r["game_id"],
                        "at": r["at"],
                        "ordinal": round(r["ordinal"], 4),
                    }
                )
        titles = sorted({r["title"] for r in results})
        standings = _aggregate(results, key=lambda r: r["player_id"])
        made = self.decisions_by(results, c)
        table = []
        for player, st in standings.items():
            rating = latest.get(player)
            table.append(
                {
                    "player_id": player,
                    **st,
                    "decisions_by": made.get(player, dict.fromkeys(DECIDERS, 0)),
                    "rating": None
                    if rating is None
                    else {"mu": rating["mu"], "sigma": rating["sigma"], "ordinal": rating["ordinal"]},
                }
            )
            if len(titles) > 1:  # pounds and pence do not average together
                table[-1]["average_final_value"] = None
        table.sort(key=lambda x: (-x["wins"], x["average_rank"], -x["games"], x["player_id"]))
        for i, row in enumerate(table, start=1):
            row["position"] = i
        ratings = sorted(
            (
                {
                    "player_id": p,
                    "mu": r["mu"],
                    "sigma": r["sigma"],
                    "ordinal": r["ordinal"],
                    "as_of": r["at"],
                }
                for p, r in latest.items()
            ),
            key=lambda x: (-x["ordinal"], x["player_id"]),
        )
        statuses = [g["status"] or "unknown" for g in games]
        return {
            **found[0],
            "as_of": cutoff,
            "games": [
                {"game_id": g["game_id"], "added_at": g["added_at"], "status": g["status"]} for g in games
            ],
            "finished_games": len({r["game_id"] for r in every}),
            "for_bots": self.for_bots(league_id, c),
            "bot_results_left_out": len(every) - len(results),
            "abandoned_games": statuses.count("abandoned"),
            "value_title": titles[0] if len(titles) == 1 else None,
            "standings": table,
            "ratings": ratings,
            "rating_history": history,
        }

    def decisions_by(self, results: list[dict[str, Any]], c: Any = None) -> dict[str, dict[str, int]]:
        """Per player of these results: the decisions of their seats made by the person, by
        their standing orders and conditional replies, and by the stand-in bot."""
        out: dict[str, dict[str, int]] = {}
        seats = {(r["game_id"], r["seat"]): r["player_id"] for r in results}
        for part in chunks(sorted({r["game_id"] for r in results})):
            marks = ", ".join(["%s"] * len(part))
            for row in self._rows(
                c, f"SELECT * FROM {self.t('decided_by')} WHERE game_id IN ({marks})", part
            ):
                player = seats.get((row["game_id"], row["seat"]))
                if player is not None:
                    counts = out.setdefault(player, dict.fromkeys(DECIDERS, 0))
                    counts[row["by"]] = counts.get(row["by"], 0) + row["n"]
        return out

    def player_stats(self, player_id: str, c: Any = None) -> dict[str, Any]:
        """A player's results: overall, per title and player count, recent games, win rate by start
        position, head to head, rating per title with its history (the projection's figure)."""
        if c is None:
            cached = self.figure(f"player:{player_id}")
            if cached is not None:
                return cached
        results = self._rows(
            c,
            f"SELECT * FROM {self.t('results')} WHERE player_id = %s ORDER BY finished_at, game_id",
            [player_id],
        )
        abandoned = [
            g
            for g in self._rows(c, f"SELECT doc FROM {self.t('games')} WHERE status = %s", ["abandoned"])
            if player_id in json.loads(g["doc"]).get("players", [])
        ]
        overall = _aggregate(results, key=lambda r: "all").get("all", _empty())
        by_title = _aggregate(results, key=lambda r: r["title"])
        by_count = _aggregate(results, key=lambda r: f"{r['title']}/{r['players']}")
        tables = self._rows(
            c,
            f"SELECT o.game_id, o.seat, o.player_id, o.rank FROM {self.t('results')} me"
            f" JOIN {self.t('results')} o ON o.game_id = me.game_id"
            " WHERE me.player_id = %s ORDER BY o.game_id, o.seat",
            [player_id],
        )
        seated: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for t in tables:
            seated[t["game_id"]].append(t)
        recent = [
            {
                "game_id": r["game_id"],
                "title": r["title"],
                "players": r["players"],
                "seat": r["seat"],
                "rank": r["rank"],
                "won": bool(r["won"]),
                "outcome": r["outcome"],
                "final_value": r["final_value"],
                "finished_at": r["finished_at"],
                "table": [
                    {"player_id": t["player_id"], "seat": t["seat"], "rank": t["rank"]}
                    for t in seated[r["game_id"]]
                ],
            }
            for r in reversed(results[-RECENT:])
        ]
        positions: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for r in results:
            if r["start_position"] is not None:
                positions[r["title"]][r["start_position"]].append(r["won"])
        faced: dict[str, dict[str, int]] = {}
        for r in results:
            for t in seated[r["game_id"]]:
                if t["player_id"] == player_id or t["seat"] == r["seat"] or t["player_id"] is None:
                    continue
                h = faced.setdefault(t["player_id"], {"games": 0, "ahead": 0, "behind": 0, "level": 0})
                h["games"] += 1
                h["ahead" if r["rank"] < t["rank"] else "behind" if r["rank"] > t["rank"] else "level"] += 1
        frequent = sorted(faced, key=lambda p: (-faced[p]["games"], p))[:HEAD_TO_HEAD]
        head_to_head = [{"player_id": p, **faced[p]} for p in frequent]
        rated = self._rows(
            c,
            f"SELECT title, seq, game_id, at, mu, sigma, ordinal FROM {self.t('title_ratings')}"
            " WHERE player_id = %s ORDER BY title, seq",
            [player_id],
        )
        ratings: dict[str, dict[str, Any]] = {}
        for r in rated:
            entry = ratings.setdefault(r["title"], {"history": []})
            entry.update(mu=r["mu"], sigma=r["sigma"], ordinal=r["ordinal"], as_of=r["at"])
            entry["history"].append(
                {"seq": r["seq"], "game_id": r["game_id"], "at": r["at"], "ordinal": round(r["ordinal"], 4)}
            )
        return {
            "player_id": player_id,
            **overall,
            "abandoned_games": len(abandoned),
            "decisions_by": self.decisions_by(results, c).get(player_id, dict.fromkeys(DECIDERS, 0)),
            "by_title": by_title,
            "by_title_and_players": by_count,
            "recent_games": recent,
            "win_rate_by_start_position": {
                title: _win_rates(by_pos) for title, by_pos in sorted(positions.items())
            },
            "head_to_head": head_to_head,
            "ratings_by_title": dict(sorted(ratings.items())),
        }

    def title_stats(self, title: str, c: Any = None) -> dict[str, Any]:
        """A title's figures over every finished game (the projection's figure)."""
        if c is None:
            cached = self.figure(f"title:{title}")
            if cached is not None:
                return cached
        results = self._rows(
            c,
            f"SELECT * FROM {self.t('results')} WHERE title = %s ORDER BY finished_at, game_id, seat",
            [title],
        )
        abandoned = self._rows(
            c,
            f"SELECT COUNT(*) AS n FROM {self.t('games')} WHERE title = %s AND status = %s",
            [title, "abandoned"],
        )[0]["n"]
        games: dict[str, dict[str, Any]] = {}
        for r in results:
            games.setdefault(
                r["game_id"], {"decisions": r["decisions"], "days": r["days"], "players": r["players"]}
            )
        by_position: dict[int, list[int]] = defaultdict(list)
        by_count_position: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for r in results:
            if r["start_position"] is not None:
                by_position[r["start_position"]].append(r["won"])
                by_count_position[r["players"]][r["start_position"]].append(r["won"])
        scored = [r for r in results if r["outcome"] == PLAYED and r["final_value"] is not None]
        lengths = [g["decisions"] for g in games.values()]
        days = [g["days"] for g in games.values()]
        counts = sorted({r["players"] for r in results})
        measured = self._rows(
            c,
            f"SELECT m.game_id, m.seat, m.name, m.value FROM {self.t('measures')} m"
            f" JOIN {self.t('results')} r ON r.game_id = m.game_id AND r.seat = m.seat WHERE r.title = %s",
            [title],
        )
        won = {(r["game_id"], r["seat"]): bool(r["won"]) for r in results}
        sums: dict[tuple[str, bool], list[int]] = defaultdict(list)
        for m in measured:
            sums[(m["name"], won.get((m["game_id"], m["seat"]), False))].append(m["value"])
        winners_n = sum(1 for r in results if r["won"])
        others_n = len(results) - winners_n
        winners_did = [
            {
                "measure": name,
                "label": label,
                "winners": round(sum(sums[(name, True)]) / winners_n, 4) if winners_n else None,
                "others": round(sum(sums[(name, False)]) / others_n, 4) if others_n else None,
                "winner_seats": winners_n,
                "other_seats": others_n,
            }
            for name, label in MEASURES.get(title, {}).items()
        ]
        return {
            "title": title,
            "value_unit": value_unit(title),
            "finished_games": len(games),
            "abandoned_games": abandoned,
            "seats": len(results),
            "forfeited_seats": sum(1 for r in results if r["outcome"] == FORFEITED),
            "eliminated_seats": sum(1 for r in results if r["outcome"] == ELIMINATED),
            "seat_order_win_rates": _win_rates(by_position),
            "first_player_by_player_count": {
                str(n): {"expected": round(1 / n, 4), "positions": _win_rates(by_count_position[n])}
                for n in counts
            },
            "score_distribution": {
                "all": _distribution([r["final_value"] for r in scored]),
                "winners": _distribution([r["final_value"] for r in scored if r["won"]]),
            },
            "score_distribution_by_player_count": {
                str(n): {
                    "all": _distribution([r["final_value"] for r in scored if r["players"] == n]),
                    "winners": _distribution(
                        [r["final_value"] for r in scored if r["players"] == n and r["won"]]
                    ),
                }
                for n in counts
            },
            "game_length": {
                "decisions": _summary(lengths),
                "days": _summary(days),
                "days_bins": _day_bins(days),
            },
            "games_by_player_count": {
                str(k): v for k, v in sorted(_count(g["players"] for g in games.values()).items())
            },
            "winners_did": winners_did,
        }


RECENT = 20  # recent games on a player's figure
HEAD_TO_HEAD = 10  # most frequent opponents


def _win_rates(by_position: dict[int, list[int]]) -> list[dict[str, Any]]:
    out = []
    for pos, w in sorted(by_position.items()):
        low, high = wilson(sum(w), len(w))
        out.append(
            {
                "start_position": pos,
                "games": len(w),
                "wins": sum(w),
                "win_rate": round(sum(w) / len(w), 4),
                "low": round(low, 4),
                "high": round(high, 4),
            }
        )
    return out


def _day_bins(days: list[float]) -> list[dict[str, Any]]:
    """Games by length in whole days: [from, to) day bins, at most about ten."""
    if not days:
        return []
    top = int(max(days)) + 1
    width = max(1, -(-top // 10))
    bins: dict[int, int] = defaultdict(int)
    for d in days:
        bins[int(d) // width * width] += 1
    return [{"from": b, "to": b + width, "count": bins.get(b, 0)} for b in range(0, top, width)]


def _count(items: Any) -> dict[Any, int]:
    out: dict[Any, int] = defaultdict(int)
    for x in items:
        out[x] += 1
    return dict(out)


def _empty() -> dict[str, Any]:
    return {"games": 0, "wins": 0, "average_rank": None, "average_final_value": None}


def _aggregate(results: list[dict[str, Any]], key: Any) -> dict[str, dict[str, Any]]:
    """Games, wins, average rank, and the average final value of the seats that played on."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        groups[key(r)].append(r)
    out = {}
    for k, rows in groups.items():
        values = [r["final_value"] for r in rows if r["final_value"] is not None and r["outcome"] == PLAYED]
        out[k] = {
            "games": len(rows),
            "wins": sum(r["won"] for r in rows),
            "average_rank": round(statistics.fmean(r["rank"] for r in rows), 4),
            "average_final_value": round(statistics.fmean(values), 4) if values else None,
        }
    return out


def _summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0}
    return {
        "count": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "mean": round(statistics.fmean(values), 4),
        "max": max(values),
    }


def _distribution(values: list[int]) -> dict[str, Any]:
    """Counts in ten equal-width bins, with the summary."""
    if not values:
        return {"summary": _summary([]), "bins": []}
    lo, hi = min(values), max(values)
    width = max(1, -(-(hi - lo + 1) // 10))
    bins: dict[int, int] = defaultdict(int)
    for v in values:
        bins[lo + (v - lo) // width * width] += 1
    return {
        "summary": _summary([float(v) for v in values]),
        "bins": [{"from": b, "to": b + width - 1, "count": n} for b, n in sorted(bins.items())],
    }


L_CREATED, L_GAME, L_CLOSED = League.Created.TOPIC, League.GameAdded.TOPIC, League.Closed.TOPIC
L_BOTS = League.BotsCounted.TOPIC


class LeagueStats(BatchProjection[LeagueStatsView]):
    name = "leaguestats"
    topics = (L_CREATED, L_GAME, L_CLOSED, L_BOTS, PLAYER_CREATED, CREATED, DRAW, DECISION, UNDONE, *ENDED)

    def process_batch(self, c: Any, events: list[Fact]) -> None:
        view = self.view
        table = DocTable(view, "games")
        docs = table.load(c, {e.originator_id for e in events if e.topic.startswith("gameledger.game.")})
        touched: dict[str, dict[str, Any]] = {}
        finished: list[str] = []
        annulled: list[str] = []
        leagues_to_rate: set[str] = set()
        for e in events:
            oid, at, d = e.originator_id, e.at, e.data
            if e.topic == L_CREATED:
                view.execute(
                    c,
                    f"INSERT INTO {view.t('leagues')} VALUES (%s, %s, %s, %s, %s, NULL)",
                    [oid, d["name"], d["title"], d["created_by"], at],
                )
                continue
            if e.topic == L_GAME:
                view.execute(
                    c, f"INSERT INTO {view.t('league_games')} VALUES (%s, %s, %s)", [oid, d["game_id"], at]
                )
                leagues_to_rate.add(oid)
                continue
            if e.topic == PLAYER_CREATED:
                if d.get("bot"):
                    view.execute(c, f"INSERT INTO {view.t('bots')} VALUES (%s)", [oid])
                continue
            if e.topic == L_BOTS:
                view.execute(c, f"INSERT INTO {view.t('bot_leagues')} VALUES (%s)", [oid])
                leagues_to_rate.add(oid)
                continue
            if e.topic == L_CLOSED:
                view.execute(
                    c, f"UPDATE {view.t('leagues')} SET closed_at = %s WHERE league_id = %s", [at, oid]
                )
                continue
            if e.topic == CREATED and e.public.get("sandbox"):
                continue  # a what-if fork never counts
            if e.topic == CREATED:
                docs[oid] = {
                    "title": e.public["title"],
                    "players": [],
                    "seat_count": e.public["seat_count"],
                    "created_at": at,
                    "decisions": 0,
                    "start_order": None,
                    "measures": {},
                    "status": "open",
                }
            doc = docs.get(oid)
            if doc is None:
                continue
            touched[oid] = doc
            if e.topic == UNDONE and self.history is not None:
                # taken back (by consent, or a dispute's correction): count the decisions in force
                doc.update(decisions=0, by={}, start_order=None, measures={})
                for f in effective([*self.history(oid, e.version), e]):
                    if f.topic in (DECISION, DRAW):
                        self._count(doc, f)
            else:
                self._count(doc, e)
            if e.topic == FINISHED:
                doc["status"] = "finished"
                doc["finished_at"] = at
                doc["standings"] = e.public["standings"]
                doc["players"] = [s["player"] for s in e.public["standings"]]
                finished.append(oid)
            elif e.topic == ABANDONED:
                doc["status"] = "abandoned"
                doc["finished_at"] = at
            elif e.topic == ANNULLED:  # an adjudication voids the game: its result goes
                doc["status"] = "annulled"
                annulled.append(oid)
        table.save(c, touched, extra=lambda d: (d["status"], d["title"]), columns=("status", "title"))
        rows: list[list[Any]] = []
        measured: list[list[Any]] = []
        for gid in finished:
            doc = docs[gid]
            days = (
                datetime.fromisoformat(doc["finished_at"]) - datetime.fromisoformat(doc["created_at"])
            ).total_seconds() / 86400
            order = doc["start_order"] or []
            for s in doc["standings"]:
                rows.append(
                    [
                        gid,
                        s["seat"],
                        s["player"],
                        doc["title"],
                        doc["seat_count"],
                        s["rank"],
                        int(s["rank"] == 1),
                        final_value(doc["title"], s),
                        order.index(s["seat"]) + 1 if s["seat"] in order else None,
                        doc["decisions"],
                        round(days, 6),
                        doc["finished_at"],
                        outcome(doc["title"], s),
                    ]
                )
                measured.extend(
                    [gid, s["seat"], name, value]
                    for name, value in measures_of(doc, doc["title"], s["seat"]).items()
                )
        view.executemany(
            c,
            f"INSERT INTO {view.t('results')} (game_id, seat, player_id, title, players, rank, won, final_value,"
            " start_position, decisions, days, finished_at, outcome)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            rows,
        )
        view.executemany(c, f"INSERT INTO {view.t('measures')} VALUES (%s, %s, %s, %s)", measured)
        view.executemany(
            c,
            f"INSERT INTO {view.t('decided_by')} VALUES (%s, %s, %s, %s)",
            [
                [gid, int(key.partition(":")[0]), key.partition(":")[2], n]
                for gid in finished
                for key, n in sorted(docs[gid].get("by", {}).items())
            ],
        )
        touched_players = {s["player"] for gid in finished for s in docs[gid]["standings"] if s.get("player")}
        for gid in annulled:
            touched_players |= {
                r["player_id"]
                for r in view.fetch(c, f"SELECT player_id FROM {view.t('results')} WHERE game_id = %s", [gid])
            }
            for table_name in ("results", "decided_by", "measures"):
                view.execute(c, f"DELETE FROM {view.t(table_name)} WHERE game_id = %s", [gid])
        finished = [g for g in finished if g not in annulled]
        touched_players |= self._rate_titles(
            c,
            {docs[g]["title"] for g in annulled},
            list(finished),
            {g: docs[g] for g in finished},
        )
        for part in chunks([*finished, *annulled]):
            marks = ", ".join(["%s"] * len(part))
            for r in view.fetch(
                c, f"SELECT DISTINCT league_id FROM {view.t('league_games')} WHERE game_id IN ({marks})", part
            ):
                leagues_to_rate.add(r["league_id"])
        for league_id in sorted(leagues_to_rate):
            self._rate(c, league_id)
        # the published figures of whatever changed: leagues, titles, players (a game's figures
        # change when it is created, ends or is annulled; its decisions in between change none)
        ended = {
            e.originator_id for e in events if e.topic in (CREATED, *ENDED) and e.originator_id in touched
        }
        for part in chunks(sorted(ended)):
            marks = ", ".join(["%s"] * len(part))
            for r in view.fetch(
                c, f"SELECT DISTINCT league_id FROM {view.t('league_games')} WHERE game_id IN ({marks})", part
            ):
                leagues_to_rate.add(r["league_id"])
        leagues_to_rate |= {e.originator_id for e in events if e.topic in (L_CREATED, L_CLOSED)}
        abandoned = [touched[g] for g in ended if touched[g]["status"] == "abandoned"]
        for doc in abandoned:
            touched_players |= set(doc.get("players") or [])
        due = [f"league:{x}" for x in leagues_to_rate]
        due += [f"title:{touched[g]['title']}" for g in ended if touched[g]["status"] != "open"]
        due += [f"player:{x}" for x in touched_players]
        view.executemany(  # computed once, when the catch-up reaches the log's head (settle)
            c,
            f"INSERT INTO {view.t('figures_due')} (key) VALUES (%s) ON CONFLICT (key) DO NOTHING",
            [[k] for k in sorted(set(due))],
        )

    def settle(self, c: Any) -> None:
        """The published figures whose games changed since they were computed: each computed once,
        in the transaction of the catch-up's last batch (or a rebuild's), so that a figure is
        never behind the view's position and a catch-up of many batches computes it once."""
        view = self.view
        keys = [r["key"] for r in view.fetch(c, f"SELECT key FROM {view.t('figures_due')} ORDER BY key")]
        if not keys:
            return
        figures: dict[str, dict[str, Any]] = {}
        for key in keys:
            kind, _, ref = key.partition(":")
            if kind == "league":
                figure = view.league(ref, c=c)
                if figure is not None:
                    figures[key] = figure
            elif kind == "title":
                figures[key] = view.title_stats(ref, c=c)
            elif kind == "player":
                figures[key] = view.player_stats(ref, c=c)
        DocTable(view, "figures", key="key").save(c, figures)
        view.execute(c, f"DELETE FROM {view.t('figures_due')}")

    def _rate_titles(
        self, c: Any, recompute: set[str], finished: list[str], docs: dict[str, dict[str, Any]]
    ) -> set[str]:
        """Ratings per title over every finished game of it in finishing order: the new games
        appended to the title's history, or the whole history recomputed (an annulment, or a game
        that finished before the last one rated). Returns the players whose history a recompute
        changed: their published figures are due again, though none of their games is new."""
        view = self.view
        new: dict[str, list[str]] = defaultdict(list)
        for gid in sorted(finished, key=lambda g: (docs[g]["finished_at"], g)):
            new[docs[gid]["title"]].append(gid)
        for title, gids in new.items():
            if title in recompute:
                continue
            last = view.fetch(
                c,
                f"SELECT seq, at, game_id FROM {view.t('title_ratings')} WHERE title = %s ORDER BY seq DESC LIMIT 1",
                [title],
            )
            if last and (last[0]["at"], last[0]["game_id"]) > (docs[gids[0]]["finished_at"], gids[0]):
                recompute.add(title)
                continue
            players = sorted({s["player"] for g in gids for s in docs[g]["standings"] if s.get("player")})
            current: dict[str, Any] = {}
            for part in chunks(players):
                marks = ", ".join(["%s"] * len(part))
                for r in view.fetch(
                    c,
                    f"SELECT player_id, mu, sigma FROM {view.t('title_ratings')} WHERE title = %s"
                    f" AND player_id IN ({marks}) ORDER BY seq",
                    [title, *part],
                ):
                    current[r["player_id"]] = MODEL.rating(mu=r["mu"], sigma=r["sigma"], name=r["player_id"])
            games = {
                g: [(s["player"], s["rank"]) for s in sorted(docs[g]["standings"], key=lambda s: s["seat"])]
                for g in gids
            }
            rows = [
                [title, seq, p, gid, docs[gid]["finished_at"], r.mu, r.sigma, r.ordinal()]
                for seq, gid, p, r in rate_in_order(games, current, (last[0]["seq"] if last else 0) + 1)
            ]
            view.executemany(
                c, f"INSERT INTO {view.t('title_ratings')} VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows
            )
        moved: set[str] = set()
        for title in sorted(recompute):
            results = view.fetch(
                c,
                f"SELECT game_id, player_id, rank, finished_at FROM {view.t('results')} WHERE title = %s"
                " ORDER BY finished_at, game_id, seat",
                [title],
            )
            before = history_by_player(
                view.fetch(
                    c,
                    f"SELECT seq, player_id, game_id, at, mu, sigma FROM {view.t('title_ratings')} WHERE title = %s",
                    [title],
                )
            )
            view.execute(c, f"DELETE FROM {view.t('title_ratings')} WHERE title = %s", [title])
            by_game: dict[str, list[dict[str, Any]]] = {}
            for r in results:
                by_game.setdefault(r["game_id"], []).append(r)
            rows = [
                [title, seq, p, gid, by_game[gid][0]["finished_at"], r.mu, r.sigma, r.ordinal()]
                for seq, gid, p, r in rate_in_order(
                    {gid: [(x["player_id"], x["rank"]) for x in rs] for gid, rs in by_game.items()}
                )
            ]
            view.executemany(
                c, f"INSERT INTO {view.t('title_ratings')} VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows
            )
            after = history_by_player(
                {"seq": seq, "player_id": p, "game_id": gid, "at": at, "mu": mu, "sigma": sigma}
                for _, seq, p, gid, at, mu, sigma, _ in rows
            )
            moved |= {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
        return moved

    @staticmethod
    def _count(doc: dict[str, Any], e: Fact) -> None:
        """A decision counted for its seat by who made it; the first turn order, once set; what
        each seat did (the title's measures, from the public effects)."""
        if e.topic == DECISION:
            doc["decisions"] += 1
            by = doc.setdefault("by", {})  # "seat:person|order|reply|bot" -> decisions
            key = f"{e.public['seat']}:{e.public.get('by') or 'person'}"
            by[key] = by.get(key, 0) + 1
        effects = e.public.get("effects", ())
        if doc["start_order"] is None:
            doc["start_order"] = first_turn_order(effects, doc["seat_count"])
        add_measures(doc, doc["title"], effects)

    def _rate(self, c: Any, league_id: str) -> None:
        """Recompute a league's rating history from its finished games, in finishing order."""
        view = self.view
        results = view.fetch(
            c,
            f"SELECT r.game_id, r.player_id, r.rank, r.finished_at FROM {view.t('results')} r"
            f" JOIN {view.t('league_games')} lg ON lg.game_id = r.game_id"
            " WHERE lg.league_id = %s ORDER BY r.finished_at, r.game_id, r.seat",
            [league_id],
        )
        if not view.fetch(c, f"SELECT 1 AS x FROM {view.t('bot_leagues')} WHERE league_id = %s", [league_id]):
            bots = {r["player_id"] for r in view.fetch(c, f"SELECT player_id FROM {view.t('bots')}")}
            results = [r for r in results if r["player_id"] not in bots]  # people only
        view.execute(c, f"DELETE FROM {view.t('ratings')} WHERE league_id = %s", [league_id])
        games: dict[str, list[dict[str, Any]]] = {}
        for r in results:
            games.setdefault(r["game_id"], []).append(r)
        rows = [
            [league_id, seq, p, gid, games[gid][0]["finished_at"], r.mu, r.sigma, r.ordinal()]
            for seq, gid, p, r in rate_in_order(
                {gid: [(x["player_id"], x["rank"]) for x in rs] for gid, rs in games.items()}
            )
        ]
        view.executemany(c, f"INSERT INTO {view.t('ratings')} VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows)

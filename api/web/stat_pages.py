"""League statistics in pictures (issue 27 item 5): the title page, the player page, the league
page's standings and rating chart.

Each page reads the figures the projection published (``LeagueStatsView.title_stats`` and
friends read one stored document): nothing is recomputed per request. Every table a page shows
is built once here as a ``Table`` (its raw values and the words shown), rendered by the
template and downloadable as CSV at ``<page>/<table>.csv``.
"""

# ruff: noqa: RUF001 - the pages speak with typographic dashes and Greek letters (mu, sigma)
from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api import stat_charts as charts
from api import words
from api.deps import Caller
from api.routers.leagues import league_out
from api.services import Services
from api.web.pages import _not_found, _services, _with_winner, render, signed_in
from ledger import registry
from ledger.errors import NotFoundError
from ledger.registry import TITLES
from projections.figures import NONE, count_words, days_words, percent, value_words

router = APIRouter(include_in_schema=False)


@dataclass
class Table:
    """A table of a page: its raw values (the CSV) and the words shown (the HTML, made only when
    a page shows the table)."""

    name: str
    caption: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    show: Callable[[Sequence[Any]], Sequence[str]] | None = None
    empty: str = "Nothing yet."

    @cached_property
    def shown(self) -> list[list[str]]:
        if self.show is None:
            return [[NONE if v is None else str(v) for v in r] for r in self.rows]
        return [list(self.show(r)) for r in self.rows]

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        width = len(self.columns)  # a row may carry more (ids a page links with) than it shows
        writer.writerows(["" if v is None else v for v in row[:width]] for row in self.rows)
        return out.getvalue()


def table(
    name: str,
    caption: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    show: Callable[[Sequence[Any]], Sequence[str]] | None = None,
    empty: str = "Nothing yet.",
) -> Table:
    return Table(name, caption, list(columns), [list(r) for r in rows], show, empty)


def thin(points: Sequence[Any], limit: int) -> list[Any]:
    """At most ``limit`` of the points, evenly spaced, the first and the last kept."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


CHART_POINTS = 40  # per line: a chart shows the shape; the CSV holds every point


def csv_response(t: Table, filename: str) -> Response:
    return Response(
        t.csv(),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{filename}-{t.name}.csv"',
            "Cache-Control": "no-store",
        },
    )


def short_value(title: str, value: float | None) -> str:
    """A final value as a chart's label: "£161", Cotton Trade's "£29 2s 2d"."""
    if value is None:
        return NONE
    if value < 0:
        return "−" + short_value(title, -value)
    if title == "cotton-trade":
        pounds, rest = divmod(round(value), 9)
        shillings, pence = divmod(rest, 3)
        return f"£{pounds} {shillings}s {pence}d"
    return f"£{value:.0f}"


def date_of(at: str | None) -> str:
    try:
        return datetime.fromisoformat(str(at)).strftime("%d %b %Y")
    except ValueError:
        return str(at or "")


def title_name(title: str) -> str:
    return TITLES[title].name if title in TITLES else title


SHORT_NAMES = {
    "water-frame": "Water Frame",
    "arkwright-card-game": "Card Game",
    "cotton-trade": "Cotton Trade",
}


def short_name(title: str) -> str:
    """A title's name where room is short (a chart's line end)."""
    return SHORT_NAMES.get(title, title_name(title))


def place_words(rank: int, players: int) -> str:
    return f"{rank} of {players}"


# --- the title page -------------------------------------------------------------------------


def title_page_context(title: str, stats: dict[str, Any]) -> dict[str, Any]:
    """The title page's charts and tables, from the title's published figure."""
    name = title_name(title)
    tables: list[Table] = []
    first: list[dict[str, Any]] = []
    rows = []
    for n, entry in stats["first_player_by_player_count"].items():
        positions = entry["positions"]
        for p in positions:
            rows.append(
                [
                    int(n),
                    p["start_position"],
                    p["games"],
                    p["wins"],
                    p["win_rate"],
                    p["low"],
                    p["high"],
                    entry["expected"],
                ]
            )
        chart = charts.interval_chart(
            f"{name}, {n} players: wins by start position",
            f"Share of games won from each start position in {count_words(positions[0]['games'] if positions else 0, 'game')}"
            f" of {n} players, with 95 % Wilson intervals; with no advantage each would win "
            f"{percent(entry['expected'])}. "
            + "; ".join(
                f"position {p['start_position']}: {percent(p['win_rate'])} ({percent(p['low'])} to {percent(p['high'])})"
                for p in positions
            ),
            [
                (
                    f"{p['start_position']}{_ordinal(p['start_position'])} to play",
                    p["win_rate"],
                    p["low"],
                    p["high"],
                    count_words(p["games"], "game"),
                )
                for p in positions
            ],
            entry["expected"],
            f"no advantage: {percent(entry['expected'])}",
        )
        first.append({"players": int(n), "chart": chart})
    tables.append(
        table(
            "first-player",
            "Wins by start position (1 = first in the first turn order), with the 95 % Wilson interval",
            [
                "Players",
                "Start position",
                "Games",
                "Wins",
                "Win rate",
                "95 % low",
                "95 % high",
                "No-advantage rate",
            ],
            rows,
            lambda r: [
                str(r[0]),
                str(r[1]),
                str(r[2]),
                str(r[3]),
                percent(r[4]),
                percent(r[5]),
                percent(r[6]),
                percent(r[7]),
            ],
            "No finished game yet.",
        )
    )
    scores: list[dict[str, Any]] = []
    bins_rows = []
    summary_rows = []
    for n, dist in stats["score_distribution_by_player_count"].items():
        s, w = dist["all"]["summary"], dist["winners"]["summary"]
        summary_rows.append(
            [int(n), s["count"], s.get("min"), s.get("median"), s.get("mean"), s.get("max"), w.get("median")]
        )
        for b in dist["all"]["bins"]:
            bins_rows.append([int(n), b["from"], b["to"], b["count"]])
        bars = [(short_value(title, b["from"]), b["count"]) for b in dist["all"]["bins"]]
        scores.append(
            {
                "players": int(n),
                "chart": charts.bar_chart(
                    f"{name}, {n} players: final values",
                    f"How many seats ended with each final value in games of {n} players "
                    f"({count_words(s['count'], 'seat')} that played to the end): median "
                    f"{value_words(title, s.get('median'))}, from {value_words(title, s.get('min'))} to "
                    f"{value_words(title, s.get('max'))}; the winners' median {value_words(title, w.get('median'))}.",
                    bars,
                    "final value (bins from)",
                    "seats",
                ),
            }
        )
    tables.append(
        table(
            "final-values",
            "Final values by player count (seats that played to the end; forfeited and eliminated seats left out)",
            ["Players", "Seats", "Lowest", "Median", "Mean", "Highest", "Winners' median"],
            summary_rows,
            lambda r: [str(r[0]), str(r[1]), *(value_words(title, v) for v in r[2:])],
            "No finished game yet.",
        )
    )
    tables.append(
        table(
            "final-value-bins",
            "The charts' bins: seats by final value and player count",
            ["Players", "From", "To", "Seats"],
            bins_rows,
            lambda r: [str(r[0]), value_words(title, r[1]), value_words(title, r[2]), str(r[3])],
            "No finished game yet.",
        )
    )
    length = stats["game_length"]
    day_bins = length.get("days_bins", [])
    days_chart = charts.bar_chart(
        f"{name}: game length in days",
        f"Finished games by their length from creation to the end, in days: median "
        f"{days_words(length['days'].get('median'))}, longest {days_words(length['days'].get('max'))}.",
        [(f"{b['from']}–{b['to']} d", b["count"]) for b in day_bins],
        "days from creation to the end",
        "games",
    )
    tables.append(
        table(
            "game-length",
            "Finished games by length in days",
            ["From (days)", "To (days)", "Games"],
            [[b["from"], b["to"], b["count"]] for b in day_bins],
            lambda r: [f"{r[0]} d", f"{r[1]} d", str(r[2])],
            "No finished game yet.",
        )
    )
    did = stats.get("winners_did", [])
    did_chart = charts.paired_chart(
        f"{name}: what winners did differently",
        "Per seat and game, on average, winners against the other seats: "
        + "; ".join(f"{m['label']}: winners {_one(m['winners'])}, others {_one(m['others'])}" for m in did),
        [(m["label"], m["winners"], m["others"]) for m in did],
        ("winners", "the others"),
    )
    tables.append(
        table(
            "winners-did",
            "What winners did differently: per seat and game, from the games' records",
            ["Measure", "Winners", "Others", "Difference"],
            [
                [
                    m["label"],
                    m["winners"],
                    m["others"],
                    None if None in (m["winners"], m["others"]) else round(m["winners"] - m["others"], 4),
                ]
                for m in did
            ],
            lambda r: [r[0], _one(r[1]), _one(r[2]), NONE if r[3] is None else f"{r[3]:+.1f}"],
        )
    )
    return {
        "title": title,
        "name": name,
        "stats": stats,
        "first": first,
        "scores": scores,
        "days_chart": days_chart,
        "did_chart": did_chart,
        "tables": {t.name: t for t in tables},
    }


def _one(v: float | None) -> str:
    return NONE if v is None else f"{v:.1f}"


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _title_stats(services: Services, title: str) -> dict[str, Any]:
    registry.meta(title)  # an unknown title: not found
    services.wait_for("leaguestats", None)
    return services.view("leaguestats").title_stats(title)  # type: ignore[no-any-return]


@router.get("/titles/{title}")
@signed_in(not_found="There is no title {title}.")
def title_page(request: Request, caller: Caller, title: str) -> Response:
    """A title's statistics: first-player advantage, final values, game length, what winners did."""
    ctx = title_page_context(title, _title_stats(_services(request), title))
    return render(request, "title.html", caller, **ctx)


@router.get("/titles/{title}/{name}.csv")
@signed_in(not_found="There is no title {title}.")
def title_csv(request: Request, caller: Caller, title: str, name: str) -> Response:
    tables = title_page_context(title, _title_stats(_services(request), title))["tables"]
    if name not in tables:
        return _not_found(request, caller, f"There is no table {name}.")
    return csv_response(tables[name], title)


# --- the player page ------------------------------------------------------------------------


def player_page_context(services: Services, player_id: str) -> dict[str, Any]:
    player = services.ledger.get_player(player_id)
    pid = str(player.id)
    services.wait_for("leaguestats", None)
    services.wait_for("pace", None)
    stats = services.view("leaguestats").player_stats(pid)
    pace = services.view("pace").pace(pid)
    ids = {pid} | {t["player_id"] for g in stats["recent_games"] for t in g["table"] if t["player_id"]}
    ids |= {h["player_id"] for h in stats["head_to_head"]}
    names = services.game_index.view.player_names(sorted(ids))

    def who(p: str | None) -> str:
        return names.get(p or "", (p or "?")[:8])

    tables: list[Table] = []
    tables.append(
        table(
            "recent-games",
            f"Recent games, latest first (the last {len(stats['recent_games'])})",
            ["Title", "Table", "Place", "Final value", "Finished", "Game"],
            [
                [
                    g["title"],
                    " · ".join(
                        f"{who(t['player_id'])} ({t['rank']})"
                        for t in sorted(g["table"], key=lambda t: t["rank"])
                    ),
                    g["rank"],
                    g["final_value"],
                    g["finished_at"],
                    g["game_id"],
                    g["players"],
                    g["outcome"],
                ]
                for g in stats["recent_games"]
            ],
            lambda r: [
                title_name(r[0]),
                r[1],
                place_words(r[2], r[6]) + ("" if r[7] == "played" else f" ({r[7]})"),
                value_words(r[0], r[3]),
                date_of(r[4]),
                r[5],
            ],
            "No finished game yet.",
        )
    )
    tables.append(
        table(
            "by-title",
            "Results by title",
            ["Title", "Games", "Wins", "Average place", "Average final value"],
            [
                [t, s["games"], s["wins"], s["average_rank"], s["average_final_value"]]
                for t, s in stats["by_title"].items()
            ],
            lambda r: [title_name(r[0]), str(r[1]), str(r[2]), f"{r[3]:.2f}", value_words(r[0], r[4])],
            "No finished game yet.",
        )
    )
    ratings = stats["ratings_by_title"]
    tables.append(
        table(
            "ratings",
            "Rating per title: openskill (Plackett–Luce) over every finished game of the title; the ordinal is μ − 3σ",
            ["Title", "Games rated", "Rating (ordinal)", "μ", "σ"],
            [
                [t, len(r["history"]), round(r["ordinal"], 2), round(r["mu"], 2), round(r["sigma"], 2)]
                for t, r in ratings.items()
            ],
            lambda r: [title_name(r[0]), str(r[1]), f"{r[2]:.2f}", f"{r[3]:.2f}", f"{r[4]:.2f}"],
            "No rated game yet.",
        )
    )
    history_rows = [
        [t, i, h["at"], round(h["ordinal"], 3), h["game_id"]]
        for t, r in ratings.items()
        for i, h in enumerate(r["history"], start=1)
    ]
    tables.append(
        table(
            "rating-history",
            "Every rated game: the rating after it",
            ["Title", "Game number", "Finished", "Rating (ordinal)", "Game"],
            history_rows,
        )
    )
    lines = {t: thin(list(enumerate(r["history"], start=1)), CHART_POINTS) for t, r in ratings.items()}
    tables.append(
        table(
            "rating-chart",
            "The chart's numbers: the rating after the games drawn (every game in the full history's CSV)",
            ["Title", "Game number", "Finished", "Rating (ordinal)"],
            [[t, i, h["at"], round(h["ordinal"], 3)] for t, pts in lines.items() for i, h in pts],
            lambda r: [title_name(r[0]), str(r[1]), date_of(r[2]), f"{r[3]:.2f}"],
            "No rated game yet.",
        )
    )
    rating_chart = charts.line_chart(
        "Rating per title over time",
        "The player's openskill rating (ordinal, μ − 3σ) after each rated game, one line per title: "
        + "; ".join(
            f"{title_name(t)}: {r['ordinal']:.1f} after {count_words(len(r['history']), 'game')}"
            for t, r in ratings.items()
        ),
        [(short_name(t), [(i, h["ordinal"]) for i, h in pts]) for t, pts in lines.items()],
        "games of the title",
        "rating",
    )
    seat_rows = []
    seat_charts = []
    for t, rates in stats["win_rate_by_start_position"].items():
        for p in rates:
            seat_rows.append(
                [t, p["start_position"], p["games"], p["wins"], p["win_rate"], p["low"], p["high"]]
            )
        seat_charts.append(
            charts.interval_chart(
                f"{title_name(t)}: wins by start position",
                f"The player's win rate in {title_name(t)} from each start position, with 95 % Wilson intervals: "
                + "; ".join(f"position {p['start_position']}: {p['wins']} of {p['games']}" for p in rates),
                [
                    (
                        f"{p['start_position']}{_ordinal(p['start_position'])} to play",
                        p["win_rate"],
                        p["low"],
                        p["high"],
                        count_words(p["games"], "game"),
                    )
                    for p in rates
                ],
            )
        )
    tables.append(
        table(
            "start-positions",
            "Win rate by start position (1 = first in the first turn order), with the 95 % Wilson interval",
            ["Title", "Start position", "Games", "Wins", "Win rate", "95 % low", "95 % high"],
            seat_rows,
            lambda r: [
                title_name(r[0]),
                str(r[1]),
                str(r[2]),
                str(r[3]),
                percent(r[4]),
                percent(r[5]),
                percent(r[6]),
            ],
            "No finished game yet.",
        )
    )
    tables.append(
        table(
            "head-to-head",
            "Head to head against the most frequent opponents: who finished ahead",
            ["Opponent", "Games together", "Finished ahead", "Finished behind", "Level"],
            [
                [who(h["player_id"]), h["games"], h["ahead"], h["behind"], h["level"], h["player_id"]]
                for h in stats["head_to_head"]
            ],
            lambda r: [r[0], str(r[1]), str(r[2]), str(r[3]), str(r[4])],
            "No opponent yet.",
        )
    )
    tables.append(
        table(
            "pace",
            "Time to decide: from the moment the seat is awaited to its decision, vacations left out",
            ["Title", "Decisions", "Median", "90th percentile", "Timeouts", "Forfeits", "Abandoned games"],
            [
                [
                    t,
                    p["decisions"],
                    p["median_seconds"],
                    p["p90_seconds"],
                    p["timeouts"],
                    p["forfeits"],
                    p["abandoned_games"],
                ]
                for t, p in pace.items()
            ],
            lambda r: [
                title_name(r[0]),
                str(r[1]),
                _seconds(r[2]),
                _seconds(r[3]),
                str(r[4]),
                str(r[5]),
                str(r[6]),
            ],
            "No decisions yet.",
        )
    )
    return {
        "player": player,
        "stats": stats,
        "pace": pace,
        "rating_chart": rating_chart,
        "seat_charts": seat_charts,
        "tables": {t.name: t for t in tables},
    }


def _seconds(s: float | None) -> str:
    if s is None:
        return NONE
    s = float(s)
    if s >= 86400:
        return days_words(s / 86400)
    if s >= 3600:
        return f"{int(s // 3600)} h {int(s % 3600 // 60)} min"
    if s >= 60:
        return f"{int(s // 60)} min"
    return f"{s:.0f} s"


@router.get("/players/{player_id}")
@signed_in(not_found="There is no player {player_id}.")
def player_page(request: Request, caller: Caller, player_id: str) -> Response:
    """A player's results: recent games, rating per title, start positions, head to head, pace."""
    pid = caller.player_id if player_id == "me" else player_id
    return render(request, "player.html", caller, **player_page_context(_services(request), pid))


@router.get("/players/{player_id}/{name}.csv")
@signed_in(not_found="There is no player {player_id}.")
def player_csv(request: Request, caller: Caller, player_id: str, name: str) -> Response:
    pid = caller.player_id if player_id == "me" else player_id
    tables = player_page_context(_services(request), pid)["tables"]
    if name not in tables:
        return _not_found(request, caller, f"There is no table {name}.")
    return csv_response(tables[name], f"player-{pid[:8]}")


# --- the league page's standings and rating chart -----------------------------------------------


def league_figures(league: dict[str, Any]) -> dict[str, Any]:
    """The league page's standings and ratings tables and its rating-over-time chart."""
    title = league.get("value_title")
    names = {
        r["player_id"]: r.get("name") or r["player_id"][:8]
        for r in (*league["standings"], *league["ratings"])
    }
    standings = table(
        "standings",
        "Finished games only: most wins first, then the better average place",
        [
            "#",
            "Player",
            "Games",
            "Wins",
            "Win rate",
            "Average place",
            "Average final value",
            "Rating",
            "Decisions",
        ],
        [
            [
                r["position"],
                names[r["player_id"]],
                r["games"],
                r["wins"],
                round(r["wins"] / r["games"], 4) if r["games"] else None,
                r["average_rank"],
                r["average_final_value"],
                None if r["rating"] is None else round(r["rating"]["ordinal"], 2),
                words.decisions(r["decisions_by"]),
                r["player_id"],
            ]
            for r in league["standings"]
        ],
        lambda r: [
            str(r[0]),
            r[1],
            str(r[2]),
            str(r[3]),
            percent(r[4]),
            f"{r[5]:.2f}",
            value_words(title, r[6]) if title else NONE,
            NONE if r[7] is None else f"{r[7]:.2f}",
            r[8],
        ],
        "No finished game yet.",
    )
    ratings = table(
        "ratings",
        "openskill (Plackett–Luce): the ordinal is μ − 3σ, a cautious estimate of skill",
        ["Player", "Ordinal", "μ", "σ"],
        [
            [names[r["player_id"]], round(r["ordinal"], 2), round(r["mu"], 2), round(r["sigma"], 2)]
            for r in league["ratings"]
        ],
        lambda r: [r[0], f"{r[1]:.2f}", f"{r[2]:.2f}", f"{r[3]:.2f}"],
        "No rating yet.",
    )
    top = [r["player_id"] for r in league["ratings"][:7]]
    raw: dict[str, list[tuple[int, float]]] = {p: [] for p in top}
    last_game = max([h["seq"] for h in league.get("rating_history", [])] or [0])
    for h in league.get("rating_history", []):
        if h["player_id"] in raw:
            raw[h["player_id"]].append((h["seq"], h["ordinal"]))
    raw = {p: thin(pts, CHART_POINTS) for p, pts in raw.items()}
    series: dict[str, list[tuple[float, float]]] = {}
    for p, pts in raw.items():
        steps: list[tuple[float, float]] = []
        for seq, ordinal in pts:
            if steps:  # the rating holds between the player's games: a step
                steps.append((seq, steps[-1][1]))
            steps.append((seq, ordinal))
        if steps and steps[-1][0] < last_game:
            steps.append((last_game, steps[-1][1]))
        series[p] = steps
    history = table(
        "rating-history",
        "Every rated game of the league: each player's rating after it",
        ["League game", "Player", "Finished", "Rating (ordinal)"],
        [
            [h["seq"], names.get(h["player_id"], h["player_id"][:8]), h["at"], h["ordinal"]]
            for h in league.get("rating_history", [])
        ],
    )
    drawn = table(
        "rating-chart",
        "The chart's numbers: the best-rated players' ratings after the games drawn (every game in the full history's CSV)",
        ["League game", "Player", "Rating (ordinal)"],
        [[seq, names[p], ordinal] for p, pts in raw.items() for seq, ordinal in pts],
        lambda r: [str(r[0]), r[1], f"{r[2]:.2f}"],
        "No rated game yet.",
    )
    chart = charts.line_chart(
        "Rating over time",
        "Each of the league's best-rated players' openskill rating (ordinal) after each league game: "
        + "; ".join(f"{names[p]}: {league['ratings'][i]['ordinal']:.1f}" for i, p in enumerate(top)),
        [(names[p], series[p]) for p in top],
        "league game",
        "rating",
    )
    return {
        "tables": {t.name: t for t in (standings, ratings, history, drawn)},
        "rating_chart": chart,
        "value_title": title,
    }


@router.get("/leagues/{league}/{name}.csv")
@signed_in(not_found="There is no league {league}.")
def league_csv(request: Request, caller: Caller, league: str, name: str) -> Response:
    try:
        out = league_out(_services(request), league, None, None)
    except NotFoundError:
        return _not_found(request, caller, f"There is no league {league}.")
    tables = league_figures(out)["tables"]
    if name not in tables:
        return _not_found(request, caller, f"There is no table {name}.")
    return csv_response(tables[name], "league")


@router.get("/leagues/{league}")
@signed_in(not_found="There is no league {league}.")
def league_page(request: Request, caller: Caller, league: str) -> Response:
    """A league's standings, ratings, members and games: what its organiser publishes."""
    services = _services(request)
    out = league_out(services, league, None, None)
    # the league's games, whether opened in it or added by its organiser afterwards
    ids = [g["game_id"] for g in out["games"]][-200:]
    games = services.game_index.view.list_games(game_ids=ids, limit=200, viewer=caller.player_id)
    return render(
        request, "league.html", caller, league=out, games=_with_winner(games), figures=league_figures(out)
    )

"""The game table's speed: the game page and the preview on the server, the page's weight,
and click-to-preview in Chromium.

    python -m tests.benchmarks.bench_table [--quick]

(also the ``table`` section of ``python -m tests.benchmarks.run``). Each title with a drawn
board (Water Frame, Cotton Trade, Arkwright: The Card Game), three players, games of about 10, 300 and 1,000 events on SQLite (the embedded default) and
PostgreSQL, each read by a real ``gameledger serve`` over a kept-alive connection:

- the game page (``GET /games/{id}``, the awaited seat signed in by its cookie), p50 of 30,
  and the server process's CPU time per page (what a busy machine does not inflate much);
- the preview (``POST .../decisions/preview``) of the awaited seat's listed decisions, p50
  and CPU time per preview;
- the page with its SVG, style sheets and scripts, in bytes, uncompressed;
- in Chromium: from the click on a marked element to its preview shown, as the page measures
  it (``#preview[data-preview-ms]``), p50 over the elements of several positions.

Nothing here asserts a time: the goals are printed beside the figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from api.services import Services
from api.settings import Settings
from tests.benchmarks.run import (
    PG_DEFAULT,
    Made,
    Report,
    cpu_seconds,
    make_game,
    median,
    ms,
    p99,
    pad,
    pg_schema,
    server_pids,
    settle,
    sqlite_url,
    start_server,
    verdict,
)

STATIC = Path(__file__).resolve().parents[2] / "api" / "web" / "static"
CHROMIUM = Path("/usr/bin/chromium")


def _get(conn: http.client.HTTPConnection, path: str, token: str) -> tuple[int, bytes]:
    conn.request("GET", path, headers={"Cookie": f"gl_token={token}", "Accept": "text/html"})
    r = conn.getresponse()
    return r.status, r.read()


def _post(conn: http.client.HTTPConnection, path: str, token: str, body: Any) -> tuple[int, Any]:
    conn.request(
        "POST",
        path,
        body=json.dumps(body),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    r = conn.getresponse()
    return r.status, json.loads(r.read())


def _awaited(conn: http.client.HTTPConnection, made: Made) -> tuple[int, dict[str, Any]]:
    view = _get_json(conn, f"/api/v1/games/{made.game_id}", made.tokens[0])
    seat = view["awaiting"][0]["seat"] if view.get("awaiting") else 0
    return seat, _get_json(conn, f"/api/v1/games/{made.game_id}", made.tokens[seat])


def _get_json(conn: http.client.HTTPConnection, path: str, token: str) -> Any:
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    return json.loads(conn.getresponse().read())


def static_bytes() -> int:
    return sum((STATIC / name).stat().st_size for name in ("app.css", "app.js", "table.css", "table.js"))


TITLES = ("water-frame", "cotton-trade", "arkwright-card-game")  # the titles with a drawn board
PLAYED = {
    "water-frame": 300,
    "cotton-trade": 150,
    "arkwright-card-game": 300,
}  # events of real decisions at most (then padded)
NAMES = {"water-frame": "Water Frame", "cotton-trade": "Cotton Trade", "arkwright-card-game": "card game"}


def games(services: Services, lengths: list[int], title: str = "water-frame") -> list[Made]:
    out = []
    for length in lengths:
        # real decisions; a long game is lengthened from the middle of one that is still running
        played = PLAYED[title]
        made = make_game(services, title, 3, length if length <= played else 150, 700 + length)
        if length > played:
            pad(services, made, length)
        out.append(made)
    return out


def table_section(report: Report, pg_url: str, quick: bool) -> None:
    print("the game table", flush=True)
    lengths = [10, 300] if quick else [10, 300, 1000]
    weights: dict[str, list[int]] = {t: [] for t in TITLES}
    browser_games: list[tuple[str, Made]] = []
    for kind, ctx in (("SQLite", sqlite_url()), ("PostgreSQL", pg_schema(pg_url))):
        with ctx as url, tempfile.TemporaryDirectory() as data:
            services = Services.start(Settings(database_url=url, data_dir=Path(data), projections="off"))
            try:
                made = [(title, m) for title in TITLES for m in games(services, lengths, title)]
            finally:
                services.close()
            server = start_server(url, data)
            try:
                settle(server)
                host, port = server.url.removeprefix("http://").split(":")
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                for title, m in made:
                    seat, mine = _awaited(conn, m)
                    path = f"/games/{m.game_id}"
                    status, html = _get(conn, path, m.tokens[seat])
                    assert status == 200, status
                    weights[title].append(len(html))
                    times = []
                    cpu = sum(cpu_seconds(pid) for pid in server_pids(server))
                    for _ in range(30):
                        t = time.perf_counter()
                        _get(conn, path, m.tokens[seat])
                        times.append(time.perf_counter() - t)
                    cpu = (sum(cpu_seconds(pid) for pid in server_pids(server)) - cpu) / 30
                    report.add(
                        "table",
                        f"{NAMES[title]}, {kind}: game page at {mine['version']} events (awaited seat), "
                        "p50 / p99; server CPU a page",
                        f"{ms(median(times))} / {ms(p99(times))}; {ms(cpu)}",
                        "p50 <= 10 ms",
                        verdict(median(times) <= 0.010),
                    )
                    legal = mine["legal_decisions"]
                    previews = []
                    cpu = sum(cpu_seconds(pid) for pid in server_pids(server))
                    for i in range(30):
                        body = {"expected_version": mine["version"], "decision": legal[i % len(legal)]}
                        t = time.perf_counter()
                        status, _ = _post(
                            conn, f"/api/v1/games/{m.game_id}/decisions/preview", m.tokens[seat], body
                        )
                        previews.append(time.perf_counter() - t)
                        assert status == 200, status
                    cpu = (sum(cpu_seconds(pid) for pid in server_pids(server)) - cpu) / 30
                    report.add(
                        "table",
                        f"{NAMES[title]}, {kind}: preview at {mine['version']} events ({len(legal)} listed "
                        "decisions), p50 / p99; server CPU a preview",
                        f"{ms(median(previews))} / {ms(p99(previews))}; {ms(cpu)}",
                        "p50 <= 5 ms",
                        verdict(median(previews) <= 0.005),
                    )
                if kind == "SQLite":
                    browser_games = [(server.url, m) for _, m in made]
                    browser_section(report, browser_games, quick)
                conn.close()
            finally:
                server.stop()
    for title, sizes in weights.items():
        page = max(sizes) + static_bytes()
        report.add(
            "table",
            f"{NAMES[title]}: game page with its SVG, style sheets and scripts (largest of the games), "
            "uncompressed",
            f"{page / 1024:.0f} KB (HTML {max(sizes) / 1024:.0f} KB)",
            "<= 150 KB",
            verdict(page <= 150 * 1024),
        )


def browser_section(report: Report, games: list[tuple[str, Made]], quick: bool) -> None:
    """Click on marked elements (one after the other, cancelling each preview) and read how long
    the page took to show each preview."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        report.add("table", "browser: click to preview shown", "skipped: no Python Playwright")
        return
    if not CHROMIUM.exists():
        report.add("table", "browser: click to preview shown", "skipped: no Chromium")
        return
    times: list[float] = []
    rnd = random.Random(18)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--headless"])
        for base, made in games:
            host, port = base.removeprefix("http://").split(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            seat, mine = _awaited(conn, made)
            conn.close()
            if not mine["legal_decisions"]:
                continue
            context = browser.new_context(viewport={"width": 1366, "height": 900})
            context.add_cookies([{"name": "gl_token", "value": made.tokens[seat], "url": base}])
            page = context.new_page()
            page.goto(f"{base}/games/{made.game_id}")
            page.wait_for_selector("html[data-ready]", state="attached")
            targets = page.query_selector_all(
                "#live .board-svg .act:not(.menu), #live .choices [data-decision], .menu-pop [data-decision]"
            )
            for target in rnd.sample(targets, min(len(targets), 8 if quick else 20)):
                if not target.is_visible():
                    continue
                page.evaluate("() => document.getElementById('preview').removeAttribute('data-preview-ms')")
                target.click()
                shown = page.wait_for_selector("#preview[data-preview-ms]", state="attached")
                times.append(float(shown.get_attribute("data-preview-ms") or "nan") / 1000)  # type: ignore[union-attr]
                page.keyboard.press("Escape")
            context.close()
        browser.close()
    report.add(
        "table",
        f"browser (Chromium): click to preview shown, p50 / p99 of {len(times)} clicks",
        f"{ms(median(times))} / {ms(p99(times))}",
        "p50 <= 100 ms",
        verdict(median(times) <= 0.100),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--database-url", default=PG_DEFAULT)
    args = parser.parse_args(argv)
    report = Report()
    table_section(report, args.database_url, args.quick)
    print(report.table())  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

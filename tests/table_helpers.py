"""Reading the game table's pages in tests: which decisions a page offers, and what it says.

``offered(html)`` is every decision the page lets a person choose: each ``data-decision``
element once, each ``data-decision-template`` element once per value it allows. Compared with
``legal_decisions`` by ``canonical`` (the same decision whatever its key order), as a
multiset, so that a decision offered twice is found as surely as one missing.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from fastapi.testclient import TestClient
from lxml import etree

from api.web.table import Drawn, canonical_decision, render_board, renderer_for
from ledger.registry import TITLES, engine
from tests import draws
from tests.api_helpers import API
from tests.api_helpers import Table as Players

# Cotton Trade with both advanced rules: the shares trade and reputation
COTTON_TRADE_ADVANCED = {"shares_trade": True, "reputation": True}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# a code where a person should read words: SCREAMING_CASE with an underscore or colon, a spec
# id ("A-03", "U-13", "SHIP-2A"), a rulebook code ("R16", "D14"), a bare enum in capitals
CODE = re.compile(
    r"\b(?:[A-Z][A-Z0-9]+(?:[_:][A-Z0-9]+)+|[A-Z]{1,4}-\d+[A-Z]?|[RD]1[46]|"
    r"FOOD|CLOTHES|CUTLERY|LAMPS|OWN|LIGHT|DARK|FACTORY|WORKERS|MACHINERY|QUALITY|DISTRIBUTION|"
    r"PRODUCTION|SHIP|PATENT|FOREMAN|WORKSHOP|BROKER|OFFICE|SCHOOL|INVENTOR|ENGINEER|DEVELOPER|"
    r"ACCOUNTANT|ADMINISTRATOR|CHARISMA|BUREAUCRACY|LOBBY)\b"
)


def canonical(decision: dict[str, Any]) -> str:
    return canonical_decision(decision)


class TablePage:
    """The decisions a page offers and the words it shows (text, tooltips, accessible names).

    Read through libxml2's HTML parser (lxml, its parser-target events): the standard
    library's ``HTMLParser`` read the same decisions, templates and words from 1,920 pages of
    the three titles (pages and replays, awaited seat and not, four roots), at 12.9 ms a page
    against 3.6; the game table's tests read about 600 pages a run."""

    def __init__(self, html: str, within: str | None = None) -> None:
        self.decisions: list[dict[str, Any]] = []
        self.templates: list[dict[str, str]] = []
        self.words: list[tuple[str, str]] = []  # (where, text)
        self.within = within  # only the element with this id
        self._stack: list[str] = []
        self._inside = within is None
        self._depth = 0
        self._skip = 0
        self._text: list[str] = []  # a text between two tags, as the parser hands it over
        parser = etree.HTMLParser(target=self, recover=True, no_network=True, remove_comments=True)
        parser.feed(html)
        parser.close()

    def start(self, tag: str, attrib: Mapping[str, str]) -> None:
        self._words()
        a = {k: v or "" for k, v in attrib.items()}
        if tag in VOID:
            if self._inside:
                self._attrs(tag, a)
            return
        if not self._inside and a.get("id") == self.within:
            self._inside = True
            self._depth = 0
        if self._inside:
            self._depth += 1
        self._stack.append(tag)
        if tag in ("script", "style", "head") or (tag == "title" and "svg" not in self._stack):
            self._skip += 1
        if self._inside:
            self._attrs(tag, a)

    def _attrs(self, tag: str, a: dict[str, str]) -> None:
        if "data-decision" in a:
            self.decisions.append(json.loads(a["data-decision"]))
        if "data-decision-template" in a:
            self.templates.append(a)
        for name in ("aria-label", "title", "alt", "placeholder"):
            if a.get(name):
                self.words.append((f"{tag}[{name}]", a[name]))

    def end(self, tag: str) -> None:
        self._words()
        if tag in VOID or not self._stack:
            return
        top = self._stack.pop()
        if top in ("script", "style", "head") or (top == "title" and "svg" not in self._stack):
            self._skip -= 1
        if self._inside and self.within is not None:
            self._depth -= 1
            if self._depth == 0:
                self._inside = False

    def data(self, data: str) -> None:
        self._text.append(data)

    def close(self) -> None:
        self._words()

    def _words(self) -> None:
        if not self._text:
            return
        data, self._text = "".join(self._text).strip(), []
        if self._inside and not self._skip and data:
            self.words.append((self._stack[-1] if self._stack else "", data))

    def offered(self) -> Counter[str]:
        out = Counter(canonical(d) for d in self.decisions)
        for t in self.templates:
            template = json.loads(t["data-decision-template"])
            field = t["data-field"]
            values = [int(v) for v in t["data-values"].split(",")]
            assert int(t["data-min"]) == min(values) and int(t["data-max"]) == max(values)
            assert template[field] in values, "a template starts at a value the engine allows"
            out.update(canonical({**template, field: v}) for v in values)
        return out

    def codes(self, title_codes: re.Pattern[str] | None = None) -> list[tuple[str, str, str]]:
        """(where, the code, the text it is in) for every code in the page's words: the codes
        every title must avoid, then the title's own (``title_codes``) if it has any."""
        patterns = (CODE,) if title_codes is None else (CODE, title_codes)
        return [
            (where, m.group(0), text)
            for rx in patterns
            for where, text in self.words
            for m in rx.finditer(text)
        ]


def offered(html: str) -> Counter[str]:
    return TablePage(html, within="live").offered()


def legal(decisions: list[dict[str, Any]]) -> Counter[str]:
    return Counter(canonical(d) for d in decisions)


def page(client: TestClient, token: str, path: str) -> str:
    """A page as the player with this token sees it (signed in by the cookie)."""
    client.cookies.clear()
    client.cookies.set("gl_token", token)
    try:
        r = client.get(path)
        assert r.status_code == 200, (path, r.status_code)
        return r.text
    finally:
        client.cookies.clear()


def spectator_page(client: TestClient, title: str) -> str:
    """A new three-seat game's page as a player without a seat at it sees it."""
    t = Players(client, 3, title)
    spectator = client.post(f"{API}/players", json={"name": "Eve"}).json()
    return page(client, spectator["token"], f"/games/{t.game_id}")


def positions(
    client: TestClient,
    title: str,
    n: int,
    players: int,
    seed: int,
    options: dict[str, Any] | None = None,
) -> Iterator[tuple[Players, int, dict[str, Any]]]:
    """Play a game over the API with random legal decisions, stopping at each position on the
    way: yields (table, awaited seat, its view)."""
    t = Players(client, players, title, options)
    rnd = random.Random(seed)
    for _ in range(n):
        g = t.game()
        if g["status"] != "active":
            return
        seat = g["awaiting"][0]["seat"]
        mine = t.game(seat)
        yield t, seat, mine
        r = t.decide(seat, rnd.choice(mine["legal_decisions"]), mine["version"])
        assert r.status_code == 200, r.text


def random_positions(
    title: str, options: Mapping[str, Any], players: int, seed: int, steps: int
) -> Iterator[tuple[Any, Any, list[dict[str, Any]]]]:
    """Play a game in the engine with random legal decisions (draws settled): yields each
    position awaiting a decision, its pending (whose ``seats[0]`` decides next) and that seat's
    legal decisions, then takes one of them at random."""
    eng = engine(title)
    state = eng.new_game(TITLES[title].options(**options), players)
    state, _ = draws.settle_draws(eng, state, 0)
    rnd = random.Random(seed)
    for _ in range(steps):
        pending = eng.pending(state)
        if pending.finished:
            return
        if pending.draw is not None:
            state, _ = draws.settle_draws(eng, state, 0)
            continue
        seat = pending.seats[0]
        decisions = [d.model_dump(mode="json") for d in eng.legal_decisions(state, seat)]
        yield state, pending, decisions
        state, _ = eng.apply(state, seat, eng.decision_adapter.validate_python(rnd.choice(decisions)))


def drawn_positions(
    title: str, options: Mapping[str, Any], players: int, seed: int, steps: int
) -> Iterator[tuple[list[dict[str, Any]], Drawn]]:
    """Play a game in the engine with random legal decisions (draws settled): yields the awaited
    seat's legal decisions and its board with them placed, at each position."""
    eng = engine(title)
    names = dict(enumerate(("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")))
    for state, pending, decisions in random_positions(title, options, players, seed, steps):
        seat = pending.seats[0]
        yield (
            decisions,
            render_board(
                renderer_for(title),
                title=title,
                view=eng.view(state, seat),
                names=names,
                me=seat,
                awaiting=list(pending.seats),
                decisions=decisions,
                actor=seat,
            ),
        )


def placed(where: dict[str, set[str]], decisions: list[dict[str, Any]], drawn: Drawn) -> None:
    """Note for each decision type whether it stood on the board or in the list in words."""
    in_words = {c.decision["type"] for c in drawn.rest}
    for kind in {d["type"] for d in decisions}:
        where.setdefault(kind, set()).add("words" if kind in in_words else "board")


def check_positions(
    client: TestClient,
    title: str,
    games: list[tuple[int, int, int, dict[str, Any] | None]],
    checked: int,
    on_board_over: int,
    types_seen: set[str],
) -> None:
    """At each position of these games (players, seed, steps, options): the awaited seat's page
    offers exactly its legal decisions; at every fourth, a seat not awaited is offered none.
    Then: exactly ``checked`` positions were checked and a quarter as many seats not awaited, more
    than ``on_board_over`` choices stood on the board, and ``types_seen`` were among the
    decision types offered."""
    seen = on_board = others = 0
    types: Counter[str] = Counter()
    for players, seed, steps, options in games:
        for t, seat, mine in positions(client, title, steps, players, seed, options):
            html = page(client, t.players[seat]["token"], f"/games/{t.game_id}")
            assert offered(html) == legal(mine["legal_decisions"]), (mine["prompt"], mine["version"])
            on_board += sum(TablePage(html, within="board").offered().values())
            types.update(d["type"] for d in mine["legal_decisions"])
            seen += 1
            if seen % 4 == 0:
                awaited = [a["seat"] for a in t.game()["awaiting"]]
                other = next(s for s in range(players) if s not in awaited)
                assert offered(page(client, t.players[other]["token"], f"/games/{t.game_id}")) == Counter()
                others += 1
    assert seen == checked and others == checked // 4, (seen, others)
    assert on_board > on_board_over, "the decisions are on the board, not only in the list"
    assert types_seen <= set(types), types


def codes_on_pages(
    client: TestClient,
    title: str,
    games: Iterable[tuple[int, int, int, dict[str, Any] | None]],
    every: int,
    title_codes: re.Pattern[str] | None = None,
    start_versions: tuple[int, ...] = (),
) -> tuple[int, list[tuple[str, str, str, str]]]:
    """Walk these games (players, seed, steps, options) and read, at every ``every``-th position,
    the game page and its replay, after each game the replays of ``start_versions``, and at the
    end the new-game page: returns the positions seen and (page, where, code, text) for every
    code found in their words."""
    found: list[tuple[str, str, str, str]] = []
    seen = 0
    gid = token = ""
    for players, seed, steps, options in games:
        for t, seat, _ in positions(client, title, steps, players, seed, options):
            gid, token = t.game_id, t.players[seat]["token"]
            if seen % every == 0:
                for path in (f"/games/{gid}", f"/games/{gid}/replay"):
                    shown = TablePage(page(client, token, path), within="main")
                    found += [(path, *c) for c in shown.codes(title_codes)]
            seen += 1
        for v in start_versions:
            shown = TablePage(page(client, token, f"/games/{gid}/replay?v={v}"), within="main")
            found += [(f"replay {v}", *c) for c in shown.codes(title_codes)]
    shown = TablePage(page(client, token, f"/games/new?title={title}"), within="new-game-form")
    found += [("/games/new", *c) for c in shown.codes(title_codes)]
    return seen, found


def replayed(
    client: TestClient, title: str, steps: int, options: dict[str, Any] | None = None
) -> tuple[Players, list[dict[str, Any]]]:
    """A three-seat game played ``steps`` random legal decisions on (seed 6), and its events."""
    t = Players(client, 3, title, options)
    rnd = random.Random(6)
    for _ in range(steps):
        t.step(rnd)
    return t, client.get(f"{API}/games/{t.game_id}/events", headers=t.auth(0)).json()["events"]


def replay_page(client: TestClient, t: Players, version: int) -> str:
    """The replay at this version as the first seat sees it."""
    return page(client, t.players[0]["token"], f"/games/{t.game_id}/replay?v={version}")


def offered_in_replay(html: str) -> Counter[str]:
    """What a replay page offers, read as if its board were the live one."""
    return offered(html.replace('id="replay-live"', 'id="live"'))

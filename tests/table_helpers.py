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
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

from fastapi.testclient import TestClient

from api.web.table import canonical_decision, render_board, renderer_for
from ledger.registry import TITLES, engine
from tests import draws
from tests.api_helpers import Table as Players

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


class TablePage(HTMLParser):
    """The decisions a page offers and the words it shows (text, tooltips, accessible names)."""

    def __init__(self, html: str, within: str | None = None) -> None:
        super().__init__()
        self.decisions: list[dict[str, Any]] = []
        self.templates: list[dict[str, str]] = []
        self.words: list[tuple[str, str]] = []  # (where, text)
        self.within = within  # only the element with this id
        self._stack: list[str] = []
        self._inside = within is None
        self._depth = 0
        self._skip = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
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

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not self._stack:
            return
        top = self._stack.pop()
        if top in ("script", "style", "head") or (top == "title" and "svg" not in self._stack):
            self._skip -= 1
        if self._inside and self.within is not None:
            self._depth -= 1
            if self._depth == 0:
                self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside and not self._skip and data.strip():
            self.words.append((self._stack[-1] if self._stack else "", data.strip()))

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

    def codes(self) -> list[tuple[str, str, str]]:
        """(where, the code, the text it is in) for every code in the page's words."""
        return [(where, m.group(0), text) for where, text in self.words for m in CODE.finditer(text)]


def offered(html: str) -> Counter[str]:
    return TablePage(html, within="live").offered()


def legal(decisions: list[dict[str, Any]]) -> Counter[str]:
    return Counter(canonical(d) for d in decisions)


def page(client: TestClient, token: str, path: str) -> str:
    """The page at ``path`` as the holder of ``token`` sees it (by the session cookie)."""
    client.cookies.clear()
    client.cookies.set("gl_token", token)
    try:
        r = client.get(path)
        assert r.status_code == 200, (path, r.status_code)
        return r.text
    finally:
        client.cookies.clear()


def positions(client: TestClient, title: str, n: int, players: int, seed: int) -> Iterator[tuple[Players, int, Any]]:
    """A game of ``title`` played with random legal decisions, stopping at each position on the
    way: yields (table, awaited seat, its view)."""
    t = Players(client, players, title)
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


def offers_at_random_positions(
    client: TestClient, title: str, runs: tuple[tuple[int, int, int], ...]
) -> tuple[int, int, int, Counter[str]]:
    """Over (players, seed, steps) random games: the awaited seat's page offers each legal
    decision exactly once, and every fourth position a seat that is not awaited is offered none.
    Returns the positions checked, the offers on the board, the other seats checked and the
    decision types seen."""
    checked = on_board = others = 0
    types: Counter[str] = Counter()
    for players, seed, steps in runs:
        for t, seat, mine in positions(client, title, steps, players, seed):
            html = page(client, t.players[seat]["token"], f"/games/{t.game_id}")
            assert offered(html) == legal(mine["legal_decisions"]), (mine["prompt"], mine["version"])
            on_board += sum(TablePage(html, within="board").offered().values())
            types.update(d["type"] for d in mine["legal_decisions"])
            checked += 1
            if checked % 4 == 0:  # a seat that is not awaited sees no decision at all
                awaited = [a["seat"] for a in t.game()["awaiting"]]
                other = next(s for s in range(players) if s not in awaited)
                assert offered(page(client, t.players[other]["token"], f"/games/{t.game_id}")) == Counter()
                others += 1
    return checked, on_board, others, types


def drawn_positions(title: str, players: int, seed: int, limit: int) -> Iterator[tuple[Any, list[dict[str, Any]]]]:
    """Up to ``limit`` positions of a game of ``title`` played with random legal decisions (draws
    settled with the first outcomes), without the API: yields the awaited seat's board as drawn
    for it and its legal decisions."""
    eng = engine(title)
    rnd = random.Random(seed)
    state = eng.new_game(TITLES[title].options(), players)
    state, _ = draws.settle_draws(eng, state, 0)
    for _ in range(limit):
        pending = eng.pending(state)
        if pending.finished:
            return
        if pending.draw is not None:
            state, _ = draws.settle_draws(eng, state, 0)
            continue
        seat = pending.seats[0]
        decisions = [d.model_dump(mode="json") for d in eng.legal_decisions(state, seat)]
        drawn = render_board(
            renderer_for(title),
            title=title,
            view=eng.view(state, seat),
            names={0: "Ann", 1: "Bob", 2: "Cid", 3: "Dee"},
            me=seat,
            awaiting=list(pending.seats),
            decisions=decisions,
            actor=seat,
        )
        yield drawn, decisions
        state, _ = eng.apply(state, seat, eng.decision_adapter.validate_python(rnd.choice(decisions)))

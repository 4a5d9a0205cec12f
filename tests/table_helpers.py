"""Reading the game table's pages in tests: which decisions a page offers, and what it says.

``offered(html)`` is every decision the page lets a person choose: each ``data-decision``
element once, each ``data-decision-template`` element once per value it allows. Compared with
``legal_decisions`` by ``canonical`` (the same decision whatever its key order), as a
multiset, so that a decision offered twice is found as surely as one missing.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from typing import Any

from api.web.table import canonical_decision

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

"""Label in name (WCAG 2.5.3), as axe-core 4.14's ``label-content-name-mismatch`` checks it: a
clickable element of the board with an accessible name (``aria-label``) must have the words it
shows among the words of that name, in the same order. Read from the page's markup, so that every
element of many positions can be checked in a second without a browser."""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser

# what axe reads as a word: letters and digits; everything else (punctuation, £, ×, …) separates
_NOT_WORD = re.compile(r"[^\w]|_", re.UNICODE)
_PARENTHESES = re.compile(r"\([^()]*\)")


def words(text: str) -> list[str]:
    """The words axe compares: lower case, NFKD, without parentheticals or punctuation."""
    text = unicodedata.normalize("NFKD", text.lower())
    previous = None
    while previous != text:
        previous, text = text, _PARENTHESES.sub("", text)
    return _NOT_WORD.sub(" ", text).split()


def contains(name: str, shown: str) -> bool:
    """Whether the words ``shown`` stand in ``name`` one after the other."""
    needle, haystack = words(shown), words(name)
    if not needle:
        return True
    return any(haystack[i : i + len(needle)] == needle for i in range(len(haystack) - len(needle) + 1))


class _Buttons(HTMLParser):
    """Each element with role="button" and an aria-label: (its name, the text it shows)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        self._open: list[tuple[int, str, list[str]]] = []  # (depth, name, text) per button open
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self._depth += 1
        if a.get("role") == "button" and a.get("aria-label"):
            self._open.append((self._depth, a["aria-label"] or "", []))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # an empty element (<rect/>): neither text nor depth

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == self._depth:
            _, name, text = self._open.pop()
            self.found.append((name, "".join(text)))
        self._depth -= 1

    def handle_data(self, data: str) -> None:
        # a tooltip (<title>) inside the element counts too: axe reads it as shown where the
        # board is scrolled (its empty box at the page's corner overlaps the drawing)
        for _, _, text in self._open:
            text.append(data)


def label_in_name_problems(markup: str) -> list[tuple[str, str]]:
    """(the text shown, the accessible name) of every button whose name lacks the words it shows."""
    parser = _Buttons()
    parser.feed(markup)
    return [(shown.strip(), name) for name, shown in parser.found if not contains(name, shown)]

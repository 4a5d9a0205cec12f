"""The game table's framework: the seat's legal decisions placed on a drawn board.

A title's renderer draws its board from the seat's view (the same view the API returns,
never the engine's state) and, wherever it draws something a decision acts on, *claims*
those decisions from the table: ``table.claim(match)`` hands over the listed decisions that
match and no other drawing may claim them again. ``table.target(...)`` then draws the thing
as one clickable element per decision (``data-decision``: the decision's JSON exactly as
``legal_decisions`` lists it), or, for several decisions on one thing, as a button that opens
a small menu of them on the board. Whatever no drawing claimed stands in the short list in
words under the board. So every listed decision is on the page exactly once, and the page
never composes one the engine has not listed.

A decision that takes a number (a price, a count, a bid) is one element carrying
``data-decision-template`` (the decision with that field at its default), ``data-field`` and
``data-values`` (every value the engine lists for it, so ``data-min``/``data-max`` are its
bounds); the page fills the number in and previews it before anything is sent.

The same drawing serves the replay: there the table's "legal decisions" are the event's own
decision, and a claimed target is drawn highlighted instead of clickable.
"""

from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape, unescape
from typing import Any, Literal, TypeAlias

from api.web.forms import DecisionForm, Field, human
from ledger.games.vocabulary import Template

SPEC_ID = re.compile(r"^(?:[A-Z]{1,2}-\d+(?:/[A-Z]{1,2}-\d+)*(?: [A-Z]+)?:\s*)")  # "D-10 REUSE: "

Decision = dict[str, Any]
Mode = Literal["play", "replay"]


def decision_json(decision: Mapping[str, Any]) -> str:
    """A decision as the page carries it: the JSON of ``legal_decisions``, keys in their order."""
    return json.dumps(decision, separators=(",", ":"), ensure_ascii=False)


def canonical_decision(decision: Mapping[str, Any]) -> str:
    """One text per decision whatever the key order (the comparison the tests make)."""
    return json.dumps(decision, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Choice:
    """One clickable element: a listed decision, or a number to choose among listed values."""

    label: str  # its accessible name, in words
    decision: Decision  # the listed decision (a template: with ``field`` at its default)
    field: str | None = None  # the number the person chooses
    values: tuple[int, ...] = ()  # every value the engine lists for it
    amount_label: str = ""  # what the number is, in words ("Price (£)")

    @property
    def is_template(self) -> bool:
        return self.field is not None

    def expanded(self) -> list[Decision]:
        """The listed decisions this element stands for."""
        if self.field is None:
            return [self.decision]
        return [{**self.decision, self.field: v} for v in self.values]

    def attributes(self, amount_label: bool = True) -> str:
        """The element's data attributes, for HTML or SVG: the board's elements and the list's
        buttons carry the same. ``amount_label=False``: without what the number is, which a
        menu whose choices all say the same carries once for them (``Menu.amount_label``)."""
        if self.field is None:
            return f"data-decision='{quoted(decision_json(self.decision))}'"
        values = ",".join(str(v) for v in self.values)
        said = f' data-amount-label="{escape(self.amount_label)}"' if amount_label else ""
        return (
            f"data-decision-template='{quoted(decision_json(self.decision))}' "
            f'data-field="{escape(self.field)}" data-values="{values}" '
            f'data-min="{min(self.values)}" data-max="{max(self.values)}"{said}'
        )


@dataclass(frozen=True)
class When:
    """Words that depend on whether one field of the decision is set (neither None nor False):
    ``yes`` when it is, ``no`` when it is not."""

    field: str
    yes: Label
    no: Label


Label: TypeAlias = "str | When | Callable[[Mapping[str, Any], Table], str]"
"""A decision in a title's words: a template of its fields, as the log's (``{good:good}`` says
the field through the title's ``formats``, ``{seat:who}`` names a seat, ``{count:# loans}``
counts in the right number, ``{extra_shift:?, with one extra shift}`` says its text only when
the field is set); ``When`` one of two by a field; or, where the words depend otherwise on the
values or on the table, a function of the decision and the table."""


class _Said(Template):
    """A label template filled in from a decision: the log's template language, with the
    title's ``formats`` and its seats named by the table; a field the decision lacks is None."""

    def __init__(self, formats: Mapping[str, Callable[[Any], str]], table: Table) -> None:
        super().__init__(table.who)
        self.formats = formats

    def get_value(self, key: int | str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        return kwargs.get(key) if isinstance(key, str) else super().get_value(key, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        say = self.formats.get(format_spec)
        return say(value) if say is not None else super().format_field(value, format_spec)


class Words:
    """How a title names its decisions and things; the generic words of any title.

    A title's words subclass this and are made with the title's tables: ``labels`` says each
    decision type (a ``Label``); ``templates`` the element choosing a number among several
    decisions (by ``type:field``, or by ``type`` for any field; a type it lacks is said by its
    label, the number at its default); ``formats`` the title's codes in its templates. The
    methods: ``amount`` what the number of a template is, ``group`` the heading a decision
    stands under in the list in words, ``name`` any code the view holds (a good, a marker, a
    tile, a phase). A type without a label is said in the generic words: its type and its
    fields spelt out."""

    amount_fields: frozenset[str] = frozenset({"count", "price", "amount", "bid", "payment"})
    code: re.Pattern[str] = re.compile(r"\b[A-Z][A-Z0-9]*(?:[_:-][A-Z0-9]+)*\b")  # how a code looks

    def __init__(
        self,
        *,
        labels: Mapping[str, Label] | None = None,
        templates: Mapping[str, Label] | None = None,
        formats: Mapping[str, Callable[[Any], str]] | None = None,
    ) -> None:
        self.labels: Mapping[str, Label] = labels or {}
        self.templates: Mapping[str, Label] = templates or {}
        self.formats: Mapping[str, Callable[[Any], str]] = formats or {}

    def name(self, code: Any) -> str:
        return human(code)

    def say(self, words: Label, decision: Mapping[str, Any], table: Table) -> str:
        """A decision in these words (a ``Label``)."""
        if isinstance(words, When):
            v = decision.get(words.field)
            return self.say(words.yes if v is not None and v is not False else words.no, decision, table)
        if isinstance(words, str):
            return _Said(self.formats, table).vformat(words, (), decision)
        return words(decision, table)

    def label(self, decision: Mapping[str, Any], table: Table) -> str:
        said = self.labels.get(str(decision.get("type")))
        if said is not None:
            return self.say(said, decision, table)
        details = [
            f"{human(k).lower()} {self.name(v) if isinstance(v, str) else v}"
            for k, v in decision.items()
            if k != "type" and v not in (None, False, [], (), "")
        ]
        title = human(decision.get("type"))
        return f"{title}: {', '.join(details)}" if details else title

    def template_label(self, decision: Mapping[str, Any], field: str, table: Table) -> str:
        t = str(decision.get("type"))
        said = self.templates.get(f"{t}:{field}", self.templates.get(t))
        if said is not None:
            return self.say(said, decision, table)
        if t in self.labels:
            return self.label(decision, table)
        return self.label({k: v for k, v in decision.items() if k != field}, table)

    def amount(self, decision: Mapping[str, Any], field: str) -> str:
        return human(field)

    def default_amount(self, decision: Mapping[str, Any], field: str, values: Sequence[int]) -> int:
        return 0 if 0 in values else values[0]

    def group(self, decision: Mapping[str, Any]) -> str:
        return human(decision.get("type"))

    def known(self, code: str) -> bool:
        """Whether ``code`` is one of the title's codes (not a word that happens to be in capitals)."""
        return any(c in code for c in "_:")

    def text(self, sentence: str) -> str:
        """A sentence of the engine's (a log line, a schema's description) with its codes in words."""
        sentence = SPEC_ID.sub("", sentence)

        def word(m: re.Match[str]) -> str:
            code = m.group(0)
            return self.name(code) if self.known(code) else code

        return self.code.sub(word, sentence)

    def prompt(self, prompt: str, names: Mapping[int, str]) -> str:
        """The engine's prompt (what the awaited seats are asked) as a person reads it."""
        return self.text(prompt)

    def form(self, f: DecisionForm) -> DecisionForm:
        """The power users' form of a decision type with its choices and hints in words."""
        return dataclasses.replace(
            f, description=self.text(f.description), fields=tuple(self._field(x) for x in f.fields)
        )

    def _field(self, f: Field) -> Field:
        options = tuple(
            dataclasses.replace(
                o, label=self.name(json.loads(o.value)) if o.value.startswith('"') else o.label
            )
            for o in f.options
        )
        parts = tuple(self._field(p) for p in f.parts)
        return dataclasses.replace(f, description=self.text(f.description), options=options, parts=parts)


def choices_of(decisions: Sequence[Decision], words: Words, table: Table) -> list[Choice]:
    """The elements for these decisions: one per decision, except that decisions differing
    only in one amount field (``words.amount_fields``) become one element choosing it."""
    out: list[Choice] = []
    taken: set[int] = set()
    for i, d in enumerate(decisions):
        if i in taken:
            continue
        best: list[int] = [i]
        best_field: str | None = None
        for f, v in d.items():
            if f not in words.amount_fields or isinstance(v, bool) or not isinstance(v, int):
                continue
            rest = {k: x for k, x in d.items() if k != f}
            group = [
                j
                for j, e in enumerate(decisions)
                if j not in taken
                and isinstance(e.get(f), int)
                and not isinstance(e.get(f), bool)
                and {k: x for k, x in e.items() if k != f} == rest
            ]
            if len(group) > len(best):
                best, best_field = group, f
        taken.update(best)
        if best_field is None:
            out.append(Choice(label=words.label(d, table), decision=d))
            continue
        values = tuple(sorted({int(decisions[j][best_field]) for j in best}))
        default = words.default_amount(d, best_field, values)
        template = {**d, best_field: default}
        out.append(
            Choice(
                label=words.template_label(template, best_field, table),
                decision=template,
                field=best_field,
                values=values,
                amount_label=words.amount(template, best_field),
            )
        )
    return out


# --- drawing ------------------------------------------------------------------------------


# Advance widths of the printable ASCII characters (space to "~") in hundredths of the font size:
# DejaVu Sans, the sans-serif font of Debian's Chromium, measured there with canvas measureText.
# The system fonts players have (Segoe UI, Roboto, San Francisco) are narrower, so a width
# reckoned from these errs on the wide side and a label fits its chip.
_ADVANCE = (
    32, 40, 46, 84, 64, 95, 78, 27, 39, 39, 50, 84, 32, 36, 32, 34, 64, 64, 64, 64, 64, 64, 64, 64,
    64, 64, 34, 34, 84, 84, 84, 53, 100, 68, 69, 70, 77, 63, 58, 77, 75, 29, 29, 66, 56, 86, 75, 79,
    60, 79, 69, 63, 61, 73, 68, 99, 69, 61, 69, 39, 34, 39, 84, 50, 50, 61, 63, 55, 63, 62, 35, 63,
    63, 28, 28, 58, 28, 97, 63, 61, 63, 63, 41, 52, 39, 63, 59, 82, 59, 59, 52, 64, 34, 64, 84,
)  # fmt: skip
_ADVANCE_OTHER = {"\u00d7": 84, "\u00a3": 64, "\u2013": 50, "\u2026": 100, "\u00b7": 32}


def text_width(words: str, size: float = 10.5, bold: bool = False) -> float:
    """The width in pixels of ``words`` at ``size`` (the board's small text by default; bold
    about a tenth wider), for sizing a chip or a box around a label."""
    units = sum(_ADVANCE[ord(c) - 32] if " " <= c <= "~" else _ADVANCE_OTHER.get(c, 100) for c in words)
    return units * size / 100 * (1.1 if bold else 1.0)


def fit(words: str, width: float, size: float = 10.5, bold: bool = False) -> str:
    """``words``, cut short with an ellipsis where they are wider than ``width`` pixels."""
    if text_width(words, size, bold) <= width:
        return words
    while words and text_width(words + "\u2026", size, bold) > width:
        words = words[:-1]
    return words.rstrip() + "\u2026"


def wrap(words: str, width: float, size: float = 10.5, lines: int = 2) -> list[str]:
    """``words`` broken at spaces into at most ``lines`` lines no wider than ``width`` pixels
    (the last cut short with an ellipsis where they do not all fit)."""
    out: list[str] = []
    rest = words.split(" ")
    while rest and len(out) < lines - 1:
        k = len(rest)
        while k > 1 and text_width(" ".join(rest[:k]), size) > width:
            k -= 1
        out.append(" ".join(rest[:k]))
        rest = rest[k:]
    if rest:
        out.append(fit(" ".join(rest), width, size))
    return out


def fit_first(wordings: Sequence[str], width: float, size: float = 10.5, bold: bool = False) -> str:
    """The first of ``wordings`` (the fullest first) that fits ``width`` pixels, else the last
    one cut short with an ellipsis."""
    for words in wordings:
        if text_width(words, size, bold) <= width:
            return words
    return fit(wordings[-1], width, size, bold)


_TEXT = re.compile(r"<text\b[^>]*>(.*?)</text>", re.S)
_TAG = re.compile(r"<[^>]+>")
_PARENTHESES = re.compile(r"\([^()]*\)")


def shown_words(shape: str) -> str:
    """The words a drawn thing shows: the texts of its ``<text>`` elements, in order."""
    said = (unescape(_TAG.sub("", m.group(1))) for m in _TEXT.finditer(shape))
    return " ".join(" ".join(t.split()) for t in said if t.strip())


def _words(text: str) -> list[str]:
    """Words as assistive software and speech input compare them: letters and digits in lower
    case, without what stands in parentheses."""
    text = unicodedata.normalize("NFKD", text.lower())
    previous = None
    while previous != text:
        previous, text = text, _PARENTHESES.sub("", text)
    return re.sub(r"[^\w]|_", " ", text).split()


def named(shape: str, name: str) -> str:
    """The accessible name of a clickable drawn thing: ``name``, which must contain the words
    the thing shows (WCAG 2.5.3, label in name: a person using speech input says what they
    see), so those words come first where ``name`` does not say them in that order."""
    if "<text" not in shape:
        return name
    shown = shown_words(shape)
    need, have = _words(shown), _words(name)
    if not need or any(have[i : i + len(need)] == need for i in range(len(have) - len(need) + 1)):
        return name
    return f"{shown}: {name}"


def quoted(value: str) -> str:
    """Text for a single-quoted attribute: JSON's double quotes stay as they are (a third of
    the bytes of a decision escaped for a double-quoted one)."""
    return value.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;")


def attr(value: Any) -> str:
    return escape(str(value), quote=True)


def text(value: Any) -> str:
    return escape(str(value), quote=False)


@dataclass
class Menu:
    """Several decisions on one drawn thing: a button on the board opening this list."""

    id: str
    label: str
    choices: list[Choice]

    @property
    def amount_label(self) -> str | None:
        """What the number is, when every choice of the menu chooses one and says the same
        (the menu carries it once; the page reads it from the nearest element that has it)."""
        said = {c.amount_label for c in self.choices if c.is_template}
        if len(said) == 1 and all(c.is_template for c in self.choices):
            return said.pop()
        return None

    def short(self, choice: Choice) -> str:
        """A choice's label without the words every choice of the menu begins with (the menu's
        title says them): "£4 space" rather than "Place your workers marker on the £4 space"."""
        words = [c.label.split(" ") for c in self.choices]
        common = 0
        while all(len(w) > common + 1 and w[common] == words[0][common] for w in words):
            common += 1
        rest = " ".join(choice.label.split(" ")[common:])
        return rest[:1].upper() + rest[1:] if common else choice.label


@dataclass
class Table:
    """What a renderer draws from, and the decisions it places.

    ``view``: the seat's view (what the API returns as ``state``); ``me``: the seat looking
    (None: a spectator); ``names``: seat -> name; ``pool``: the decisions still to place —
    the seat's legal decisions (play), or the event's decision (replay)."""

    title: str
    view: dict[str, Any]
    names: Mapping[int, str]
    me: int | None
    awaiting: Sequence[int]
    words: Words
    pool: list[Decision]
    mode: Mode = "play"
    actor: int | None = None  # the seat whose decisions the pool holds
    private: dict[str, Any] | None = None
    menus: list[Menu] = field(default_factory=list)
    highlighted: int = 0  # replay: how many targets show the event's decision
    _ids: int = 0

    def who(self, seat: Any) -> str:
        if isinstance(seat, int):
            return self.names.get(seat, f"Seat {seat}")
        return ""

    def claim(self, match: Callable[[Decision], bool]) -> list[Decision]:
        """The decisions still unplaced that act on the thing being drawn (now placed)."""
        mine = [d for d in self.pool if match(d)]
        if mine:
            self.pool = [d for d in self.pool if not match(d)]
        return mine

    def claim_types(self, *types: str, **fields: Any) -> list[Decision]:
        """``claim`` of the decisions of these types whose fields have these values."""
        return self.claim(lambda d: d.get("type") in types and all(d.get(k) == v for k, v in fields.items()))

    def next_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}-{self._ids}"

    def target(
        self,
        decisions: Sequence[Decision],
        shape: str,
        label: str,
        *,
        css: str = "",
        tip: str = "",
    ) -> str:
        """``shape`` (SVG markup of the thing) as the element(s) for these decisions: clickable
        (one decision or template), a menu button (several), highlighted (replay), or as drawn
        (none). ``label`` names the thing; ``tip`` adds details shown on hover."""
        title = f"<title>{text(tip or label)}</title>"
        if not decisions:
            return (
                (f'<g class="{attr(css)}">' if css else "<g>") + f"{title}{shape}</g>"
                if css or tip
                else shape
            )
        if self.mode == "replay":
            self.highlighted += 1
            return f'<g class="highlight {attr(css)}">{title}{shape}</g>'
        options = choices_of(decisions, self.words, self)
        more = f" {attr(css)}" if css else ""
        # the texts drawn on the thing read as separate words, and its name begins with them; the
        # tooltip is its parent's, so that no reader takes the tooltip for words the thing shows
        shape = shape.replace("</text>", "</text> ")
        if len(options) == 1:
            c = options[0]
            name = c.label if not c.is_template else f"{c.label} (choose the {c.amount_label.lower()})"
            return (
                f'<g><title>{text(name)}</title><g class="act{more}" role="button" tabindex="0" '
                f'aria-label="{attr(named(shape, name))}" {c.attributes()}>{shape}</g></g>'
            )
        menu = Menu(self.next_id("menu"), label, options)
        self.menus.append(menu)
        name = f"{label}: {len(options)} choices"
        return (
            f'<g><title>{text(name)}</title><g class="act menu{more}" role="button" tabindex="0" '
            f'aria-haspopup="true" aria-expanded="false" aria-controls="{menu.id}" '
            f'aria-label="{attr(named(shape, name))}">{shape}</g></g>'
        )

    def rest(self) -> list[Choice]:
        """The decisions no drawing claimed: the list in words (play only)."""
        if self.mode == "replay":
            return []
        return choices_of(self.pool, self.words, self)


@dataclass(frozen=True)
class Seat:
    """One player's part of the board as it is drawn: the table, the player's entry in the view,
    and whether that player decides now (a player's decisions act on their own board only)."""

    table: Table
    player: Mapping[str, Any]
    decides: bool

    def claim(self, match: Callable[[Decision], bool]) -> list[Decision]:
        """``table.claim`` when the player decides now; none otherwise."""
        return self.table.claim(match) if self.decides else []


@dataclass(frozen=True)
class Drawn:
    """A board as the page shows it."""

    svg: str  # the drawing ('' when the title has no drawn board yet)
    menus: list[Menu]
    rest: list[Choice]  # the list in words
    groups: list[tuple[str, list[Choice]]]  # the same, under their headings
    highlighted: int = 0


class Renderer:
    """A title's board. ``draw`` returns one ``<svg>`` (with its ``viewBox``) drawn with
    ``table.target`` for every thing a decision acts on; the framework does the rest. The base
    class draws nothing: the title's HTML board and every decision in the list in words.
    Renderers are shared by every request: keep what a drawing needs in ``table``."""

    words: Words = Words()

    def draw(self, table: Table) -> str:
        return ""

    @staticmethod
    def side_by_side(
        items: Sequence[Any],
        width: float,
        draw: Callable[[Any, float, float], tuple[str, float]],
        gap: float = 8,
    ) -> tuple[str, float]:
        """Items (each player's board) in equal columns across ``width``: ``draw(item, x, w)``
        returns its drawing and height; the drawings and the tallest height."""
        n = max(1, len(items))
        w = (width - gap * (n - 1)) / n
        drawn = [draw(item, i * (w + gap), w) for i, item in enumerate(items)]
        return "".join(svg for svg, _ in drawn), max([h for _, h in drawn] + [0.0])

    @staticmethod
    def svg(width: float, height: float, body: str, css: str = "") -> str:
        """The board's ``<svg>`` element around its drawing."""
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {int(height)}" width="{width:g}" '
            f'class="board-svg{" " + css if css else ""}" role="group" aria-label="The board">{body}</svg>'
        )


class Board(Renderer):
    """A board drawn as every title lays its board out, ``width`` wide: the header band
    (``_header``), the parts the players share (``_shared``: their drawing, and where the
    players' boards begin), then each player's board (``_player``), side by side. The parts
    are drawn (and claim their decisions) in that order."""

    width: float = 1000
    css: str = ""

    def draw(self, table: Table) -> str:
        v = table.view
        header = self._header(table, v)
        shared, top = self._shared(table, v)
        players, height = self.side_by_side(
            v.get("players", []), self.width, lambda p, x, w: self._player(table, v, p, x, top, w)
        )
        return self.svg(self.width, top + height + 4, header + shared + players, self.css)

    def _header(self, table: Table, v: Mapping[str, Any]) -> str:
        raise NotImplementedError

    def _shared(self, table: Table, v: Mapping[str, Any]) -> tuple[str, float]:
        raise NotImplementedError

    def _player(
        self, table: Table, v: Mapping[str, Any], p: Mapping[str, Any], x: float, y: float, w: float
    ) -> tuple[str, float]:
        raise NotImplementedError


def render_board(
    renderer: Renderer,
    *,
    title: str,
    view: dict[str, Any],
    names: Mapping[int, str],
    me: int | None,
    awaiting: Sequence[int],
    decisions: Sequence[Decision],
    mode: Mode = "play",
    actor: int | None = None,
    private: dict[str, Any] | None = None,
) -> Drawn:
    """The board of a position with ``decisions`` placed on it (play: the seat's legal
    decisions; replay: the event's decision, highlighted)."""
    table = Table(
        title=title,
        view=view,
        names=names,
        me=me,
        awaiting=list(awaiting),
        words=renderer.words,
        pool=[dict(d) for d in decisions],
        mode=mode,
        actor=actor,
        private=private,
    )
    svg = renderer.draw(table)
    rest = table.rest()
    groups: dict[str, list[Choice]] = {}
    for c in rest:
        groups.setdefault(renderer.words.group(c.decision), []).append(c)
    return Drawn(
        svg=svg,
        menus=table.menus,
        rest=rest,
        groups=list(groups.items()),
        highlighted=table.highlighted,
    )

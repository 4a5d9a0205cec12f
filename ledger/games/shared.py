"""Small pure helpers shared by the titles' engines."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ledger.engine import (
    Decision,
    DrawOutcome,
    DrawRequest,
    Effect,
    Pending,
    Standing,
    TitleMeta,
    TitleOptions,
)
from ledger.errors import RuleViolationError
from ledger.games.vocabulary import MoneyChanged

T = TypeVar("T")
StateT = TypeVar("StateT")
OptionsT = TypeVar("OptionsT", bound=TitleOptions)


def set_at(t: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """A copy of the tuple with item ``i`` replaced."""
    return (*t[:i], value, *t[i + 1 :])


def set_player(s: StateT, p: Any) -> StateT:
    """A copy of the state with the player in ``p``'s seat replaced by ``p``."""
    return replace(s, players=set_at(s.players, p.seat, p))  # type: ignore[attr-defined]


def purse_gain(purse: str) -> Callable[[StateT, int, int, str, list[Effect]], StateT]:
    """A title's ``gain``: money from (amount > 0) or to (amount < 0) the bank, kept in the
    player's field ``purse`` (``money`` or ``cash``), told as a ``MoneyChanged`` effect."""

    def gain(s: StateT, seat: int, amount: int, reason: str, out: list[Effect]) -> StateT:
        if amount == 0:
            return s
        p = s.players[seat]  # type: ignore[attr-defined]
        balance = getattr(p, purse) + amount
        out.append(MoneyChanged(seat=seat, amount=amount, balance=balance, reason=reason))
        players = set_at(s.players, seat, replace(p, **{purse: balance}))  # type: ignore[attr-defined]
        return replace(s, players=players, bank=s.bank - amount)  # type: ignore[attr-defined]

    return gain


@functools.cache
def clockwise_from(start: int, n: int) -> tuple[int, ...]:
    """Seats in turn order: clockwise from ``start``."""
    return tuple((start + i) % n for i in range(n))


Effects = list[Effect]


@dataclass(frozen=True)
class PhaseTable:
    """A title's phases: what each does by itself until a decision or a draw is due
    (``procedures``), the legal decisions of the seat awaited in each (``options``), what a
    random draw decides (``drawn``); the engine's resume, draw and legal decisions follow."""

    procedures: Mapping[Any, Callable[[Any, Effects], Any]]
    options: Mapping[Any, Callable[[Any, int], tuple[Decision, ...]]]
    prompt: Callable[[Any], str]  # what the seats awaited are asked
    drawn: Callable[[Any, DrawRequest, tuple[int, ...], Effects], Any]
    finished: Any  # the title's last phase
    violation: Callable[[str, str, str], RuleViolationError]

    def check_awaited(self, s: Any, seat: int) -> None:
        if seat not in s.awaiting:
            raise self.violation("not_your_turn", "The game is not waiting for your decision.", "")

    def advance(self, s: Any, out: Effects) -> Any:
        """Run the automatic procedures until a decision or a draw is due, or the game is over."""
        procedures, finished = self.procedures, self.finished
        for _ in range(100_000):
            if s.draws or s.awaiting or s.phase == finished:
                return s
            s = procedures[s.phase](s, out)
        raise RuntimeError("automatic procedures did not settle")  # pragma: no cover

    def resume(self, s: Any) -> tuple[Any, tuple[Effect, ...]]:
        """Run the automatic procedures from a position (a hand-built one, in tests and tools)."""
        out: Effects = []
        s = self.advance(s, out)
        return s, tuple(out)

    def apply_draw(self, s: Any, outcome: DrawOutcome) -> tuple[Any, tuple[Effect, ...]]:
        req = due_draw(s.draws, outcome, self.violation)
        out: Effects = []
        s = self.drawn(replace(s, draws=s.draws[1:]), req, outcome.values, out)
        s = self.advance(s, out)
        return s, tuple(out)

    def pending(self, s: Any) -> Pending:
        if s.draws:
            return Pending(draw=s.draws[0], prompt=f"draw: {s.draws[0].label}")
        if s.phase == self.finished:
            return Pending(finished=True, prompt="the game is over")
        return Pending(seats=s.awaiting, prompt=self.prompt(s))

    def legal_decisions(self, s: Any, seat: int) -> tuple[Decision, ...]:
        options = self.options.get(s.phase)
        if seat not in s.awaiting or options is None:
            return ()
        return options(s, seat)


def new_game_options(
    options: TitleOptions,
    seats: int,
    model: type[OptionsT],
    meta: TitleMeta,
    title: str,
    violation: Callable[[str, str, str], RuleViolationError],
) -> OptionsT:
    """A new game's options as the title's own ``model``, once ``seats`` is a number of players
    the title (``meta``; ``title`` in the refusal) is played by."""
    if not isinstance(options, model):
        options = model.model_validate(options.model_dump())
    if not meta.min_players <= seats <= meta.max_players:
        raise violation(
            "player_count", f"{title} is for {meta.min_players} to {meta.max_players} players.", "Cover"
        )
    return options


def due_draw(
    draws: tuple[DrawRequest, ...],
    outcome: DrawOutcome,
    violation: Callable[[str, str, str], RuleViolationError],
) -> DrawRequest:
    """The draw due, once its outcome is one it could have had: a pick of one index in range,
    or a shuffle's permutation of its items (the title's ``violation`` names the refusal)."""
    if not draws:
        raise violation("no_draw_due", "No random draw is due.", "")
    req = draws[0]
    n = len(req.items)
    if outcome.key != req.key:
        raise violation("wrong_draw", f"The draw due is {req.key!r}.", "")
    if req.kind == "pick":
        if len(outcome.values) != 1 or not 0 <= outcome.values[0] < n:
            raise violation("bad_draw", "A pick needs one index in range.", "")
    elif sorted(outcome.values) != list(range(n)):
        raise violation("bad_draw", "A shuffle needs a permutation of the items.", "")
    return req


def ranked(scores: Sequence[tuple[int, ...]], summaries: Sequence[str]) -> tuple[Standing, ...]:
    """Standings by score, seat by seat: a seat's rank is one more than the number of seats
    that scored more, so that equal scores share a rank (a shared victory)."""
    out = [
        Standing(
            seat=seat, rank=1 + sum(1 for other in scores if other > score), score=score, summary=summary
        )
        for seat, (score, summary) in enumerate(zip(scores, summaries, strict=True))
    ]
    return tuple(sorted(out, key=lambda x: (x.rank, x.seat)))


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def first(items: Any, default: Any = None) -> Any:
    return next(iter(items), default)


_REPLACERS: dict[type, Any] = {}  # slotted classes: a generated replace per class
_DICT_FIELDS: dict[type, frozenset[str]] = {}  # classes without slots: their field names
_MISSING = object()
_new = object.__new__  # bound once: replace() runs on every change of a state
_setattr = object.__setattr__


def _make_replacer(cls: type) -> Any:
    """Generate ``replace(obj, *, field=_MISSING, ...)`` for one slotted frozen dataclass: each
    slot set through its own descriptor, half the cost of a setattr by name."""
    names = [f.name for f in dataclasses.fields(cls)]
    params = ", ".join(f"{n}=_MISSING" for n in names)
    lines = [f"def replace(obj, *, {params}):", "    new = _new(_cls)"]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_MISSING": _MISSING}
    for i, n in enumerate(names):
        namespace[f"_slot{i}"] = getattr(cls, n).__set__  # the member descriptor, wherever declared
        lines.append(f"    _slot{i}(new, obj.{n} if {n} is _MISSING else {n})")
    lines.append("    return new")
    exec("\n".join(lines), namespace)  # noqa: S102 - generated from the dataclass's own field names
    return namespace["replace"]


def replace(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` for frozen dataclasses, several times faster: the fields are
    copied and the changed ones set (no ``__init__`` runs; an unknown field is a TypeError).
    A wide class (many fields) is declared without slots, so that its copy is one C-level copy
    of the instance's dict whatever the number of fields; a narrow one keeps its slots."""
    cls = type(obj)
    known = _DICT_FIELDS.get(cls)
    if known is not None:
        if not known.issuperset(changes):
            raise TypeError(f"{cls.__name__} has no field {sorted(set(changes) - known)}")
        new = _new(cls)
        fields = obj.__dict__.copy()
        fields.update(changes)
        _setattr(new, "__dict__", fields)
        return new
    fn = _REPLACERS.get(cls)
    if fn is None:
        if "__slots__" not in cls.__dict__:  # fields in the instance dict
            _DICT_FIELDS[cls] = frozenset(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
            return replace(obj, **changes)
        fn = _REPLACERS[cls] = _make_replacer(cls)
    return fn(obj, **changes)  # type: ignore[no-any-return]

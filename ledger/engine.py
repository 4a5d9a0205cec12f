"""The interface every title's rules engine implements.

A title is a set of pure functions over frozen state (DESIGN.md, "One title =
one rules engine"):

- ``new_game(options, seats)``: the position before any draw or decision;
- ``pending(state)``: what the game waits for — decisions of some seats, one
  random draw, or nothing because it is over;
- ``legal_decisions(state, seat)``: every legal decision of that seat, ready to send;
- ``apply(state, seat, decision)`` / ``apply_draw(state, outcome)``: validate and
  resolve, running every automatic procedure up to the next decision or draw;
- ``view(state, seat)``: what that seat (``None``: a spectator) may see;
- ``standings(state)``: ranks with the rulebook's tie-breaks;
- ``conservation(state)``: the title's conservation laws (empty when they hold);
- ``secrets(state, seat)``: identifiers that seat must not see right now (the
  conformance harness checks that none appears in its view).

Nothing here reads the clock, the network or a global random generator:
randomness enters only as a ``DrawOutcome`` the ledger derives from the
game's seed.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Annotated, Any, ClassVar, Literal, Protocol, TypeVar, Union, cast, dataclass_transform

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

# --- decisions -------------------------------------------------------------


class Decision(BaseModel):
    """Base of every decision: a frozen model with a ``type`` discriminator, named in the class
    statement (``class RentShip(Decision, type="rent_ship")``) and stored with every decision."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    type: str = ""

    def __init_subclass__(cls, type: str | None = None, **kwargs: Any) -> None:
        if type is not None:  # the discriminator: the first field, a literal (pydantic reads it next)
            cls.__annotations__ = {"type": Literal[type], **inspect.get_annotations(cls)}
            cls.type = type
        super().__init_subclass__(**kwargs)


def decision_adapter(module: str) -> TypeAdapter[Any]:
    """The discriminated union of the decisions a module defines, in the order it defines them."""
    members = tuple(
        cls
        for cls in vars(sys.modules[module]).values()
        if isinstance(cls, type) and issubclass(cls, Decision) and cls.__module__ == module
    )
    return TypeAdapter(Annotated[Union[members], Field(discriminator="type")])  # type: ignore[arg-type]  # noqa: UP007


class TitleOptions(BaseModel):
    """Base of every title's options (variant modules and rule flags)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @classmethod
    def for_new_game(cls, options: dict[str, Any]) -> dict[str, Any]:
        """The options a new game is created with: those given, with any a title fills in when
        they are left out (a default that depends on another option). Games already recorded
        keep the options they stored."""
        return options


# --- effects ---------------------------------------------------------------

Audience = tuple[int, ...] | None
"""Who may see an effect: ``None`` everyone, ``()`` no player (yet), ``(s, ...)`` those seats."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Effect:
    """A resolved fact (past tense). Subclasses set ``kind`` and add fields; the stored payload
    is the kind and the fields in the order declared, or in ``recorded_order`` where a title's
    subclass adds a field amid its base's (the order its games have always been recorded in)."""

    kind: ClassVar[str] = "effect"
    recorded_order: ClassVar[tuple[str, ...]] = ()
    visible_to: Audience = None

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        names = _PAYLOAD_FIELDS.get(type(self)) or _payload_fields(type(self))
        for name in names:
            out[name] = _jsonable(getattr(self, name))
        return out


_PAYLOAD_FIELDS: dict[type[Effect], tuple[str, ...]] = {}
_E = TypeVar("_E", bound=type[Effect])


@dataclass_transform(frozen_default=True, kw_only_default=True)
def effect(kind: str | None = None) -> Callable[[_E], _E]:
    """An effect class of this ``kind`` (None: its base's): a frozen, slotted dataclass whose
    fields are given by keyword."""

    def make(cls: _E) -> _E:
        if kind is not None:
            cls.kind = kind
        return dataclass(frozen=True, slots=True, kw_only=True)(cls)  # type: ignore[return-value]

    return make


def _payload_fields(cls: type[Effect]) -> tuple[str, ...]:
    declared = tuple(f.name for f in dataclasses.fields(cls) if f.name != "visible_to")
    if cls.recorded_order:
        assert sorted(cls.recorded_order) == sorted(declared), (
            f"{cls.__name__}: recorded_order names every field"
        )
        declared = cls.recorded_order
    _PAYLOAD_FIELDS[cls] = declared
    return declared


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


# --- what the game waits for ---------------------------------------------


@dataclass(frozen=True, slots=True)
class DrawRequest:
    """A random draw the ledger must derive and record.

    ``shuffle``: a permutation of ``items`` (indices into it);
    ``pick``: one index in ``range(len(items))``.
    ``hidden``: whether the outcome stays secret from every player.
    """

    key: str
    kind: Literal["shuffle", "pick"]
    items: tuple[str, ...]
    hidden: bool
    label: str


@dataclass(frozen=True, slots=True)
class DrawOutcome:
    key: str
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Pending:
    seats: tuple[int, ...] = ()
    draw: DrawRequest | None = None
    finished: bool = False
    prompt: str = ""


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    rank: int
    score: tuple[int, ...]
    summary: str


def final_standings(ranked: Any, forfeited: list[int]) -> list[dict[str, Any]]:
    """The title's standings, with the seats that forfeited moved below everyone who played on."""
    playing = [s for s in ranked if s.seat not in forfeited]
    out = []
    for s in ranked:
        entry: dict[str, Any] = {
            "seat": s.seat,
            "rank": 1 + sum(1 for o in playing if o.rank < s.rank),
            "score": list(s.score),
            "summary": s.summary,
        }
        if s.seat in forfeited:
            entry.update(rank=len(playing) + 1, forfeited=True)
        out.append(entry)
    return sorted(out, key=lambda e: (e["rank"], e["seat"]))


@dataclass(frozen=True, slots=True)
class TitleMeta:
    id: str
    name: str
    min_players: int
    max_players: int
    description: str
    options: type[TitleOptions]
    rules_version: str
    engine_module: str
    highlights: tuple[str, ...] = ()  # effect kinds ("kind" or "kind:use") a simulation reports games using

    def options_schema(self) -> dict[str, Any]:
        return copy.deepcopy(_json_schema(self.options))


@functools.cache
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, generated once per process (pydantic rebuilds it on every call)."""
    return model.model_json_schema()


class RulesEngine(Protocol):
    meta: TitleMeta
    decision_adapter: TypeAdapter[Any]
    state_adapter: TypeAdapter[Any]

    def new_game(self, options: TitleOptions, seats: int) -> Any: ...
    def pending(self, state: Any) -> Pending: ...
    def legal_decisions(self, state: Any, seat: int) -> tuple[Decision, ...]: ...
    def apply(self, state: Any, seat: int, decision: Decision) -> tuple[Any, tuple[Effect, ...]]: ...
    def apply_draw(self, state: Any, outcome: DrawOutcome) -> tuple[Any, tuple[Effect, ...]]: ...
    def view(self, state: Any, seat: int | None) -> dict[str, Any]: ...
    def standings(self, state: Any) -> tuple[Standing, ...]: ...
    def conservation(self, state: Any) -> list[str]: ...
    def secrets(self, state: Any, seat: int | None) -> set[str]: ...
    def describe(self, effect: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str: ...


def module_engine(
    module: str, meta: TitleMeta, decision_adapter: TypeAdapter[Any], state: type
) -> RulesEngine:
    """A title's rules engine: the functions its rules module defines under the interface's
    names (``new_game``, ``pending``, ... ``describe``), with the title's metadata and its
    decision and state adapters."""
    functions = vars(sys.modules[module])
    return cast(
        RulesEngine,
        SimpleNamespace(
            meta=meta,
            decision_adapter=decision_adapter,
            state_adapter=TypeAdapter(state),
            **{name: functions[name] for name in _INTERFACE},
        ),
    )


_INTERFACE = tuple(
    name for name, member in vars(RulesEngine).items() if callable(member) and not name.startswith("_")
)

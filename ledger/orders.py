"""Standing orders and conditional replies: decisions a seat leaves behind so nobody waits.

A **standing order** is an ordered list of rules. Whenever the seat is awaited, the ledger reads
the rules in order; the first that *applies* makes the seat's decision:

- ``kinds``: the decision kinds of the title's schema the rule chooses among (its candidates are
  the seat's legal decisions of those kinds); it applies only when one of them is legal;
- ``where``: the candidates' fields must equal these values (``{"source": null}``: no sale from
  storage), ``at_most`` / ``at_least``: a number field's bounds (bid up to N pounds);
- ``only_when``: the rule applies only when every legal decision is of these kinds ("when my only
  choices are re-using a marker and ending the turn, end the turn");
- ``pick``: among the candidates, the ``first`` the rules list, the ``lowest`` or ``highest`` of
  ``field``, or the title's greedy bot's choice (``greedy``) in a completion of what the seat
  cannot see, sampled from the seat's view only;
- an end: ``until_version`` (an event number) or ``until_round`` (whole rounds, decades or
  cycles played, the title's progress count), and "cancel when" conditions: ``uses`` (at most
  that many decisions) and ``cancel_on_own_decision`` (the player deciding themself ends it).

A rule whose kinds are legal but whose filters leave no candidate is **dropped with a note** to
its owner (what it would choose is no longer legal: the bids passed N, the good is gone); the
next rule is read. A **conditional reply** says: if the next decision of seat X is D, reply E
(``D`` a decision, or a kind with ``where``); it is kept until X's next decision, and dropped
if anything else is decided first, if X decides otherwise, or if E is not legal when due.

Orders are private to their seat (the events hold them in the seat's private part) until they
act: then the decision is the seat's, recorded with ``by: "order"`` (or ``"reply"``) and the
rule's id. Everything here is pure: it reads a position only through the seat's legal decisions
and, for ``greedy``, the title's ``determinise`` of the seat's view.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ledger import registry
from ledger.canonical import derive_key
from ledger.engine import Decision
from ledger.errors import InvalidRequestError

MAX_RULES = 20
MAX_FIELDS = 16  # fields one rule's where, at_most or at_least may name
# No title's decision or count comes near a billion (money is in pounds or pence, events in
# thousands): a bound of an order beyond it can only be a mistake, or an attack on the readers.
GAME_NUMBER = 10**9
Number = Annotated[int, Field(ge=-GAME_NUMBER, le=GAME_NUMBER)]
Value = Annotated[str, Field(max_length=200)] | Number | bool | None


class Rule(BaseModel):
    """One rule of a standing order (see the module text)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kinds: tuple[str, ...] = Field(min_length=1, max_length=64, description="Decision kinds it chooses among")
    where: dict[str, Value] = Field(
        default_factory=dict, max_length=MAX_FIELDS, description="Fields a candidate must equal"
    )
    at_most: dict[str, Number] = Field(
        default_factory=dict, max_length=MAX_FIELDS, description="Number fields' upper bounds"
    )
    at_least: dict[str, Number] = Field(
        default_factory=dict, max_length=MAX_FIELDS, description="Number fields' lower bounds"
    )
    only_when: tuple[str, ...] | None = Field(
        None, description="Applies only when every legal decision is of these kinds"
    )
    pick: Literal["first", "lowest", "highest", "greedy"] = "first"
    field: str | None = Field(None, description="The number field lowest and highest compare")
    until_version: int | None = Field(
        None, ge=1, le=1_000_000, description="Ends after this event of the game"
    )
    until_round: int | None = Field(
        None, ge=0, le=1_000, description="Ends when this many rounds have been played"
    )
    uses: int | None = Field(None, ge=1, le=10_000, description="Cancelled after this many decisions")
    cancel_on_own_decision: bool = Field(False, description="Cancelled when the player decides themself")
    note: str = Field("", max_length=200, description="The owner's own words for it")

    @model_validator(mode="after")
    def _field_for_order(self) -> Rule:
        if self.pick in ("lowest", "highest") and not self.field:
            raise ValueError(f"pick {self.pick} needs the number field it compares")
        return self


class Reply(BaseModel):
    """If the next decision of ``seat`` is ``decision`` (or of ``kind`` with ``where``), reply ``reply``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: int = Field(ge=0, le=63)
    decision: dict[str, Any] | None = Field(None, description="The exact decision awaited")
    kind: str | None = Field(None, description="Or: any decision of this kind ...")
    where: dict[str, Value] = Field(
        default_factory=dict, max_length=MAX_FIELDS, description="... with these fields"
    )
    reply: dict[str, Any] = Field(description="The decision made in answer")

    @model_validator(mode="after")
    def _one_trigger(self) -> Reply:
        if (self.decision is None) == (self.kind is None):
            raise ValueError("a reply names the decision awaited, or its kind")
        return self


@cache
def kinds_of(title: str) -> tuple[str, ...]:
    """The decision kinds of a title's schema."""
    return tuple(sorted(fields_of(title)))


@cache
def fields_of(title: str) -> dict[str, frozenset[str]]:
    """Each decision kind of a title's schema and the names of its fields."""
    schema = registry.engine(title).decision_adapter.json_schema()
    out: dict[str, frozenset[str]] = {}
    for d in schema.get("$defs", {}).values():
        props = d.get("properties", {})
        kind = props.get("type", {})
        value = kind.get("const", kind.get("enum", [None])[0] if kind.get("enum") else None)
        if isinstance(value, str):
            out[value] = frozenset(props)
    return out


def _bad(message: str) -> InvalidRequestError:
    return InvalidRequestError(message, code="orders/invalid")


def parse_rules(title: str, raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rules as stored (validated, defaults left out), or ``orders/invalid``."""
    if len(raw) > MAX_RULES:
        raise _bad(f"At most {MAX_RULES} rules.")
    known = set(kinds_of(title))
    out = []
    for n, item in enumerate(raw, start=1):
        try:
            rule = Rule.model_validate(item)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            raise _bad(f"Rule {n}: {'.'.join(map(str, first['loc'])) or 'rule'}: {first['msg']}") from None
        unknown = sorted((set(rule.kinds) | set(rule.only_when or ())) - known)
        if unknown:
            raise _bad(f"Rule {n}: {unknown} are not decision kinds of {title}; its kinds: {list(known)}.")
        fields = set().union(*(fields_of(title)[k] for k in rule.kinds))
        named = {*rule.where, *rule.at_most, *rule.at_least, *((rule.field,) if rule.field else ())}
        if named - fields:
            raise _bad(
                f"Rule {n}: {sorted(named - fields)} are not fields of {list(rule.kinds)}; "
                f"their fields: {sorted(fields)}."
            )
        out.append(rule.model_dump(mode="json", exclude_defaults=True))
    return out


def parse_replies(title: str, seats: int, owner: int, raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(raw) > MAX_RULES:
        raise _bad(f"At most {MAX_RULES} replies.")
    eng = registry.engine(title)
    known = set(kinds_of(title))
    out = []
    for n, item in enumerate(raw, start=1):
        try:
            reply = Reply.model_validate(item)
            answer = eng.decision_adapter.validate_python(reply.reply).model_dump(mode="json")
            awaited = (
                None
                if reply.decision is None
                else eng.decision_adapter.validate_python(reply.decision).model_dump(mode="json")
            )
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            raise _bad(f"Reply {n}: {'.'.join(map(str, first['loc'])) or 'reply'}: {first['msg']}") from None
        if not 0 <= reply.seat < seats or reply.seat == owner:
            raise _bad(f"Reply {n}: seat {reply.seat} is not another seat of the game.")
        if reply.kind is not None and reply.kind not in known:
            raise _bad(f"Reply {n}: {reply.kind!r} is not a decision kind of {title}.")
        stored = reply.model_dump(mode="json", exclude_defaults=True)
        stored.update(reply=answer, **({"decision": awaited} if awaited is not None else {}))
        out.append(stored)
    return out


# -- choosing -------------------------------------------------------------------------------


def _fields(d: Decision) -> dict[str, Any]:
    return d.model_dump(mode="json")


def _matches(fields: dict[str, Any], where: dict[str, Any]) -> bool:
    return all(fields.get(k) == v for k, v in where.items())


def _number(fields: dict[str, Any], name: str) -> float:
    value = fields.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value)


@dataclass(frozen=True)
class Outcome:
    """What a standing order does at a position: decide (``decision`` by rule ``order``), drop
    rules (``dropped``: ids and notes), or neither."""

    decision: Decision | None = None
    order: str | None = None
    dropped: tuple[tuple[str, str], ...] = ()


def expired(rule: dict[str, Any], version: int, rounds: int) -> bool:
    until_version, until_round = rule.get("until_version"), rule.get("until_round")
    return (until_version is not None and version > until_version) or (
        until_round is not None and rounds >= until_round
    )


def rounds_played(title: str, state: Any) -> int:
    """Whole rounds (decades, cycles) played: the title's progress count."""
    from ledger.bots import strong

    return int(strong.sampling_module(title).progress(state))


def greedy_choice(
    title: str, state: Any, seat: int, candidates: list[Decision], seed: bytes, version: int
) -> Decision:
    """The greedy bot's choice in a completion sampled from the seat's view (never the real hidden
    items); the first candidate when it chooses something else."""
    from ledger.bots import strong

    bot = registry.bot(title)
    if bot is None:
        return candidates[0]
    world_seed = int.from_bytes(derive_key(seed, f"order:{version}:{seat}")[:8], "big")
    world = strong.sampling_module(title).determinise(state, seat, random.Random(world_seed))
    choice = bot(world, seat)
    return choice if choice in candidates else candidates[0]


def apply_orders(
    title: str, state: Any, seat: int, rules: tuple[dict[str, Any], ...], version: int, seed: bytes
) -> Outcome:
    """The seat's standing order at this position (the seat is awaited). ``version``: the event
    the decision would be; ``seed``: the game's, for ``greedy``'s sampled completion."""
    eng = registry.engine(title)
    legal = eng.legal_decisions(state, seat)
    legal_kinds = {_fields(d)["type"] for d in legal}
    rounds = rounds_played(title, state)
    dropped: list[tuple[str, str]] = []
    for rule in rules:
        if expired(rule, version, rounds):
            dropped.append((rule["id"], "its end has come"))
            continue
        if not legal_kinds & set(rule["kinds"]):
            continue
        only = rule.get("only_when")
        if only is not None and not legal_kinds <= set(only):
            continue
        candidates = []
        for d in legal:
            f = _fields(d)
            if f["type"] not in rule["kinds"] or not _matches(f, rule.get("where", {})):
                continue
            if any(_number(f, k) > v for k, v in rule.get("at_most", {}).items()):
                continue
            if any(_number(f, k) < v for k, v in rule.get("at_least", {}).items()):
                continue
            candidates.append(d)
        if not candidates:
            dropped.append((rule["id"], "what it would choose is no longer legal"))
            continue
        pick = rule.get("pick", "first")
        if pick in ("lowest", "highest"):
            key = rule["field"]
            ordered = sorted(candidates, key=lambda d: _number(_fields(d), key))
            choice = ordered[0] if pick == "lowest" else ordered[-1]
        elif pick == "greedy":
            choice = greedy_choice(title, state, seat, candidates, seed, version)
        else:
            choice = candidates[0]
        return Outcome(choice, rule["id"], tuple(dropped))
    return Outcome(None, None, tuple(dropped))


def reply_matches(reply: dict[str, Any], seat: int, decision: dict[str, Any]) -> bool:
    """Is ``decision`` by ``seat`` the one the reply waits for?"""
    if reply["seat"] != seat:
        return False
    if reply.get("decision") is not None:
        return bool(reply["decision"] == decision)
    return decision.get("type") == reply.get("kind") and _matches(decision, reply.get("where", {}))

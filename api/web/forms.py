"""Forms generated from JSON schemas: one per decision type among a seat's legal decisions.

A field per property of the decision's schema: an enum is a select (the values the
legal decisions list first), a string the legal decisions enumerate (a card, a ship)
is a select of those values, an integer a number input with the schema's bounds, a
boolean a checkbox, an array of enum values repeated selects, a fixed-length tuple one
input per item; anything else a JSON text area. Every field is pre-filled from the
first legal decision of its type. The same builder makes the option fields of the
create-game page from a title's options schema (no legal decisions there).

The page's script reads the fields back by their ``kind`` (see static/app.js:
``collect``): select values are JSON literals, numbers and checkboxes are typed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["select", "int", "bool", "str", "list", "tuple", "json"]
NONE_LABEL = "(none)"
MAX_BUTTONS = 12  # one-click buttons for a decision type whose legal list is this short
MAX_REPEATS = 6  # repeated selects for an array of enum values without maxItems


@dataclass(frozen=True)
class Option:
    value: str  # a JSON literal
    label: str
    listed: bool  # among the legal decisions' values


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: Kind
    required: bool
    description: str = ""
    nullable: bool = False
    value: Any = None  # the pre-filled value (Python, not yet encoded)
    options: tuple[Option, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    parts: tuple[Field, ...] = ()  # list and tuple: one input per item
    hint: str = ""  # the values the legal decisions list, for number inputs

    @property
    def json_value(self) -> str:
        return json.dumps(self.value)


@dataclass(frozen=True)
class Button:
    label: str
    decision: dict[str, Any]


@dataclass(frozen=True)
class DecisionForm:
    type: str
    title: str
    description: str
    fields: tuple[Field, ...]
    buttons: tuple[Button, ...] = ()
    legal_count: int = 0
    initial: dict[str, Any] = field(default_factory=dict)


def human(text: Any) -> str:
    """``stay_in_region`` / ``NORTH_AMERICA`` / ``StayInRegion`` -> ``Stay in region``."""
    if text is None:
        return NONE_LABEL
    if isinstance(text, bool):
        return "yes" if text else "no"
    s = str(text)
    if re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+", s):  # CamelCase
        s = re.sub(r"(?<!^)([A-Z])", r" \1", s)
    s = s.replace("_", " ").strip()
    if s.isupper() and len(s) > 3:
        s = s.lower()
    return s[:1].upper() + s[1:] if s else s


def value_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(value_text(v) for v in value) or "nothing"
    if isinstance(value, str):
        return human(value) if value.isupper() or "_" in value else value
    return human(value)


def _deref(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = {
            **defs[schema["$ref"].rsplit("/", 1)[-1]],
            **{k: v for k, v in schema.items() if k != "$ref"},
        }
    return dict(schema)


def _unwrap_nullable(schema: dict[str, Any], defs: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    variants = schema.get("anyOf")
    if variants:
        rest = [_deref(v, defs) for v in variants if v.get("type") != "null"]
        if len(rest) == 1 and len(rest) < len(variants):
            outer = {k: v for k, v in schema.items() if k != "anyOf"}
            return {**rest[0], **outer}, True
    return schema, False


def _unique(values: Iterable[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for v in values:
        key = json.dumps(v, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _part_labels(label: str, description: str, count: int) -> list[str]:
    """``The large warehouse afterwards: food, clothes, cutlery, lamps`` names the items."""
    _, sep, names = description.rpartition(":")
    parts = [p.strip() for p in names.split(",")] if sep else []
    if len(parts) == count and all(parts):
        return [f"{label}: {p}" for p in parts]
    return [f"{label} {i + 1}" for i in range(count)]


def build_field(
    name: str,
    prop: Mapping[str, Any],
    defs: Mapping[str, Any],
    *,
    required: bool,
    listed: list[Any] | None = None,
    prefill: Any = None,
    has_prefill: bool = False,
) -> Field:
    """One field for property ``name``; ``listed``: the values the legal decisions give it."""
    schema, nullable = _unwrap_nullable(_deref(prop, defs), defs)
    label = str(schema.get("title") or human(name))
    description = str(schema.get("description") or "")
    listed = _unique(listed or [])
    if not has_prefill:
        prefill = listed[0] if listed else schema.get("default")
    common: dict[str, Any] = {
        "name": name,
        "label": label,
        "required": required,
        "description": description,
        "nullable": nullable,
    }
    typ = schema.get("type")

    def options(candidates: list[Any]) -> tuple[Option, ...]:
        listed_keys = {json.dumps(v, sort_keys=True) for v in listed}
        ordered = [*listed, *(c for c in candidates if json.dumps(c, sort_keys=True) not in listed_keys)]
        if nullable and None not in ordered:
            ordered.append(None)
        return tuple(
            Option(json.dumps(v), value_text(v), json.dumps(v, sort_keys=True) in listed_keys)
            for v in ordered
        )

    if "enum" in schema or "const" in schema:
        enum = list(schema.get("enum", [schema.get("const")]))
        return Field(**common, kind="select", value=prefill, options=options(enum))
    if typ == "boolean":
        return Field(**common, kind="bool", value=bool(prefill))
    if typ == "integer":
        shown = [v for v in listed if isinstance(v, int)]
        hint = ", ".join(str(v) for v in sorted(shown)) if 1 < len(shown) <= 20 else ""
        return Field(
            **common,
            kind="int",
            value=prefill,
            minimum=schema.get("minimum"),
            maximum=schema.get("maximum"),
            hint=hint,
        )
    if typ == "string":
        if listed:
            return Field(**common, kind="select", value=prefill, options=options([]))
        return Field(**common, kind="str", value=prefill if prefill is not None else "")
    if typ == "array" and "prefixItems" in schema and schema.get("minItems") == schema.get("maxItems"):
        items = [_deref(i, defs) for i in schema["prefixItems"]]
        values = list(prefill) if isinstance(prefill, list | tuple) else [None] * len(items)
        labels = _part_labels(label, description, len(items))
        parts = tuple(
            build_field(
                f"{name}.{i}",
                {**item, "title": labels[i]},
                defs,
                required=True,
                listed=[v[i] for v in listed if isinstance(v, list | tuple) and len(v) == len(items)],
                prefill=values[i] if i < len(values) else None,
                has_prefill=True,
            )
            for i, item in enumerate(items)
        )
        if all(p.kind in ("int", "select", "bool", "str") for p in parts):
            return Field(**common, kind="tuple", value=prefill, parts=parts)
    if typ == "array" and "enum" in _deref(schema.get("items", {}), defs):
        item = _deref(schema["items"], defs)
        values = list(prefill) if isinstance(prefill, list | tuple) else []
        longest = max([len(v) for v in listed if isinstance(v, list | tuple)] + [len(values)])
        wanted = schema.get("maxItems") or max(
            longest + 1, int(schema.get("minItems") or 0), MAX_REPEATS // 2
        )
        count = max(min(int(wanted), MAX_REPEATS), longest, 1)
        parts = tuple(
            Field(
                name=f"{name}.{i}",
                label=f"{label} {i + 1}",
                kind="select",
                required=False,
                nullable=True,
                value=values[i] if i < len(values) else None,
                options=(
                    Option("null", "(nothing)", False),
                    *(Option(json.dumps(v), value_text(v), False) for v in item["enum"]),
                ),
            )
            for i in range(count)
        )
        return Field(**common, kind="list", value=values, parts=parts)
    if listed:
        return Field(**common, kind="select", value=prefill, options=options([]))
    return Field(**common, kind="json", value=prefill if prefill is not None else schema.get("default"))


def decision_schemas(schema: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The schema of each decision type (by its ``type`` constant), from a title's union schema."""
    defs = schema.get("$defs", {})
    out: dict[str, dict[str, Any]] = {}
    for variant in schema.get("oneOf") or schema.get("anyOf") or [schema]:
        d = _deref(variant, defs)
        type_prop = d.get("properties", {}).get("type", {})
        const = type_prop.get("const") or (type_prop.get("enum") or [None])[0]
        if const:
            out[str(const)] = d
    return out


def button_label(decision: Mapping[str, Any], title: str) -> str:
    details = [
        f"{human(k)} {value_text(v)}" if not isinstance(v, bool) else human(k)
        for k, v in decision.items()
        if k != "type" and v not in (None, False, [], (), "")
    ]
    return f"{title}: {', '.join(details)}" if details else title


def decision_form(
    type_: str, schema: Mapping[str, Any], defs: Mapping[str, Any], legal: list[dict[str, Any]]
) -> DecisionForm:
    props = {k: v for k, v in schema.get("properties", {}).items() if k != "type"}
    required = set(schema.get("required", []))
    first = legal[0] if legal else {}
    fields = tuple(
        build_field(
            name,
            prop,
            defs,
            required=name in required,
            listed=[d[name] for d in legal if name in d],
            prefill=first.get(name),
            has_prefill=name in first,
        )
        for name, prop in props.items()
    )
    title = human(type_)
    buttons: tuple[Button, ...] = ()
    if legal and len(legal) <= MAX_BUTTONS:
        buttons = tuple(Button(button_label(d, title), d) for d in legal)
    return DecisionForm(
        type=type_,
        title=title,
        description=str(schema.get("description") or ""),
        fields=fields,
        buttons=buttons,
        legal_count=len(legal),
        initial=dict(first),
    )


def decision_forms(
    schema: Mapping[str, Any],
    legal: list[dict[str, Any]],
    schemas: Mapping[str, dict[str, Any]] | None = None,
) -> list[DecisionForm]:
    """One form per decision type among ``legal``, in the order the types first appear
    (``schemas``: ``decision_schemas(schema)``, when the caller keeps it)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for d in legal:
        by_type.setdefault(str(d.get("type")), []).append(d)
    schemas = schemas if schemas is not None else decision_schemas(schema)
    defs = schema.get("$defs", {})
    return [
        decision_form(t, schemas.get(t, {"properties": {}}), defs, decisions)
        for t, decisions in by_type.items()
    ]


def option_fields(schema: Mapping[str, Any]) -> list[Field]:
    """The fields of a title's options schema (create-game page), with their defaults."""
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    return [
        build_field(name, prop, defs, required=name in required)
        for name, prop in schema.get("properties", {}).items()
    ]

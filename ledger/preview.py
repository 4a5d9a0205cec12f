"""What a decision would do, before it is stored (DESIGN.md, "The table").

A preview is the title's ``apply`` on the game's current position — a frozen value, so
nothing is changed — with exactly the checks of a real decision (seat, turn, version, rules
version, a valid decision, the rulebook), its effects filtered for the caller exactly as the
stored decision's own answer would be, and nothing more: it stops before any random draw
and says what will be drawn, never what. Nothing is written and no draw is derived.

Turning up something hidden (the next card of a shuffled deck, a face-down marker, a peek)
is a draw too: a decision that would show the caller anything the title keeps secret from
it now is previewed as "stops before that", with none of its effects and no position after
it, so that nobody learns a hidden card by previewing a decision and then not making it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ledger import registry
from ledger.canonical import canonical
from ledger.domain import Game
from ledger.engine import Decision
from ledger.errors import (
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    NotYourTurnError,
    StaleVersionError,
)
from ledger.export import visible_effects
from ledger.records import split_effects


def first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err.get("loc", ()))
    return f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid"))


def seats_at(game: Game, player: str, expected_version: int) -> list[int]:
    """The player's seats in a running game seen at its current version (what a decision,
    its preview and an undo all need), or the refusal that says which of these is not so."""
    seats = game.seats_of(player)
    if not seats:
        raise ForbiddenError("You hold no seat in this game.", code="game/not_seated")
    if game.status != "active":
        raise ConflictError(f"The game is {game.status}.", code=f"game/{game.status}")
    if expected_version != game.version:
        raise StaleVersionError(
            f"The game is at version {game.version}, not {expected_version}; reload and try again.",
            current_version=game.version,
        )
    return seats


def checked_decision(
    game: Game, player: str, expected_version: int, decision: dict[str, Any], seat: int | None = None
) -> tuple[list[int], int, Decision]:
    """The player's seats, the seat that decides and the parsed decision — or the refusal a
    decision would get (not seated, not running, stale, not awaited, old rules, not a decision
    of the title). The rulebook's own judgement comes from ``apply``."""
    seats = seats_at(game, player, expected_version)
    awaited = [s for s in seats if s in game.awaiting]
    if seat is not None:
        if seat not in seats:
            raise ForbiddenError(f"Seat {seat} is not yours.", code="game/not_your_seat")
        awaited = [seat] if seat in awaited else []
    if not awaited:
        raise NotYourTurnError("The game is not waiting for your decision.")
    current = registry.meta(game.title).rules_version
    if game.rules_version != current:
        raise ConflictError(
            f"This game runs under {game.rules_version}; this server has {current}. It waits until an "
            "administrator migrates it after a re-simulation (gameledger resimulate / migrate).",
            code="game/rules_version",
        )
    eng = game.engine
    try:
        # strictly, as the JSON a client sends: an integer is an integer, a bool a bool ("3" or
        # true for a count are refused, not coerced); arrays still make the schemas' tuples
        parsed = eng.decision_adapter.validate_json(canonical(decision), strict=True)
    except ValidationError as exc:
        raise InvalidRequestError(
            f"Not a {eng.meta.name} decision: {first_error(exc)}", code="request/invalid_decision"
        ) from None
    return seats, awaited[0], parsed


@dataclass(frozen=True)
class NextDraw:
    """The random draw the game would make next: what is drawn, never the outcome."""

    key: str
    kind: str  # "shuffle" or "pick"
    label: str
    size: int
    hidden: bool


@dataclass(frozen=True)
class Reveal:
    """Hidden information the decision would turn up for the caller: how much, never what."""

    items: int


@dataclass(frozen=True)
class Preview:
    game_id: str
    version: int  # the position previewed (nothing moves it)
    seat: int
    decision: dict[str, Any]
    effects: list[dict[str, Any]]  # as the stored decision's answer would show them to the caller
    public_effects: list[dict[str, Any]]  # what every seat would be shown (the read models' input)
    awaiting: list[int]  # whose decision the game would wait for next (before any draw)
    finished: bool
    draw: NextDraw | None
    reveal: Reveal | None  # set: the preview stops before it (no effects, no position after)
    prompt: str
    state: Any = field(repr=False)  # the engine's position afterwards (the current one if revealing)


def preview_decision(
    game: Game, player: str, expected_version: int, decision: dict[str, Any], seat: int | None = None
) -> Preview:
    """The decision applied to a copy of the position: refused exactly as the decision would
    be, otherwise what it would do, as the caller would be shown it."""
    seats, deciding, parsed = checked_decision(game, player, expected_version, decision, seat)
    eng = game.engine
    before = game.state
    after, effects = eng.apply(before, deciding, parsed)  # frozen state: the game is untouched
    pending = eng.pending(after)
    revealed = eng.secrets(before, deciding) - eng.secrets(after, deciding)
    draw = None
    if pending.draw is not None:
        d = pending.draw
        draw = NextDraw(key=d.key, kind=d.kind, label=d.label, size=len(d.items), hidden=d.hidden)
    if revealed:
        return Preview(
            game_id=str(game.id),
            version=game.version,
            seat=deciding,
            decision=parsed.model_dump(mode="json"),
            effects=[],
            public_effects=[],
            awaiting=[],
            finished=False,
            draw=draw,
            reveal=Reveal(items=len(revealed)),
            prompt="",
            state=before,
        )
    public, private = split_effects(effects)
    record = {"public": {"effects": public}, "private": private}
    return Preview(
        game_id=str(game.id),
        version=game.version,
        seat=deciding,
        decision=parsed.model_dump(mode="json"),
        effects=visible_effects(record, seats, pending.finished),
        public_effects=public,
        awaiting=list(pending.seats),
        finished=pending.finished,
        draw=draw,
        reveal=None,
        prompt=pending.prompt,
        state=after,
    )

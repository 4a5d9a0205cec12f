"""The vocabulary the economic titles share: effects and decisions every one of them speaks,
and the log's words for them.

Money changes hands, shares are bought and sold, a company's share value moves, loans are
taken and repaid, a player goes out of the game, decks are shuffled, a start player is drawn
or changes, decades and cycles begin, factories are built, goods are produced, sold and
stored, distribution decays, and the final scores are told. A title uses these as they are,
or adds its own fields in a subclass (the stored payload keeps the order its games were
always recorded in: the base's fields, then the title's, unless ``recorded_order`` says
otherwise); whatever only one title knows stays in that title's ``effects`` module.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import Field

from ledger.engine import Decision, Effect, effect

# --- effects ------------------------------------------------------------------------------


@effect("money_changed")
class MoneyChanged(Effect):
    seat: int
    amount: int
    balance: int
    reason: str


@effect("shares_changed")
class SharesChanged(Effect):
    """Shares of the seat's own company bought (``delta`` > 0) or given up."""

    seat: int
    delta: int
    held: int
    price: int
    reason: str


@effect("share_price_changed")
class SharePriceChanged(Effect):
    """A company's share value moved on its track (``space_from`` None: placed at setup)."""

    company: int
    space_from: int | None
    space_to: int
    value_from: int | None
    value_to: int
    currency: str = "pounds"
    cause: str


def share_moved(
    company: int,
    space_from: int | None,
    space_to: int,
    cause: str,
    value: Callable[[int], int] | None = None,
    currency: str = "pounds",
) -> SharePriceChanged:
    """``company``'s share value moved from one space of its track to another (``space_from``
    None: placed at setup); ``value`` reads a space's value in ``currency`` (none: the space is
    the value)."""
    worth = value or (lambda space: space)
    return SharePriceChanged(
        company=company,
        space_from=space_from,
        space_to=space_to,
        value_from=None if space_from is None else worth(space_from),
        value_to=worth(space_to),
        currency=currency,
        cause=cause,
    )


@effect("loans_changed")
class LoansChanged(Effect):
    seat: int
    delta: int
    loans: int


@effect("player_eliminated")
class PlayerEliminated(Effect):
    seat: int


@effect("deck_shuffled")
class DeckShuffled(Effect):
    deck: str
    cards: int


@effect("start_player_drawn")
class StartPlayerDrawn(Effect):
    seat: int


@effect("start_player_changed")
class StartPlayerChanged(Effect):
    seat: int
    reason: str


@effect("decade_started")
class DecadeStarted(Effect):
    decade: int


@effect("cycle_started")
class CycleStarted(Effect):
    """A cycle of production began (the share-value history keys its periods on it)."""

    decade: int
    cycle: int
    good: str


@effect("factory_built")
class FactoryBuilt(Effect):
    seat: int
    good: str


@effect("goods_produced")
class GoodsProduced(Effect):
    seat: int
    good: str
    count: int


@effect("goods_sold")
class GoodsSold(Effect):
    seat: int
    good: str


@effect("goods_stored")
class GoodsStored(Effect):
    seat: int
    good: str


@effect("distribution_decayed")
class DistributionDecayed(Effect):
    seat: int
    good: str


@effect("game_scored")
class GameScored(Effect):
    scores: tuple[int, ...]
    winners: tuple[int, ...]


# --- decisions ----------------------------------------------------------------------------


class ChooseStartPlayer(Decision, type="choose_start_player"):
    """The owner of the least valuable portfolio names the next start player."""

    seat: int = Field(ge=0, le=3)


# --- the log in words ---------------------------------------------------------------------

Who = Callable[[int | None], str]
"""A seat's name in the log (``None``: the neutral player of a two-player card game)."""

Words = str | Callable[[Mapping[str, Any], Who], str]
"""The words of one kind of effect: a template of its payload's fields (``{seat:who}`` names a
seat, ``{reason:spelt}`` spells a word out, ``{good:lower}`` says a good, ``{count:# workers}``
says a number of things in the right number (``{delta:#abs loans}`` the number without its sign), ``{lost:?, {lost} lost}`` says its text only when
the field is set, ``{delta:+took|repaid}`` says the first word for a positive number and the
second otherwise, and ``{delta:abs}`` the number without its sign), or, where the words depend otherwise on the values, a function of the
payload and the namer of seats."""

SINGULAR = {"pence": "penny", "clothes": "clothes"}
"""Plural nouns whose singular is not the noun without its final "s"."""


def counted(n: int, things: str) -> str:
    """``n`` and ``things`` (a plural noun, or words ending in one) in the right number:
    ``counted(1, "stored lamps")`` -> ``1 stored lamp``; a noun without a plural "s" (food,
    cutlery, cotton, VIP) stays as it is."""
    if n != 1:
        return f"{n} {things}"
    *before, noun = things.split(" ")
    one = SINGULAR.get(noun, noun.removesuffix("s"))
    return " ".join([str(n), *before, one])


class Template(string.Formatter):
    """A words template filled in from an effect's payload."""

    def __init__(self, who: Who) -> None:
        self.who = who

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == "who":
            return self.who(value)
        if format_spec == "spelt":
            return spelt(value)
        if format_spec == "lower":
            return str(value or "").lower()
        if format_spec.startswith("# "):
            return counted(value, format_spec[2:])
        if format_spec.startswith("#abs "):
            return counted(abs(value), format_spec[5:])
        if format_spec.startswith("?"):
            return format_spec[1:] if value else ""
        if format_spec.startswith("+"):
            gained, lost = format_spec[1:].split("|")
            return gained if value > 0 else lost
        if format_spec == "abs":
            return str(abs(value))
        return str(super().format_field(value, format_spec))


def tell(words: Mapping[str, Words], effect: Mapping[str, Any], names: Mapping[int, str] | None) -> str:
    """An effect in the words of a title's log (its kind spelt out when the title has none)."""

    def who(seat: int | None) -> str:
        if seat is None:
            return "The neutral player"
        return (names or {}).get(seat, f"Seat {seat}")

    render = words.get(effect["kind"])
    if render is None:
        return str(effect["kind"]).replace("_", " ")
    if isinstance(render, str):
        return Template(who).vformat(render, (), effect)
    return render(effect, who)


Describe = Callable[[Mapping[str, Any], "Mapping[int, str] | None"], str]


def teller(words: Mapping[str, Words]) -> Describe:
    """A title's ``describe``: its effects in the words of its log, with the players' names."""

    def describe(effect: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
        return tell(words, effect, names)

    return describe


def good(e: Mapping[str, Any]) -> str:
    """The effect's good as the log says it (lower case; empty without one)."""
    return str(e.get("good", "") or "").lower()


def spelt(word: str) -> str:
    """A reason or cause as the log says it: ``emergency_sale`` -> ``emergency sale``."""
    return word.replace("_", " ")


def money_changed(purse: str) -> Words:
    """Pounds received or paid, and what the seat holds after (its ``purse``: cash, money)."""
    return "{seat:who} {amount:+received|paid} £{amount:abs} ({reason:spelt}); " + purse + " £{balance}."


WORDS: dict[str, Words] = {
    "start_player_drawn": "{seat:who} was drawn to start.",
    "goods_produced": "{seat:who} produced {count:# {good:lower}}.",
    "game_scored": lambda e, who: (
        "Final scores: " + ", ".join(f"{who(i)} £{v}" for i, v in enumerate(e["scores"])) + "."
    ),
}
"""The words of the shared effects that every title says alike."""

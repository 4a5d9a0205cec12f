"""Words the titles' logs share beyond ``ledger.games.vocabulary``'s: a number of things said
in the right number ("stored 1 lamp", "stored 2 lamps", "paid 1 penny")."""

from __future__ import annotations

from ledger.games.vocabulary import Words, good

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


WORDS: dict[str, Words] = {
    "goods_produced": lambda e, who: f"{who(e['seat'])} produced {counted(e['count'], good(e))}.",
}
"""The shared effects' words that say a number of things (over ``vocabulary.WORDS``'s)."""

"""What a finished game's record means for league statistics, title by title.

These are the definitions every published figure rests on (the README repeats them):

- **Final value**: the title's own measure of a company at the end, in its unit. Water Frame:
  the portfolio, shares times share value (£, R16 8.0). The card game: share value times shares
  after final scoring (£). Cotton Trade: the money at the end, kept in pence (1 pound =
  3 shillings = 9 pence) and shown in the last stage's coins. A seat the rules do not score has
  none: Water Frame's players with loans at the end (8.0, "automatically lose") and the card
  game's bankrupt players (5.15). A forfeited seat keeps the value its company ended with, but
  ranks last and counts in no average or distribution of final values.
- **Start position**: the seat's place (1 = first) in the game's first turn order: Cotton
  Trade's drawn first player and its order; Water Frame's and the card game's start player,
  drawn or chosen at setup, then clockwise.
- **Win**: rank 1 in the recorded standings (ties share it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

PLAYED, FORFEITED, ELIMINATED = "played", "forfeited", "eliminated"
PENCE_PER = {"pound": 9, "shilling": 3, "penny": 1}
NONE = "\u2013"  # an en dash: no figure


def outcome(title: str, standing: Mapping[str, Any]) -> str:
    """How the seat ended: it played on, forfeited (its clock ran out), or was eliminated."""
    if standing.get("forfeited"):
        return FORFEITED
    score = standing.get("score") or []
    if title in ("water-frame", "arkwright-card-game") and score and score[0] == 0:
        return ELIMINATED  # (0 = eliminated, value, cash): loans at the end / bankrupt
    return PLAYED


def final_value(title: str, standing: Mapping[str, Any]) -> int | None:
    """The title's final value of a seat from its standing's score (None: the rules score it not)."""
    score = list(standing.get("score") or [])
    if not score:
        return None
    if title in ("water-frame", "arkwright-card-game"):
        return None if score[0] == 0 else int(score[1])  # eliminated: not scored
    if title == "cotton-trade":
        if len(score) == 1:  # the TOTAL_VALUE tie-break: already in pence
            return int(score[0])
        pounds, shillings, pence = score
        return int(pounds) * 9 + int(shillings) * 3 + int(pence)
    return int(score[0])


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def value_words(title: str, value: float | None) -> str:
    """A final value as people read it: "£161", or Cotton Trade's "29 pounds, 2 shillings and
    2 pence" (a mean keeps one decimal)."""
    if value is None:
        return NONE
    if value < 0:  # a debt at the end
        return "minus " + value_words(title, -value)
    if title == "cotton-trade":
        whole = round(value)
        if whole != value:
            return f"{value:.1f} pence"
        pounds, rest = divmod(int(whole), 9)
        shillings, pence = divmod(rest, 3)
        parts = [
            _plural(pounds, "pound", "pounds") if pounds else "",
            _plural(shillings, "shilling", "shillings") if shillings else "",
            _plural(pence, "penny", "pence") if pence else "",
        ]
        parts = [p for p in parts if p] or ["nothing"]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"£{value:.0f}" if float(value).is_integer() else f"£{value:.1f}"


def value_unit(title: str) -> str:
    return "pence" if title == "cotton-trade" else "£"


def first_turn_order(effects: Iterable[Mapping[str, Any]], seats: int) -> list[int] | None:
    """The game's first turn order, from the first effect that sets it (None: not yet)."""
    for fx in effects:
        kind = fx.get("kind")
        if kind == "first_player_drawn":  # Cotton Trade: the drawn first player and the order
            return [int(s) for s in fx["turn_order"]]
        if kind == "start_player_drawn" or (
            kind == "start_player_changed" and fx.get("reason") == "named_at_setup"
        ):  # Water Frame and the card game: the start player, then clockwise
            first = int(fx["seat"])
            return [(first + i) % seats for i in range(seats)]
    return None


# What winners did differently: a few counts per seat from each title's public effects.
# name -> (label, kinds counted, or a rule of its own)
MEASURES: dict[str, dict[str, str]] = {
    "water-frame": {
        "factories": "factories founded and built",
        "modernisations": "factories modernised",
        "tiles": "development tiles taken",
        "contracts": "contracts delivered",
    },
    "arkwright-card-game": {
        "development_cards": "development cards taken",
        "factories": "factories built (after setup)",
        "upgrades": "factories upgraded",
        "shipments": "goods shipped",
    },
    "cotton-trade": {
        "contracts": "contracts bought",
        "regions": "regions traded with (contracts)",
        "voyages": "voyages sailed",
        "passengers": "passenger voyages",
    },
}


# effect kind -> the measures one such effect of a seat adds to (a name, and the effect's field
# whose distinct values count, or None for one more)
_COUNTED: dict[str, dict[str, tuple[tuple[str, str | None], ...]]] = {
    "water-frame": {
        "factory_founded": (("factories", None),),
        "factory_built": (("factories", None),),
        "factory_modernized": (("modernisations", None),),
        "tile_taken": (("tiles", None),),
        "contract_delivered": (("contracts", None),),
    },
    "arkwright-card-game": {
        "factory_built": (("factories", None),),  # not those of the setup (below)
        "development_card_taken": (("development_cards", None),),
        "factory_upgraded": (("upgrades", None),),
        "goods_shipped": (("shipments", None),),
    },
    "cotton-trade": {
        "contract_bought": (("contracts", None), ("regions", "region")),
        "ship_sailed": (("voyages", None),),
        "passengers_carried": (("passengers", None),),
    },
}


def measure_keys(title: str, fx: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """(measure, distinct key or None) that one public effect adds to for its seat."""
    kind = fx.get("kind")
    counted = _COUNTED.get(title, {}).get(str(kind))
    if not counted:
        return []
    if title == "arkwright-card-game" and kind == "factory_built" and fx.get("reason") == "setup":
        return []
    return [(name, None if field is None else str(fx.get(field))) for name, field in counted]


def add_measures(doc: dict[str, Any], title: str, effects: Iterable[Mapping[str, Any]]) -> None:
    """Count the effects into ``doc["measures"]`` ("seat:name" -> count, or a list of distinct keys)."""
    table = _COUNTED.get(title)
    if not table:
        return
    counts = doc.setdefault("measures", {})
    for fx in effects:
        if fx.get("kind") not in table:
            continue
        seat = fx.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            continue
        for name, key in measure_keys(title, fx):
            slot = f"{seat}:{name}"
            if key is None:
                counts[slot] = counts.get(slot, 0) + 1
            else:
                seen = counts.setdefault(slot, [])
                if key not in seen:
                    seen.append(key)


def measures_of(doc: Mapping[str, Any], title: str, seat: int) -> dict[str, int]:
    counts = doc.get("measures", {})
    out = {}
    for name in MEASURES.get(title, {}):
        v = counts.get(f"{seat}:{name}", 0)
        out[name] = len(v) if isinstance(v, list) else int(v)
    return out


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95 %) of a proportion ``wins / n``."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    return max(0.0, (centre - margin) / den), min(1.0, (centre + margin) / den)


def days_words(days: float | None) -> str:
    """A length of time in days as people say it: "2 d 5 h", "5 h", "12 min", "under 1 min"."""
    if not isinstance(days, int | float):  # none (no finished game yet)
        return NONE
    minutes = round(float(days) * 24 * 60)
    d, rest = divmod(minutes, 24 * 60)
    h, m = divmod(rest, 60)
    if d:
        return f"{d} d {h} h" if h else f"{d} d"
    if h:
        return f"{h} h {m} min" if m else f"{h} h"
    return f"{m} min" if m else "under 1 min"


def count_words(n: int | None, one: str, many: str | None = None) -> str:
    """ "1 game", "2 games", "0 games"."""
    n = int(n or 0)
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def percent(x: float | None) -> str:
    return NONE if x is None else f"{100 * x:.0f} %"


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    mid = len(s) // 2
    return float(s[mid]) if len(s) % 2 else (s[mid - 1] + s[mid]) / 2

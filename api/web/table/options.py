"""Each title's options in players' words: a label, one sentence, the rulebook section, and
each choice's words (the create-game page). Options the rulebooks leave unclear say which
reading they take, in words rather than by the specification's ambiguity numbers."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from api.web.forms import Field
from api.web.table.water_frame_words import OPTIONS as WATER_FRAME

OptionWords = tuple[str, str, str, dict[str, str]]

COTTON_TRADE: dict[str, OptionWords] = {
    "shares_trade": (
        "Shares trade (advanced)",
        "Shares a player must sell are auctioned among the players, and the bank's shares at the "
        "end of each stage.",
        "Rulebook, advanced rules: shares trade",
        {},
    ),
    "reputation": (
        "Reputation (advanced)",
        "Each company earns reputation in the regions and in the United Kingdom, and spends it on "
        "its seven uses.",
        "Rulebook, advanced rules: reputation",
        {},
    ),
    "unrest_scope": (
        "When war breaks out",
        "Whether war comes when the unrest of all contracts together reaches the threshold, or "
        "region by region.",
        "Rulebook: war and peace (unclear; the first reading is ours)",
        {"GLOBAL_SUM": "when all regions' unrest together reaches it", "PER_REGION": "region by region"},
    ),
    "share_sale_for_voluntary_purchases": (
        "Selling shares to pay for a purchase",
        "Whether shares may be sold to pay for renting a ship or buying a contract, not only for "
        "costs a player must pay.",
        "Rulebook: paying costs (unclear; allowed is our reading)",
        {"ALLOWED": "allowed", "FORBIDDEN": "not allowed"},
    ),
    "adv_change": (
        "Old coins (shares trade)",
        "Whether coins of earlier stages are changed upwards between stages and at the end.",
        "Rulebook, advanced rules: changing money",
        {"CASCADE": "changed upwards", "LITERAL": "kept as they are"},
    ),
    "final_tiebreak": (
        "Ties at the end",
        "How equal fortunes are told apart at the end of the game.",
        "Rulebook: end of the game",
        {"LEXICOGRAPHIC": "by shillings, then pence", "TOTAL_VALUE": "by total value only"},
    ),
}

CARD_GAME: dict[str, OptionWords] = {
    "decade_restrictions": (
        "Decade restrictions (expert)",
        "Development levels need their decade; some cards lift the restriction.",
        "Rulebook, expert set-up 3",
        {},
    ),
    "choose_start": (
        "Choose your start (expert)",
        "Draft the two starting factories and choose the starting development.",
        "Rulebook, expert set-up 4",
        {},
    ),
    "no_starting_ships": (
        "No starting ships (expert)",
        "The shipping card starts in the reserve.",
        "Rulebook, expert set-up 7",
        {},
    ),
    "random_dev_supply": (
        "Random development supply (expert)",
        "A random supply of development cards from all 24 double-sided cards.",
        "Rulebook, expert set-up 10",
        {},
    ),
    "starting_shares": (
        "Starting shares (expert)",
        "Buy shares at £10 each before the game begins.",
        "Rulebook, expert set-up 11",
        {},
    ),
    "extra_production": (
        "Extra production (expert)",
        "A sixth action: one factory produces with none, one or both of its worker cards, its goods "
        "going into storehouses (the Extra shift may add one).",
        "Rulebook, expert action 6",
        {},
    ),
    "early_shipping": (
        "Early shipping (expert)",
        "A seventh action: ship goods from your storehouses, from any factories at once, before "
        "the production phase.",
        "Rulebook, expert action 7",
        {},
    ),
    "expert": (
        "Every expert variant",
        "Turn every expert variant on at once.",
        "Rulebook, expert variants",
        {"": "only those chosen here", "all": "all of them"},
    ),
    "build_market_per_factory": (
        "Building moves the market per factory",
        "Building moves demand and wages once per factory built, instead of once per action.",
        "Rulebook: building (unclear; once per action is our reading)",
        {},
    ),
    "extra_production_decay": (
        "Extra production wears distribution",
        "Extra production also lowers the factory's distribution by one.",
        "Rulebook, expert action 6 (unclear)",
        {},
    ),
    "patron_capped_by_appeal": (
        "Patron capped by appeal",
        "The patron's extra good is still limited by the appeal.",
        "Rulebook: the patron (unclear)",
        {},
    ),
    "ship_limit_counts_ships": (
        "Count ships, not shipping tokens",
        "At most 9 ships are used in the game, with the customs office or not.",
        "Rulebook: shipping (unclear)",
        {},
    ),
    "quality_cards": (
        "Quality cards",
        "The values the three quality cards may take.",
        "Rulebook: quality (unclear)",
        {"each_1_to_4": "each from 1 to 4", "two_low_one_high": "two low, one high"},
    ),
    "inventor_expert_anywhere": (
        "Inventor's expert use everywhere",
        "The inventor's expert use (two developments) without the decade restrictions.",
        "Rulebook: the inventor (unclear)",
        {},
    ),
}

OPTION_WORDS: dict[str, dict[str, OptionWords]] = {
    "water-frame": WATER_FRAME,
    "cotton-trade": COTTON_TRADE,
    "arkwright-card-game": CARD_GAME,
}


def in_words(title: str, fields: list[Field]) -> list[Field]:
    """The option fields of a title with their labels, sentences and choices in words."""
    words = OPTION_WORDS.get(title, {})
    out = []
    for f in fields:
        known = words.get(f.name)
        if known is None:
            out.append(f)
            continue
        label, sentence, section, values = known
        choices = tuple(dataclasses.replace(o, label=values.get(_value(o.value), o.label)) for o in f.options)
        out.append(
            dataclasses.replace(f, label=label, description=f"{sentence} ({section}.)", options=choices)
        )
    return out


def _value(literal: str) -> Any:
    value = json.loads(literal)
    return value if isinstance(value, str) else json.dumps(value)

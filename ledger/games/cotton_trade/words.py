"""The log in words: what each of Cotton Trade's effects says, from its stored payload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.games.vocabulary import Words, spelt, tell
from ledger.games.words import counted


def _opt(value: Any, template: str) -> str:
    return template.format(value) if value else ""


def _money(e: Mapping[str, Any], field: str) -> str:
    """An amount of the payload in its currency (``currency``: pounds, shillings, pence)."""
    return counted(e[field], str(e.get("currency", "")))


def _coins_text(coins: Any) -> str:
    pence, shillings, pounds = coins
    parts = [
        f"{pounds}£" if pounds else "",
        f"{shillings}s" if shillings else "",
        f"{pence}d" if pence else "",
    ]
    return " ".join(x for x in parts if x) or "nothing"


WORDS: dict[str, Words] = {
    "first_player_drawn": "{seat:who} was drawn to start.",
    "deck_shuffled": "The {deck} was shuffled ({cards} cards).",
    "money_changed": lambda e, who: (
        f"{who(e['seat'])} {'gained' if e['amount'] > 0 else 'paid'} {counted(abs(e['amount']), str(e.get('currency', '')))} ({spelt(e['reason'])}); now {e['balance']}."
    ),
    "turn_order_determined": lambda e, who: "Turn order: " + ", ".join(who(x) for x in e["turn_order"]) + ".",
    "share_price_changed": lambda e, who: (
        f"{who(e['company'])}'s share value is now {_money(e, 'value_to')} (space {e['space_to']})."
    ),
    "ship_cards_drawn": lambda e, who: "Ship cards drawn: " + ", ".join(e["cards"]) + ".",
    "contract_cards_drawn": lambda e, who: (
        f"Contracts drawn in {e['region']}: " + ", ".join(c or "face down" for c in e["cards"]) + "."
    ),
    "ship_rented": "{seat:who} rented ship {card} (capacity {capacity}) for {fee}.",
    "renting_passed": lambda e, who: (
        f"{who(e['seat'])} passed{' (no ship available)' if e['automatic'] else ''}."
    ),
    "contract_revealed": "Contract {card} turned face up in {region}.",
    "harbour_tokens_placed": lambda e, who: (
        f"{e['region']} harbour received {counted(e['coins'], 'coins')}, "
        f"{counted(e['passengers'], 'passengers')}, {e['vip']} VIP."
    ),
    "war_broke": "War broke out in {region} (unrest {unrest} >= {threshold}).",
    "ship_sailed": lambda e, who: (
        f"{who(e['seat'])} sailed the capacity-{e['capacity']} ship to {e['region']}, position {e['position']}{' by overtaking' if e['overtook'] else ''}."
    ),
    "bonus_coins_taken": lambda e, who: (
        f"{who(e['seat'])} took {counted(e['coins'], 'bonus coins')} in {e['region']}."
    ),
    "passengers_carried": lambda e, who: (
        f"{who(e['seat'])} carried {e['vip']} VIP and {counted(e['regular'], 'passengers')} for {e['income']}."
    ),
    "contract_bought": lambda e, who: (
        f"{who(e['seat'])} bought contract {e['card']} for {e['cost']}: {e['cargo']} cotton loaded{_opt(e['discarded'], ', {} discarded')}."
    ),
    "contract_declined": lambda e, who: (
        f"{who(e['seat'])}'s capacity-{e['capacity']} ship bought nothing in {e['region']}{' (nothing affordable)' if e['automatic'] else ''}."
    ),
    "ship_returned": lambda e, who: (
        f"{who(e['seat'])}'s capacity-{e['capacity']} ship returned from {e['region']}{' (war)' if e['forced_by_war'] else ''}."
    ),
    "cotton_sold": "{seat:who} sold {tokens} cotton for {income}.",
    "ship_stayed": "{seat:who}'s capacity-{capacity} ship stayed in {region}.",
    "maintenance_paid": lambda e, who: (
        f"{who(e['seat'])} paid {e['amount']} maintenance{_opt(e['waived'], ' ({} waived)')}."
    ),
    "share_sold": lambda e, who: (
        f"{who(e['seat'])} sold share {e['number']} of {who(e['company'])} to the {e['buyer']} for {_money(e, 'price')}."
    ),
    "board_cleared": lambda e, who: (
        f"Board cleared: {counted(e['ship_cards'], 'ship cards')}, "
        f"{counted(e['contract_cards'], 'contracts')} discarded."
    ),
    "war_ended": "The war in {region} ended.",
    "demand_reduced": "Cotton demand row: {before} -> {after} tokens.",
    "stage_ended": "Stage {stage} ended.",
    "new_ship_kept": "{seat:who} kept NEW ship {card} as a Good ol' Ship.",
    "ship_refunded": lambda e, who: f"{who(e['seat'])} returned ship {e['card']} for {_money(e, 'value')}.",
    "demand_reset": lambda e, who: f"Cotton demand row reset to {counted(e['tokens'], 'tokens')}.",
    "currency_exchanged": "{seat:who} exchanged money: {before} -> {after} (pence, shillings, pounds).",
    "share_bought_back": "{seat:who} bought back share {number} from the {seller} for {price}.",
    "round_started": "Round {round} (stage {stage}) began.",
    "payment_started": lambda e, who: (
        f"{who(e['seat'])} is short of {_money(e, 'amount')} ({e['purpose']}) and must sell shares at auction."
    ),
    "purchase_cancelled": "{seat:who}'s purchase ({purpose}) was called off: {short} short.",
    "share_auction_opened": lambda e, who: (
        f"{'The bank' if e['seller'] < 0 else who(e['seller'])} auctions share {e['number']} of {who(e['company'])}'s company, starting at {_money(e, 'start')}."
    ),
    "bid_made": lambda e, who: f"{who(e['seat'])} bid {_coins_text(e['coins'])} (worth {e['value']} pence).",
    "bid_passed": lambda e, who: f"{who(e['seat'])} passed{' (cannot outbid)' if e['automatic'] else ''}.",
    "share_auctioned": lambda e, who: (
        f"Share {e['number']} of {who(e['company'])}'s company went to "
        + (
            who(e["buyer"]) + f" for {_coins_text(e['coins'])}"
            if e["buyer"] >= 0
            else "nobody: the bank keeps it"
            if e["seller"] < 0
            else f"the bank for {e['value']} pence-equivalents"
        )
        + "."
    ),
    "coins_changed": lambda e, who: (
        f"{who(e['seat'])}: {_coins_text(e['coins'])}; now {_coins_text(e['balance'])}."
    ),
    "reputation_gained": "{seat:who}'s reputation in {region} rose to {level} ({reason:spelt}).",
    "reputation_spent": "{seat:who} spent {cost} reputation in {region} to {use:spelt} (now {level}).",
    "top_ship_revealed": "{seat:who} turned up ship card {card}.",
    "top_contract_revealed": "{seat:who} turned up contract {card} in {region}.",
    "revealed_card_discarded": "{seat:who} discarded the card turned up, {card}.",
    "contract_peeked": "{seat:who} peeked at contract {card} in {region} (slot {slot}).",
    "passengers_created": lambda e, who: (
        f"{who(e['seat'])} created {e['vip']} VIP and {counted(e['regular'], 'passengers')} to {e['region']} "
        f"for {e['income']}."
    ),
}


def describe(effect: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    return tell(WORDS, effect, names)

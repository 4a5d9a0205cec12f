"""The log in words: what each of Cotton Trade's effects says, from its stored payload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.games.vocabulary import Words, spelt, tell


def _opt(value: Any, template: str) -> str:
    return template.format(value) if value else ""


def _coins_text(coins: Any) -> str:
    pence, shillings, pounds = coins
    parts = [
        f"{pounds}£" if pounds else "",
        f"{shillings}s" if shillings else "",
        f"{pence}d" if pence else "",
    ]
    return " ".join(x for x in parts if x) or "nothing"


WORDS: dict[str, Words] = {
    "first_player_drawn": lambda e, who: f"{who(e['seat'])} was drawn to start.",
    "deck_shuffled": lambda e, who: f"The {e['deck']} was shuffled ({e['cards']} cards).",
    "money_changed": lambda e, who: (
        f"{who(e['seat'])} {'gained' if e['amount'] > 0 else 'paid'} {abs(e['amount'])} {e.get('currency', '')} ({spelt(e['reason'])}); now {e['balance']}."
    ),
    "turn_order_determined": lambda e, who: "Turn order: " + ", ".join(who(x) for x in e["turn_order"]) + ".",
    "share_price_changed": lambda e, who: (
        f"{who(e['company'])}'s share value is now {e['value_to']} {e.get('currency', '')} (space {e['space_to']})."
    ),
    "ship_cards_drawn": lambda e, who: "Ship cards drawn: " + ", ".join(e["cards"]) + ".",
    "contract_cards_drawn": lambda e, who: (
        f"Contracts drawn in {e['region']}: " + ", ".join(c or "face down" for c in e["cards"]) + "."
    ),
    "ship_rented": lambda e, who: (
        f"{who(e['seat'])} rented ship {e['card']} (capacity {e['capacity']}) for {e['fee']}."
    ),
    "renting_passed": lambda e, who: (
        f"{who(e['seat'])} passed{' (no ship available)' if e['automatic'] else ''}."
    ),
    "contract_revealed": lambda e, who: f"Contract {e['card']} turned face up in {e['region']}.",
    "harbour_tokens_placed": lambda e, who: (
        f"{e['region']} harbour received {e['coins']} coins, {e['passengers']} passengers, {e['vip']} VIP."
    ),
    "war_broke": lambda e, who: f"War broke out in {e['region']} (unrest {e['unrest']} >= {e['threshold']}).",
    "ship_sailed": lambda e, who: (
        f"{who(e['seat'])} sailed the capacity-{e['capacity']} ship to {e['region']}, position {e['position']}{' by overtaking' if e['overtook'] else ''}."
    ),
    "bonus_coins_taken": lambda e, who: f"{who(e['seat'])} took {e['coins']} bonus coins in {e['region']}.",
    "passengers_carried": lambda e, who: (
        f"{who(e['seat'])} carried {e['vip']} VIP and {e['regular']} passengers for {e['income']}."
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
    "cotton_sold": lambda e, who: f"{who(e['seat'])} sold {e['tokens']} cotton for {e['income']}.",
    "ship_stayed": lambda e, who: (
        f"{who(e['seat'])}'s capacity-{e['capacity']} ship stayed in {e['region']}."
    ),
    "maintenance_paid": lambda e, who: (
        f"{who(e['seat'])} paid {e['amount']} maintenance{_opt(e['waived'], ' ({} waived)')}."
    ),
    "share_sold": lambda e, who: (
        f"{who(e['seat'])} sold share {e['number']} of {who(e['company'])} to the {e['buyer']} for {e['price']} {e.get('currency', '')}."
    ),
    "board_cleared": lambda e, who: (
        f"Board cleared: {e['ship_cards']} ship cards, {e['contract_cards']} contracts discarded."
    ),
    "war_ended": lambda e, who: f"The war in {e['region']} ended.",
    "demand_reduced": lambda e, who: f"Cotton demand row: {e['before']} -> {e['after']} tokens.",
    "stage_ended": lambda e, who: f"Stage {e['stage']} ended.",
    "new_ship_kept": lambda e, who: f"{who(e['seat'])} kept NEW ship {e['card']} as a Good ol' Ship.",
    "ship_refunded": lambda e, who: (
        f"{who(e['seat'])} returned ship {e['card']} for {e['value']} {e.get('currency', '')}."
    ),
    "demand_reset": lambda e, who: f"Cotton demand row reset to {e['tokens']} tokens.",
    "currency_exchanged": lambda e, who: (
        f"{who(e['seat'])} exchanged money: {e['before']} -> {e['after']} (pence, shillings, pounds)."
    ),
    "share_bought_back": lambda e, who: (
        f"{who(e['seat'])} bought back share {e['number']} from the {e['seller']} for {e['price']}."
    ),
    "round_started": lambda e, who: f"Round {e['round']} (stage {e['stage']}) began.",
    "payment_started": lambda e, who: (
        f"{who(e['seat'])} is short of {e['amount']} {e.get('currency', '')} ({e['purpose']}) and must sell shares at auction."
    ),
    "purchase_cancelled": lambda e, who: (
        f"{who(e['seat'])}'s purchase ({e['purpose']}) was called off: {e['short']} short."
    ),
    "share_auction_opened": lambda e, who: (
        f"{'The bank' if e['seller'] < 0 else who(e['seller'])} auctions share {e['number']} of {who(e['company'])}'s company, starting at {e['start']} {e.get('currency', '')}."
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
    "reputation_gained": lambda e, who: (
        f"{who(e['seat'])}'s reputation in {e['region']} rose to {e['level']} ({spelt(e['reason'])})."
    ),
    "reputation_spent": lambda e, who: (
        f"{who(e['seat'])} spent {e['cost']} reputation in {e['region']} to {spelt(e['use'])} (now {e['level']})."
    ),
    "top_ship_revealed": lambda e, who: f"{who(e['seat'])} turned up ship card {e['card']}.",
    "top_contract_revealed": lambda e, who: (
        f"{who(e['seat'])} turned up contract {e['card']} in {e['region']}."
    ),
    "revealed_card_discarded": lambda e, who: f"{who(e['seat'])} discarded the card turned up, {e['card']}.",
    "contract_peeked": lambda e, who: (
        f"{who(e['seat'])} peeked at contract {e['card']} in {e['region']} (slot {e['slot']})."
    ),
    "passengers_created": lambda e, who: (
        f"{who(e['seat'])} created {e['vip']} VIP and {e['regular']} passengers to {e['region']} for {e['income']}."
    ),
}


def describe(effect: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    return tell(WORDS, effect, names)

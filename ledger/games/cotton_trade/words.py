"""The log in words: what each of Cotton Trade's effects says, from its stored payload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.games.vocabulary import Words, counted, spelt, teller


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
        f"{who(e['seat'])} {'gained' if e['amount'] > 0 else 'paid'} {counted(abs(e['amount']), str(e.get('currency', '')))} ({spelt(e['reason'])}); now {_money(e, 'balance')}."
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
    "renting_passed": "{seat:who} passed{automatic:? (no ship available)}.",
    "contract_revealed": "Contract {card} turned face up in {region}.",
    "harbour_tokens_placed": "{region} harbour received {coins:# coins}, {passengers:# passengers}, {vip} VIP.",
    "war_broke": "War broke out in {region} (unrest {unrest} >= {threshold}).",
    "ship_sailed": (
        "{seat:who} sailed the capacity-{capacity} ship to {region}, position {position}{overtook:? by overtaking}."
    ),
    "bonus_coins_taken": "{seat:who} took {coins:# bonus coins} in {region}.",
    "passengers_carried": "{seat:who} carried {vip} VIP and {regular:# passengers} for {income}.",
    "contract_bought": (
        "{seat:who} bought contract {card} for {cost}: {cargo} cotton loaded{discarded:?, {discarded} discarded}."
    ),
    "contract_declined": (
        "{seat:who}'s capacity-{capacity} ship bought nothing in {region}{automatic:? (nothing affordable)}."
    ),
    "ship_returned": "{seat:who}'s capacity-{capacity} ship returned from {region}{forced_by_war:? (war)}.",
    "cotton_sold": "{seat:who} sold {tokens} cotton for {income}.",
    "ship_stayed": "{seat:who}'s capacity-{capacity} ship stayed in {region}.",
    "maintenance_paid": "{seat:who} paid {amount} maintenance{waived:? ({waived} waived)}.",
    "share_sold": lambda e, who: (
        f"{who(e['seat'])} sold share {e['number']} of {who(e['company'])} to the {e['buyer']} for {_money(e, 'price')}."
    ),
    "board_cleared": "Board cleared: {ship_cards:# ship cards}, {contract_cards:# contracts} discarded.",
    "war_ended": "The war in {region} ended.",
    "demand_reduced": "Cotton demand row: {before} -> {after} tokens.",
    "stage_ended": "Stage {stage} ended.",
    "new_ship_kept": "{seat:who} kept NEW ship {card} as a Good ol' Ship.",
    "ship_refunded": lambda e, who: f"{who(e['seat'])} returned ship {e['card']} for {_money(e, 'value')}.",
    "demand_reset": "Cotton demand row reset to {tokens:# tokens}.",
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
    "bid_passed": "{seat:who} passed{automatic:? (cannot outbid)}.",
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
    "passengers_created": "{seat:who} created {vip} VIP and {regular:# passengers} to {region} for {income}.",
}


describe = teller(WORDS)

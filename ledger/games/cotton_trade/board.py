"""The board between the players' turns: 1. Determine players turn order, 2. Draw cards,
4. Reveal contracts (tokens on the harbours, unrest and war), 9. Clear up the board; and the
top card of a deck turned up by reputation (uses 1 and 6)."""

from __future__ import annotations

from functools import partial

from ledger.games import vocabulary
from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade.common import (
    C,
    Effects,
    currency,
    region_index,
    region_open,
    shuffle_request,
    wealth,
)
from ledger.games.cotton_trade.components import REGIONS, STAGE_NAMES
from ledger.games.cotton_trade.state import Harbour, Phase, Slot, State, War
from ledger.games.shared import replace, set_at


def order_players(s: State, out: Effects) -> State:
    """1. Determine players turn order: least wealthy first; ties keep the previous order."""
    w = tuple(wealth(s, seat) for seat in range(s.players_count))
    order = tuple(sorted(s.turn_order, key=lambda seat: w[seat]))
    spaces = tuple(C.space_of(x) for x in w)
    for seat in range(s.players_count):
        if spaces[seat] != s.track_space[seat]:
            worth = partial(C.share_value, s.stage)
            out.append(
                vocabulary.share_moved(
                    seat, s.track_space[seat], spaces[seat], "turn_order", worth, currency(s)
                )
            )
    out.append(fx.TurnOrderDetermined(turn_order=order, wealth=w))
    return replace(s, turn_order=order, track_space=spaces, phase=Phase.DRAW)


def draw_cards(s: State, out: Effects) -> State:
    """2. Draw cards: 2 + N ship cards; contract cards per region face up or down (§6.2)."""
    target = C.ship_cards_extra + s.players_count
    drawn: list[str] = []
    while len(s.ship_row) < target:
        if s.ship_deck:
            card, rest = s.ship_deck[0], s.ship_deck[1:]
            s = replace(s, ship_deck=rest, ship_row=(*s.ship_row, card))
            drawn.append(card)
        elif s.ship_discard:  # Empty deck: reshuffle discarded cards
            if drawn:
                out.append(fx.ShipCardsDrawn(cards=tuple(drawn)))
            return replace(s, draws=(shuffle_request("ships", s.ship_discard, "ship deck"),))
        else:
            break
    if drawn:
        out.append(fx.ShipCardsDrawn(cards=tuple(drawn)))
    for r, region in enumerate(REGIONS):
        if not region_open(s, region):
            continue
        n = C.contract_draw[s.players_count][region]
        up = C.face_up_count(region, n)
        row = s.contract_row[r]
        if len(row) >= n:
            continue
        new: list[str | None] = []
        while len(row) < n:
            deck = s.contract_deck[r]
            if deck:
                slot = Slot(card=deck[0], face_up=len(row) < up)
                row = (*row, slot)
                new.append(slot.card if slot.face_up else None)
                s = replace(
                    s,
                    contract_deck=set_at(s.contract_deck, r, deck[1:]),
                    contract_row=set_at(s.contract_row, r, row),
                )
            elif s.contract_discard[r]:
                if new:
                    out.append(fx.ContractCardsDrawn(region=region.value, cards=tuple(new)))
                req = shuffle_request(
                    f"contracts:{region.value}", s.contract_discard[r], f"{region.value} contract deck"
                )
                return replace(s, draws=(req,))
            else:
                break
        if new:
            out.append(fx.ContractCardsDrawn(region=region.value, cards=tuple(new)))
    return replace(s, phase=Phase.RENT, cursor=0, rent_passed=())


def turn_up(s: State, seat: int, r: int | None, out: Effects) -> State:
    """Turn up the top card of the ship deck (``r`` None) or of a region's contract deck,
    reshuffling its discard first when the deck is empty (A-28)."""
    if r is None:
        if not s.ship_deck:
            return replace(s, revealed="?", draws=(shuffle_request("ships", s.ship_discard, "ship deck"),))
        card = s.ship_deck[0]
        out.append(fx.TopShipRevealed(seat=seat, card=card))
        return replace(s, ship_deck=s.ship_deck[1:], revealed=card)
    region = REGIONS[r]
    deck = s.contract_deck[r]
    if not deck:
        req = shuffle_request(
            f"contracts:{region.value}", s.contract_discard[r], f"{region.value} contract deck"
        )
        return replace(s, revealed="?", draws=(req,))
    out.append(fx.TopContractRevealed(seat=seat, region=region.value, card=deck[0]))
    return replace(s, contract_deck=set_at(s.contract_deck, r, deck[1:]), revealed=deck[0])


def reveal_contracts(s: State, out: Effects) -> State:
    """4. Reveal contracts: turn cards, place coin and passenger tokens, check unrest."""
    rows = list(s.contract_row)
    harbours = list(s.harbours)
    supply_coins, supply_pass, supply_vip = s.supply_coins, s.supply_passengers, s.supply_vip
    regional_unrest = [0] * len(REGIONS)
    for r, region in enumerate(REGIONS):
        coins = passengers = vip = 0
        for slot in rows[r]:
            card = C.contracts[slot.card]
            if not slot.face_up:
                out.append(fx.ContractRevealed(region=region.value, card=slot.card))
            regional_unrest[r] += card.unrest  # drought cards count too
            take = min(card.coins, supply_coins)  # place what is available
            coins, supply_coins = coins + take, supply_coins - take
            take = min(card.passengers, supply_pass)
            passengers, supply_pass = passengers + take, supply_pass - take
            take = min(card.vip, supply_vip)
            vip, supply_vip = vip + take, supply_vip - take
        rows[r] = tuple(Slot(card=slot.card, face_up=True) for slot in rows[r])
        if coins or passengers or vip:
            h = harbours[r]
            harbours[r] = Harbour(
                coins=h.coins + coins, passengers=h.passengers + passengers, vip=h.vip + vip
            )
            out.append(
                fx.HarbourTokensPlaced(region=region.value, coins=coins, passengers=passengers, vip=vip)
            )
    s = replace(
        s,
        contract_row=tuple(rows),
        peeks=(),
        harbours=tuple(harbours),
        supply_coins=supply_coins,
        supply_passengers=supply_pass,
        supply_vip=supply_vip,
    )
    if s.war is None:  # if war already happened during the current stage, ignore all unrest
        threshold = C.war_threshold[s.players_count]
        ranked = sorted(range(len(REGIONS)), key=lambda i: (-regional_unrest[i], i))
        region_idx: int | None = None
        if s.options.unrest_scope == "GLOBAL_SUM":
            total = sum(regional_unrest)
            if total >= threshold:
                region_idx = ranked[0]  # highest regional sum, ties in region order
        else:
            total = 0
            for i in ranked:
                if regional_unrest[i] >= threshold:
                    region_idx, total = i, regional_unrest[i]
                    break
        if region_idx is not None:
            region = REGIONS[region_idx]
            s = replace(s, war=War(region=region, side="WAR"))
            out.append(fx.WarBroke(region=region.value, unrest=total, threshold=threshold))
    return replace(s, phase=Phase.SAIL, cursor=0)


def clear_up(s: State, out: Effects) -> State:
    """9. Clear up: discard the rows, end a war, remove 3 x N cotton from the demand row."""
    contracts = sum(len(row) for row in s.contract_row)
    discards = tuple(
        (*s.contract_discard[r], *(slot.card for slot in s.contract_row[r])) for r in range(len(REGIONS))
    )
    out.append(fx.BoardCleared(ship_cards=len(s.ship_row), contract_cards=contracts))
    s = replace(
        s,
        ship_discard=(*s.ship_discard, *s.ship_row),
        ship_row=(),
        contract_discard=discards,
        contract_row=tuple(() for _ in REGIONS),
    )
    if s.war is not None and s.war.side == "WAR":
        r = region_index(s.war.region)
        h = s.harbours[r]
        out.append(fx.WarEnded(region=s.war.region.value, coins=h.coins, passengers=h.passengers, vip=h.vip))
        s = replace(
            s,
            harbours=set_at(s.harbours, r, Harbour()),
            supply_coins=s.supply_coins + h.coins,
            supply_passengers=s.supply_passengers + h.passengers,
            supply_vip=s.supply_vip + h.vip,
            war=War(region=s.war.region, side="PEACE"),
        )
    after = max(0, s.demand - C.demand_removed_per_player * s.players_count)
    out.append(fx.DemandReduced(before=s.demand, after=after))
    s = replace(s, demand=after)
    if s.round == C.rounds:
        return replace(s, phase=Phase.END)
    if s.round % 3 == 0:
        return replace(s, phase=Phase.RESCALE)
    s = replace(s, round=s.round + 1, phase=Phase.TURN_ORDER)
    out.append(fx.RoundStarted(round=s.round, stage=STAGE_NAMES[s.stage]))
    return s

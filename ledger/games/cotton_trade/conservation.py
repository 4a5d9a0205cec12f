"""Cotton Trade's conservation laws: every card, token, coin and share in exactly one place."""

from __future__ import annotations

from ledger.games.cotton_trade.common import C, held_value
from ledger.games.cotton_trade.components import REGIONS
from ledger.games.cotton_trade.state import UK, Phase, State


def conservation(s: State) -> list[str]:
    """Cotton Trade's conservation laws; an empty list means they all hold."""
    problems: list[str] = []
    held = [sh.card for p in s.players for sh in p.ships if sh.card != C.good_ol.id]
    pending_ships = [c for d in s.draws if d.key == "ships" for c in d.items]
    revealed = [s.revealed] if s.revealed and s.revealed != "?" else []
    ship_cards = [*s.ship_deck, *s.ship_discard, *s.ship_row, *held, *(c for c in revealed if c in C.ships)]
    if not pending_ships and sorted(ship_cards) != sorted(C.ships):
        problems.append("ship cards: every one of the 24 is in exactly one place")
    good_ol = sum(1 for p in s.players for sh in p.ships if sh.card == C.good_ol.id)
    if good_ol + s.supply_good_ol != C.good_ol_cards:
        problems.append("Good ol' Ship cards: held plus supply is 4")
    if not s.draws and s.phase not in (Phase.SETUP,):
        for r, region in enumerate(REGIONS):
            cards = [*s.contract_deck[r], *s.contract_discard[r], *(sl.card for sl in s.contract_row[r])]
            cards += [c for c in revealed if c in C.contracts and C.contracts[c].region == region]
            deck_stage = s.stage + (s.phase in (Phase.KEEP_NEW, Phase.RESCALE_SHIPS, Phase.RESCALE_MONEY))
            if cards and sorted(cards) != list(C.stage_deck(deck_stage, region)):
                problems.append(f"contracts of {region.value}: the stage deck is whole")
    if s.supply_coins + sum(h.coins for h in s.harbours) != C.coin_tokens:
        problems.append("coin tokens: supply plus harbours is 24")
    held_tokens = sum(p.uk_reputation for p in s.players)
    if s.supply_passengers + sum(h.passengers for h in s.harbours) + held_tokens != C.passenger_tokens:
        problems.append("passenger tokens: supply plus harbours plus players' UK reputation is 40")
    if sum(held_value(p) for p in s.players) + s.bank != 0:
        problems.append("money: every coin paid or earned went to or came from the bank or a player")
    for p in s.players:
        if not all(0 <= x <= C.reputation_max for x in (*p.reputation, p.uk_reputation)):
            problems.append(f"seat {p.seat}: reputation within 0..{C.reputation_max}")
    if s.auction is not None:
        a = s.auction
        holder = s.players[a.seller].shares if a.seller >= 0 else s.bank_shares
        if (a.company, a.number) not in holder:
            problems.append("auction: the share on sale is still its seller's")
    if s.supply_vip + sum(h.vip for h in s.harbours) != C.vip_tokens:
        problems.append("VIP tokens: supply plus harbours is 10")
    shares = sorted([*s.bank_shares, *(sh for p in s.players for sh in p.shares)])
    expected = sorted((c, k) for c in range(s.players_count) for k in range(1, C.shares_per_company + 1))
    if shares != expected:
        problems.append("shares: each of the 4 per company is held once")
    on_tracks = sorted(ref for t in s.tracks for ref in t)
    at_sea = sorted((p.seat, sh.capacity) for p in s.players for sh in p.ships if sh.location != UK)
    if on_tracks != at_sea:
        problems.append("ships: every ship outside the UK is on exactly one track")
    for p in s.players:
        caps = [sh.capacity for sh in p.ships]
        if len(caps) != len(set(caps)):
            problems.append(f"seat {p.seat}: at most one ship per capacity")
        if any(c < 0 for c in p.coins) and s.phase != Phase.FINISHED:
            problems.append(f"seat {p.seat}: money is never negative before the end")
        if any(sh.cargo > sh.capacity for sh in p.ships):
            problems.append(f"seat {p.seat}: cargo within capacity")
    if not 0 <= s.demand <= len(C.demand_row):
        problems.append("demand row: 0 to 30 tokens")
    return problems

"""End of the stage (after rounds 3 and 6: new decks, ships back for their value, a NEW ship
kept as a Good ol' Ship, money exchanged 3:1, one own share sold; spec §5.14) and End of the
game (ships back, every company buys back its shares; spec §5.15)."""

from __future__ import annotations

from functools import partial
from typing import Any

from ledger.engine import Decision
from ledger.games import vocabulary
from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade.common import (
    C,
    Effects,
    currency,
    gain,
    money,
    own_shares,
    sell_to_bank,
    share_price,
    shuffle_request,
    stage_region_active,
    violation,
)
from ledger.games.cotton_trade.components import REGIONS, STAGE_NAMES
from ledger.games.cotton_trade.decisions import KeepNewShip, ReturnAllShips
from ledger.games.cotton_trade.state import UK, Harbour, Phase, Ship, State
from ledger.games.shared import replace, set_player

# --- End of the stage ---------------------------------------------------------------------


def end_stage(s: State, out: Effects) -> State:
    """End of the stage, steps 1-4: clear this stage's contracts and tokens, new decks and coins."""
    out.append(fx.StageEnded(stage=STAGE_NAMES[s.stage]))
    passengers = sum(h.passengers for h in s.harbours)
    vip = sum(h.vip for h in s.harbours)
    next_stage = s.stage + 1
    draws = tuple(
        shuffle_request(f"contracts:{r.value}", C.stage_deck(next_stage, r), f"{r.value} contract deck")
        for r in REGIONS
        if stage_region_active(next_stage, r)
    )
    empty: tuple[tuple[Any, ...], ...] = tuple(() for _ in REGIONS)
    return replace(
        s,
        contract_deck=empty,
        contract_discard=empty,
        contract_row=empty,
        harbours=tuple(Harbour() for _ in REGIONS),
        war=None,
        supply_coins=C.coin_tokens,
        supply_passengers=s.supply_passengers + passengers,
        supply_vip=s.supply_vip + vip,
        phase=Phase.KEEP_NEW,
        cursor=0,
        draws=draws,
    )


def keep_new(s: State, out: Effects) -> State:
    """Step 7: each player with a NEW-icon ship may keep it (asked in turn order)."""
    n = s.players_count
    while s.cursor < n:
        seat = s.turn_order[s.cursor]
        if any(C.ship(sh.card).new for sh in s.players[seat].ships):
            return replace(s, awaiting=(seat,))
        s = replace(s, cursor=s.cursor + 1)
    return replace(s, phase=Phase.RESCALE_SHIPS, cursor=0)


def keep_options(s: State, seat: int) -> tuple[Decision, ...]:
    keep = [KeepNewShip(card=sh.card) for sh in s.players[seat].ships if C.ship(sh.card).new]
    return (*keep, ReturnAllShips())


def keep_new_ship(s: State, seat: int, d: KeepNewShip, out: Effects) -> State:
    ship = next((sh for sh in s.players[seat].ships if sh.card == d.card), None)
    if ship is None or not C.ship(ship.card).new:
        raise violation("not_new_ship", f"You hold no NEW-icon ship {d.card}.", "End of the stage, step 7")
    return replace(s, kept=(*s.kept, (seat, ship.card)), cursor=s.cursor + 1)


def return_all_ships(s: State, seat: int, d: ReturnAllShips, out: Effects) -> State:
    return replace(s, cursor=s.cursor + 1)


def rescale_ships(s: State, out: Effects) -> State:
    """Steps 5-8: ships back for their value; a kept NEW ship becomes a Good ol' Ship in place."""
    kept_cards = dict(s.kept)
    kept: dict[int, Ship] = {}
    returned_good_ol = 0
    for p in s.players:
        for sh in p.ships:
            if kept_cards.get(p.seat) == sh.card:
                kept[p.seat] = sh
                continue
            if sh.card == C.good_ol.id:
                returned_good_ol += 1  # returned with no value [U CT-U-07]
            value = C.ship(sh.card).value
            out.append(fx.ShipRefunded(seat=p.seat, card=sh.card, value=value, currency=currency(s)))
            s = gain(s, p.seat, value, "ship_refund", out)
    tracks = []
    for r in range(len(REGIONS)):
        tracks.append(
            tuple((seat, 1) for seat, cap in s.tracks[r] if seat in kept and kept[seat].capacity == cap)
        )
    players = []
    for p in s.players:
        ships: tuple[Ship, ...] = ()
        if p.seat in kept:
            old = kept[p.seat]
            ships = (Ship(card=C.good_ol.id, capacity=1, location=old.location, stayed=old.location != UK),)
            out.append(fx.NewShipKept(seat=p.seat, card=old.card, location=old.location))
        players.append(replace(p, ships=ships))
    s = replace(
        s,
        players=tuple(players),
        tracks=tuple(tracks),
        supply_good_ol=s.supply_good_ol + returned_good_ol - len(kept),
        ship_deck=(),
        ship_discard=(),
        ship_row=(),
        phase=Phase.RESCALE_MONEY,
        kept=(),
        draws=(shuffle_request("ships", tuple(C.ships), "ship deck"),),
    )
    return s


def rescale_money(s: State, out: Effects) -> State:
    """Steps 9-13: reset demand, exchange 3:1 keeping remainders, forced sale of one own share;
    with the shares trade, the bank then auctions its shares."""
    s = replace(s, demand=C.demand_initial_base - s.players_count)
    out.append(fx.DemandReset(tokens=s.demand))
    old, new = s.stage, s.stage + 1
    for p in s.players:
        s = exchange(s, p.seat, new, out)
    price = C.forced_sale_price[old]
    for seat in s.turn_order:
        own = own_shares(s, seat)
        if not own:
            continue
        s = sell_to_bank(s, seat, own[0], price, out, stage=new, forced=True)
    s = replace(s, round=s.round + 1, phase=Phase.TURN_ORDER)
    out.append(fx.RoundStarted(round=s.round, stage=STAGE_NAMES[s.stage]))
    for seat in range(s.players_count):  # the same space, priced in the new currency
        out.append(
            vocabulary.SharePriceChanged(
                company=seat,
                space_from=s.track_space[seat],
                space_to=s.track_space[seat],
                value_from=C.share_value(old, s.track_space[seat]),
                value_to=share_price(s, seat),
                currency=currency(s),
                cause="new_stage",
            )
        )
    if s.options.shares_trade:  # step 13, in the new stage's currency before its first phase 1
        return replace(s, phase=Phase.BANK_AUCTIONS, bank_queue=adv.bank_queue(s))
    return s


def exchange(s: State, seat: int, upto: int, out: Effects) -> State:
    """Step 11 (3:1, remainders kept); with the shares trade and A-34 CASCADE every older
    coin is changed upward, which also runs once more at the end of the game."""
    p = s.players[seat]
    before = p.coins
    if s.options.shares_trade and s.options.adv_change == "CASCADE":
        after = adv.cascade(before, upto)
    else:
        coins = list(before)
        coins[upto] += coins[upto - 1] // C.exchange_rate
        coins[upto - 1] %= C.exchange_rate
        after = (coins[0], coins[1], coins[2])
    if after == before:
        return s
    out.append(fx.CurrencyExchanged(seat=seat, before=before, after=after))
    return set_player(s, replace(p, coins=after))


# --- End of the game ----------------------------------------------------------------------


def end_game(s: State, out: Effects) -> State:
    """End of the game: ships back for pounds, then every company buys back its shares from
    the bank and (shares trade) from other players, whose income is kept apart until every
    buy-back is done."""
    for p in s.players:
        for sh in p.ships:
            value = C.ship(sh.card).value
            out.append(fx.ShipRefunded(seat=p.seat, card=sh.card, value=value, currency=currency(s)))
            s = gain(s, p.seat, value, "ship_refund", out)
    good_ol = sum(1 for p in s.players for sh in p.ships if sh.card == C.good_ol.id)
    returned = tuple(sh.card for p in s.players for sh in p.ships if sh.card != C.good_ol.id)
    s = replace(
        s,
        ship_discard=(*s.ship_discard, *returned),
        players=tuple(replace(p, ships=()) for p in s.players),
        tracks=tuple(() for _ in REGIONS),
        supply_good_ol=s.supply_good_ol + good_ol,
    )
    spaces = list(s.track_space)

    def move_token(seat: int, space: int, cause: str) -> None:
        if space != spaces[seat]:
            worth = partial(C.share_value, s.stage)
            out.append(vocabulary.share_moved(seat, spaces[seat], space, cause, worth, currency(s)))
            spaces[seat] = space

    for seat in s.turn_order:
        for number in range(1, C.shares_per_company + 1):
            share = (seat, number)
            if share in s.players[seat].shares:
                continue
            move_token(seat, C.space_of(money(s, seat)), "buy_back")
            price = C.share_value(s.stage, spaces[seat])
            holder = next((p.seat for p in s.players if share in p.shares), -1)
            p = s.players[seat]
            s = set_player(s, replace(p, shares=tuple(sorted((*p.shares, share)))))
            if holder < 0:
                s = replace(s, bank_shares=tuple(x for x in s.bank_shares if x != share))
                out.append(fx.ShareBoughtBack(seat=seat, number=number, price=price, seller="bank"))
                s = gain(s, seat, -price, "share_buy_back", out)  # may go negative
                continue
            q = s.players[holder]
            s = set_player(
                s,
                replace(
                    q,
                    shares=tuple(x for x in q.shares if x != share),
                    separate_income=q.separate_income + price,
                ),
            )
            out.append(
                fx.ShareBoughtBack(seat=seat, number=number, price=price, seller="player", holder=holder)
            )
            s = gain(s, seat, -price, "share_buy_back", out, bank=False)
        move_token(seat, C.space_of(money(s, seat)), "end_of_game")
    for p in s.players:
        if p.separate_income:
            s = set_player(s, replace(p, separate_income=0))
            s = gain(s, p.seat, p.separate_income, "buy_back_income", out, bank=False)
    if s.options.shares_trade and s.options.adv_change == "CASCADE":
        for p in s.players:
            s = exchange(s, p.seat, 2, out)
    return replace(s, track_space=tuple(spaces), phase=Phase.FINISHED)

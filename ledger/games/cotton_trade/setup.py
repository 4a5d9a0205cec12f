"""Game setup (rulebook, Game setup; spec §5.1) and the random draws: the first player, the
ship deck and each region's contract deck, shuffled at the start and again whenever a deck runs
out (its discards reshuffled)."""

from __future__ import annotations

from functools import partial
from typing import Any

from ledger.engine import DrawRequest, TitleOptions
from ledger.games import vocabulary
from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade.common import (
    C,
    Effects,
    currency,
    gain,
    region_index,
    shuffle_request,
    stage_region_active,
    violation,
)
from ledger.games.cotton_trade.components import REGIONS, STAGE_NAMES
from ledger.games.cotton_trade.meta import META, CottonTradeOptions
from ledger.games.cotton_trade.state import Harbour, Phase, Player, State
from ledger.games.shared import new_game_options, replace, set_at


def new_game(options: TitleOptions, seats: int) -> State:
    """Game setup (rulebook 'Game setup'; spec §5.1). The draws come first."""
    options = new_game_options(options, seats, CottonTradeOptions, META, "Cotton Trade", violation)
    n = seats
    draws = [
        DrawRequest(
            key="first_player",
            kind="pick",
            items=tuple(str(i) for i in range(n)),
            hidden=False,
            label="first player",
        ),
        shuffle_request("ships", tuple(C.ships), "ship deck"),
    ]
    for r in REGIONS:
        if stage_region_active(0, r):
            draws.append(
                shuffle_request(f"contracts:{r.value}", C.stage_deck(0, r), f"{r.value} contract deck")
            )
    start = C.reputation_start if options.reputation else {}
    reputation = tuple(start.get(r.value, 0) for r in REGIONS)
    players = tuple(
        Player(
            seat=i,
            coins=(0, 0, 0),
            ships=(),
            shares=tuple((i, k) for k in range(1, C.shares_per_company + 1)),
            reputation=reputation,  # type: ignore[arg-type]
            uk_reputation=start.get(adv.UK_REP, 0),
        )
        for i in range(n)
    )
    empty: tuple[tuple[Any, ...], ...] = tuple(() for _ in REGIONS)
    return State(
        players_count=n,
        options=options,
        round=1,
        phase=Phase.SETUP,
        turn_order=(),
        track_space=(1,) * n,
        demand=C.demand_initial_base - n,
        ship_deck=(),
        ship_discard=(),
        ship_row=(),
        contract_deck=empty,
        contract_discard=empty,
        contract_row=empty,
        harbours=tuple(Harbour() for _ in REGIONS),
        war=None,
        tracks=empty,
        supply_coins=C.coin_tokens,
        supply_passengers=C.passenger_tokens - n * start.get(adv.UK_REP, 0),
        supply_vip=C.vip_tokens,
        supply_good_ol=C.good_ol_cards,
        bank_shares=(),
        players=players,
        draws=tuple(draws),
    )


def drawn(s: State, req: DrawRequest, values: tuple[int, ...], out: Effects) -> State:
    """What a draw decides: the first player (and with it the turn order, the starting money
    and the share values' first spaces), or the order of a deck."""
    if req.key == "first_player":
        first = values[0]
        order = tuple((first + i) % s.players_count for i in range(s.players_count))
        s = replace(s, turn_order=order)
        out.append(fx.FirstPlayerDrawn(seat=first, turn_order=order))
        out.append(fx.RoundStarted(round=1, stage=STAGE_NAMES[0]))
        for i, seat in enumerate(order):  # Players setup C: 7, 8, 9 ... pence
            s = gain(s, seat, C.starting_pence + i, "starting_money", out)
        for seat in range(s.players_count):
            worth = partial(C.share_value, s.stage)
            out.append(vocabulary.share_moved(seat, None, s.track_space[seat], "setup", worth, currency(s)))
    else:
        cards = tuple(req.items[i] for i in values)
        if req.key == "ships":
            s = replace(s, ship_deck=cards, ship_discard=tuple(c for c in s.ship_discard if c not in cards))
        else:
            r = region_index(req.key.split(":", 1)[1])
            discard = tuple(c for c in s.contract_discard[r] if c not in cards)
            s = replace(
                s,
                contract_deck=set_at(s.contract_deck, r, cards),
                contract_discard=set_at(s.contract_discard, r, discard),
            )
        out.append(vocabulary.DeckShuffled(deck=req.label, cards=len(cards)))
    return s

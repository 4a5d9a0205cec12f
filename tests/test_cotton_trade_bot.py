"""Cotton Trade's greedy bot: whole games for 2 to 6 players in every module combination
(laws after every step, every decision legal), greedy against random players, the bot's use
of auctions and of every reputation use, and a few positions where its choice is plain."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from ledger.conformance import random_playout
from ledger.engine import Decision, DrawOutcome
from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import bot, rules
from ledger.games.cotton_trade.common import value
from ledger.games.cotton_trade.components import Region
from ledger.games.cotton_trade.decisions import (
    Bid,
    BuyContract,
    ChooseShareToSell,
    PassBid,
    ReturnShip,
    StayInRegion,
)
from ledger.games.cotton_trade.meta import REPUTATION_USES, CottonTradeOptions
from ledger.games.cotton_trade.state import Auction, Phase, State, War
from ledger.rng import derive_draw
from tests.ct_positions import (
    at_phase,
    cleared_board,
    new,
    ship,
    with_harbour,
    with_player,
    with_row,
    with_track,
)

NA, SA, BI = Region.NORTH_AMERICA, Region.SOUTH_AMERICA_WI, Region.BRITISH_INDIA
MODULES: list[dict[str, Any]] = [
    {},
    {"shares_trade": True},
    {"reputation": True},
    {"shares_trade": True, "reputation": True},
]


def check_legal(s: State, seat: int, d: Decision) -> None:
    """The bot's decision is one the engine lists, or a bid with coins the bidder holds worth
    more than the standing bid (any such bid is legal; the list names only two of them)."""
    if isinstance(d, Bid):
        assert s.auction is not None and s.phase == Phase.AUCTION
        coins = (d.pence, d.shillings, d.pounds)
        assert all(c <= h for c, h in zip(coins, s.players[seat].coins, strict=True))
        assert value(coins) > adv.standing(s.auction)
        return
    assert d in rules.legal_decisions(s, seat), f"{s.phase.value}: {d} not legal"


def play_game(
    players: int, seed: int, options: dict[str, Any], greedy: set[int] | None = None
) -> tuple[State, Counter[str]]:
    """One game in memory: the bot for the seats in ``greedy`` (all by default), random legal
    decisions for the others; laws checked and the bot's decisions checked after every step."""
    greedy = set(range(players)) if greedy is None else greedy
    s = rules.new_game(CottonTradeOptions(**options), players)
    rnd = random.Random(seed)
    draw_seed = rnd.randbytes(32)
    draws = 0
    used: Counter[str] = Counter()
    for _ in range(20_000):
        pending = rules.pending(s)
        if pending.finished:
            return s, used
        if pending.draw is not None:
            values = derive_draw(draw_seed, draws, pending.draw)
            s, effects = rules.apply_draw(s, DrawOutcome(pending.draw.key, values))
            draws += 1
        else:
            seat = pending.seats[0]
            if seat in greedy:
                d = bot.choose(s, seat)
                check_legal(s, seat, d)
                used[type(d).model_fields["type"].default] += 1
            else:
                d = rnd.choice(rules.legal_decisions(s, seat))
            s, effects = rules.apply(s, seat, d)
            if seat in greedy:
                for e in effects:
                    if e.kind == "reputation_spent":
                        used[f"use:{e.use}"] += 1  # type: ignore[attr-defined]
        problems = rules.conservation(s)
        assert not problems, problems
    raise AssertionError("the game does not end")


@pytest.mark.parametrize("options", MODULES, ids=["simple", "shares", "reputation", "both"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_greedy_games_finish_keeping_every_law_with_legal_decisions(
    players: int, options: dict[str, Any]
) -> None:
    for seed in (players, 100 + players):
        s, used = play_game(players, seed, options)
        assert s.phase == Phase.FINISHED
        assert used["buy_contract"] >= 2 * players, "every company trades cotton"
        standings = rules.standings(s)
        assert sum(1 for x in standings if x.score[0] > 0) >= players - 1, "companies make pounds"


def test_greedy_bot_through_the_conformance_harness() -> None:
    """Views, secrets and laws at every step (the harness), the registry's bot for every seat."""
    from ledger import registry

    assert registry.bot("cotton-trade") is bot.choose
    result = random_playout("cotton-trade", 4, 7, MODULES[3], greedy=True, check_every=3)
    assert result.winners


def test_the_bot_decides_legally_against_random_players() -> None:
    """Random opponents sell shares for purchases and leave odd positions: auctions mid-round,
    revealed cards, payments; the bot's answer is legal in all of them."""
    for players in (2, 4, 6):
        for options in MODULES[1:]:
            s, used = play_game(players, 40 + players, options, greedy={0, players - 1})
            assert s.phase == Phase.FINISHED and used["sail_ship"] > 0


def test_greedy_beats_random_players() -> None:
    """3-player games, seat 0 greedy against two random players, 20 fixed seeds, every module
    combination: the bot wins far more than its 1/3 share (it won all 20 when measured)."""
    wins = 0.0
    for g in range(20):
        s, _ = play_game(3, 1000 + g, MODULES[g % 4], greedy={0})
        winners = [x.seat for x in rules.standings(s) if x.rank == 1]
        wins += 1 / len(winners) if 0 in winners else 0.0
    assert wins >= 15, f"greedy won {wins} of 20"


def test_the_bot_bids_and_uses_reputation_in_advanced_games() -> None:
    """Over a sample of advanced games the bot bids at share auctions and uses the reputation
    uses that come up in play. Staying despite a war needs an empty ship in a region where a war
    broke out that round, outside a stage's last round: measured about once in 150 games, so it
    is checked on a position of its own (test_the_bot_stays_despite_a_war_when_the_harvest_pays)."""
    total: Counter[str] = Counter()
    games_using: Counter[str] = Counter()
    for players in (2, 3, 4, 5, 6):
        for seed in (200 + players, 300 + players):
            _, used = play_game(players, seed, MODULES[3])
            total.update(used)
            games_using.update(set(used))
    assert games_using["bid"] >= 8, "the bot bids in most games"
    assert total["pass_bid"] > 0
    for use in REPUTATION_USES:
        if use != "stay_despite_war":
            assert total[f"use:{use}"] >= 1, f"the bot uses reputation to {use}"
    assert total["take_revealed_ship"] >= 1 and total["take_revealed_contract"] >= 1
    assert total["stay_in_region"] >= 1 and total["keep_new_ship"] >= 1


# --- positions --------------------------------------------------------------------------------


def test_the_bot_stays_despite_a_war_when_the_harvest_pays() -> None:
    s = cleared_board(new(5, reputation=True))
    s = with_player(s, 0, ships=[ship("S12", location=NA.value, stayed=True)], reputation=(0, 2, 0, 0))
    s = with_track(s, NA, [(0, 3)])
    empty = tuple(() for _ in s.contract_deck)
    rich = ("C003", "C007", "C009", "C004")  # North America's 3- and 4-cotton contracts
    s = replace(s, contract_deck=(empty[0], rich, empty[2], empty[3]), contract_discard=empty)
    s, _ = at_phase(s, Phase.SELL, round=2, war=War(region=NA, side="WAR"))
    assert s.awaiting == (0,)
    assert bot.choose(s, 0) == StayInRegion(despite_war=True)
    last_round, _ = at_phase(s, Phase.SELL, round=3)
    assert bot.choose(last_round, 0) == ReturnShip(), "ships go home at a stage's end anyway"


def test_the_bot_buys_the_contract_with_the_best_sale_less_price() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S12", location=NA.value)], coins=(20, 0, 0))
    s = with_track(s, NA, [(0, 3)])
    s = with_row(s, NA, ["C001", "C003", "C010"])  # 6 for 2, 9 for 3, 14 for 5 (13 for a 3-ship)
    s, _ = at_phase(s, Phase.BUY)
    assert bot.choose(s, 0) == BuyContract(card="C003")
    poor = with_player(s, 0, coins=(6, 0, 0))
    assert bot.choose(poor, 0) == BuyContract(card="C001"), "never sells a share for a contract"


def test_the_bot_sails_where_the_cargo_and_passengers_pay() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S17")], coins=(12, 0, 0))  # capacity 3, 2 cabins
    s = with_row(s, NA, ["C011"])  # a drought card only
    s = with_row(s, BI, ["C024"])  # 7 for 3
    s = with_harbour(s, BI, passengers=2)
    s, _ = at_phase(s, Phase.SAIL)
    d = bot.choose(s, 0)
    assert d.region == BI and d in rules.legal_decisions(s, 0)  # type: ignore[attr-defined]


def _auction(s: State, company: int, floor: int, high: tuple[int, int, int] = (0, 0, 0)) -> State:
    a = Auction(
        company=company,
        number=2,
        seller=-1,
        floor=floor,
        base=floor // 3,
        currency=1,
        bidders=(0, 1),
        high_bidder=1 if any(high) else -1,
        high_bid=high,
    )
    return replace(s, phase=Phase.AUCTION, auction=a, awaiting=(0,), round=4)


def test_the_bot_bids_well_below_the_buy_back_value_and_keeps_money_for_its_fleet() -> None:
    s = new(3, shares_trade=True)
    s = with_player(s, 0, coins=(2, 20, 0))  # stage II: a penny left over from stage I
    s = with_player(s, 1, coins=(0, 15, 0))
    s = with_player(s, 2, coins=(0, 15, 0), shares=((2, 1), (2, 3), (2, 4)))
    s = replace(s, bank_shares=((2, 2),))
    bid = bot.choose(_auction(s, 2, 12), 0)
    assert isinstance(bid, Bid) and (bid.pence, bid.shillings, bid.pounds) == (1, 4, 0)  # 13 > 12
    limit = bot.BID_SHARE[1] * bot._share_value(_auction(s, 2, 12), 2, 2)
    assert limit > 13
    dear = _auction(s, 2, 12, high=(0, int(limit) // 3 + 1, 0))
    assert bot.choose(dear, 0) == PassBid(), "not at (nearly) the share's buy-back value"
    short = with_player(_auction(s, 2, 12), 0, coins=(0, 8, 0))
    assert bot.choose(short, 0) == PassBid(), "the money is needed for ships and cargo"


def test_the_bot_sells_the_share_worth_least_to_keep() -> None:
    s = new(3, shares_trade=True)
    rich = with_player(s, 1, coins=(90, 0, 0))  # company 1 is far ahead: its shares are worth most
    s = with_player(rich, 0, shares=((0, 1), (1, 2), (2, 3)))
    s = replace(s, phase=Phase.PAYMENT, awaiting=(0,))
    values = {d: bot._share_value(s, d.company, d.number) for d in rules.legal_decisions(s, 0)}  # type: ignore[attr-defined]
    choice = bot.choose(s, 0)
    assert isinstance(choice, ChooseShareToSell)
    assert values[choice] == min(values.values()) and (choice.company, choice.number) != (1, 2)

"""Cotton Trade's rules engine: the table of contents of the game.

A round is nine phases (rulebook, "Playing the game"), a stage three rounds, the game three
stages. This module holds the phase table, the decisions each phase accepts, and the engine's
interface; the procedures live in the modules named after the rulebook's sections:

- ``setup``: game setup and the random draws (first player, shuffled decks);
- ``board``: 1. turn order, 2. draw cards, 4. reveal contracts, 9. clear up;
- ``ships``: 3. rent ships, 5. sail ships, 8. pay maintenance cost;
- ``cotton``: 6. buy cotton, 7. sell cotton;
- ``payments``: selling shares to obtain additional funds;
- ``stages``: the end of a stage and the end of the game;
- ``advanced``: the advanced game's shares trade and company reputation;
- ``views``, ``conservation``, ``words``: what a seat sees, the conservation laws, the log.

Rule references cite the rulebook (seed 004) by its section names, and the specification
(shared/rules/cotton-trade.md) by its ids (CT-D-*, CT-R-*, A-*). The engine runs every
automatic procedure until a decision or a random draw is due; ``State.awaiting`` names the
seats whose decision is awaited and ``State.draws`` the draws the ledger must derive next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.engine import Decision, Effect, Standing, module_engine
from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import board, cotton, decisions, payments, setup, ships, stages
from ledger.games.cotton_trade.common import Effects, currency, current_ship, violation
from ledger.games.cotton_trade.components import REGIONS, Components, load
from ledger.games.cotton_trade.conservation import conservation  # noqa: F401 (the engine's interface)
from ledger.games.cotton_trade.decisions import DECISION_ADAPTER
from ledger.games.cotton_trade.meta import META
from ledger.games.cotton_trade.setup import new_game  # noqa: F401 (the engine's interface)
from ledger.games.cotton_trade.state import Phase, State
from ledger.games.cotton_trade.views import view  # noqa: F401 (the engine's interface)
from ledger.games.cotton_trade.words import describe  # noqa: F401 (the engine's interface)
from ledger.games.shared import PhaseTable, ranked, replace

C: Components = load()

Decide = Callable[[State, int, Any, Effects], State]

# --- the phases ---------------------------------------------------------------------------

_PROCEDURES: dict[Phase, Callable[[State, Effects], State]] = {
    Phase.SETUP: lambda s, out: replace(s, phase=Phase.DRAW),
    Phase.TURN_ORDER: board.order_players,  # 1. Determine players turn order
    Phase.DRAW: board.draw_cards,  # 2. Draw cards
    Phase.RENT: ships.rent,  # 3. Rent ships
    Phase.REVEAL: board.reveal_contracts,  # 4. Reveal contracts
    Phase.SAIL: ships.sail,  # 5. Sail ships
    Phase.BUY: cotton.buy,  # 6. Buy cotton
    Phase.SELL: cotton.sell,  # 7. Sell cotton
    Phase.MAINTENANCE: ships.maintenance,  # 8. Pay maintenance cost
    Phase.CLEAR_UP: board.clear_up,  # 9. Clear up
    Phase.RESCALE: stages.end_stage,  # End of the stage, steps 1-4
    Phase.KEEP_NEW: stages.keep_new,  # step 7
    Phase.RESCALE_SHIPS: stages.rescale_ships,  # steps 5-8
    Phase.RESCALE_MONEY: stages.rescale_money,  # steps 9-13
    Phase.BANK_AUCTIONS: adv.bank_auctions_step,  # shares trade: the bank's shares auctioned
    Phase.PAYMENT: payments.settle,  # shares trade: a shortfall covered at auction
    Phase.AUCTION: adv.auction_step,
    Phase.END: stages.end_game,  # End of the game
}
"""What each phase does by itself until a decision or a draw is due."""

_DECISIONS: dict[Phase, dict[type[Decision], Decide]] = {
    Phase.RENT: {
        decisions.RentShip: ships.rent_ship,
        decisions.PassRenting: ships.pass_renting,
        decisions.RevealTopShip: ships.reveal_top_ship,
        decisions.TakeRevealedShip: ships.take_revealed_ship,
        decisions.DiscardRevealedShip: ships.discard_revealed_ship,
        decisions.PeekContract: ships.peek_contract,
    },
    Phase.SAIL: {decisions.SailShip: ships.sail_ship},
    Phase.BUY: {
        decisions.BuyContract: cotton.buy_contract,
        decisions.DeclineContract: cotton.decline_contract,
        decisions.RevealTopContract: cotton.reveal_top_contract,
        decisions.TakeRevealedContract: cotton.take_revealed_contract,
        decisions.DiscardRevealedContract: cotton.discard_revealed_contract,
    },
    Phase.SELL: {
        decisions.ReturnShip: cotton.return_empty_ship,
        decisions.StayInRegion: cotton.stay_in_region,
    },
    Phase.KEEP_NEW: {
        decisions.KeepNewShip: stages.keep_new_ship,
        decisions.ReturnAllShips: stages.return_all_ships,
    },
    Phase.PAYMENT: {
        decisions.ChooseShareToSell: lambda s, seat, d, out: adv.choose_share(
            s, seat, d.company, d.number, out
        )
    },
    Phase.AUCTION: {
        decisions.Bid: lambda s, seat, d, out: adv.bid(s, seat, (d.pence, d.shillings, d.pounds), out),
        decisions.PassBid: lambda s, seat, d, out: adv.pass_bid(s, seat, out),
    },
}
"""The decisions each phase accepts, and what each does."""

_ON_REVEALED = (
    decisions.TakeRevealedShip,
    decisions.DiscardRevealedShip,
    decisions.TakeRevealedContract,
    decisions.DiscardRevealedContract,
)

_OPTIONS: dict[Phase, Callable[[State, int], tuple[Decision, ...]]] = {
    Phase.RENT: ships.rent_options,
    Phase.SAIL: ships.sail_options,
    Phase.BUY: cotton.buy_options,
    Phase.SELL: cotton.sell_options,
    Phase.KEEP_NEW: stages.keep_options,
    Phase.PAYMENT: lambda s, seat: tuple(
        decisions.ChooseShareToSell(company=c, number=k) for c, k in adv.sellable(s, seat)
    ),
    Phase.AUCTION: lambda s, seat: (
        *(decisions.Bid(pence=b[0], shillings=b[1], pounds=b[2]) for b in adv.bid_options(s, seat)),
        decisions.PassBid(),
    ),
}
"""The legal decisions of the seat awaited, by phase."""

_PROMPTS = {
    Phase.RENT: "rent a ship from the ship card row, or pass",
    Phase.SAIL: "sail one of your ships from the United Kingdom",
    Phase.BUY: "buy a cotton contract for your ship, or decline",
    Phase.SELL: "return your empty ship to the United Kingdom, or stay",
    Phase.KEEP_NEW: "keep a NEW-icon ship as a Good ol' Ship, or return every ship",
    Phase.PAYMENT: "choose a share to sell at auction",
    Phase.AUCTION: "bid for the share, or pass",
}


def _prompt(s: State) -> str:
    """What the seats awaited are asked now."""
    prompt = _PROMPTS.get(s.phase, "")
    if s.revealed and s.phase in (Phase.RENT, Phase.BUY):
        prompt = f"rent or discard the card turned up, {s.revealed}"
        if s.phase == Phase.BUY:
            prompt = f"buy or discard the contract turned up, {s.revealed}"
    if s.phase in (Phase.BUY, Phase.SELL):
        r, _, capacity = current_ship(s)
        prompt += f" (your capacity-{capacity} ship in {REGIONS[r].value})"
    if s.phase == Phase.PAYMENT and s.payment is not None:
        prompt += f" to cover {s.payment.amount} {currency(s)} ({s.payment.purpose})"
    if s.phase == Phase.AUCTION and s.auction is not None:
        a = s.auction
        prompt = (
            f"bid for share {a.number} of seat {a.company}'s company (worth more than {adv.standing(a)} "
            "pence-equivalents, paid with coins you hold), or pass"
        )
    return prompt


PHASES = PhaseTable(_PROCEDURES, _OPTIONS, _prompt, setup.drawn, Phase.FINISHED, violation)
resume, apply_draw, pending = PHASES.resume, PHASES.apply_draw, PHASES.pending
legal_decisions = PHASES.legal_decisions


# --- the engine's interface --------------------------------------------------------------------


def apply(s: State, seat: int, decision: Decision) -> tuple[State, tuple[Effect, ...]]:
    PHASES.check_awaited(s, seat)
    accepted = _DECISIONS.get(s.phase, {})
    decide = accepted.get(type(decision))
    if decide is None:
        expected = ", ".join(d.model_fields["type"].default for d in accepted)
        raise violation(
            "wrong_decision", f"In the {s.phase.value} phase the decision must be one of: {expected}.", ""
        )
    if s.phase in (Phase.RENT, Phase.BUY) and bool(s.revealed) != isinstance(decision, _ON_REVEALED):
        raise violation(
            "revealed_card" if s.revealed else "nothing_revealed",
            "Take or discard the card turned up first." if s.revealed else "No card is turned up.",
            "Advanced game, Company reputation 1 and 6",
        )
    out: Effects = []
    s = decide(replace(s, awaiting=()), seat, decision, out)
    s = PHASES.advance(s, out)
    return s, tuple(out)


def score(s: State, seat: int) -> tuple[int, ...]:
    pence, shillings, pounds = s.players[seat].coins
    if s.options.final_tiebreak == "TOTAL_VALUE":
        return (pounds * 9 + shillings * 3 + pence,)
    return (pounds, shillings, pence)


def standings(s: State) -> tuple[Standing, ...]:
    """End of the game, step 4: most pounds wins; shillings then pence break ties; else shared."""
    return ranked(
        [score(s, seat) for seat in range(s.players_count)],
        [f"£{p.coins[2]} {p.coins[1]}s {p.coins[0]}d" for p in s.players],
    )


def secrets(s: State, seat: int | None) -> set[str]:
    """Card ids the seat may not see now: the decks (their order is hidden) and face-down
    contracts, except those the seat has peeked at (reputation use 4)."""
    hidden = set(s.ship_deck)
    seen = {card for who, card in s.peeks if who == seat}
    for r in range(len(REGIONS)):
        hidden.update(s.contract_deck[r])
        hidden.update(slot.card for slot in s.contract_row[r] if not slot.face_up and slot.card not in seen)
    return hidden


ENGINE = module_engine(__name__, META, DECISION_ADAPTER, State)

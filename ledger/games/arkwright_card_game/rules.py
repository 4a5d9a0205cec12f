"""Arkwright: The Card Game's rules engine: the table of contents of the game.

Three decades of four rounds; each round an action phase (each player's turn: step a one
action, step b price and appeal, step c one development), the production phase of the round's
good, and the preparation of the next round; then the final scoring (spec §1, §5). This module
holds the phase table, the decisions each phase accepts, and the engine's interface; the
procedures live in the modules named after the rulebook's sections:

- ``setup``: setup, base and expert (drafted factories, the random development supply);
- ``turn``: a player's turn, with each action in its own module: ``factory_actions``
  (1-3: build and upgrade, employ, automate), ``improvements`` (4: quality or distribution),
  ``stock_exchange`` (5), ``extra_production`` (6), ``shipping`` (7, and shipping in general),
  ``actions`` (choosing, finishing, the Developer); ``development`` for step c;
- ``production``: the production phase (sale, shipping, storage, share values, decay);
- ``rounds``: the next round or decade, the Entrepreneur, the new start player;
- ``scoring``: the final scoring;
- ``views``, ``conservation``, ``words``: what a seat sees, the conservation laws, the log;
  ``economy`` holds the small rules every phase uses.

The engine runs automatic procedures until a decision or a draw is due; ``State.awaiting``
names the seats awaited and ``State.draws`` the draws due.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.engine import Decision, Effect, module_engine
from ledger.errors import RuleViolationError
from ledger.games.arkwright_card_game import production, rounds, setup, turn
from ledger.games.arkwright_card_game.conservation import conservation  # noqa: F401 (the engine's interface)
from ledger.games.arkwright_card_game.decisions import DECISION_ADAPTER
from ledger.games.arkwright_card_game.economy import Effects, violation
from ledger.games.arkwright_card_game.meta import META
from ledger.games.arkwright_card_game.rounds import decade_start_chooser  # noqa: F401 (the engine's interface)
from ledger.games.arkwright_card_game.scoring import standings  # noqa: F401 (the engine's interface)
from ledger.games.arkwright_card_game.setup import new_game  # noqa: F401 (the engine's interface)
from ledger.games.arkwright_card_game.state import Phase, State
from ledger.games.arkwright_card_game.views import view  # noqa: F401 (the engine's interface)
from ledger.games.arkwright_card_game.words import describe  # noqa: F401 (the engine's interface)
from ledger.games.shared import PhaseTable, replace

Decide = Callable[[State, int, Any, Effects], State]

# --- the phases --------------------------------------------------------------------------------

_PROCEDURES: dict[Phase, Callable[[State, Effects], State]] = {
    Phase.SETUP: setup.set_up,  # setup (§5.2)
    Phase.DRAFT_FIRST: setup.draft,
    Phase.DRAFT_SECOND: setup.draft,
    Phase.START_FOREMAN: setup.start_foreman,
    Phase.START_DEVELOPMENT: setup.start_development,
    Phase.START_SHARES: setup.start_shares,
    Phase.ROUND_START: rounds.round_start,  # each round: its good, the action phase
    Phase.ACTION: turn.action_phase,
    Phase.PRODUCTION: production.step,  # the production phase (§5.8)
    Phase.END_OF_ROUND: rounds.end_of_round,  # the next round (§5.13), or the final scoring (§5.15)
}
"""What each phase does by itself until a decision or a draw is due."""


def _valid(s: State, seat: int, d: Decision) -> bool:
    """The engine's judge for the options only a trial tells apart (the decision alone, without
    the automatic procedures after it)."""
    try:
        _decide(s, seat, d, [])
    except RuleViolationError:
        return False
    return True


_DECIDE: dict[Phase, Decide] = {
    Phase.DRAFT_FIRST: setup.decide,
    Phase.DRAFT_SECOND: setup.decide,
    Phase.START_FOREMAN: setup.decide,
    Phase.START_DEVELOPMENT: setup.decide,
    Phase.START_SHARES: setup.decide,
    Phase.ACTION: lambda s, seat, d, out: turn.decide(s, seat, d, out, _valid),
    Phase.PRODUCTION: production.decide,
    Phase.ENTREPRENEUR: rounds.keep_or_discard_entrepreneur,
    Phase.CHOOSE_START: rounds.choose_start_player,
}
"""What a decision does, by the phase it is made in (each phase says which it accepts)."""

_OPTIONS: dict[Phase, Callable[[State, int], tuple[Decision, ...]]] = {
    Phase.DRAFT_FIRST: setup.draft_options,
    Phase.DRAFT_SECOND: setup.draft_options,
    Phase.START_FOREMAN: setup.foreman_options,
    Phase.START_DEVELOPMENT: lambda s, seat: setup.start_development_options(s, seat, _valid),
    Phase.START_SHARES: setup.start_share_options,
    Phase.ACTION: lambda s, seat: tuple(turn.options(s, seat, _valid)),
    Phase.PRODUCTION: lambda s, seat: production.legal_options(s, seat, _valid),
    Phase.ENTREPRENEUR: rounds.entrepreneur_options,
    Phase.CHOOSE_START: rounds.start_player_options,
}
"""The legal decisions of the seat awaited, by phase."""

_PROMPTS = {
    Phase.DRAFT_FIRST: "choose your first starting factory",
    Phase.DRAFT_SECOND: "choose your second starting factory",
    Phase.START_FOREMAN: "place your Foreman beside one of your factories",
    Phase.START_DEVELOPMENT: "choose a starting development: a player-board development or a development card",
    Phase.START_SHARES: "buy starting shares at £10 each",
    Phase.ENTREPRENEUR: "keep the Entrepreneur, or discard it to name the next start player",
    Phase.CHOOSE_START: "name the start player of the next decade",
}
_STEP_PROMPTS = {
    "a": "step a: choose one action (or none)",
    "action": "continue the action, or finish it",
    "b": "step b: set the price and appeal of the active good",
    "c": "step c: take one development (or none)",
    "engineer": "replace the discarded Engineer with quality cards from your reserve, or finish",
}


def _prompt(s: State) -> str:
    """What the seats awaited are asked now."""
    if s.phase == Phase.ACTION and s.turn is not None:
        return _STEP_PROMPTS.get(s.turn.step, "")
    if s.phase == Phase.PRODUCTION and s.production is not None:
        return {
            "sale": "sell to the home market (Extra Shift, Patron, stored goods)",
            "leftovers": "store or ship the leftover goods, or finish production",
            "tie": "use the Entrepreneur to win the tie for the highest appeal?",
        }.get(s.production.stage, "")
    return _PROMPTS.get(s.phase, "")


PHASES = PhaseTable(_PROCEDURES, _OPTIONS, _prompt, setup.drawn, Phase.FINISHED, violation)
resume, apply_draw, pending = PHASES.resume, PHASES.apply_draw, PHASES.pending
legal_decisions = PHASES.legal_decisions


def _decide(s: State, seat: int, d: Decision, out: Effects) -> State:
    """Validate and resolve one decision, without running the automatic procedures after it."""
    PHASES.check_awaited(s, seat)
    decide = _DECIDE.get(s.phase)
    if decide is None:
        raise violation("wrong_decision", "No decision is due.", "")
    return decide(s, seat, d, out)


# --- the engine's interface --------------------------------------------------------------------


def apply(s: State, seat: int, decision: Decision) -> tuple[State, tuple[Effect, ...]]:
    out: Effects = []
    s = _decide(s, seat, decision, out)
    if s.phase == Phase.ACTION and s.turn is not None and s.turn.step != "done":
        s = replace(s, awaiting=(s.turn.seat,))
    elif s.phase == Phase.ACTION:
        s = replace(s, awaiting=())
    s = PHASES.advance(s, out)
    return s, tuple(out)


def secrets(s: State, seat: int | None) -> set[str]:
    """The cards never drawn for the expert supply, face down in the box."""
    return set(s.unseen)


ENGINE = module_engine(__name__, META, DECISION_ADAPTER, State)

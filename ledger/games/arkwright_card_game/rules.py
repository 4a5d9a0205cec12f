"""Arkwright: The Card Game's rules engine: setup (base and expert), the twelve rounds of three
decades with their action, production and preparation phases, and the final scoring (spec §5).

The engine runs automatic procedures until a decision or a draw is due; ``State.awaiting``
names the seats awaited and ``State.draws`` the draws due.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter

from ledger.engine import Decision, DrawOutcome, DrawRequest, Effect, Pending, Standing, TitleOptions
from ledger.errors import RuleViolationError
from ledger.games import vocabulary
from ledger.games.arkwright_card_game import actions, development, production, words
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import RESERVE, TRACKS
from ledger.games.arkwright_card_game.decisions import (
    DECISION_ADAPTER,
    AddMachine,
    BreakTieWithEntrepreneur,
    BuildFactory,
    BuyShares,
    BuyStartingShares,
    ChooseAction,
    ChooseStartingFactory,
    ChooseStartPlayer,
    DiscardDevelopmentCard,
    DiscardEntrepreneur,
    FinishAction,
    FinishProduction,
    FinishReplacement,
    HireWorker,
    PlaceForeman,
    PlaceReplacementQuality,
    ProduceExtra,
    RegainShips,
    SellGoods,
    SetDistributionCard,
    SetPriceAndAppeal,
    SetQualityCard,
    ShipGoods,
    ShipStoredGoods,
    SkipAction,
    SkipDevelopment,
    StoreGoods,
    TakeDevelopment,
    TakeDevelopmentCard,
    TakeLoans,
    UpgradeFactory,
    UpgradeWithInventor,
    UseBroker,
    UseDeveloper,
    UseExtraShift,
    UseInventor,
    UsePatron,
)
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    Effects,
    arrows_passed,
    buy_shares,
    card_limit,
    card_range,
    card_type,
    change_shares,
    gain,
    good_index,
    half_machine_cards,
    has,
    held,
    lifted,
    move_appeal_marker,
    move_demand,
    move_share_value,
    next_clockwise,
    place_factory,
    price_appeal,
    quality_cap,
    set_held,
    set_player,
    total_at,
    turn_order,
    values,
    violation,
    year,
)
from ledger.games.arkwright_card_game.meta import META, CardGameOptions
from ledger.games.arkwright_card_game.state import Card, Phase, Player, State, Storehouse, Turn
from ledger.games.shared import clockwise_from, replace, run_automatic, set_at

# --- setup (§5.2) ------------------------------------------------------------------------------


def _new_player(seat: int, options: CardGameOptions) -> Player:
    return Player(
        seat=seat,
        money=C.start_money,
        share_value=C.start_share_value,
        shares=C.start_shares,
        ships=0 if options.no_starting_ships else C.start_ships,
        quality=tuple(Card(id=f"Q{i + 1}") for i in range(C.quality_cards)),
        distribution=tuple(Card(id=f"D{i + 1}") for i in range(C.distribution_cards)),
        storehouses=tuple(Storehouse(id=f"S{i + 1}") for i in range(C.small_storehouses)),
        levels=(0,) * len(TRACKS),
        factories=(None,) * len(GOODS),
        appeal=(None,) * len(GOODS),
    )


def _expert_table(n: int) -> tuple[list[str], list[str], list[str]]:
    """Expert setup 10: the Entrepreneur, N-1 Engineers and N-1 Patents on the table, the other
    Engineers and Patents in the box, every other card in the deck (face A until shuffled)."""
    most = n - C.expert_max_offset
    table: list[str] = []
    box: list[str] = []
    deck: list[str] = []
    wanted = {kind: (C.expert_entrepreneurs if kind == "ENTREPRENEUR" else most) for kind in C.expert_first}
    for card in C.dev_cards:
        kind = card.faces[0]
        if kind in wanted:
            if wanted[kind] > 0:
                table.append(f"{card.id}/A")
                wanted[kind] -= 1
            else:
                box.append(f"{card.id}/A")
        else:
            deck.append(f"{card.id}/A")
    return table, box, deck


def new_game(options: TitleOptions, seats: int) -> State:
    if not isinstance(options, CardGameOptions):
        options = CardGameOptions.model_validate(options.model_dump())
    if not C.min_players <= seats <= C.max_players:
        raise violation("player_count", "Arkwright: The Card Game is for 2 to 4 players.", "Cover")
    n = seats
    players = tuple(_new_player(i, options) for i in range(n))
    draws = [DrawRequest("start_player", "pick", tuple(str(i) for i in range(n)), False, "start player")]
    supply: tuple[str, ...] = C.base_supply(n)
    box: tuple[str, ...] = ()
    unseen: tuple[str, ...] = ()
    if options.random_dev_supply:
        table, boxed, deck = _expert_table(n)
        supply, box, unseen = tuple(table), tuple(boxed), tuple(deck)
        faces = tuple(f"{c.split('/')[0]}/{face}" for c in deck for face in ("A", "B"))
        draws.append(
            DrawRequest(
                "development_deck",
                "shuffle",
                faces,
                True,
                "development cards, shuffled and flipped (the first face of each card to come up shows)",
            )
        )
    return State(
        players_count=n,
        options=options,
        phase=Phase.SETUP,
        decade=1,
        round=1,
        start_player=0,
        wage=C.wage_start,
        demand=C.demand_start[n],
        players=players,
        neutral=C.neutral_start if n == 2 else (),
        supply=supply,
        box=box,
        unseen=unseen,
        bank=-sum(p.money for p in players),
        draws=tuple(draws),
    )


def apply_draw(s: State, outcome: DrawOutcome) -> tuple[State, tuple[Effect, ...]]:
    if not s.draws:
        raise violation("no_draw_due", "No random draw is due.", "")
    req = s.draws[0]
    n = len(req.items)
    if outcome.key != req.key:
        raise violation("wrong_draw", f"The draw due is {req.key!r}.", "")
    if req.kind == "pick":
        if len(outcome.values) != 1 or not 0 <= outcome.values[0] < n:
            raise violation("bad_draw", "A pick needs one index in range.", "")
    elif sorted(outcome.values) != list(range(n)):
        raise violation("bad_draw", "A shuffle needs a permutation of the items.", "")
    out: Effects = []
    s = replace(s, draws=s.draws[1:])
    if req.key == "start_player":
        s = replace(s, start_player=outcome.values[0])
        out.append(vocabulary.StartPlayerDrawn(seat=outcome.values[0]))
    else:
        s = _build_expert_supply(s, tuple(req.items[i] for i in outcome.values), out)
    s = _advance(s, out)
    return s, tuple(out)


def _build_expert_supply(s: State, faces: tuple[str, ...], out: Effects) -> State:
    """§5.2.4 (A-19): each card, with the face that came up first, goes on the table unless its type
    is there N-1 times; then it is flipped; if the other face is too, it goes to the box and the
    next card replaces it; 4 cards per player are added."""
    seen: set[str] = set()
    deck: list[str] = []
    for item in faces:
        card_id = item.split("/")[0]
        if card_id not in seen:
            seen.add(card_id)
            deck.append(item)
    most = s.players_count - C.expert_max_offset
    table = list(s.supply)
    count = Counter(C.card_type(c) for c in table)
    target = len(table) + C.expert_per_player * s.players_count
    box = list(s.box)
    flipped = rejected = 0
    i = 0
    while len(table) < target and i < len(deck):
        card = deck[i]
        i += 1
        for attempt in (card, _flip(card)):
            if count[C.card_type(attempt)] < most:
                table.append(attempt)
                count[C.card_type(attempt)] += 1
                flipped += attempt != card
                break
        else:
            box.append(card)
            rejected += 1
    unseen = deck[i:]
    out.append(
        fx.DevelopmentSupplyBuilt(
            cards=tuple(sorted(C.card_type(c) for c in table)),
            flipped=flipped,
            rejected=rejected,
            boxed=len(box) + len(unseen),
        )
    )
    return replace(s, supply=tuple(sorted(table)), box=tuple(sorted(box)), unseen=tuple(sorted(unseen)))


def _flip(card: str) -> str:
    card_id, face = card.split("/")
    return f"{card_id}/{'B' if face == 'A' else 'A'}"


def _setup(s: State, out: Effects) -> State:
    """Starting money and share values on the tracks; then the starting factories."""
    for p in s.players:
        out.append(vocabulary.MoneyChanged(seat=p.seat, amount=p.money, balance=p.money, reason="starting_money"))
        out.append(
            vocabulary.SharePriceChanged(
                company=p.seat,
                space_from=None,
                space_to=p.share_value,
                value_from=None,
                value_to=p.share_value,
                cause="setup",
            )
        )
    if s.options.choose_start:
        return replace(s, phase=Phase.DRAFT_FIRST, cursor=0)
    order = clockwise_from(s.start_player, s.players_count)
    for rel, seat in enumerate(order):  # Player 1 is the start player (setup step 4)
        for g in C.start_factories[s.players_count][rel]:
            s = _open_start_factory(s, seat, g, "setup", out)
    if _chosen_start_development(s):
        return replace(s, phase=Phase.START_DEVELOPMENT, cursor=0)
    for rel, seat in enumerate(order):
        entry = C.start_developments[s.players_count][rel]
        if entry.startswith("TRACK:"):
            s = development.take_track(s, seat, entry.split(":")[1], out, reason="setup", ignore_decade=True)
        else:
            instance = development.supply_instance(s, entry)
            if instance is not None:
                s = development.acquire(s, seat, instance, RESERVE, out)
    return replace(s, phase=Phase.START_FOREMAN, cursor=0)


def _chosen_start_development(s: State) -> bool:
    return s.options.choose_start or s.options.random_dev_supply


def _open_start_factory(s: State, seat: int, g: int, reason: str, out: Effects) -> State:
    """Setup steps 4-6: decade-I side, token on spot 4, the position-1 worker card, office on price."""
    s = set_player(s, place_factory(s.players[seat], g, 1, with_worker=True))
    out.append(fx.FactoryBuilt(seat=seat, good=GOODS[g], side=1, reason=reason))
    return s


def _draft_order(s: State) -> tuple[int, ...]:
    n = s.players_count
    if s.phase == Phase.DRAFT_FIRST:
        return clockwise_from(s.start_player, n)
    return tuple((s.start_player - 1 - i) % n for i in range(n))  # from the start player's right


def _draft(s: State, out: Effects) -> State:
    order = _draft_order(s)
    if s.cursor < len(order):
        return replace(s, awaiting=(order[s.cursor],))
    if s.phase == Phase.DRAFT_FIRST:
        return replace(s, phase=Phase.DRAFT_SECOND, cursor=0)
    return replace(s, phase=Phase.START_DEVELOPMENT, cursor=0)


def _start_foreman(s: State, out: Effects) -> State:
    order = clockwise_from(s.start_player, s.players_count)
    while s.cursor < len(order):
        h = held(s.players[order[s.cursor]], "FOREMAN")
        if h is not None and h.good == RESERVE:
            return replace(s, awaiting=(order[s.cursor],))
        s = replace(s, cursor=s.cursor + 1)
    return _after_start_development(s)


def _start_development(s: State, out: Effects) -> State:
    order = clockwise_from(s.start_player, s.players_count)
    if s.cursor < len(order):
        return replace(s, awaiting=(order[s.cursor],))
    return _after_start_development(s)


def _after_start_development(s: State) -> State:
    if s.options.starting_shares:
        return replace(s, phase=Phase.START_SHARES, cursor=0)
    return replace(s, phase=Phase.ROUND_START, cursor=0)


def _start_shares(s: State, out: Effects) -> State:
    order = clockwise_from(s.start_player, s.players_count)
    if s.cursor < len(order):
        return replace(s, awaiting=(order[s.cursor],))
    return replace(s, phase=Phase.ROUND_START, cursor=0)


# --- the rounds ------------------------------------------------------------------------------


def _round_start(s: State, out: Effects) -> State:
    if s.round == 1:
        out.append(vocabulary.DecadeStarted(decade=year(s)))
    out.append(vocabulary.CycleStarted(decade=year(s), cycle=s.round, good=GOODS[s.good]))
    return replace(s, phase=Phase.ACTION, cursor=0, new_start=None)


def _action(s: State, out: Effects) -> State:
    """Each player in clockwise order from the start player: steps a, b and c."""
    t = s.turn
    if t is not None:
        if t.step != "done":
            return replace(s, awaiting=(t.seat,))
        s = replace(s, turn=None, cursor=s.cursor + 1)
    order = clockwise_from(s.start_player, s.players_count)
    while s.cursor < len(order):
        seat = order[s.cursor]
        if not s.players[seat].eliminated:
            return replace(s, turn=Turn(seat=seat), awaiting=(seat,))
        s = replace(s, cursor=s.cursor + 1)
    return production.start(replace(s, cursor=0, awaiting=()))


def _production(s: State, out: Effects) -> State:
    return production.step(s, out)


def _end_of_round(s: State, out: Effects) -> State:
    if s.decade == C.decades_count and s.round == C.rounds:
        return _final_scoring(s, out)
    holder = next((p.seat for p in s.players if not p.eliminated and has(p, "ENTREPRENEUR")), None)
    if holder is not None:
        return replace(s, phase=Phase.ENTREPRENEUR, awaiting=(holder,))
    return _next_round(s, out)


def _next_round(s: State, out: Effects) -> State:
    """§5.13: the next round (start card clockwise), or the next decade (cards reactivated, the
    2-player neutral's appeal forward, the new start player chosen)."""
    chosen = s.new_start
    if s.round < C.rounds:
        start = chosen if chosen is not None else next_clockwise(s, s.start_player)
        out.append(
            vocabulary.StartPlayerChanged(seat=start, reason="entrepreneur" if chosen is not None else "clockwise")
        )
        return replace(s, round=s.round + 1, start_player=start, phase=Phase.ROUND_START, awaiting=())
    s = replace(s, decade=s.decade + 1, round=1)
    s = _reactivate(s, out)
    if s.neutral:
        for g in range(len(GOODS)):
            a = s.neutral[g]
            b = min(C.appeal_max, a + C.neutral_step)
            steps = arrows_passed(s, g, a, b, neutral=True)
            s = replace(s, neutral=set_at(s.neutral, g, b))
            out.append(
                fx.AppealMarkerMoved(seat=None, good=GOODS[g], appeal_from=a, appeal_to=b, arrows=steps)
            )
            s = move_demand(s, g, steps, "neutral_appeal", out)
    if chosen is not None:
        out.append(vocabulary.StartPlayerChanged(seat=chosen, reason="entrepreneur"))
        return replace(s, start_player=chosen, phase=Phase.ROUND_START, awaiting=())
    if not turn_order(s):  # nobody left to choose
        return replace(s, phase=Phase.ROUND_START, awaiting=())
    chooser = decade_start_chooser(s)
    return replace(s, phase=Phase.CHOOSE_START, awaiting=(chooser,))


def _reactivate(s: State, out: Effects) -> State:
    count = 0
    for p in s.players:
        if any(h.rotated for h in p.cards):
            count += sum(h.rotated for h in p.cards)
            s = set_player(s, replace(p, cards=tuple(replace(h, rotated=False) for h in p.cards)))
    if count:
        out.append(fx.CardsReactivated(cards=count))
    return s


def decade_start_chooser(s: State) -> int:
    """§5.14: the lowest share value x shares chooses; ties: least money, then the closest to the
    previous start player clockwise, the start player first (A-11)."""
    order = turn_order(s) or clockwise_from(s.start_player, s.players_count)
    return min(
        order,
        key=lambda seat: (
            s.players[seat].share_value * s.players[seat].shares,
            s.players[seat].money,
            order.index(seat),
        ),
    )


def _final_scoring(s: State, out: Effects) -> State:
    """§5.15 a-e: stored goods at the fixed price, shares bought with all money, one share less per
    loan, share value down by the shipping tokens, share value x shares."""
    scores = []
    for seat in range(s.players_count):
        p = s.players[seat]
        if p.eliminated:
            scores.append(0)
            continue
        stored = sum(st.goods for st in p.storehouses)
        if stored:
            s = set_player(s, replace(p, storehouses=tuple(Storehouse(id=st.id) for st in p.storehouses)))
            s = gain(s, seat, stored * C.store_price, "stored_goods", out)
        p = s.players[seat]
        bought = p.money // p.share_value if p.share_value > 0 else 0
        if C.shares_max is not None:
            bought = min(bought, max(0, C.shares_max - p.shares))
        if bought:
            s = buy_shares(s, seat, bought, p.share_value, "final_purchase", out)
        p = s.players[seat]
        lost = min(p.shares, p.loans)
        s = change_shares(s, seat, -lost, 0, "loans", out)
        s = move_share_value(s, seat, -C.ship_penalty * p.shipping_tokens, "shipping_tokens", out)
        p = s.players[seat]
        score = p.share_value * p.shares
        scores.append(score)
        out.append(
            fx.FinalScore(
                seat=seat,
                stored_goods=stored,
                shares_bought=bought,
                shares_lost=lost,
                value_lost=C.ship_penalty * p.shipping_tokens,
                score=score,
            )
        )
    s = replace(s, scores=tuple(scores), phase=Phase.FINISHED, awaiting=())
    out.append(vocabulary.GameScored(scores=s.scores, winners=tuple(x.seat for x in standings(s) if x.rank == 1)))
    return s


_HANDLERS: dict[Phase, Callable[[State, Effects], State]] = {
    Phase.SETUP: _setup,
    Phase.DRAFT_FIRST: _draft,
    Phase.DRAFT_SECOND: _draft,
    Phase.START_FOREMAN: _start_foreman,
    Phase.START_DEVELOPMENT: _start_development,
    Phase.START_SHARES: _start_shares,
    Phase.ROUND_START: _round_start,
    Phase.ACTION: _action,
    Phase.PRODUCTION: _production,
    Phase.END_OF_ROUND: _end_of_round,
}


def _advance(s: State, out: Effects) -> State:
    """Run automatic procedures until a decision or a draw is due, or the game is over."""
    return run_automatic(s, out, _HANDLERS, Phase.FINISHED)  # type: ignore[no-any-return]


def resume(s: State) -> tuple[State, tuple[Effect, ...]]:
    """Run the automatic procedures from a position (a hand-built one, in tests and tools)."""
    out: Effects = []
    s = _advance(s, out)
    return s, tuple(out)


# --- decisions -------------------------------------------------------------------------------


def _setup_decision(s: State, seat: int, d: Decision, out: Effects) -> State:
    p = s.players[seat]
    if isinstance(d, ChooseStartingFactory):
        g = good_index(d.good)
        if p.factories[g] is not None:
            raise violation(
                "factory_taken",
                "Choose a factory still in your reserve (the second differs).",
                "Expert setup 4",
            )
        s = _open_start_factory(s, seat, g, "draft", out)
    elif isinstance(d, PlaceForeman):
        g = good_index(d.good)
        if p.factories[g] is None:
            raise violation("no_factory", "Place the Foreman beside one of your factories.", "Card 5 Foreman")
        h = held(p, "FOREMAN")
        assert h is not None
        s = set_player(s, set_held(p, replace(h, good=g)))
        out.append(fx.ForemanPlaced(seat=seat, good=d.good))
    elif isinstance(d, BuyStartingShares):
        price = C.starting_share_price
        if d.count * price > p.money:
            raise violation(
                "cannot_afford",
                f"Players start with £{p.money}; each share costs £{price}.",
                "Expert setup 11",
            )
        if d.count:
            s = buy_shares(s, seat, d.count, price, "starting_shares", out)
    elif isinstance(d, TakeDevelopment):
        s = development.take_track(s, seat, d.track, out, reason="start", ignore_decade=False)
    elif isinstance(d, TakeDevelopmentCard):
        s = development.take_card(s, seat, d, (), out, "Expert setup 4")
    return replace(s, cursor=s.cursor + 1, awaiting=())


def _turn_decision(s: State, seat: int, d: Decision, out: Effects) -> State:
    if isinstance(d, ChooseAction):
        possible = actions.available(s, d.action) and _any_valid(
            s, seat, actions.options(s, seat, d.action), d.action
        )
        return actions.choose(s, seat, d, out, possible)
    handler = _TURN_HANDLERS.get(type(d))
    if handler is None:
        raise violation("wrong_decision", "That decision is not part of a turn.", "")
    return handler(s, seat, d, out)


def _set_price_and_appeal(s: State, seat: int, d: SetPriceAndAppeal, out: Effects) -> State:
    """Step b: token spot, office and quality sides; the appeal marker moves, arrows move demand."""
    t = actions.turn_of(s)
    if t.step != "b":
        raise violation("not_step_b", "Price and appeal are set in step b, after the action.", "Step b")
    g = s.good
    p = s.players[seat]
    f = p.factories[g]
    assert f is not None
    if not 1 <= d.spot <= len(C.side(g, f.side).spots):
        raise violation("no_such_spot", "The factory token has 4 spots.", "Step b")
    here = {c.id for c in p.quality if c.good == g}
    if not set(d.appeal_cards) <= here or len(set(d.appeal_cards)) != len(d.appeal_cards):
        raise violation("quality_not_here", "Only quality cards of this factory can be rotated.", "Step b")
    f = replace(f, spot=d.spot, office_appeal=d.office == "APPEAL")
    quality = tuple(replace(c, appeal=c.id in d.appeal_cards) if c.good == g else c for c in p.quality)
    p = replace(p, factories=set_at(p.factories, g, f), quality=quality)
    s = set_player(s, p)
    price, appeal = price_appeal(p, g)
    out.append(
        fx.PriceAndAppealSet(
            seat=seat, good=GOODS[g], spot=d.spot, office=d.office, price=price, appeal=appeal
        )
    )
    s = move_appeal_marker(s, seat, g, appeal, out)
    return replace(s, turn=replace(t, step="c"))


_TURN_HANDLERS: dict[type, Callable[[State, int, Any, Effects], State]] = {
    SkipAction: actions.skip,
    FinishAction: actions.finish,
    BuildFactory: actions.build,
    UpgradeFactory: actions.upgrade,
    UpgradeWithInventor: actions.upgrade_with_inventor,
    HireWorker: actions.hire,
    AddMachine: actions.add_machine,
    SetQualityCard: actions.set_quality,
    SetDistributionCard: actions.set_distribution,
    BuyShares: actions.buy,
    TakeLoans: actions.loans,
    RegainShips: actions.regain,
    ProduceExtra: actions.produce_extra,
    StoreGoods: actions.store_extra,
    ShipStoredGoods: actions.ship_stored,
    UseDeveloper: actions.use_developer,
    SetPriceAndAppeal: _set_price_and_appeal,
    TakeDevelopment: development.take_development,
    TakeDevelopmentCard: development.take_development_card,
    DiscardDevelopmentCard: development.discard,
    UseBroker: development.use_broker,
    UseInventor: development.use_inventor,
    SkipDevelopment: development.skip,
    PlaceReplacementQuality: development.place_replacement,
    FinishReplacement: development.finish_replacement,
}

_PRODUCTION_HANDLERS: dict[type, Callable[[State, int, Any, Effects], State]] = {
    UseExtraShift: production.use_extra_shift,
    UsePatron: production.use_patron,
    SellGoods: production.sell,
    StoreGoods: production.store_leftover,
    ShipGoods: production.ship,
    FinishProduction: production.finish,
    BreakTieWithEntrepreneur: production.break_tie,
}

_SETUP_DECISIONS: dict[Phase, tuple[type, ...]] = {
    Phase.DRAFT_FIRST: (ChooseStartingFactory,),
    Phase.DRAFT_SECOND: (ChooseStartingFactory,),
    Phase.START_FOREMAN: (PlaceForeman,),
    Phase.START_DEVELOPMENT: (TakeDevelopment, TakeDevelopmentCard, SkipDevelopment),
    Phase.START_SHARES: (BuyStartingShares,),
}


def _dispatch(s: State, seat: int, d: Decision, out: Effects) -> State:
    """Validate and resolve one decision, without running the automatic procedures after it."""
    if seat not in s.awaiting:
        raise violation("not_your_turn", "The game is not waiting for your decision.", "")
    phase = s.phase
    if phase in _SETUP_DECISIONS:
        if not isinstance(d, _SETUP_DECISIONS[phase]):
            raise violation("wrong_decision", f"Now ({phase.value}) that decision does not apply.", "Setup")
        return _setup_decision(s, seat, d, out)
    if phase == Phase.ACTION:
        return _turn_decision(s, seat, d, out)
    if phase == Phase.PRODUCTION:
        handler = _PRODUCTION_HANDLERS.get(type(d))
        if handler is None:
            raise violation(
                "wrong_decision", "Now the production phase needs your decision.", "2 Production Phase"
            )
        return replace(handler(s, seat, d, out), awaiting=())
    if phase == Phase.ENTREPRENEUR:
        if not isinstance(d, DiscardEntrepreneur):
            raise violation("wrong_decision", "Keep or discard the Entrepreneur.", "Card 1 Entrepreneur")
        return _entrepreneur(s, seat, d, out)
    if phase == Phase.CHOOSE_START:
        if not isinstance(d, ChooseStartPlayer):
            raise violation(
                "wrong_decision", "Name the next start player.", "3 d. Determine the new starting player"
            )
        if d.seat >= s.players_count or s.players[d.seat].eliminated:
            raise violation("no_such_seat", f"Seat {d.seat} is not in the game.", "3 d.")
        out.append(vocabulary.StartPlayerChanged(seat=d.seat, reason="chosen"))
        return replace(s, start_player=d.seat, phase=Phase.ROUND_START, awaiting=())
    raise violation("wrong_decision", "No decision is due.", "")


def _entrepreneur(s: State, seat: int, d: DiscardEntrepreneur, out: Effects) -> State:
    if d.start_player is not None:
        if d.start_player >= s.players_count or s.players[d.start_player].eliminated:
            raise violation(
                "no_such_seat", f"Seat {d.start_player} is not in the game.", "Card 1 Entrepreneur"
            )
        s = actions.discard_card(s, seat, "ENTREPRENEUR", "start_player", out)
        s = replace(s, new_start=d.start_player)
    return _next_round(replace(s, awaiting=()), out)


def apply(s: State, seat: int, decision: Decision) -> tuple[State, tuple[Effect, ...]]:
    out: Effects = []
    s = _dispatch(s, seat, decision, out)
    if s.phase == Phase.ACTION and s.turn is not None and s.turn.step != "done":
        s = replace(s, awaiting=(s.turn.seat,))
    elif s.phase == Phase.ACTION:
        s = replace(s, awaiting=())
    s = _advance(s, out)
    return s, tuple(out)


# --- legal decisions ---------------------------------------------------------------------------


def _valid(s: State, seat: int, d: Decision) -> bool:
    try:
        _dispatch(s, seat, d, [])
    except RuleViolationError:
        return False
    return True


def _any_valid(s: State, seat: int, candidates: list[Decision], action: str) -> bool:
    """Whether an action chosen now could do at least one step."""
    t = actions.turn_of(s)
    probe = replace(
        s, turn=replace(t, step="action", action=action, start_totals=_start_totals(s, seat, action))
    )
    return any(_valid(probe, seat, d) for d in candidates)


def _start_totals(s: State, seat: int, action: str) -> tuple[int, ...]:
    from ledger.games.arkwright_card_game.economy import totals

    p = s.players[seat]
    if action == "QUALITY":
        return totals(p.quality)
    if action == "DISTRIBUTION":
        return totals(p.distribution)
    return ()


def _price_options(s: State, seat: int) -> list[Decision]:
    g = s.good
    p = s.players[seat]
    f = p.factories[g]
    assert f is not None
    here = [c.id for c in p.quality if c.good == g]
    combos: list[tuple[str, ...]] = [()]
    for cid in here:
        combos += [(*c, cid) for c in combos]
    return [
        SetPriceAndAppeal(spot=spot, office=office, appeal_cards=combo)  # type: ignore[arg-type]
        for spot in range(1, len(C.side(g, f.side).spots) + 1)
        for office in ("PRICE", "APPEAL")
        for combo in combos
    ]


def _turn_options(s: State, seat: int) -> list[Decision]:
    t = actions.turn_of(s)
    p = s.players[seat]
    out: list[Decision] = []
    developer: list[Decision] = []
    dev = held(p, "DEVELOPER")
    if dev is not None and not dev.rotated:
        developer = [
            UseDeveloper(card=card_type(h))  # type: ignore[arg-type]
            for h in p.cards
            if h.rotated and C.card_types[card_type(h)].rotates and card_type(h) != "DEVELOPER"
        ]
    if t.step == "a":
        for action in actions.ACTIONS:
            if actions.available(s, action) and _any_valid(s, seat, actions.options(s, seat, action), action):
                out.append(ChooseAction(action=action))  # type: ignore[arg-type]
        return [*out, SkipAction(), *developer]
    if t.step == "action":
        out = [d for d in actions.options(s, seat, t.action) if _valid(s, seat, d)]
        if t.steps:
            out.append(FinishAction())
        return out
    if t.step == "b":
        return [*_price_options(s, seat), *developer]
    if t.step == "c":
        return [d for d in development.options(s, seat, start=False) if _valid(s, seat, d)] + developer
    if t.step == "engineer":
        return [*development.replacement_options(s, seat), FinishReplacement()]
    return []


def legal_decisions(s: State, seat: int) -> tuple[Decision, ...]:
    if seat not in s.awaiting:
        return ()
    p = s.players[seat]
    phase = s.phase
    if phase in (Phase.DRAFT_FIRST, Phase.DRAFT_SECOND):
        return tuple(
            ChooseStartingFactory(good=GOODS[g])  # type: ignore[arg-type]
            for g in range(len(GOODS))
            if p.factories[g] is None
        )
    if phase == Phase.START_FOREMAN:
        return tuple(PlaceForeman(good=GOODS[g]) for g in range(len(GOODS)) if p.factories[g] is not None)  # type: ignore[arg-type]
    if phase == Phase.START_DEVELOPMENT:
        return tuple(d for d in development.options(s, seat, start=True) if _valid(s, seat, d))
    if phase == Phase.START_SHARES:
        return tuple(BuyStartingShares(count=k) for k in range(p.money // C.starting_share_price + 1))
    if phase == Phase.ACTION:
        return tuple(_turn_options(s, seat))
    if phase == Phase.PRODUCTION:
        return tuple(d for d in production.options(s, seat) if _valid(s, seat, d))
    if phase == Phase.ENTREPRENEUR:
        return (
            DiscardEntrepreneur(start_player=None),
            *(DiscardEntrepreneur(start_player=i) for i in turn_order(s)),
        )
    if phase == Phase.CHOOSE_START:
        return tuple(ChooseStartPlayer(seat=i) for i in turn_order(s))
    return ()


# --- pending, standings --------------------------------------------------------------------------

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


def pending(s: State) -> Pending:
    if s.draws:
        return Pending(draw=s.draws[0], prompt=f"draw: {s.draws[0].label}")
    if s.phase == Phase.FINISHED:
        return Pending(finished=True, prompt="the game is over")
    if s.phase == Phase.ACTION and s.turn is not None:
        return Pending(seats=s.awaiting, prompt=_STEP_PROMPTS.get(s.turn.step, ""))
    if s.phase == Phase.PRODUCTION and s.production is not None:
        stage = s.production.stage
        prompt = {
            "sale": "sell to the home market (Extra Shift, Patron, stored goods)",
            "leftovers": "store or ship the leftover goods, or finish production",
            "tie": "use the Entrepreneur to win the tie for the highest appeal?",
        }.get(stage, "")
        return Pending(seats=s.awaiting, prompt=prompt)
    return Pending(seats=s.awaiting, prompt=_PROMPTS.get(s.phase, ""))


def standings(s: State) -> tuple[Standing, ...]:
    """[S] Final scoring: share value x shares; ties to the most leftover money; still tied, a
    shared victory. Bankrupt players rank last."""
    n = s.players_count
    scores = s.scores or tuple(p.share_value * p.shares for p in s.players)

    def key(i: int) -> tuple[int, int, int]:
        p = s.players[i]
        return (0 if p.eliminated else 1, scores[i], p.money)

    out = []
    for i in range(n):
        rank = 1 + sum(1 for j in range(n) if key(j) > key(i))
        p = s.players[i]
        summary = (
            "bankrupt"
            if p.eliminated
            else f"£{scores[i]} ({p.shares} shares at £{p.share_value}), money £{p.money}"
        )
        out.append(Standing(seat=i, rank=rank, score=key(i), summary=summary))
    return tuple(sorted(out, key=lambda x: (x.rank, x.seat)))


# --- views, conservation, secrets ----------------------------------------------------------------


def _card_view(c: Card) -> dict[str, Any]:
    return {"card": c.id, "value": c.value, "mode": "APPEAL" if c.appeal else "PRICE"}


def _factory_view(p: Player, g: int) -> dict[str, Any] | None:
    f = p.factories[g]
    if f is None:
        return None
    v = values(p, g)
    foreman = held(p, "FOREMAN")
    return {
        "good": GOODS[g],
        "side": f.side,
        "token_spot": f.spot,
        "office": "APPEAL" if f.office_appeal else "PRICE",
        "price": v.price,
        "appeal": v.appeal,
        "goods": v.goods,
        "workers": v.workers,
        "machines": v.machines,
        "fixed_cost": v.fixed,
        "ship_price": v.ship_price,
        "worker_cards": [{"position": w.position, "side": w.side, "machines": w.machines} for w in f.workers],
        "quality": [_card_view(c) for c in p.quality if c.good == g],
        "distribution": [{"card": c.id, "value": c.value} for c in p.distribution if c.good == g],
        "storehouses": [{"storehouse": st.id, "goods": st.goods} for st in p.storehouses if st.good == g],
        "foreman": foreman is not None and foreman.good == g,
        "appeal_marker": p.appeal[g],
    }


def _player_view(s: State, p: Player) -> dict[str, Any]:
    return {
        "seat": p.seat,
        "money": p.money,
        "shares": p.shares,
        "share_value": p.share_value,
        "portfolio": p.share_value * p.shares,
        "loans": p.loans,
        "shipping_tokens": p.shipping_tokens,
        "ships": p.ships,
        "developments": {TRACKS[i]: p.levels[i] for i in range(len(TRACKS))},
        "restrictions_lifted": [TRACKS[i] for i in range(len(TRACKS)) if lifted(p, i)]
        if s.options.decade_restrictions
        else [],
        "card_limit": card_limit(p),
        "engineer_token_max6": p.engineer_token,
        "quality_cap": quality_cap(p),
        "factories": [_factory_view(p, g) for g in range(len(GOODS))],
        "reserve": {
            "factories": [GOODS[g] for g in range(len(GOODS)) if p.factories[g] is None],
            "quality": [c.id for c in p.quality if c.good == RESERVE],
            "distribution": [c.id for c in p.distribution if c.good == RESERVE],
            "storehouses": [st.id for st in p.storehouses if st.good == RESERVE],
        },
        "development_cards": [
            {
                "card": card_type(h),
                "instance": h.card,
                "rotated": h.rotated,
                "good": None if h.good == RESERVE else GOODS[h.good],
            }
            for h in p.cards
        ],
        "machine_token_on": [{"good": GOODS[g], "position": pos} for g, pos in half_machine_cards(p)],
        "eliminated": p.eliminated,
    }


def view(s: State, seat: int | None) -> dict[str, Any]:
    """Everything is public except the order and faces of the cards never drawn for the expert
    supply (they lie face down in the box)."""
    t = s.turn
    pr = s.production
    return {
        "decade": year(s),
        "decade_number": s.decade,
        "round": s.round,
        "active_good": GOODS[s.good],
        "phase": s.phase.value,
        "start_player": s.start_player,
        "turn_order": list(turn_order(s)),
        "awaiting": list(s.awaiting),
        "market": {
            "wage_position": s.wage,
            "wage": C.wage(s.wage),
            "demand": {GOODS[g]: s.demand[g] for g in range(len(GOODS))},
            "appeal": {
                GOODS[g]: {str(p.seat): p.appeal[g] for p in s.players if p.appeal[g] is not None}
                for g in range(len(GOODS))
            },
            "neutral_appeal": {GOODS[g]: s.neutral[g] for g in range(len(GOODS))} if s.neutral else None,
        },
        "development_supply": [{"card": C.card_type(c), "instance": c} for c in s.supply],
        "box": {"seen": list(s.box), "face_down": len(s.unseen)},
        "players": [_player_view(s, p) for p in s.players],
        "turn": None
        if t is None
        else {
            "seat": t.seat,
            "step": t.step,
            "action": t.action or None,
            "steps": t.steps,
            "machines_added": t.machines,
            "upgraded": [GOODS[g] for g in t.upgraded],
            "goods_to_store": {"good": GOODS[t.loose_good], "count": t.loose} if t.loose else None,
            "discarded": list(t.discarded),
            "engineer_replacement": {"good": GOODS[t.engineer_good], "value_left": t.engineer_budget}
            if t.step == "engineer"
            else None,
        },
        "production": None
        if pr is None
        else {
            "good": GOODS[pr.good],
            "producers": list(pr.order),
            "current": pr.order[pr.cursor] if pr.cursor < len(pr.order) else None,
            "stage": pr.stage,
            "produced": list(pr.produced),
            "sold": list(pr.sold),
            "leftover": list(pr.leftover),
            "shipped": list(pr.shipped),
        },
        "scores": list(s.scores) if s.scores else None,
    }


def cards_in_play(s: State) -> list[str]:
    if s.options.random_dev_supply:
        return sorted(c.id for c in C.dev_cards)
    return sorted(c.split("/")[0] for c in C.base_supply(s.players_count))


def conservation(s: State) -> list[str]:
    problems: list[str] = []
    if sum(p.money for p in s.players) + s.bank != 0:
        problems.append("money: players' money plus the bank's balance is constant")
    instances = [*s.supply, *s.box, *s.unseen, *(h.card for p in s.players for h in p.cards)]
    if sorted(c.split("/")[0] for c in instances) != cards_in_play(s):
        problems.append(
            "development cards: each card in play once, in the supply, the box or a player's hands"
        )
    if not C.demand_min <= min(s.demand) <= max(s.demand) <= C.demand_max:
        problems.append("demand markers on their tracks")
    if not 0 <= s.wage < len(C.wage_values):
        problems.append("wages marker on its track")
    for p in s.players:
        problems += [f"seat {p.seat}: {x}" for x in _player_laws(s, p)]
    return problems


def _player_laws(s: State, p: Player) -> list[str]:
    out: list[str] = []
    kinds = [card_type(h) for h in p.cards]
    if p.money < 0:
        out.append("money never negative")
    if len(set(kinds)) != len(kinds):
        out.append("no two development cards of the same type")
    if len(kinds) > card_limit(p):
        out.append("development cards within the limit")
    expect_q = [f"Q{i + 1}" for i in range(C.quality_cards)] + (["ENGINEER"] if "ENGINEER" in kinds else [])
    expect_d = [f"D{i + 1}" for i in range(C.distribution_cards)] + (["PATENT"] if "PATENT" in kinds else [])
    expect_s = [f"S{i + 1}" for i in range(C.small_storehouses)] + (
        ["BIG"] if "BIG_STOREHOUSE" in kinds else []
    )
    if sorted(c.id for c in p.quality) != sorted(expect_q) or sorted(c.id for c in p.distribution) != sorted(
        expect_d
    ):
        out.append("quality and distribution cards: the player's own, plus the Engineer and Patent held")
    if sorted(x.id for x in p.storehouses) != sorted(expect_s):
        out.append("storehouses: two small ones, plus the Big Storehouse held")
    if "ENGINEER" in kinds and not p.engineer_token:
        out.append("the Engineer flips the engineer token")
    opened = [g for g in range(len(GOODS)) if p.factories[g] is not None]
    if len(opened) > min(C.factory_tokens, C.factories_per_player):
        out.append("factory tokens: one per open factory")
    if not p.eliminated:
        if [g for g in range(len(GOODS)) if p.appeal[g] is not None] != opened:
            out.append("appeal markers: one per open factory")
        if any(a is not None and not C.appeal_min <= a <= C.appeal_max for a in p.appeal):
            out.append("appeal markers on the appeal tracks")
    for c in (*p.quality, *p.distribution):
        if c.good == RESERVE:
            if c.value:
                out.append(f"{c.id} in reserve shows no value")
        else:
            lo, hi = card_range(s, c.id)
            if p.factories[c.good] is None or not lo <= c.value <= hi:
                out.append(f"{c.id} at an open factory within its values")
    for g in opened:
        if total_at(p.quality, g) > quality_cap(p) or total_at(p.distribution, g) > C.distribution_cap:
            out.append(f"{GOODS[g]}: quality and distribution within their caps")
        f = p.factories[g]
        assert f is not None
        if len(f.workers) > C.workers_per_factory or [w.position for w in f.workers] != list(
            range(1, len(f.workers) + 1)
        ):
            out.append(f"{GOODS[g]}: worker cards in position order, at most two")
        if any(not 0 <= w.machines <= C.worker_cards[w.position].workers for w in f.workers):
            out.append(f"{GOODS[g]}: machines only replace the card's workers")
        if not 1 <= f.side <= C.sides_count(g):
            out.append(f"{GOODS[g]}: a printed factory side")
    if len(half_machine_cards(p)) > C.machine_tokens:
        out.append("one machine token")
    for st in p.storehouses:
        cap = C.big_capacity if st.id == "BIG" else C.small_capacity
        if st.good == RESERVE and st.goods:
            out.append(f"storehouse {st.id} in reserve is empty")
        if st.good != RESERVE and (not 1 <= st.goods <= cap or p.factories[st.good] is None):
            out.append(f"storehouse {st.id}: goods within its capacity, beside an open factory")
    if not 0 <= p.loans <= C.loan_tokens or not 0 <= p.shipping_tokens <= C.shipping_tokens:
        out.append("loan and shipping tokens: 9 spots each")
    if not 0 <= p.ships <= C.ships_max:
        out.append("ships: the shipping card shows 2, 1, or lies in reserve")
    if any(not 0 <= x <= C.levels_max for x in p.levels):
        out.append("development markers on their tracks")
    if not C.share_min <= p.share_value <= C.share_max or p.shares < 0:
        out.append("share value on its track, shares never negative")
    foreman = held(p, "FOREMAN")
    if foreman is not None and p.factories[foreman.good] is None and s.phase != Phase.START_FOREMAN:
        out.append("the Foreman lies beside an open factory")
    return out


def secrets(s: State, seat: int | None) -> set[str]:
    """The cards never drawn for the expert supply, face down in the box."""
    return set(s.unseen)


class CardGameEngine:
    meta = META
    decision_adapter: TypeAdapter[Any] = DECISION_ADAPTER
    state_adapter: TypeAdapter[State] = TypeAdapter(State)

    new_game = staticmethod(new_game)
    pending = staticmethod(pending)
    legal_decisions = staticmethod(legal_decisions)
    apply = staticmethod(apply)
    apply_draw = staticmethod(apply_draw)
    view = staticmethod(view)
    standings = staticmethod(standings)
    conservation = staticmethod(conservation)
    secrets = staticmethod(secrets)
    describe = staticmethod(words.describe)


ENGINE = CardGameEngine()

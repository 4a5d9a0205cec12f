"""Setup (spec §5.2, rulebook Setup and Expert setup): money, share values and the starting
factories, developments and Foreman; with the expert variants, the drafted factories, the chosen
development, starting shares, and the random development supply built from the shuffled deck
(§5.2.4)."""

from __future__ import annotations

from collections import Counter

from ledger.engine import Decision, DrawRequest, TitleOptions
from ledger.games import vocabulary
from ledger.games.arkwright_card_game import development
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import RESERVE, TRACKS
from ledger.games.arkwright_card_game.decisions import (
    BuyStartingShares,
    ChooseStartingFactory,
    PlaceForeman,
    SkipDevelopment,
    TakeDevelopment,
    TakeDevelopmentCard,
)
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    Effects,
    Valid,
    buy_shares,
    good_index,
    held,
    place_factory,
    set_held,
    set_player,
    violation,
)
from ledger.games.arkwright_card_game.meta import META, CardGameOptions
from ledger.games.arkwright_card_game.state import Card, Phase, Player, State, Storehouse
from ledger.games.shared import clockwise_from, new_game_options, replace

# --- a new game (§5.2) --------------------------------------------------------------------


def new_game(options: TitleOptions, seats: int) -> State:
    options = new_game_options(options, seats, CardGameOptions, META, "Arkwright: The Card Game", violation)
    n = seats
    players = tuple(new_player(i, options) for i in range(n))
    draws = [DrawRequest("start_player", "pick", tuple(str(i) for i in range(n)), False, "start player")]
    supply: tuple[str, ...] = C.base_supply(n)
    box: tuple[str, ...] = ()
    unseen: tuple[str, ...] = ()
    if options.random_dev_supply:
        table, boxed, deck = expert_table(n)
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


def new_player(seat: int, options: CardGameOptions) -> Player:
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


def expert_table(n: int) -> tuple[list[str], list[str], list[str]]:
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


def build_expert_supply(s: State, faces: tuple[str, ...], out: Effects) -> State:
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
        for attempt in (card, flip(card)):
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


def flip(card: str) -> str:
    card_id, face = card.split("/")
    return f"{card_id}/{'B' if face == 'A' else 'A'}"


# --- the setup's phases: money and share values, factories, developments, Foreman, shares ---


def set_up(s: State, out: Effects) -> State:
    """Starting money and share values on the tracks; then the starting factories."""
    for p in s.players:
        out.append(
            vocabulary.MoneyChanged(seat=p.seat, amount=p.money, balance=p.money, reason="starting_money")
        )
        out.append(vocabulary.share_moved(p.seat, None, p.share_value, "setup"))
    if s.options.choose_start:
        return replace(s, phase=Phase.DRAFT_FIRST, cursor=0)
    order = clockwise_from(s.start_player, s.players_count)
    for rel, seat in enumerate(order):  # Player 1 is the start player (setup step 4)
        for g in C.start_factories[s.players_count][rel]:
            s = open_start_factory(s, seat, g, "setup", out)
    if chosen_start_development(s):
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


def chosen_start_development(s: State) -> bool:
    return s.options.choose_start or s.options.random_dev_supply


def open_start_factory(s: State, seat: int, g: int, reason: str, out: Effects) -> State:
    """Setup steps 4-6: decade-I side, token on spot 4, the position-1 worker card, office on price."""
    s = set_player(s, place_factory(s.players[seat], g, 1, with_worker=True))
    out.append(fx.FactoryBuilt(seat=seat, good=GOODS[g], side=1, reason=reason))
    return s


def draft(s: State, out: Effects) -> State:
    order = draft_order(s)
    if s.cursor < len(order):
        return replace(s, awaiting=(order[s.cursor],))
    if s.phase == Phase.DRAFT_FIRST:
        return replace(s, phase=Phase.DRAFT_SECOND, cursor=0)
    return replace(s, phase=Phase.START_DEVELOPMENT, cursor=0)


def draft_order(s: State) -> tuple[int, ...]:
    n = s.players_count
    if s.phase == Phase.DRAFT_FIRST:
        return clockwise_from(s.start_player, n)
    return tuple((s.start_player - 1 - i) % n for i in range(n))  # from the start player's right


def start_foreman(s: State, out: Effects) -> State:
    order = clockwise_from(s.start_player, s.players_count)
    while s.cursor < len(order):
        h = held(s.players[order[s.cursor]], "FOREMAN")
        if h is not None and h.good == RESERVE:
            return replace(s, awaiting=(order[s.cursor],))
        s = replace(s, cursor=s.cursor + 1)
    return after_start_development(s)


def start_development(s: State, out: Effects) -> State:
    order = clockwise_from(s.start_player, s.players_count)
    if s.cursor < len(order):
        return replace(s, awaiting=(order[s.cursor],))
    return after_start_development(s)


def after_start_development(s: State) -> State:
    if s.options.starting_shares:
        return replace(s, phase=Phase.START_SHARES, cursor=0)
    return replace(s, phase=Phase.ROUND_START, cursor=0)


def start_shares(s: State, out: Effects) -> State:
    order = clockwise_from(s.start_player, s.players_count)
    if s.cursor < len(order):
        return replace(s, awaiting=(order[s.cursor],))
    return replace(s, phase=Phase.ROUND_START, cursor=0)


ACCEPTED: dict[Phase, tuple[type[Decision], ...]] = {
    Phase.DRAFT_FIRST: (ChooseStartingFactory,),
    Phase.DRAFT_SECOND: (ChooseStartingFactory,),
    Phase.START_FOREMAN: (PlaceForeman,),
    Phase.START_DEVELOPMENT: (TakeDevelopment, TakeDevelopmentCard, SkipDevelopment),
    Phase.START_SHARES: (BuyStartingShares,),
}
"""The decisions of the setup's phases."""


def decide(s: State, seat: int, d: Decision, out: Effects) -> State:
    if not isinstance(d, ACCEPTED[s.phase]):
        raise violation("wrong_decision", f"Now ({s.phase.value}) that decision does not apply.", "Setup")
    p = s.players[seat]
    if isinstance(d, ChooseStartingFactory):
        g = good_index(d.good)
        if p.factories[g] is not None:
            raise violation(
                "factory_taken",
                "Choose a factory still in your reserve (the second differs).",
                "Expert setup 4",
            )
        s = open_start_factory(s, seat, g, "draft", out)
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


def draft_options(s: State, seat: int) -> tuple[Decision, ...]:
    p = s.players[seat]
    return tuple(
        ChooseStartingFactory(good=GOODS[g])  # type: ignore[arg-type]
        for g in range(len(GOODS))
        if p.factories[g] is None
    )


def foreman_options(s: State, seat: int) -> tuple[Decision, ...]:
    p = s.players[seat]
    return tuple(PlaceForeman(good=GOODS[g]) for g in range(len(GOODS)) if p.factories[g] is not None)  # type: ignore[arg-type]


def start_development_options(s: State, seat: int, valid: Valid) -> tuple[Decision, ...]:
    return tuple(d for d in development.options(s, seat, start=True) if valid(s, seat, d))


def start_share_options(s: State, seat: int) -> tuple[Decision, ...]:
    p = s.players[seat]
    return tuple(BuyStartingShares(count=k) for k in range(p.money // C.starting_share_price + 1))


def drawn(s: State, req: DrawRequest, values: tuple[int, ...], out: Effects) -> State:
    """What a draw decides: the start player, or (expert) the development supply."""
    if req.key == "start_player":
        out.append(vocabulary.StartPlayerDrawn(seat=values[0]))
        return replace(s, start_player=values[0])
    return build_expert_supply(s, tuple(req.items[i] for i in values), out)

"""Building Arkwright: The Card Game positions for tests: deterministic setups and hand-made scenes.

Every helper returns a new frozen ``State``; hand-made positions are built with ``replace``
and handed to the engine's decisions (or to ``rules.resume`` to run the automatic procedures).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from ledger.engine import Decision, Effect
from ledger.errors import RuleViolationError
from ledger.games.arkwright_card_game import production, rules
from ledger.games.arkwright_card_game.components import RESERVE, TRACKS, load
from ledger.games.arkwright_card_game.decisions import ChooseAction, PlaceForeman
from ledger.games.arkwright_card_game.meta import CardGameOptions
from ledger.games.arkwright_card_game.state import (
    Card,
    Factory,
    Held,
    Phase,
    Player,
    State,
    Storehouse,
    Turn,
    Worker,
)
from tests import draws

E = rules.ENGINE
C = load()
GOODS = C.goods
FOOD, CLOTHES, CUTLERY, LAMPS = range(4)


def g_(good: int | str) -> int:
    return GOODS.index(good) if isinstance(good, str) else good


# --- new games ---------------------------------------------------------------------------


def settle_draws(s: State, first: int = 0) -> tuple[State, list[Effect]]:
    """Every pending draw: ``first`` as start player, the identity permutation for shuffles."""
    return draws.settle_draws(E, s, first)  # type: ignore[no-any-return]


def new(n: int, first: int = 0, **options: Any) -> State:
    """A game with every draw settled; in the base setup the starting Foreman goes beside its
    owner's first factory. Base game: round 1 of 1770, the start player awaited in step a."""
    s = E.new_game(CardGameOptions(**options), n)
    s, _ = settle_draws(s, first)
    while s.phase == Phase.START_FOREMAN:
        seat = s.awaiting[0]
        good = next(g for g in range(4) if s.players[seat].factories[g] is not None)
        s, _ = E.apply(s, seat, PlaceForeman(good=GOODS[good]))  # type: ignore[arg-type]
    return s


def play(s: State, seat: int, *decisions: Decision) -> tuple[State, list[Effect]]:
    out: list[Effect] = []
    for d in decisions:
        s, fx = E.apply(s, seat, d)
        out.extend(fx)
    return s, out


def violates(s: State, seat: int, d: Decision, code: str) -> RuleViolationError:
    with pytest.raises(RuleViolationError) as err:
        E.apply(s, seat, d)
    assert err.value.code == f"rule/arkwright-card-game/{code}", err.value.code
    assert err.value.message
    return err.value


def kinds(effects: Iterable[Effect], kind: str) -> list[Any]:
    return [e for e in effects if e.kind == kind]


# --- hand-made pieces ----------------------------------------------------------------------


def factory(
    side: int = 1, spot: int = 4, office: str = "PRICE", workers: Sequence[tuple[int, int, int]] = ()
) -> Factory:
    """A factory: workers as (position, side, machines)."""
    return Factory(
        side=side,
        spot=spot,
        office_appeal=office == "APPEAL",
        workers=tuple(Worker(position=p, side=sd, machines=m) for p, sd, m in workers),
    )


def blank_player(seat: int, **changes: Any) -> Player:
    """A player with no factory, the starting money and share value, every card in reserve."""
    p = Player(
        seat=seat,
        money=C.start_money,
        share_value=C.start_share_value,
        shares=0,
        ships=C.start_ships,
        quality=tuple(Card(id=f"Q{i + 1}") for i in range(C.quality_cards)),
        distribution=tuple(Card(id=f"D{i + 1}") for i in range(C.distribution_cards)),
        storehouses=tuple(Storehouse(id=f"S{i + 1}") for i in range(C.small_storehouses)),
    )
    return replace(p, **changes)


def scene(n: int = 4, decade: int = 1, round: int = 1, start: int = 0, **options: Any) -> State:
    """A bare position: players with no factories; the supply of the base game; no draws due."""
    s = new(n, **options)
    players = tuple(blank_player(i) for i in range(n))
    supply = tuple(sorted([*s.supply, *(h.card for p in s.players for h in p.cards)]))
    return replace(
        s,
        players=players,
        supply=supply,
        decade=decade,
        round=round,
        start_player=start,
        bank=-sum(p.money for p in players),
        turn=None,
        production=None,
        awaiting=(),
        phase=Phase.ACTION,
    )


def set_player(s: State, seat: int, **changes: Any) -> State:
    """Change a player; ``money`` keeps the bank balanced."""
    p = s.players[seat]
    bank = s.bank
    if "money" in changes:
        bank -= changes["money"] - p.money
    players = tuple(replace(p, **changes) if i == seat else x for i, x in enumerate(s.players))
    return replace(s, players=players, bank=bank)


def open_factory(
    s: State, seat: int, good: int | str, f: Factory | None = None, appeal: int | None = None
) -> State:
    """Open a factory (default: decade-I side, spot 4, no workers) with its appeal marker."""
    g = g_(good)
    p = s.players[seat]
    f = f or factory()
    factories = tuple(f if i == g else x for i, x in enumerate(p.factories))
    appeals = tuple((appeal if appeal is not None else 0) if i == g else x for i, x in enumerate(p.appeal))
    return set_player(s, seat, factories=factories, appeal=appeals)


def cards(s: State, seat: int, kind: str, layout: dict[str, tuple[str, int, str]]) -> State:
    """Quality or distribution cards: {card: (good, value, mode)}; the others stay as they are."""
    p = s.players[seat]
    field = "quality" if kind == "quality" else "distribution"
    current = getattr(p, field)
    new = []
    for c in current:
        if c.id in layout:
            good, value, mode = layout[c.id]
            new.append(Card(id=c.id, good=g_(good), value=value, appeal=mode == "APPEAL"))
        else:
            new.append(c)
    return set_player(s, seat, **{field: tuple(new)})


def give_card(s: State, seat: int, kind: str, good: int | str = RESERVE, rotated: bool = False) -> State:
    """A development card from the supply (or the box) into a player's hands, with its components."""
    pool = (*s.supply, *s.box, *s.unseen)
    instance = next((c for c in pool if C.card_type(c) == kind), None)
    if instance is None:  # turn a card in play to the face wanted
        old = next(c for c in pool if kind in C.faces[c.split("/")[0]])
        card_id = old.split("/")[0]
        instance = f"{card_id}/{'A' if C.faces[card_id][0] == kind else 'B'}"
    else:
        old = instance
    s = replace(
        s,
        supply=tuple(x for x in s.supply if x != old),
        box=tuple(x for x in s.box if x != old),
        unseen=tuple(x for x in s.unseen if x != old),
    )
    p = s.players[seat]
    extra: dict[str, Any] = {
        "cards": (
            *p.cards,
            Held(card=instance, good=g_(good) if good != RESERVE else RESERVE, rotated=rotated),
        )
    }
    if kind == "ENGINEER":
        extra |= {"quality": (*p.quality, Card(id="ENGINEER")), "engineer_token": True}
    elif kind == "PATENT":
        extra["distribution"] = (*p.distribution, Card(id="PATENT"))
    elif kind == "BIG_STOREHOUSE":
        extra["storehouses"] = (*p.storehouses, Storehouse(id="BIG"))
    return set_player(s, seat, **extra)


def level(s: State, seat: int, track: str, value: int) -> State:
    p = s.players[seat]
    i = TRACKS.index(track)
    return set_player(s, seat, levels=tuple(value if j == i else x for j, x in enumerate(p.levels)))


def stored(s: State, seat: int, storehouse: str, good: int | str, goods: int) -> State:
    p = s.players[seat]
    houses = tuple(
        Storehouse(id=x.id, good=g_(good), goods=goods) if x.id == storehouse else x for x in p.storehouses
    )
    return set_player(s, seat, storehouses=houses)


# --- moments of a turn and of production -------------------------------------------------------


def at_step(s: State, seat: int, step: str = "a", **turn: Any) -> State:
    """The action phase with ``seat``'s turn at a step (a, b, c ...)."""
    return replace(
        s, phase=Phase.ACTION, turn=Turn(seat=seat, step=step, **turn), awaiting=(seat,), production=None
    )


def in_action(s: State, seat: int, action: str) -> State:
    """``seat`` has chosen ``action`` in step a."""
    s = at_step(s, seat, "a")
    s, _ = E.apply(s, seat, ChooseAction(action=action))  # type: ignore[arg-type]
    return s


def producing(s: State, good: int | str | None = None) -> tuple[State, list[Effect]]:
    """The production phase of the round's good (``good`` sets the round) begins."""
    if good is not None:
        s = replace(s, round=g_(good) + 1)
    s = replace(production.start(s), turn=None, awaiting=())
    s, fx = rules.resume(s)
    return s, list(fx)

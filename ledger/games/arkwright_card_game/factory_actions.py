"""Actions 1 to 3 (spec §3.1.1-§3.1.3, §5.5-§5.7): build a factory from the reserve or upgrade
one to the next decade (the Inventor two, any decade), employ a worker card, automate one of its
workers with a machine."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.components import MACHINERY
from ledger.games.arkwright_card_game.decisions import (
    AddMachine,
    BuildFactory,
    HireWorker,
    UpgradeFactory,
    UpgradeWithInventor,
)
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    RULE,
    C,
    Effects,
    card_workers,
    discard_card,
    factory_of,
    good_index,
    half_machine_cards,
    has,
    in_action,
    more_workers,
    opened,
    set_player,
    step_done,
    track_allows,
    turn_of,
    violation,
    will_produce,
)
from ledger.games.arkwright_card_game.state import Factory, Player, State, Worker
from ledger.games.shared import replace, set_at


def build(s: State, seat: int, d: BuildFactory, out: Effects) -> State:
    t = in_action(s, "BUILD")
    g = good_index(d.good)
    p = s.players[seat]
    if p.factories[g] is not None:
        raise violation("factory_open", f"Your {d.good.lower()} factory is already open.", RULE["BUILD"])
    if not will_produce(s, g):
        raise violation(
            "will_not_produce",
            "In decade III a factory may only be built if it will produce in one of the remaining rounds.",
            RULE["BUILD"],
        )
    side = min(s.decade, C.sides_count(g))  # decade I side in decade I, else decade II [S]
    f = Factory(side=side, spot=C.start_spot)
    p = replace(p, factories=set_at(p.factories, g, f), appeal=set_at(p.appeal, g, C.start_appeal))
    s = set_player(s, p)
    out.append(fx.FactoryBuilt(seat=seat, good=d.good, side=side, reason="build"))
    out.append(
        fx.AppealMarkerMoved(seat=seat, good=d.good, appeal_from=None, appeal_to=C.start_appeal, arrows=0)
    )
    moved = t.market_moved
    if not moved or s.options.build_market_per_factory:  # once per action by default
        s = more_workers(s, "factory_built", out)
    return step_done(s, market_moved=True)


def upgraded_factory(g: int, f: Factory, decade: int) -> Factory:
    """The factory flipped to the decade's side (same appeal value) and its worker cards flipped
    to the decade's printed side, machines kept ([S] Upgrade, A-33)."""
    side = f.side
    spot = f.spot
    if decade > f.side and f.side < C.sides_count(g):
        side = min(decade, C.sides_count(g))
        appeal = C.side(g, f.side).spots[f.spot - 1][1]
        spots = C.side(g, side).spots
        spot = next((i + 1 for i, (_, a) in enumerate(spots) if a == appeal), f.spot)
    workers = tuple(
        replace(w, side=max(w.side, C.worker_cards[w.position].side_for(decade))) for w in f.workers
    )
    return replace(f, side=side, spot=spot, workers=workers)


def _apply_upgrade(s: State, seat: int, g: int, f: Factory, out: Effects, inventor: bool) -> State:
    p = s.players[seat]
    s = set_player(s, replace(p, factories=set_at(p.factories, g, f)))
    out.append(
        fx.FactoryUpgraded(
            seat=seat,
            good=GOODS[g],
            side=f.side,
            worker_sides=tuple(w.side for w in f.workers),
            inventor=inventor,
        )
    )
    return s


def upgrade(s: State, seat: int, d: UpgradeFactory, out: Effects) -> State:
    t = in_action(s, "BUILD")
    g = good_index(d.good)
    f = factory_of(s.players[seat], g, RULE["BUILD"])
    if s.decade < 2:
        raise violation("upgrade_decade", "Factories are upgraded in decade II or III.", RULE["BUILD"])
    if g in t.upgraded:
        raise violation("upgraded_twice", "Each factory is upgraded once per action.", RULE["BUILD"])
    new = upgraded_factory(g, f, s.decade)
    if new == f:
        raise violation("nothing_to_upgrade", "The upgrade would change nothing (A-14).", RULE["BUILD"])
    s = _apply_upgrade(s, seat, g, new, out, False)
    return step_done(s, upgraded=(*t.upgraded, g))


def inventor_decade(g: int, f: Factory) -> int:
    """One decade up from where the factory stands: I to II, or II to III (A-34)."""
    return f.side + 1 if f.side < C.sides_count(g) else C.decades_count


def upgrade_with_inventor(s: State, seat: int, d: UpgradeWithInventor, out: Effects) -> State:
    in_action(s, "BUILD")
    p = s.players[seat]
    if not has(p, "INVENTOR"):
        raise violation("no_inventor", "You hold no Inventor.", "Card 8 Inventor")
    goods = [good_index(x) for x in d.goods]
    if len(set(goods)) != len(goods) or len(goods) > C.inventor_factories:
        raise violation("inventor_factories", "The Inventor upgrades up to 2 different factories.", "Card 8")
    news = []
    for g in goods:
        f = factory_of(p, g, "Card 8 Inventor")
        new = upgraded_factory(g, f, inventor_decade(g, f))
        if new == f:
            raise violation(
                "nothing_to_upgrade", f"The {GOODS[g].lower()} factory cannot go further.", "Card 8"
            )
        news.append((g, new))
    s = discard_card(s, seat, "INVENTOR", "inventor", out)
    for g, new in news:
        s = _apply_upgrade(s, seat, g, new, out, True)
    return step_done(s, discarded=(*turn_of(s).discarded, "INVENTOR"))


def hire(s: State, seat: int, d: HireWorker, out: Effects) -> State:
    t = in_action(s, "EMPLOY")
    g = good_index(d.good)
    p = s.players[seat]
    f = factory_of(p, g, RULE["EMPLOY"])
    if len(f.workers) >= C.workers_per_factory:
        raise violation("worker_cards_full", "Any factory can have up to 2 worker cards.", RULE["EMPLOY"])
    if not will_produce(s, g):
        raise violation(
            "will_not_produce",
            "In decade III workers are only added to factories that will produce in a remaining round.",
            RULE["EMPLOY"],
        )
    position = len(f.workers) + 1
    side = C.worker_cards[position].side_for(s.decade)  # or the previous decade printed [S]
    f = replace(f, workers=(*f.workers, Worker(position=position, side=side)))
    s = set_player(s, replace(p, factories=set_at(p.factories, g, f)))
    out.append(fx.WorkerCardAdded(seat=seat, good=d.good, position=position, side=side))
    if not t.market_moved:  # once, however many workers [S]
        s = more_workers(s, "workers_employed", out)
    return step_done(s, market_moved=True)


def add_machine(s: State, seat: int, d: AddMachine, out: Effects) -> State:
    t = in_action(s, "AUTOMATE")
    g = good_index(d.good)
    p = s.players[seat]
    f = factory_of(p, g, RULE["AUTOMATE"])
    if not 1 <= d.position <= len(f.workers):
        raise violation("no_worker_card", f"No worker card on position {d.position} there.", RULE["AUTOMATE"])
    w = f.workers[d.position - 1]
    if w.machines >= card_workers(w.position):
        raise violation("card_automated", "That worker card has no worker left to replace.", RULE["AUTOMATE"])
    limit = track_allows(p, MACHINERY)
    if t.machines >= limit:
        raise violation(
            "machinery_limit",
            f"Your machinery development allows {limit} machines per action.",
            RULE["AUTOMATE"],
        )
    half = half_machine_cards(p)
    if half and half[0] != (g, d.position):
        hg, hp = half[0]
        raise violation(
            "machine_token",
            f"Your machine token lies on the {GOODS[hg].lower()} card {hp}: the next machine rotates that card.",
            RULE["AUTOMATE"],
        )
    w = replace(w, machines=w.machines + 1)
    f = replace(f, workers=set_at(f.workers, d.position - 1, w))
    s = set_player(s, replace(p, factories=set_at(p.factories, g, f)))
    out.append(fx.MachineAdded(seat=seat, good=d.good, position=d.position, machines=w.machines))
    return step_done(s, machines=t.machines + 1)


def build_options(s: State, p: Player) -> list[Decision]:
    out: list[Decision] = [BuildFactory(good=GOODS[g]) for g in range(len(GOODS)) if p.factories[g] is None]  # type: ignore[arg-type]
    out += [UpgradeFactory(good=GOODS[g]) for g in opened(p)]  # type: ignore[arg-type]
    if has(p, "INVENTOR"):
        out += [UpgradeWithInventor(goods=(GOODS[g],)) for g in opened(p)]  # type: ignore[arg-type]
        out += [
            UpgradeWithInventor(goods=(GOODS[a], GOODS[b]))  # type: ignore[arg-type]
            for i, a in enumerate(opened(p))
            for b in opened(p)[i + 1 :]
        ]
    return out


def employ_options(s: State, p: Player) -> list[Decision]:
    return [HireWorker(good=GOODS[g]) for g in opened(p)]  # type: ignore[arg-type]


def automate_options(s: State, p: Player) -> list[Decision]:
    return [
        AddMachine(good=GOODS[g], position=w.position)  # type: ignore[arg-type]
        for g in opened(p)
        for w in p.factories[g].workers  # type: ignore[union-attr]
    ]

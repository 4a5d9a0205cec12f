"""Building Water Frame positions for tests: deterministic setups and hand-made scenes.

Every helper returns a new frozen ``State``; hand-made positions are built with
``dataclasses.replace`` and then handed to ``rules.resume`` (via ``at_phase``) so
that the engine runs its automatic procedures from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from ledger.engine import Effect
from ledger.errors import RuleViolationError
from ledger.games.water_frame import rules
from ledger.games.water_frame.components import GOODS, load
from ledger.games.water_frame.decisions import (
    Done,
    FoundFactory,
    PlaceMarker,
    ReuseMarker,
    SellStartShares,
    SkipSpecialMarker,
)
from ledger.games.water_frame.meta import WaterFrameOptions
from ledger.games.water_frame.state import Factory, Phase, Row, State
from tests import draws

E = rules.ENGINE
C = load()
FOOD, CLOTHES, CUTLERY, LAMPS = range(4)

GoodRef = int | str


def good_index(good: GoodRef) -> int:
    return GOODS.index(good) if isinstance(good, str) else good


# --- new games -------------------------------------------------------------------


def settle_draws(s: State, first: int = 0) -> tuple[State, list[Effect]]:
    """Every pending draw: ``first`` as start player, the identity permutation for shuffles."""
    return draws.settle_draws(E, s, first)  # type: ignore[no-any-return]


def new_with_effects(
    n: int, predetermined: bool = False, first: int = 0, **options: Any
) -> tuple[State, list[Effect]]:
    """Draws settled; in the predetermined set-up every player also skips the tile from the box."""
    s = E.new_game(WaterFrameOptions(predetermined_setup=predetermined, **options), n)
    s, out = settle_draws(s, first)
    while s.phase == Phase.PREDETERMINED_TILE:
        s, fx = E.apply(s, s.awaiting[0], SkipSpecialMarker())
        out.extend(fx)
    return s, out


def new(n: int, predetermined: bool = False, first: int = 0, **options: Any) -> State:
    """A game with every draw settled. Random setup: 1760, first foundation, ``first`` to act.
    Predetermined setup: 1770, the start player (seat 0) awaited in the food cycle."""
    return new_with_effects(n, predetermined, first, **options)[0]


# --- the 1760 foundation round --------------------------------------------------------

DEFAULT_FOUNDATIONS: tuple[tuple[str, int], tuple[str, int]] = (("FOOD", 5), ("CLOTHES", 6))


def through_1760(
    s: State,
    foundations: Mapping[int, tuple[tuple[str, int], tuple[str, int]]] | None = None,
    sell: Mapping[int, int] | None = None,
) -> tuple[State, list[Effect]]:
    """Play the preparation round: each seat founds its two factories (default food £5 and
    clothes £6) and sells shares (default: 6) for the start-up capital."""
    foundations = foundations or {}
    sell = sell or {}
    out: list[Effect] = []
    for _ in range(100):
        if s.phase not in (Phase.FOUNDATION_1, Phase.FOUNDATION_2, Phase.START_SHARES, Phase.START_SPECIAL):
            return s, out
        seat = s.awaiting[0]
        if s.phase == Phase.START_SPECIAL:
            s, fx = E.apply(s, seat, SkipSpecialMarker())
            out.extend(fx)
            continue
        first, second = foundations.get(seat, DEFAULT_FOUNDATIONS)
        if s.phase == Phase.FOUNDATION_1:
            d: Any = FoundFactory(good=first[0], price=first[1])  # type: ignore[arg-type]
        elif s.phase == Phase.FOUNDATION_2:
            d = FoundFactory(good=second[0], price=second[1])  # type: ignore[arg-type]
        else:
            d = SellStartShares(count=sell.get(seat, 6))
        s, fx = E.apply(s, seat, d)
        out.extend(fx)
    raise AssertionError("the 1760 round did not end")


def new_1770(n: int, first: int = 0, **options: Any) -> State:
    """A random-setup game played through 1760 with the default foundations (1770, food cycle)."""
    s, _ = through_1760(new(n, first=first, **options))
    assert s.decade == 1770 and s.phase == Phase.ACTION
    return s


# --- hand-made changes -------------------------------------------------------------------


def with_player(s: State, seat: int, **changes: Any) -> State:
    p = s.players[seat]
    return replace(s, players=(*s.players[:seat], replace(p, **changes), *s.players[seat + 1 :]))


def rows_of(spec: Sequence[int | tuple[int, int]]) -> tuple[Row, Row, Row, Row]:
    """Rows from ``[workers | (workers, machines), ...]``, padded to four rows."""
    rows = [Row(workers=x) if isinstance(x, int) else Row(workers=x[0], machines=x[1]) for x in spec]
    rows += [Row()] * (4 - len(rows))
    return tuple(rows)  # type: ignore[return-value]


def full_rows(good: GoodRef, n: int) -> tuple[Row, Row, Row, Row]:
    """The first ``n`` production rows completely filled with workers (slots from the components)."""
    g = good_index(good)
    return rows_of([C.slots(g, r) for r in range(n)])


def factory(
    good: GoodRef,
    *,
    level: int = 1,
    price: int | None = None,
    rows: Sequence[int | tuple[int, int]] | tuple[Row, Row, Row, Row] | None = None,
    quality: int = 0,
    distribution: int = 0,
    **changes: Any,
) -> Factory:
    """A factory of ``good``; by default rows 1 and 2 full of workers and the price at the
    base quality (appeal 0 before quality and distribution)."""
    g = good_index(good)
    if rows is None:
        built = full_rows(g, 2)
    elif rows and isinstance(rows[0], Row):
        built = tuple(rows)  # type: ignore[assignment]
    else:
        built = rows_of(rows)  # type: ignore[arg-type]
    return Factory(
        level=level,
        price=C.base_quality(g, level) if price is None else price,
        rows=built,  # type: ignore[arg-type]
        quality=quality,
        distribution=distribution,
        **changes,
    )


def with_factory(s: State, seat: int, good: GoodRef, f: Factory | None) -> State:
    g = good_index(good)
    p = s.players[seat]
    factories = tuple(f if i == g else x for i, x in enumerate(p.factories))
    return with_player(s, seat, factories=factories)


def with_factories(
    s: State, seat: int, factories: Mapping[int, Factory | None] | Mapping[str, Factory | None]
) -> State:
    """Replace all four factories of a seat (goods not named have none)."""
    by_index = {good_index(g): f for g, f in factories.items()}
    return with_player(s, seat, factories=tuple(by_index.get(g) for g in range(4)))


def without_factories(s: State) -> State:
    for seat in range(s.players_count):
        s = with_player(s, seat, factories=(None, None, None, None))
    return s


def scene(n: int = 3, **options: Any) -> State:
    """1770 after the preparation round, every factory removed, importers at 0."""
    s = without_factories(new_1770(n, **options))
    return replace(s, importers=(0, 0, 0, 0))


def with_stock(s: State, seat: int, good: GoodRef, count: int) -> State:
    p = s.players[seat]
    g = good_index(good)
    return with_player(s, seat, stock=tuple(count if i == g else x for i, x in enumerate(p.stock)))


def with_marker(s: State, seat: int, action: str, space: int) -> State:
    """Put an own-colour marker on the seat's administration space costing ``space``."""
    p = s.players[seat]
    i = C.admin_spaces.index(space)
    return with_player(s, seat, admin=(*p.admin[:i], f"OWN:{action}", *p.admin[i + 1 :]))


def with_importer(s: State, good: GoodRef, position: int) -> State:
    g = good_index(good)
    importers = tuple(position if i == g else x for i, x in enumerate(s.importers))
    return replace(s, importers=importers)  # type: ignore[arg-type]


# --- the job market --------------------------------------------------------------------


def demand_at(jm_empty: int, good: GoodRef) -> int:
    """Numbered empty cells of the good's column (reading order: cell = (row-1)*4 + col-1)."""
    g = good_index(good)
    return sum(1 for cell in range(jm_empty) if cell % len(GOODS) == g and C.jm_numbered[cell])


def wage_at(jm_empty: int) -> int:
    """The wage printed beside the row of the lowest empty cell (top-row wage if none is empty)."""
    return C.jm_wage_of_row[0] if jm_empty == 0 else C.jm_wage_of_row[(jm_empty - 1) // len(GOODS)]


def jm_empty_for(good: GoodRef, demand: int | None = None, wage: int | None = None) -> int:
    """The smallest number of empty job-market cells giving that demand for ``good`` and that wage."""
    for e in range(C.jm_cells + 1):
        if (demand is None or demand_at(e, good) == demand) and (wage is None or wage_at(e) == wage):
            return e
    raise AssertionError(f"no job market gives demand {demand} and wage {wage}")


# --- phases and turns ---------------------------------------------------------------------


def at_phase(s: State, phase: Phase, **changes: Any) -> tuple[State, tuple[Effect, ...]]:
    """Jump to a phase (no turn, no sale, nobody awaited, cursor 0 unless given) and let the
    engine run its automatic procedures from there."""
    base: dict[str, Any] = {"cursor": 0, "awaiting": (), "turn": None, "sale": None}
    base.update(changes)
    return rules.resume(replace(s, phase=phase, **base))


def produce(s: State, good: GoodRef, **changes: Any) -> tuple[State, tuple[Effect, ...]]:
    """Every player has had his turn in the cycle of ``good``: run its production phase."""
    g = good_index(good)
    return at_phase(s, Phase.ACTION, cycle=g, cursor=s.players_count, **changes)


def start_turn(
    s: State, seat: int, action: str, space: int, *, reuse: bool = False, cycle: int | None = None
) -> tuple[State, tuple[Effect, ...]]:
    """Give ``seat`` the turn (as start player of the cycle) and place its own-colour ``action``
    marker on the £``space`` space; with ``reuse`` the marker already lies there and is re-used."""
    cyc = cycle if cycle is not None else max(s.cycle, 0)
    s, _ = at_phase(s, Phase.ACTION, cycle=cyc, start_player=seat)
    assert s.awaiting == (seat,), s.awaiting
    if reuse:
        s = with_marker(s, seat, action, space)
        return E.apply(s, seat, ReuseMarker(action=action))  # type: ignore[arg-type]
    return E.apply(s, seat, PlaceMarker(action=action, space=space))  # type: ignore[arg-type]


def play(s: State, seat: int, decision: Any) -> tuple[State, tuple[Effect, ...]]:
    return E.apply(s, seat, decision)


def play_all(s: State, seat: int, decisions: Iterable[Any]) -> tuple[State, list[Effect]]:
    out: list[Effect] = []
    for d in decisions:
        s, fx = E.apply(s, seat, d)
        out.extend(fx)
    return s, out


def all_done(s: State) -> tuple[State, list[Effect]]:
    """Everyone awaited answers ``Done`` (releases, the final stock exchange) until nobody is."""
    out: list[Effect] = []
    for _ in range(20):
        if not s.awaiting or s.phase not in (Phase.RELEASE, Phase.FINAL_STOCK_EXCHANGE):
            return s, out
        s, fx = E.apply(s, s.awaiting[0], Done())
        out.extend(fx)
    raise AssertionError("still awaiting")


def rejected(s: State, seat: int, decision: Any, code: str) -> RuleViolationError:
    """The decision is refused with ``rule/water-frame/<code>`` and the position is unchanged."""
    before = replace(s)
    view_before = E.view(s, None)
    with pytest.raises(RuleViolationError) as err:
        E.apply(s, seat, decision)
    assert err.value.code == f"rule/water-frame/{code}", err.value.code
    if seat in s.awaiting:
        assert decision not in E.legal_decisions(s, seat)
    assert s == before
    assert E.view(s, None) == view_before
    return err.value


# --- reading effects --------------------------------------------------------------------------


def cash(s: State, seat: int) -> int:
    return s.players[seat].cash


def appeal_of(s: State, seat: int, good: int) -> int:
    f = E.view(s, None)["players"][seat]["factories"][good]
    return 0 if f is None else f["appeal"]


def turn_view(s: State) -> dict[str, Any]:
    t = E.view(s, None)["turn"]
    assert t is not None
    return t


def kinds(effects: Iterable[Effect]) -> list[str]:
    return [e.kind for e in effects]


def of_kind(effects: Iterable[Effect], kind: str, **match: Any) -> list[Any]:
    return [e for e in effects if e.kind == kind and all(getattr(e, k) == v for k, v in match.items())]


def one(effects: Iterable[Effect], kind: str, **match: Any) -> Any:
    found = of_kind(effects, kind, **match)
    assert len(found) == 1, f"{len(found)} {kind} effects matching {match}"
    return found[0]


# --- special markers: development tiles, grey markers, ships ---------------------------------------


def on_display(s: State, *tiles: str) -> State:
    """Lay these development tiles on the display as well (one copy each, if none lies there)."""
    display = list(s.display)
    display.extend(t for t in tiles if t not in display)
    return replace(s, display=tuple(sorted(display)))


def with_tiles(s: State, seat: int, *tiles: str, assigned: Mapping[str, GoodRef] | None = None) -> State:
    """The seat owns exactly ``tiles``: the tiles it held go back to the display, each new tile
    comes off the display when a copy lies there. ``assigned`` names the factory of the foreman
    and the workshop."""
    p = s.players[seat]
    display = [*s.display, *p.tiles]
    for tile in tiles:
        if tile in display:
            display.remove(tile)
    links = tuple((tile, good_index(g)) for tile, g in (assigned or {}).items())
    s = with_player(s, seat, tiles=tuple(tiles), assigned=links)
    return replace(s, display=tuple(sorted(display)))


def with_grey(s: State, seat: int, *markers: str) -> State:
    """The seat owns these advanced action markers ("LIGHT:MACHINERY" ...), taken off the special
    markers mat where they lie, otherwise out of the box."""
    mat = [list(row) for row in s.mat]
    box = list(s.box_markers)
    for m in markers:
        row = next((r for r in mat if m in r), None)
        if row is not None:
            row.remove(m)
        elif m in box:
            box.remove(m)
    s = with_player(s, seat, grey=(*s.players[seat].grey, *markers))
    return replace(s, mat=tuple(tuple(r) for r in mat), box_markers=tuple(box))


def with_ships(s: State, seat: int, *ships: str) -> State:
    """The seat owns exactly these ships: its former ships go back to their mat rows (their crews
    back into the job market), the new ones come off the mat with their crews hired from the job
    market, so the 80 workers stay conserved."""
    p = s.players[seat]
    mat = [list(row) for row in s.mat_ships]
    for old in p.ships:
        mat[C.ship(old).row - 1].append(old)
    for new_ship in ships:
        mat[C.ship(new_ship).row - 1].remove(new_ship)
    old_crew = sum(C.ship(x).crew for x in p.ships)
    new_crew = sum(C.ship(x).crew for x in ships)
    s = with_player(s, seat, ships=tuple(ships))
    return replace(
        s,
        mat_ships=tuple(tuple(sorted(r)) for r in mat),
        jm_empty=s.jm_empty - old_crew + new_crew,
    )


def contracts(**spaces: int) -> tuple[int, int, int, int]:
    """A contracts tuple from ``FOOD=6, LAMPS=4`` (0: no contract of that good)."""
    return tuple(spaces.get(g, 0) for g in GOODS)  # type: ignore[return-value]


def give_turn(s: State, seat: int, cycle: int | None = None) -> State:
    """``seat`` starts the action phase of the cycle (default: the current one) and has placed
    nothing yet: the next decision is the marker (own colour, grey, or a ship)."""
    cyc = cycle if cycle is not None else max(s.cycle, 0)
    s, _ = at_phase(s, Phase.ACTION, cycle=cyc, start_player=seat)
    assert s.awaiting == (seat,), s.awaiting
    return s

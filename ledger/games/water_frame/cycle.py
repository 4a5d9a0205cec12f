"""A decade's four cycles (spec §3.2-§3.4, §5.3, §5.9): the decade begins, each cycle's economy
marker is revealed (the importer advances, workers return to the job market), the action phase
is played in turn order, and after each of the first three cycles the charisma owner may name
the start player, or the left neighbour starts the next cycle."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games import vocabulary
from ledger.games.shared import replace, set_at
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import UseCharisma
from ledger.games.water_frame.economy import (
    C,
    Effects,
    charisma_owner,
    level_now,
    return_tile,
    turn_order,
    violation,
)
from ledger.games.water_frame.state import Phase, Sale, State


def start_decade(s: State, out: Effects) -> State:
    out.append(fx.DecadeStarted(decade=s.decade, level=level_now(s)))
    for seat in range(s.players_count):
        if s.decade == 1770:
            space = s.players[seat].share_space
            out.append(vocabulary.share_moved(seat, None, space, "setup", C.share_value))
    return replace(s, phase=Phase.ECONOMY, cycle=0, goods_done=())


def economy_phase(s: State, out: Effects) -> State:
    g = s.cycle
    out.append(vocabulary.CycleStarted(decade=s.decade, cycle=g + 1, good=GOODS[g]))
    advance, workers = C.economy_marker(s.economy[s.decade_index * 4 + g])
    importer = min(C.importer_max, s.importers[g] + advance)
    k = min(workers, s.fired, s.jm_empty)  # the remainder is forfeit
    s = replace(
        s,
        importers=set_at(s.importers, g, importer),
        fired=s.fired - k,
        jm_empty=s.jm_empty - k,
        economy_revealed=s.economy_revealed + 1,
    )
    out.append(
        fx.EconomyMarkerRevealed(
            decade=s.decade, good=GOODS[g], advance=advance, workers=workers, importer=importer, returned=k
        )
    )
    return replace(s, phase=Phase.ACTION, cursor=0)


def action_phase(s: State, out: Effects) -> State:
    order = turn_order(s)
    if s.cursor < len(order):
        return replace(s, awaiting=(order[s.cursor],))
    n = s.players_count
    sale = Sale(
        good=s.cycle,
        tokens=0,
        level=0,
        produced=(0,) * n,
        sold_prod=(0,) * n,
        sold_stock=(0,) * n,
        stopped=(False,) * n,
        closed_row=(-1,) * n,
        extra=(0,) * n,
        extra_window=(False,) * n,
        stock_source=("",) * n,
        patron=(0,) * n,
        patron_from_surplus=(0,) * n,
        shipped_from_surplus=(0,) * n,
    )
    return replace(s, phase=Phase.SCHOOL, sale=sale, cursor=0)


def end_of_cycle(s: State, out: Effects) -> State:
    if s.cycle < 3:
        if charisma_owner(s) is not None:
            return replace(s, phase=Phase.CHARISMA, awaiting=(charisma_owner(s),))  # type: ignore[arg-type]
        return next_cycle(s, out)
    return replace(s, phase=Phase.RETURN_MARKERS, cycle=-1)


def next_cycle(s: State, out: Effects, start: int | None = None) -> State:
    start = (s.start_player + 1) % s.players_count if start is None else start  # the left neighbour
    out.append(vocabulary.StartPlayerChanged(seat=start, reason="next_cycle"))
    return replace(s, start_player=start, cycle=s.cycle + 1, phase=Phase.ECONOMY, awaiting=())


def charisma(s: State, out: Effects) -> State:
    return replace(s, awaiting=(charisma_owner(s),))  # type: ignore[arg-type]


def use_charisma(s: State, seat: int, d: UseCharisma, out: Effects) -> State:
    if d.seat is not None:
        if d.seat >= s.players_count:
            raise violation("no_such_seat", f"There is no seat {d.seat}.", "5.IV")
        s = return_tile(s, seat, "CHARISMA", out)
        out.append(vocabulary.StartPlayerChanged(seat=d.seat, reason="charisma"))
        if s.cycle >= 0:
            return replace(s, start_player=d.seat, cycle=s.cycle + 1, phase=Phase.ECONOMY, awaiting=())
        return replace(s, start_player=d.seat, phase=Phase.OBSOLESCENCE, awaiting=())
    if s.cycle >= 0:
        return next_cycle(s, out)
    return replace(s, phase=Phase.START_PLAYER, awaiting=())


def charisma_options(s: State, seat: int) -> tuple[Decision, ...]:
    return (UseCharisma(seat=None), *(UseCharisma(seat=i) for i in range(s.players_count)))

"""Game creation (spec §3.0) and the random draws (§4): the start player, the event markers
(R-2), the grey action markers on the special markers mat (R-4), the development tiles on display
(R-5, never as many copies as players) and each good's economy markers, one per decade."""

from __future__ import annotations

from ledger.engine import DrawRequest, TitleOptions
from ledger.games import vocabulary
from ledger.games.shared import new_game_options, replace
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS, GREY_ACTIONS, PATRONS
from ledger.games.water_frame.economy import C, Effects, violation
from ledger.games.water_frame.meta import META, WaterFrameOptions
from ledger.games.water_frame.state import Phase, Player, State


def shuffle_request(key: str, items: tuple[str, ...], label: str) -> DrawRequest:
    return DrawRequest(key=key, kind="shuffle", items=tuple(sorted(items)), hidden=True, label=label)


def economy_pool(s_or_n: int, predetermined: bool, good: int) -> tuple[str, ...]:
    drop_three = s_or_n == 2 or predetermined
    return tuple(
        f"{GOODS[good]}-{a}{w}"
        for a, w in C.economy_markers
        if not (drop_three and w == C.economy_three_workers)
    )


def new_game(options: TitleOptions, seats: int) -> State:
    options = new_game_options(options, seats, WaterFrameOptions, META, "Water Frame", violation)
    if options.predetermined_events_shuffled and not options.predetermined_setup:
        raise violation(
            "option_needs_predetermined",
            "Shuffled predetermined events need the predetermined setup.",
            "4.1 I",
        )
    n = seats
    fired, box = C.setup_workers[n]
    players = tuple(
        Player(
            seat=i,
            cash=0,
            shares=C.start_shares,
            bank_shares=C.shares_per_company - C.start_shares,
            loans=0,
            share_space=C.share_start,
            factories=(None, None, None, None),
            admin=(None,) * len(C.admin_spaces),
        )
        for i in range(n)
    )
    ships = [x for x in C.ships if n > 2 or x.capacity == C.two_player_ship_capacity]
    mat_ships = tuple(tuple(sorted(x.id for x in ships if x.row == r)) for r in (1, 2, 3, 4))
    draws: list[DrawRequest] = []
    events: tuple[str, ...] = ()
    mat: tuple[tuple[str, ...], ...] = ((), (), (), ())
    display: tuple[str, ...] = ()
    if options.predetermined_setup:
        events = tuple(C.events_predetermined[d] for d in C.decades)
        if options.predetermined_events_shuffled:
            three = tuple(events[i] for i in (0, 1, 3))
            draws.append(
                shuffle_request("events-predetermined", three, "event markers of 1770, 1780 and 1800")
            )
        mat = C.mat_predetermined[n]
        display = tuple(sorted(C.tiles_predetermined[n]))
    else:
        if not options.chosen_start_player:  # chosen: seat 0 names the start player (preparation)
            draws.append(
                DrawRequest("start_player", "pick", tuple(str(i) for i in range(n)), False, "start player")
            )
        pool = tuple(e for e in event_pool(options) if not (n == 2 and e in C.events_removed_2p))
        draws.append(shuffle_request("events", pool, "event markers"))
        for shade in ("LIGHT", "DARK"):
            markers = tuple(
                f"{shade}:{a}" for a in GREY_ACTIONS for _ in range(C.mat_copies - C.mat_sets_removed[n])
            )
            draws.append(shuffle_request(f"mat:{shade}", markers, f"{shade.lower()} grey action markers"))
        display = _first_display(options)
        draws.append(shuffle_request("tiles", _tile_pool(options, display), "development tiles"))
    for g in range(4):
        draws.append(
            shuffle_request(
                f"economy:{GOODS[g]}",
                economy_pool(n, options.predetermined_setup, g),
                f"{GOODS[g].lower()} economy markers",
            )
        )
    return State(
        players_count=n,
        options=options,
        decade=1760,
        cycle=-1,
        phase=Phase.SETUP,
        start_player=0,
        jm_empty=fired + box,
        fired=fired,
        boxed=box,
        importers=(0, 0, 0, 0),
        economy=(),
        events=events,
        players=players,
        draws=tuple(draws),
        mat=mat,
        mat_ships=mat_ships,
        display=display,
    )


def event_pool(options: WaterFrameOptions) -> tuple[str, ...]:
    return C.event_pool if options.edition == "2016" else C.events_pool_2014


def _first_display(options: WaterFrameOptions) -> tuple[str, ...]:
    """Charisma and one inventor always; the four patrons too with the patron variant (R-5)."""
    first = ["CHARISMA", "INVENTOR"]
    if options.patron_variant:
        first.extend(PATRONS)
    return tuple(sorted(first))


def _tile_pool(options: WaterFrameOptions, displayed: tuple[str, ...]) -> tuple[str, ...]:
    pool: list[str] = []
    for tile, copies in sorted(C.tile_copies[options.edition].items()):
        pool.extend([tile] * (copies - displayed.count(tile)))
    return tuple(pool)


def tile_copies(s: State) -> dict[str, int]:
    return C.tile_copies[s.options.edition]


def box_tiles(s: State) -> list[str]:
    """Tiles neither on display nor owned: what the predetermined set-up hands out (A-47)."""
    left = dict(tile_copies(s))
    for tile in (*s.display, *(t for p in s.players for t in p.tiles)):
        left[tile] -= 1
    return sorted(t for t, k in left.items() if k > 0)


def drawn(s: State, req: DrawRequest, values: tuple[int, ...], out: Effects) -> State:
    """What a draw decides: the start player, the order of the event markers, the grey markers
    laid out on the mat, the tiles on display, or the economy markers of a good."""
    n = len(req.items)
    order = tuple(req.items[i] for i in values)
    if req.key == "start_player":
        s = replace(s, start_player=values[0])
        out.append(vocabulary.StartPlayerDrawn(seat=values[0]))
    elif req.key == "events":
        # the first marker lies on 1800; the next two and Bureaucracy are shuffled onto 1770-1790
        s = replace(s, events=("", "", "", order[0], C.event_end))
        early = (order[1], order[2], C.event_bureaucracy)
        s = replace(s, draws=(shuffle_request("events-early", early, "event markers of 1770-1790"), *s.draws))
        out.append(vocabulary.DeckShuffled(deck="event markers", cards=n))
    elif req.key == "events-early":
        s = replace(s, events=(order[0], order[1], order[2], s.events[3], s.events[4]))
        out.append(vocabulary.DeckShuffled(deck="event markers of 1770-1790", cards=n))
    elif req.key == "events-predetermined":
        s = replace(s, events=(order[0], order[1], s.events[2], order[2], s.events[4]))
        out.append(vocabulary.DeckShuffled(deck=req.label, cards=n))
    elif req.key.startswith("mat:"):  # face up, one per space; the surplus to the box unseen
        per_row = s.players_count
        first = 0 if req.key == "mat:LIGHT" else 2
        mat = list(s.mat)
        mat[first] = tuple(sorted(order[:per_row]))
        mat[first + 1] = tuple(sorted(order[per_row : 2 * per_row]))
        s = replace(s, mat=tuple(mat), box_markers=tuple(sorted((*s.box_markers, *order[2 * per_row :]))))
        if req.key == "mat:DARK":
            out.append(fx.MarkerLaidOut(rows=s.mat, ships=s.mat_ships))
    elif req.key == "tiles":  # R-5 with the redraw rule: never as many copies on display as players
        target = (
            len(s.display)
            + (C.tiles_random_patrons if s.options.patron_variant else C.tiles_random)[s.players_count]
        )
        display = list(s.display)
        rejected: list[str] = []
        for tile in order:
            if len(display) >= target:
                break
            if display.count(tile) + 1 >= s.players_count:
                rejected.append(tile)
                continue
            display.append(tile)
        s = replace(s, display=tuple(sorted(display)))
        out.append(fx.TilesDisplayed(tiles=s.display, rejected=tuple(rejected)))
    else:  # economy:<GOOD>: one marker per decade, the rest to the box unseen
        g = GOODS.index(req.key.split(":", 1)[1])
        economy = list(s.economy) if s.economy else [""] * (len(C.decades) * 4)
        for d in range(len(C.decades)):
            economy[d * 4 + g] = order[d]
        s = replace(s, economy=tuple(economy))
        out.append(vocabulary.DeckShuffled(deck=req.label, cards=n))
    return s

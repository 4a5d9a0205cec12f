"""The strong bot decides from its seat's view only, always legally; the arena plays and counts.

The permutation tests build mid-game positions of every title, change every item the seat
cannot see (deck orders, face-down contracts, the economy and event markers to come, the
faces of the cards left in the box) into another completion it could not tell apart, and
check that the seat's view is unchanged, that the bot's sampled worlds are identical and
that its decision (same seed) does not change.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from ledger import registry
from ledger.bots import arena, strong
from ledger.bots.play import advance
from ledger.games.cotton_trade.state import Slot
from ledger.games.shared import replace
from ledger.games.water_frame import setup as wf_setup
from ledger.games.water_frame.economy import C as WF

TITLES = sorted(registry.TITLES)
OPTIONS: dict[str, dict[str, Any]] = {
    "cotton-trade": {"reputation": True},  # peeks: what one seat saw and the others did not
    "water-frame": {},
    "arkwright-card-game": {"random_dev_supply": True},  # cards left face down in the box
}
BUDGET_MS = 15.0  # small searches: the tests check what a decision depends on, not its strength


# --- positions -------------------------------------------------------------------------


def positions(title: str, seed: int, count: int) -> list[tuple[Any, int]]:
    """``count`` positions of a 4-player greedy game where a seat awaits a searched decision
    with a choice (spread over the game)."""
    eng = registry.engine(title)
    greedy = registry.bot(title)
    assert greedy is not None
    model = strong.model(title)
    state = eng.new_game(eng.meta.options.model_validate(OPTIONS[title]), 4)
    found: list[tuple[Any, int]] = []
    rng = random.Random(seed)
    skip = rng.randrange(5, 40)

    def watch(s: Any, seat: int) -> Any:
        nonlocal skip
        if len(found) < count and model.weight(s, seat) > 0 and len(eng.legal_decisions(s, seat)) > 1:
            skip -= 1
            if skip <= 0:
                found.append((s, seat))
                skip = rng.randrange(20, 80)
        return greedy(s, seat)

    advance(eng, state, lambda _seat: watch, rng)
    assert found, "the game offered searched decisions"
    return found


def permute_cotton_trade(s: Any, seat: int, rng: random.Random) -> Any:
    """The ship deck reshuffled; per region, the deck and the face-down contracts the seat has
    not peeked at dealt again among those places (another seat's peek follows its place)."""
    mine = {card for who, card in s.peeks if who == seat}
    deck = list(s.ship_deck)
    rng.shuffle(deck)
    decks, rows, moved = [], [], {}
    for r, row in enumerate(s.contract_row):
        places = [("deck", i) for i in range(len(s.contract_deck[r]))]
        places += [("row", i) for i, sl in enumerate(row) if not sl.face_up and sl.card not in mine]
        cards = [s.contract_deck[r][i] if where == "deck" else row[i].card for where, i in places]
        dealt = cards[:]
        rng.shuffle(dealt)
        new_deck, new_row = list(s.contract_deck[r]), list(row)
        for (where, i), old, card in zip(places, cards, dealt, strict=True):
            moved[old] = card
            if where == "deck":
                new_deck[i] = card
            else:
                new_row[i] = Slot(card=card, face_up=False)
        decks.append(tuple(new_deck))
        rows.append(tuple(new_row))
    peeks = tuple((who, card if who == seat else moved.get(card, card)) for who, card in s.peeks)
    return replace(
        s, ship_deck=tuple(deck), contract_deck=tuple(decks), contract_row=tuple(rows), peeks=peeks
    )


def permute_water_frame(s: Any, seat: int, rng: random.Random) -> Any:
    """Another draw of the economy markers still face down (from each good's pool less those
    shown), the hidden early events shuffled and the 1800 marker swapped with one of them."""
    economy = list(s.economy)
    for g in range(4):
        slots = [d * 4 + g for d in range(len(economy) // 4)]
        hidden = [i for i in slots if i >= s.economy_revealed]
        pool = list(wf_setup.economy_pool(s.players_count, s.options.predetermined_setup, g))
        for i in slots:
            if i < s.economy_revealed:
                pool.remove(economy[i])
        for i, marker in zip(hidden, rng.sample(pool, len(hidden)), strict=True):
            economy[i] = marker
    events = list(s.events)
    early = [i for i in range(3) if i >= s.events_revealed]
    picked = [events[i] for i in early]
    rng.shuffle(picked)
    for i, e in zip(early, picked, strict=True):
        events[i] = e
    swappable = [i for i in early if events[i] != WF.event_bureaucracy]
    if s.events_revealed <= 3 and swappable:
        i = rng.choice(swappable)
        events[i], events[3] = events[3], events[i]
    return replace(s, economy=tuple(economy), events=tuple(events))


def permute_card_game(s: Any, seat: int, rng: random.Random) -> Any:
    """The cards left face down in the box, each turned to a random face."""
    return replace(s, unseen=tuple(sorted(f"{c.split('/')[0]}/{rng.choice('AB')}" for c in s.unseen)))


PERMUTE = {
    "cotton-trade": permute_cotton_trade,
    "water-frame": permute_water_frame,
    "arkwright-card-game": permute_card_game,
}


def hidden_items(title: str, s: Any, seat: int) -> Any:
    """What the permutation is meant to change: the seat's secrets, in their places."""
    if title == "cotton-trade":
        mine = {card for who, card in s.peeks if who == seat}
        rows = tuple(
            tuple(sl.card for sl in row if not sl.face_up and sl.card not in mine) for row in s.contract_row
        )
        return (s.ship_deck, s.contract_deck, rows)
    if title == "water-frame":
        return (s.economy[s.economy_revealed :], s.events[s.events_revealed :])
    return s.unseen


# --- the strong bot --------------------------------------------------------------------


@pytest.mark.parametrize("title", TITLES)
def test_the_strong_bot_decides_the_same_whatever_lies_hidden(title: str) -> None:
    eng = registry.engine(title)
    model = strong.model(title)
    changed = 0
    for n, (state, seat) in enumerate(positions(title, seed=11, count=4)):
        rng = random.Random(n)
        other = PERMUTE[title](state, seat, rng)
        if hidden_items(title, other, seat) != hidden_items(title, state, seat):
            changed += 1
        assert eng.view(other, seat) == eng.view(state, seat), "the seat cannot tell the two apart"
        assert eng.legal_decisions(other, seat) == eng.legal_decisions(state, seat)
        for k in range(3):
            assert model.determinise(other, seat, random.Random(k)) == model.determinise(
                state, seat, random.Random(k)
            ), "the sampled completions do not depend on what the seat cannot see"
        first = strong.choose(title, state, seat, seed=n, budget_ms=BUDGET_MS * 4, wall_clock=False)
        again = strong.choose(title, other, seat, seed=n, budget_ms=BUDGET_MS * 4, wall_clock=False)
        assert first == again
        assert first in eng.legal_decisions(state, seat)
    assert changed, "the positions had hidden items to change"


def test_a_cotton_trade_seat_keeps_what_it_peeked_at_and_nothing_else() -> None:
    """Reputation use 4: the seat's own peek stays in its place in every sampled completion;
    another seat's peek is re-dealt like any face-down card."""
    model = strong.model("cotton-trade")
    state, who = next(
        (s, seat)
        for s, seat in positions("cotton-trade", seed=3, count=10)
        if any(not sl.face_up for row in s.contract_row for sl in row)
    )
    r, i = next(
        (r, i) for r, row in enumerate(state.contract_row) for i, sl in enumerate(row) if not sl.face_up
    )
    card = state.contract_row[r][i].card
    state = replace(state, peeks=((who, card),))  # as if the seat had peeked at it
    kept = {model.determinise(state, who, random.Random(k)).contract_row[r][i].card for k in range(12)}
    assert kept == {card}
    other = (who + 1) % state.players_count
    dealt = {model.determinise(state, other, random.Random(k)).contract_row[r][i].card for k in range(12)}
    assert len(dealt) > 1


@pytest.mark.parametrize(
    "players",
    [2, pytest.param(4, marks=pytest.mark.slow)],  # four seats: 2/3 of its time, in .ci/run
    ids=lambda n: f"{n}p",
)
@pytest.mark.parametrize("title", TITLES)
def test_the_strong_bot_always_answers_with_a_legal_decision(title: str, players: int) -> None:
    """Played from every seat through a whole game (small searches), it always answers legally
    and the game ends."""
    eng = registry.engine(title)
    rng = random.Random(5 if players == 2 else 6)
    checked = 0

    def play(s: Any, seat: int) -> Any:
        nonlocal checked
        d = strong.choose(title, s, seat, seed=rng.getrandbits(32), budget_ms=BUDGET_MS / 3, wall_clock=False)
        assert d in eng.legal_decisions(s, seat)
        checked += 1
        return d

    state = eng.new_game(eng.meta.options.model_validate(OPTIONS[title]), players)
    state, _ = advance(eng, state, lambda _seat: play, rng)
    assert eng.pending(state).finished
    assert checked > 50


def test_the_strong_bot_is_reproducible_from_its_seed() -> None:
    state, seat = positions("cotton-trade", seed=7, count=1)[0]
    decisions = {
        strong.choose("cotton-trade", state, seat, seed=42, budget_ms=BUDGET_MS, wall_clock=False)
        for _ in range(3)
    }
    assert len(decisions) == 1


# --- the arena -------------------------------------------------------------------------


def test_a_shared_first_place_counts_as_a_split_win() -> None:
    summary = arena.Summary("cotton-trade", 4, 2, "strong", "greedy", seed=1)
    summary.results = [
        arena.GameResult(0, 0, credit=(0.5, 0.5, 0.0, 0.0), final=(30.0, 30.0, 20.0, 10.0), decisions=1),
        arena.GameResult(1, 1, credit=(0.0, 0.0, 1.0, 0.0), final=(10.0, 20.0, 40.0, 10.0), decisions=1),
    ]
    assert summary.win_share() == {"strong": 0.25, "greedy": 0.75}
    assert summary.mean_final() == {
        "strong": 25.0,
        "greedy": pytest.approx((30 + 20 + 10 + 10 + 40 + 10) / 6),
    }
    same = arena.Summary("cotton-trade", 4, 2, "greedy", "greedy", seed=1)
    assert same.names() == ("greedy", "greedy (others)")


@pytest.mark.parametrize("title", TITLES)
def test_a_short_arena_rotates_the_seats_and_counts_every_game(title: str) -> None:
    summary = arena.run(
        title, 4, 4, "strong", "greedy", seed=3, workers=1, budget_ms=BUDGET_MS, wall_clock=False
    )
    assert [r.bot_seat for r in summary.results] == [0, 1, 2, 3]
    assert sum(summary.win_share().values()) == pytest.approx(1.0)
    for r in summary.results:
        assert sum(r.credit) == pytest.approx(1.0)
        assert r.bot_times, "the strong bot's decisions are timed"
    body = summary.as_json()
    assert body["games"] == 4 and set(body["win_share"]) == {"strong", "greedy"}
    again = arena.run(
        title, 4, 1, "strong", "greedy", seed=3, workers=1, budget_ms=BUDGET_MS, wall_clock=False
    )
    assert again.results[0].final == summary.results[0].final, "a game replays from its seed"


def test_the_arena_command_prints_shares_and_ends_with_one_json_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from api.cli import main

    argv = ["arena", "--title", "cotton-trade", "--players", "3", "--games", "6"]
    assert main([*argv, "--bot", "greedy", "--against", "random", "--seed", "2", "--workers", "2"]) == 0
    out, err = capsys.readouterr()
    last = json.loads(out.strip().splitlines()[-1])
    assert last["title"] == "cotton-trade" and last["games"] == 6
    assert set(last["win_share"]) == {"greedy", "random"} and set(last["mean_final"]) == {"greedy", "random"}
    assert last["win_share"]["greedy"] > last["win_share"]["random"]
    assert "game 6/6" in err
    assert main(["arena", "--title", "cotton-trade", "--players", "9", "--games", "1"]) == 2
    assert "2 to 6 players" in capsys.readouterr().err

"""The generic conformance harness: seeded random playouts of any title.

For every registered title and player count it checks (STYLE.md item 6):

- a legal decision always exists for an awaited seat until the game ends, and
  every listed decision is accepted;
- the title's conservation laws hold after every step;
- no secret (deck order, face-down cards, another seat's private data) appears
  in any seat's view or the spectator's;
- through the ledger: every event survives a storage round trip, the stored
  record verifies offline (hash chain, commitments, seed, draws), and replay
  reproduces every digest and the standings.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ledger import registry
from ledger.application import Ledger
from ledger.bots.play import Policy
from ledger.engine import DrawOutcome, RulesEngine
from ledger.export import game_export
from ledger.rng import derive_draw
from ledger.verify import verify_export


class ConformanceError(AssertionError):
    pass


@dataclass
class PlayoutResult:
    title: str
    players: int
    game_id: str = ""
    decisions: int = 0
    draws: int = 0
    events: int = 0
    winners: list[int] = field(default_factory=list)
    standings: list[Any] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)  # effect kinds seen in the game


def strings(obj: Any) -> set[str]:
    """Every string in a JSON-like value, keys included."""
    out: set[str] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
            stack.extend(k for k in x if isinstance(k, str))
        elif isinstance(x, list | tuple):
            stack.extend(x)
    return out


def shown(eng: RulesEngine, states: Iterable[Any], seat: int | None) -> set[str]:
    """Every string the seat's views of these positions showed: a card once shown face up
    is known, even after it is shuffled back into a deck (only its place is hidden then)."""
    out: set[str] = set()
    for state in states:
        out |= strings(eng.view(state, seat))
    return out


def check_position(eng: RulesEngine, state: Any, where: str) -> None:
    problems = eng.conservation(state)
    if problems:
        raise ConformanceError(f"{where}: conservation broken: {problems}")
    players = getattr(state, "players_count", None) or len(getattr(state, "players", ()))
    for seat in [None, *range(players)]:
        view = eng.view(state, seat)
        text = json.dumps(view)  # views are JSON
        secrets = eng.secrets(state, seat)
        # A secret shown anywhere in the view is in its JSON as the JSON of that string: a search
        # of the text rules out most positions at once (walking every string of every view was
        # the costliest part of a checked playout); what it finds is confirmed by the walk (a
        # string's JSON can also stand inside a longer string after an escaped quote).
        if not any(json.dumps(s) in text for s in secrets):
            continue
        leaked = strings(view) & secrets
        if leaked:
            raise ConformanceError(f"{where}: view of seat {seat} shows secrets {sorted(leaked)[:5]}")


def random_steps(
    eng: RulesEngine, state: Any, rnd: random.Random, choose: Policy | None = None
) -> Iterator[tuple[int | None, Any, Any]]:
    """Decide a game from ``state`` to its end: an awaited seat picked at random takes a random
    legal decision (``choose``'s, when given); draws are derived from a seed taken from ``rnd``.
    Yields each step's seat (None for a draw), its decision or draw outcome, and the position
    after it."""
    draw_seed = rnd.randbytes(32)
    draws = steps = 0
    while True:
        pending = eng.pending(state)
        if pending.finished:
            return
        if pending.draw is not None:
            outcome = DrawOutcome(pending.draw.key, derive_draw(draw_seed, draws, pending.draw))
            draws += 1
            state, _ = eng.apply_draw(state, outcome)
            yield None, outcome, state
        else:
            if not pending.seats:
                raise ConformanceError(f"step {steps}: the game waits for nobody")
            seat = rnd.choice(pending.seats)
            legal = eng.legal_decisions(state, seat)
            if not legal:
                raise ConformanceError(f"step {steps}: seat {seat} is awaited but has no legal decision")
            decision = choose(state, seat) if choose else rnd.choice(legal)
            state, _ = eng.apply(state, seat, decision)
            yield seat, decision, state
        steps += 1


def random_playout(
    title: str,
    players: int,
    seed: int,
    options: dict[str, Any] | None = None,
    *,
    check_every: int = 1,
    greedy: bool = False,
    policy: Policy | None = None,
) -> PlayoutResult:
    """Play one game in memory with random legal decisions (or the title's greedy bot),
    checking every step; ``policy`` (say the strong bot) plays instead when given."""
    eng = registry.engine(title)
    chooser = policy or (registry.bot(title) if greedy else None)
    state = eng.new_game(eng.meta.options.model_validate(options or {}), players)
    result = PlayoutResult(title=title, players=players)
    for steps, (seat, _, after) in enumerate(random_steps(eng, state, random.Random(seed), chooser), 1):
        state = after
        if seat is None:
            result.draws += 1
        else:
            result.decisions += 1
        if steps % check_every == 0:
            check_position(eng, state, f"{title} {players}p seed {seed} step {steps}")
        if steps > 100_000:
            raise ConformanceError("the game does not end")
    check_position(eng, state, f"{title} {players}p seed {seed} end")
    standings = eng.standings(state)
    result.winners = [s.seat for s in standings if s.rank == 1]
    result.standings = list(standings)
    return result


def ledger_playout(
    app: Ledger,
    title: str,
    players: int,
    seed: int,
    options: dict[str, Any] | None = None,
    on_decision: Callable[[int], None] | None = None,
    league: str | None = None,
    greedy: bool = False,
    game_seed: bytes | None = None,
    policy: Policy | None = None,
) -> PlayoutResult:
    """Play one game through the ledger (as the API does) and verify its record. ``seed``
    picks the decisions, ``game_seed`` (default: the ledger's entropy) the draws; the players
    are new, registered as bots, with the ledger's ids and tokens."""
    rnd = random.Random(seed)
    chooser = policy or (registry.bot(title) if greedy else None)
    ids = [str(app.register_player(f"bot {seed}-{i}", bot=True)[0]) for i in range(players)]
    game = app.create_game(
        creator=ids[0], title=title, options=options or {}, players=ids, league=league, seed=game_seed
    )
    result = PlayoutResult(title=title, players=players, game_id=str(game.id))
    while True:
        game = app.get_game(game.id)
        if game.status == "finished":
            break
        seat = rnd.choice(game.awaiting)
        legal = game.engine.legal_decisions(game.state, seat)
        if not legal:
            raise ConformanceError(f"version {game.version}: seat {seat} awaited with no legal decision")
        decision = chooser(game.state, seat) if chooser else rnd.choice(legal)
        app.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
        result.decisions += 1
        if on_decision:
            on_decision(result.decisions)
    events = list(app.events.get(game.id))
    result.events = len(events)
    result.kinds = {
        f"{fx['kind']}:{fx['use']}" if "use" in fx else fx["kind"]
        for e in events
        for fx in getattr(e, "public", {}).get("effects", ())
    }
    result.kinds |= {k.partition(":")[0] for k in result.kinds}
    result.draws = game.draws
    report = verify_export(game_export(app, game, []))
    if not report.ok:
        raise ConformanceError(f"stored record does not verify:\n{report.text()}")
    result.standings = game.standings
    result.winners = [s["seat"] for s in game.standings if s["rank"] == 1]
    return result

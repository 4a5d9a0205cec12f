"""A league's world for the statistics tests: people playing every title over days.

Games of each title at every player count in its range, greedy and random play, Water Frame
with its start player drawn (2016) and chosen (2014), timed games where a seat's clock runs out
and it forfeits, one annulled game per title and one abandoned game. The ledger's clock is a
fake one that moves on between decisions, so games last hours to days.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta

from api.services import Services
from ledger import registry
from tests.fake_clock import FakeClock

TITLES = ("water-frame", "arkwright-card-game", "cotton-trade")
NAMES = ("Ada", "Brunel", "Crompton", "Darby", "Eliza", "Fanny", "Hargreaves", "Kay", "Lovelace")


@dataclass
class World:
    players: list[str]
    leagues: dict[str, str]  # title -> league id
    games: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    annulled: list[str] = field(default_factory=list)
    abandoned: list[str] = field(default_factory=list)
    forfeits: int = 0
    tokens: dict[str, str] = field(default_factory=dict)  # player id -> bearer token


def play_world(services: Services, per_title: int, seed: int = 27) -> World:
    """``per_title`` finished games of each title (plus one annulled game each and one abandoned
    game), in a league per title ("Winter cup: <title>")."""
    ledger = services.ledger
    clock = FakeClock()
    ledger.clock = clock
    rnd = random.Random(seed)
    registered = [ledger.register_player(name) for name in NAMES]
    people = [str(pid) for pid, _ in registered]
    world = World(people, {}, tokens={str(pid): token for pid, token in registered})
    for title in TITLES:
        league = ledger.create_league(creator="admin", name=f"Winter cup: {title}", title=title)
        world.leagues[title] = str(league.id)
    for title in TITLES:
        meta = registry.meta(title)
        counts = list(range(meta.min_players, meta.max_players + 1))
        bot = registry.bot(title)
        for g in range(per_title + 1):  # the last one is annulled once finished
            n = counts[(g + TITLES.index(title)) % len(counts)]
            seated = rnd.sample(people, n)
            options = {"edition": "2014"} if title == "water-frame" and g % 3 == 2 else {}
            forfeit = g % 4 == TITLES.index(title) % 2
            control = (
                {
                    "preset": "custom",
                    "initial_hours": 2,
                    "increment_hours": 1,
                    "cap_hours": 3,
                    "on_expiry": "forfeit",
                }
                if forfeit
                else None
            )
            game = ledger.create_game(
                creator=seated[0],
                title=title,
                options=options,
                players=seated,
                league=world.leagues[title],
                time_control=control,
            )
            world.games.append(str(game.id))
            greedy = bot is not None and (title == "water-frame" or g % 2 == 0)
            if forfeit:
                game = ledger.get_game(game.id)
                clock.advance(hours=5)  # the first awaited seat's clock runs out: it forfeits
                ledger.expire(game.id)
                world.forfeits += 1
            for _ in range(20_000):  # bounded: every title ends well within this
                game = ledger.get_game(game.id)
                if game.status == "finished":
                    break
                seat = rnd.choice(game.awaiting)
                legal = game.engine.legal_decisions(game.state, seat)
                decision = bot(game.state, seat) if greedy and bot else rnd.choice(legal)
                clock.advance(minutes=rnd.choice((1, 2, 5)) if forfeit else rnd.choice((7, 30, 90, 240)))
                ledger.decide(game.id, game.seats[seat], game.version, decision.model_dump(mode="json"))
            assert game.status == "finished", f"{title} game {g} did not finish"
            if g == per_title:
                player = game.seats[0]
                _, number = ledger.open_dispute(game.id, player, [3], "we played the wrong edition")
                ledger.resolve_dispute(game.id, number, "annulment", "void: replayed as another game")
                world.annulled.append(str(game.id))
            else:
                world.finished.append(str(game.id))
            clock.advance(hours=rnd.choice((1, 6, 20)))
    # an abandoned game: it counts in no result
    seated = people[:2]
    game = ledger.create_game(
        creator=seated[0], title="cotton-trade", players=seated, league=world.leagues["cotton-trade"]
    )
    ledger.abandon(game.id, "admin", "nobody came back")
    world.games.append(str(game.id))
    world.abandoned.append(str(game.id))
    clock.now += timedelta(minutes=1)
    services.refresh()
    return world

"""Nobody waits for a missing player (issue 20): the stand-in, standing orders and conditional
replies, against every store."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from ledger.domain import Game
from ledger.errors import ConflictError
from projections.base import Catchup
from tests.api_helpers import API
from tests.test_play_by_web import FakeClock

HOUR = 3600
TITLES = ("cotton-trade", "water-frame", "arkwright-card-game")
# an hour to decide, an hour more per decision, three at most; then the stand-in plays the seat
STAND_IN = {"preset": "custom", "initial_hours": 1, "increment_hours": 1, "cap_hours": 3, "on_expiry": "bot"}


@pytest.fixture
def clock(services: Services) -> FakeClock:
    fake = FakeClock()
    services.ledger.clock = fake
    return fake


TOKENS: dict[str, str] = {}


def people(services: Services, n: int) -> list[str]:
    out = []
    for i in range(n):
        pid, token = services.ledger.register_player(f"P{i}")
        TOKENS[str(pid)] = token
        out.append(str(pid))
    return out


def decisions(services: Services, game: Game) -> list[dict[str, Any]]:
    return [
        e.public for e in services.ledger.events.get(game.id) if type(e).TOPIC.endswith("decision_recorded")
    ]


def bearer(services: Services, player: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[player]}"}


@pytest.mark.parametrize("title", TITLES)
def test_the_stand_in_plays_a_seat_whose_clock_ran_out_until_its_player_returns(
    services: Services, clock: FakeClock, title: str
) -> None:
    ids = people(services, 2)
    game = services.ledger.create_game(creator=ids[0], title=title, players=ids, time_control=STAND_IN)
    away = game.awaiting[0]
    clock.advance(minutes=61)
    assert services.ledger.expire(game.id) == [away]
    game = services.ledger.get_game(game.id)
    assert game.stand_in == (away,)
    made = [d for d in decisions(services, game) if d.get("by") == "bot"]
    assert made and all(d["seat"] == away and d["player"] == ids[away] for d in made)
    assert away not in game.awaiting, "the stand-in plays the seat whenever it is awaited"
    rnd = random.Random(5)
    for _ in range(30):  # the other player plays on, never waiting for the absent one
        if game.status != "active":
            break
        assert away not in game.awaiting
        seat = game.awaiting[0]
        decision = rnd.choice(game.engine.legal_decisions(game.state, seat))
        services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
        game = services.ledger.get_game(game.id)
    by_bot = [d for d in decisions(services, game) if d.get("by") == "bot"]
    assert len(by_bot) > len(made), "the stand-in went on playing the seat"
    if game.status == "active":  # a snapshot keeps who the stand-in plays
        assert Game.Snapshot.take(game).mutate(None).stand_in == (away,)
    with pytest.raises(ConflictError):  # nothing of the stand-in's is taken back as the player's own
        services.ledger.undo(game.id, ids[away], game.version)
    game = services.ledger.return_to_game(game.id, ids[away])
    assert game.stand_in == ()
    with pytest.raises(ConflictError) as err:
        services.ledger.return_to_game(game.id, ids[away])
    assert err.value.code == "game/not_away"
    for _ in range(60):  # the player is awaited again and decides themself
        if away in game.awaiting or game.status != "active":
            break
        seat = game.awaiting[0]
        decision = rnd.choice(game.engine.legal_decisions(game.state, seat))
        services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
        game = services.ledger.get_game(game.id)
    assert game.status != "active" or away in game.awaiting
    assert len([d for d in decisions(services, game) if d.get("by") == "bot"]) == len(by_bot)


def test_the_stand_in_is_deterministic_and_shown_in_the_log_and_the_return_route(
    client: TestClient, services: Services, clock: FakeClock
) -> None:
    ids = people(services, 2)
    game = services.ledger.create_game(
        creator=ids[0], title="water-frame", players=ids, time_control=STAND_IN
    )
    away = game.awaiting[0]
    clock.advance(minutes=61)
    services.ledger.expire(game.id)
    game = services.ledger.get_game(game.id)
    h = bearer(services, ids[away])
    client.cookies.set("gl_token", TOKENS[ids[away]])
    page = client.get(f"/games/{game.id}")
    client.cookies.clear()
    assert page.status_code == 200 and "The stand-in bot decided for" in page.text
    out = client.get(f"{API}/games/{game.id}", headers=h).json()
    assert out["clocks"][away]["stand_in"] is True
    back = client.post(f"{API}/games/{game.id}/return", headers=h)
    assert back.status_code == 200 and back.json()["clocks"][away]["stand_in"] is False
    again = client.post(f"{API}/games/{game.id}/return", headers=h)
    assert again.status_code == 409 and again.json()["code"] == "game/not_away"
    other = client.post(f"{API}/games/{game.id}/return", headers=bearer(services, ids[1 - away]))
    assert other.status_code == 409
    # the stand-in's search is seeded by the game's seed and the event: a replay reproduces it
    from ledger.standin import stand_in_decision

    for event in services.ledger.events.get(game.id):
        if type(event).TOPIC.endswith("decision_recorded") and event.public.get("by") == "bot":
            version = event.originator_version
            before = services.ledger.get_game(game.id, version=version - 1)
            again_d = stand_in_decision(
                game.title, before.state, event.public["seat"], game.seed_bytes, version
            )
            assert again_d.model_dump(mode="json") == event.public["decision"]


# --- standing orders ---------------------------------------------------------------------------

# Per title, standing orders for its most repetitive decision points, one rule of each kind of
# choice: a fixed choice ("first"), a bounded one ("lowest"/"highest" with at_most/where), one
# that applies only when the choices are few ("only_when"), and the greedy bot's from the view.
ORDERS: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    "cotton-trade": (
        {"shares_trade": True},
        [
            {
                "kinds": ["bid"],
                "pick": "lowest",
                "field": "pounds",
                "at_most": {"pounds": 1},
                "note": "bid up to £1",
            },
            {"kinds": ["pass_bid"], "note": "then pass in share auctions"},
            {
                "kinds": ["pass_renting"],
                "only_when": ["pass_renting", "rent_ship"],
                "uses": 2,
                "note": "rent no ship, twice",
            },
            {"kinds": ["stay_in_region", "decline_contract"], "note": "stay; buy no contract"},
        ],
    ),
    "water-frame": (
        {},
        [
            {"kinds": ["end_turn"], "only_when": ["end_turn", "reuse_marker"], "note": "re-use no marker"},
            {"kinds": ["adjust_price"], "pick": "highest", "field": "price", "note": "keep prices high"},
            {"kinds": ["hire_warehouse_worker"], "pick": "greedy", "note": "as the greedy bot would"},
        ],
    ),
    "arkwright-card-game": (
        {},
        [
            {
                "kinds": ["store_goods"],
                "pick": "lowest",
                "field": "count",
                "note": "store as few goods as allowed",
            },
            {
                "kinds": ["ship_goods"],
                "pick": "highest",
                "field": "from_production",
                "where": {"from_storage": 0},
            },
            {"kinds": ["set_price_and_appeal"], "pick": "greedy", "note": "price as the greedy bot would"},
        ],
    ),
}


def ordered_game(services: Services, title: str) -> tuple[Game, list[str], Any]:
    """A 2-player game of ``title`` in which seat 0's player has set ORDERS[title]; with the
    title's greedy bot, which plays the other decisions."""
    from ledger import registry

    options, rules = ORDERS[title]
    ids = people(services, 2)
    game = services.ledger.create_game(creator=ids[0], title=title, players=ids, options=options)
    services.ledger.set_orders(game.id, ids[0], rules)
    greedy = registry.bot(title)
    assert greedy is not None
    return game, ids, greedy


def play_with_orders(services: Services, title: str, limit: int = 4000) -> tuple[Game, list[dict[str, Any]]]:
    """A 2-player game: seat 0's player sets ORDERS[title] and then does nothing until awaited
    (then plays greedily); seat 1 plays the greedy bot."""
    game, ids, greedy = ordered_game(services, title)
    for _ in range(limit):
        game = services.ledger.get_game(game.id)
        if game.status != "active":
            break
        seat = game.awaiting[0]
        decision = greedy(game.state, seat)
        services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
    return services.ledger.get_game(game.id), decisions(services, game)


@pytest.mark.parametrize("title", TITLES)
def test_standing_orders_decide_for_their_seat_at_each_titles_repetitive_decision_points(
    services: Services, title: str
) -> None:
    game, made = play_with_orders(services, title)
    assert game.status == "finished"
    set_event = next(e for e in services.ledger.events.get(game.id) if type(e).TOPIC.endswith("orders_set"))
    ids = [r["id"] for r in set_event.private["seat:0"]["orders"]]
    assert set_event.public == {"seat": 0, "player": game.seats[0]}, "what, and how many: private (issue 32)"
    by_order = [d for d in made if d.get("by") == "order"]
    assert by_order and all(d["seat"] == 0 for d in by_order)
    used = {d["order"] for d in by_order}
    _, rules = ORDERS[title]
    for rule_id, rule in zip(ids, rules, strict=True):
        dropped = [
            e
            for e in services.ledger.events.get(game.id)
            if type(e).TOPIC.endswith("orders_dropped")
            and rule_id in {x["order"] for x in e.private["seat:0"]["dropped"]}
        ]
        assert rule_id in used or dropped, f"{rule.get('note') or rule['kinds']} never acted"
        if "uses" in rule:  # cancelled after its uses
            assert sum(d["order"] == rule_id for d in by_order) == rule["uses"]
    for d in by_order:  # what each rule chose
        rule = dict(zip(ids, rules, strict=True))[d["order"]]
        assert d["decision"]["type"] in rule["kinds"]
        assert all(d["decision"].get(k) == v for k, v in rule.get("where", {}).items())
        assert all(d["decision"].get(k, 0) <= v for k, v in rule.get("at_most", {}).items())


# --- conditional replies -------------------------------------------------------------------------


def test_a_conditional_reply_answers_the_decision_it_waited_for_and_is_dropped_otherwise(
    services: Services,
) -> None:
    """Cotton Trade's share auction (2 players): "if seat X bids, I pass"."""
    from ledger import registry

    ids = people(services, 2)
    game = services.ledger.create_game(
        creator=ids[0], title="cotton-trade", players=ids, options={"shares_trade": True}
    )
    greedy = registry.bot("cotton-trade")
    assert greedy is not None
    used = 0
    for _ in range(3000):
        game = services.ledger.get_game(game.id)
        if game.status != "active":
            break
        seat = game.awaiting[0]
        other = 1 - seat
        legal = game.engine.legal_decisions(game.state, seat)
        kinds = {d.model_dump(mode="json")["type"] for d in legal}
        if "bid" in kinds and not game.replies:  # the other seat answers a bid with a pass
            services.ledger.set_replies(
                game.id, ids[other], [{"seat": seat, "kind": "bid", "reply": {"type": "pass_bid"}}]
            )
            game = services.ledger.get_game(game.id)
            assert game.replies[str(other)]["pending"][0]["kind"] == "bid"
        decision = greedy(game.state, seat)
        before = game.version
        services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
        after = [e.public for e in services.ledger.events.get(game.id, gt=before)]
        replied = [p for p in after if p.get("by") == "reply"]
        used += len(replied)
        assert all(p["decision"] == {"type": "pass_bid"} and p["seat"] == other for p in replied)
        if replied:
            assert decision.model_dump(mode="json")["type"] == "bid", "only the awaited decision arms it"
    assert used, "a reply answered"
    assert all(
        p.get("reply", "").startswith("r") for p in decisions(services, game) if p.get("by") == "reply"
    )
    assert services.ledger.get_game(game.id).replies == {}, "nothing left waiting at the end"


# --- the permutation test: orders never act on what the seat cannot see ---------------------------


@pytest.mark.parametrize("title", TITLES)
def test_an_orders_decision_does_not_change_whatever_lies_hidden(title: str) -> None:
    from ledger import registry
    from ledger.orders import apply_orders, kinds_of
    from tests.test_bots import PERMUTE, positions

    eng = registry.engine(title)
    for n, (state, seat) in enumerate(positions(title, seed=11, count=4)):
        other = PERMUTE[title](state, seat, random.Random(n))
        legal_kinds = sorted({d.model_dump(mode="json")["type"] for d in eng.legal_decisions(state, seat)})
        assert set(legal_kinds) <= set(kinds_of(title))
        rules = tuple(
            {"id": f"o{k}", "kinds": [kind], "pick": "greedy"} for k, kind in enumerate(legal_kinds)
        ) + ({"id": "last", "kinds": legal_kinds},)
        first = apply_orders(title, state, seat, rules, 99, b"s" * 32)
        again = apply_orders(title, other, seat, rules, 99, b"s" * 32)
        assert first == again and first.decision in eng.legal_decisions(state, seat)


# --- over HTTP: nobody waits -----------------------------------------------------------------------


def test_a_player_who_sets_orders_and_leaves_never_keeps_the_others_waiting_except_for_the_clock(
    client: TestClient, services: Services, clock: FakeClock
) -> None:
    """Seat 0's player sets orders for Water Frame's repetitive decisions and does nothing more;
    the other player plays on over HTTP. Where no order applies, seat 0's clock runs out once and
    the stand-in plays the seat to the end."""
    from ledger import registry

    ids = people(services, 2)
    control = {**STAND_IN, "initial_hours": 2, "cap_hours": 4}
    h = [bearer(services, p) for p in ids]
    made = client.post(
        f"{API}/games",
        json={"title": "water-frame", "seats": 2, "time_control": control},
        headers=h[0],
    )
    assert made.status_code == 201, made.text
    gid = made.json()["game_id"]
    assert client.post(f"{API}/games/{gid}/join", headers=h[1]).status_code == 200
    _, rules = ORDERS["water-frame"]
    put = client.put(f"{API}/games/{gid}/orders", json={"rules": rules}, headers=h[0])
    assert put.status_code == 200 and len(put.json()["rules"]) == len(rules)
    assert client.get(f"{API}/games/{gid}/orders", headers=h[1]).json()["rules"] == [], "private to seat 0"
    greedy = registry.bot("water-frame")
    assert greedy is not None
    waited = 0
    for _ in range(3000):
        game = services.ledger.get_game(gid)
        if game.status != "active":
            break
        if 0 in game.awaiting:  # no order applies: only the clock makes the others wait
            waited += 1
            clock.advance(hours=5)
            services.ledger.expire(gid)
            continue
        seat = game.awaiting[0]
        decision = greedy(game.state, seat).model_dump(mode="json")
        r = client.post(
            f"{API}/games/{gid}/decisions",
            json={"expected_version": game.version, "decision": decision},
            headers=h[seat],
        )
        assert r.status_code == 200, r.text
    game = services.ledger.get_game(gid)
    assert game.status == "finished"
    from ledger.export import game_export
    from ledger.verify import verify_export

    report = verify_export(game_export(services.ledger, game, [], complete=True))
    assert report.ok, report.text()  # orders, their drops and the stand-in verify offline
    assert waited <= 1, "after its clock ran out once, the stand-in played what no order covered"
    events = client.get(f"{API}/games/{gid}/events", params={"limit": 5000}, headers=h[1]).json()["events"]
    by = [e["public"].get("by") for e in events if e["public"].get("seat") == 0 and "decision" in e["public"]]
    assert "order" in by and (waited == 0 or "bot" in by)
    assert None not in by, "seat 0's player never decided"
    services.refresh()
    stats = client.get(f"{API}/players/{ids[0]}/stats", headers=h[0]).json()
    assert stats["decisions_by"]["person"] == 0 and stats["decisions_by"]["order"] == by.count("order")
    assert stats["decisions_by"]["bot"] == by.count("bot")
    board = client.get(f"{API}/games/{gid}/scoreboard", headers=h[1]).json()
    seat0 = next(s for s in board["seats"] if s["seat"] == 0)
    assert seat0["decisions_by"] == {
        "person": 0,
        "order": by.count("order"),
        "reply": 0,
        "bot": by.count("bot"),
    }
    client.cookies.set("gl_token", TOKENS[ids[1]])
    page = client.get(
        f"/games/{gid}/replay",
        params={"v": next(e["version"] for e in events if e["public"].get("by") == "order")},
    )
    client.cookies.clear()
    assert page.status_code == 200 and "standing order" in page.text, "the replay says an order decided"


def test_an_order_that_can_no_longer_act_is_dropped_with_a_note_and_orders_end_and_cancel(
    client: TestClient, services: Services
) -> None:
    ids = people(services, 2)
    game = services.ledger.create_game(
        creator=ids[0], title="cotton-trade", players=ids, options={"shares_trade": True}
    )
    h = [bearer(services, p) for p in ids]
    bad = client.put(f"{API}/games/{game.id}/orders", json={"rules": [{"kinds": ["fly"]}]}, headers=h[0])
    assert bad.status_code == 422 and bad.json()["code"] == "orders/invalid"
    bad = client.put(
        f"{API}/games/{game.id}/orders", json={"rules": [{"kinds": ["bid"], "pick": "lowest"}]}, headers=h[0]
    )
    assert bad.status_code == 422 and bad.json()["code"] == "orders/invalid"
    assert services.ledger.get_game(game.id).version == game.version, "a refused order writes nothing"
    seat = game.awaiting[0]
    kinds = sorted({d.model_dump(mode="json")["type"] for d in game.engine.legal_decisions(game.state, seat)})
    never = {"kinds": kinds, "where": {"type": "nothing of the kind"}, "note": "cannot act"}
    later = {"kinds": ["decline_contract"], "cancel_on_own_decision": True}
    ended = {"kinds": kinds, "until_version": 1}
    r = client.put(f"{API}/games/{game.id}/orders", json={"rules": [ended, never, later]}, headers=h[seat])
    assert r.status_code == 200
    assert [rule.get("kinds") for rule in r.json()["rules"]] == [["decline_contract"]], "two dropped at once"
    dropped = [e for e in services.ledger.events.get(game.id) if type(e).TOPIC.endswith("orders_dropped")]
    (note,) = dropped
    assert [d["note"] for d in note.private[f"seat:{seat}"]["dropped"]] == [
        "its end has come",
        "what it would choose is no longer legal",
    ]
    seen_by_other = client.get(
        f"{API}/games/{game.id}/events", params={"limit": 5000}, headers=h[1 - seat]
    ).text
    assert "no longer legal" not in seen_by_other and "nothing of the kind" not in seen_by_other
    mine = client.get(f"{API}/games/{game.id}/events", params={"limit": 5000}, headers=h[seat]).text
    assert "no longer legal" in mine, "the note reaches its owner"
    game = services.ledger.get_game(game.id)
    decision = game.engine.legal_decisions(game.state, seat)[0]
    services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
    assert client.get(f"{API}/games/{game.id}/orders", headers=h[seat]).json()["rules"] == [], (
        "the player's own decision cancelled the order"
    )
    r = client.put(
        f"{API}/games/{game.id}/replies",
        json={"replies": [{"seat": seat, "kind": "bid", "reply": {"type": "pass_bid"}}]},
        headers=h[seat],
    )
    assert r.status_code == 422 and r.json()["code"] == "orders/invalid", "a reply watches another seat"
    assert client.delete(f"{API}/games/{game.id}/orders", headers=h[seat]).json()["rules"] == []


# --- notifications: "your turn" only when the player has to act ----------------------------------


def outbox_rows(services: Services) -> list[tuple[Any, ...]]:
    view = services.view("notifications")
    rows = view.rows(f"SELECT * FROM {view.t('outbox')}")
    return sorted((r["game_id"], r["version"], r["player_id"], r["kind"], r["payload"]) for r in rows)


def test_a_seat_its_orders_answer_at_once_is_not_told_it_is_its_turn(services: Services) -> None:
    """Cotton Trade, seat 0's standing orders (ORDERS) decide whatever they cover as soon as the seat is
    awaited: no "your turn" then (by webhook, mail or chat: all are fed by the outbox); a
    decision they do not cover is still the player's to make, and the player is told."""
    # Cotton Trade: the orders answer whole turns there (share auctions, renting)
    game, ids, greedy = ordered_game(services, "cotton-trade")
    view = services.view("notifications")

    def told(after: int) -> list[int]:
        services.refresh("notifications")
        rows = view.outbox(ids[0], limit=10_000, kinds=["your_turn"])
        return [n["version"] for n in rows if n["game_id"] == str(game.id) and n["version"] > after]

    answered = 0  # saves in which the orders answered a turn the seat was newly awaited for
    game = services.ledger.get_game(game.id)
    for _ in range(4000):
        if game.status != "active":
            break
        before, awaited_before = game.version, 0 in game.awaiting
        seat = game.awaiting[0]
        decision = greedy(game.state, seat)
        services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
        game = services.ledger.get_game(game.id)
        made = [
            d
            for e in services.ledger.events.get(game.id, gt=before)
            if type(e).TOPIC.endswith("decision_recorded")
            for d in [e.public]
        ]
        new = told(before)
        if 0 in game.awaiting and not awaited_before:
            assert len(new) == 1, f"seat 0 has to act after version {game.version}: told once"
        elif 0 not in game.awaiting:
            assert new == [], f"versions {before + 1}-{game.version}: seat 0 was told for nothing"
            answered += not awaited_before and any(d["seat"] == 0 and d.get("by") == "order" for d in made)
    assert game.status == "finished"
    assert answered, "the orders answered some turns at once"
    # the outbox does not depend on how the events were batched (a save split across batches)
    incremental = outbox_rows(services)
    for batch in (2, 2000):
        catchup = services.catchups["notifications"]
        with view.datastore.transaction(commit=True) as c:
            view.clear(c, services.ledger.name)
        Catchup(services.ledger, catchup.projection, batch_size=batch).run()
        assert outbox_rows(services) == incremental, f"batches of {batch}"

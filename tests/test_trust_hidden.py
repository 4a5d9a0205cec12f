"""Hidden information (issue 10): for every title and every kind of hidden item, a game is
played over HTTP to a position where the item exists and is hidden; then every read endpoint is
walked as every other seat and as a spectator, and the item must be nowhere in any answer.

Hidden items, each searched by its distinctive id:

- face-down cards and markers, undrawn decks, cards left in the box: the rules engine's own
  ``secrets(state, seat)`` at the position (Cotton Trade's ship and contract decks and
  face-down contracts, Water Frame's economy and event markers, the card game's expert
  supply left in the box), less anything the engine ever showed that viewer before;
- another seat's private holding: a contract peeked at (Cotton Trade's reputation use 4),
  hidden from everyone but the peeker;
- the game's random seed (hex), and the salt of every private part the viewer may not open
  (the commitments' preimages);
- the game's table talk, for a spectator (the creator has not let spectators in).

The endpoints: the game view, its events, its state now and after every event, the export, the
audit, the game's SSE stream, the player's notifications (list, SSE and the webhook payloads
actually sent), and everything the game's stream and the player's stream pushed while the game
was played (held open from the start, as a browser tab would be), scoreboard, share values (JSON, CSV, SVG), disputes (and a dispute of a hidden draw citing the
talk, its JSON and page: the audit of the draw in words), the lobby, my turns, the digests,
statistics, a refused fork, the decisions' own answers and previews, and the web pages (game
page, its audit page, replay after every event, lobby, the dispute's page).

So that the search can fail, each hidden item is then shown to be findable: the peeker sees the
peeked contract, and once the operator abandons the game its export holds every other item."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.web.table import renderer_for
from ledger import records
from ledger.conformance import shown, strings
from ledger.export import event_record
from tests.api_helpers import API, AtTable, Table
from tests.sse import LiveStream
from tests.trust_world import ADMIN_TOKEN, bearer


def pattern(item: str) -> re.Pattern[str]:
    """The item as a whole token: not inside a longer id, hash or base64 string."""
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(item) + r"(?![A-Za-z0-9])")


def any_of(items: Iterable[str], flags: int = 0) -> re.Pattern[str]:
    """Any of the items as a whole token (as ``pattern``), tried at every position of a text:
    one pass finds each item wherever it stands (group 1), where a pattern an item took 25
    times as long over the same text. At a position where two items both stand whole (one a
    prefix of the other, up to a character that is not a letter or digit), the longer is
    reported: a leak is found either way."""
    alternatives = "|".join(re.escape(i) for i in sorted(set(items), key=len, reverse=True))
    return re.compile(r"(?<![A-Za-z0-9])(?=(" + alternatives + r")(?![A-Za-z0-9]))", flags)


def test_one_search_for_every_item_finds_what_a_search_an_item_finds() -> None:
    items = ["C05", "C052", "S1", "S1-2", "ab+/=", "7f3a", "contract 52"]
    text = 'x C052 yC05 "C05" S1-2 S1x S1, 7f3ab ab+/= [7f3a] Contract 52 zC052'
    one_each = {i for i in items if pattern(i).search(text)}
    assert one_each == {"C052", "C05", "S1-2", "S1", "ab+/=", "7f3a"}
    # "S1" stands whole inside "S1-2" too: the longer is reported there, "S1" where it is alone
    assert {m.group(1) for m in any_of(items).finditer(text)} == one_each
    assert {m.group(1) for m in any_of(items, re.IGNORECASE).finditer(text)} == one_each | {"Contract 52"}
    assert not list(any_of(["C05"]).finditer("C052 xC05 C05y"))


@dataclass
class Scenario:
    title: str
    options: dict[str, Any]
    players: int
    reached: Callable[[Any, Any], bool]  # (game, scene) -> stop here
    choose: Callable[[list[dict[str, Any]], random.Random], dict[str, Any]] | None = None
    min_steps: int = 0


def _prefer_peek(legal: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    peeks = [d for d in legal if d["type"] == "peek_contract"]
    return peeks[0] if peeks else rnd.choice(legal)


def _face_down_contract(game: Any, scene: Any) -> bool:
    """Face-down contracts on the table after some were turned up."""
    return any(not slot.face_up for row in game.state.contract_row for slot in row) and _happened(
        scene, "contract_revealed"
    )


def _happened(scene: Any, kind: str) -> bool:
    """Whether a public effect of this kind was in any decision's answer so far."""
    return any(f'"kind":"{kind}"' in text for texts in scene.answers.values() for text in texts)


def _economy_revealed(game: Any, scene: Any) -> bool:
    """Some economy markers turned up, the others still face down."""
    return bool(game.state.economy_revealed) and bool(game.engine.secrets(game.state, None))


def _peeked(game: Any, scene: Any) -> bool:
    return bool(game.state.peeks)


def _steps(n: int) -> Callable[[Any, Any], bool]:
    return lambda game, scene: scene.decisions >= n


SCENARIOS = {
    "cotton-trade-simple": Scenario("cotton-trade", {}, 3, _face_down_contract),
    "cotton-trade-advanced": Scenario(
        "cotton-trade", {"shares_trade": True, "reputation": True}, 3, _peeked, _prefer_peek
    ),
    "water-frame": Scenario("water-frame", {}, 3, _economy_revealed),
    "card-game-expert": Scenario("arkwright-card-game", {"expert": "all"}, 3, _steps(6)),
}


@dataclass
class Scene(AtTable):
    spectator: dict[str, Any]
    scenario: Scenario
    decisions: int = 0
    answers: dict[int, list[str]] = field(default_factory=dict)  # seat -> decision answers seen
    webhooks: list[tuple[str, bytes]] = field(default_factory=list)
    chats: list[tuple[str, bytes]] = field(default_factory=list)  # Discord messages (api/channels.py)
    pushed: dict[int | None, list[tuple[str, LiveStream]]] = field(default_factory=dict)  # open streams
    said: str = "table-talk-9f3c2a7e-only-for-the-players"  # a message of seat 0, hidden from spectators
    dispute: int = 0  # seat 1's dispute of the latest draw, citing seat 0's message (0: none yet)
    _states: list[Any] = field(default_factory=list)

    def game(self, version: int | None = None) -> Any:
        return self.services.ledger.get_game(self.game_id, version=version)

    def states(self) -> list[Any]:
        """The state after each event up to now (None before the start), read once."""
        version = self.game().version
        if len(self._states) != version:
            self._states = [self.game(k).state for k in range(1, version + 1)]
        return self._states

    def stop_streams(self) -> None:
        for held in self.pushed.values():
            for _, stream in held:
                stream.stop()

    def token(self, viewer: int | None) -> str:
        return str(self.spectator["token"] if viewer is None else self.table.players[viewer]["token"])

    def url(self, viewer: int | None) -> str:
        return f"https://hooks.example.test/{'spectator' if viewer is None else viewer}"

    def chat_url(self, viewer: int | None) -> str:
        return f"https://discord.com/api/webhooks/{'spectator' if viewer is None else viewer}/walk"


def set_up(client: TestClient, scenario: Scenario) -> Scene:
    table = Table(client, n=scenario.players, title=scenario.title, options=scenario.options)
    spectator = client.post(f"{API}/players", json={"name": "Onlooker"}).json()
    scene = Scene(client, table, spectator, scenario)
    scene.services.webhooks.sender = lambda url, body, headers: scene.webhooks.append((url, body)) or 200
    scene.services.mail.chat.poster = lambda url, body: scene.chats.append((url, body)) or 204
    for viewer in [*range(scenario.players), None]:
        r = client.put(
            f"{API}/me/notifications/settings",
            json={"webhook_url": scene.url(viewer)},
            headers=bearer(scene.token(viewer)),
        )
        assert r.status_code == 200, r.text
        r = client.put(
            f"{API}/me/chat-webhook",
            json={"service": "discord", "url": scene.chat_url(viewer)},
            headers=bearer(scene.token(viewer)),
        )
        assert r.status_code == 200, r.text
        held = [("pushed game stream", f"{API}/games/{table.game_id}/stream", {})]
        if viewer is not None:  # from the first notification on, then what is pushed
            held.append(("pushed notification stream", f"{API}/me/stream", {"after": 0}))
        scene.pushed[viewer] = [
            (name, LiveStream(client, path, scene.token(viewer), {"max_seconds": 600, **params}))
            for name, path, params in held
        ]
        for name, stream in scene.pushed[viewer]:  # open before the play: each change is pushed
            if name == "pushed game stream":
                stream.wait_for(lambda evs: any(e.event == "game" for e in evs))
    return scene


def play_to_hidden_position(scene: Scene, seed: int = 7, max_steps: int = 200) -> None:
    rnd = random.Random(seed)
    sc = scene.scenario
    for _ in range(max_steps):
        game = scene.game()
        if scene.decisions >= sc.min_steps and sc.reached(game, scene):
            return
        assert game.status == "active", "the game ended before the position"
        seat = game.awaiting[0]
        view = scene.table.game(seat)
        legal = view["legal_decisions"]
        decision = sc.choose(legal, rnd) if sc.choose else rnd.choice(legal)
        r = scene.table.decide(seat, decision, view["version"])
        assert r.status_code == 200, r.text
        scene.answers.setdefault(seat, []).append(r.text)
        scene.decisions += 1
    raise AssertionError(f"no hidden position within {max_steps} decisions")


# -- what each viewer may not see ----------------------------------------------------------------


def hidden_items(scene: Scene, viewer: int | None) -> dict[str, str]:
    """item -> kind, for the viewer at the current position."""
    now = scene.game()
    engine = now.engine
    ever_seen = shown(engine, [st for st in scene.states() if st is not None], viewer)
    items: dict[str, str] = {}
    peeked = {card for who, card in getattr(now.state, "peeks", ()) if who != viewer}
    for secret in sorted(engine.secrets(now.state, viewer) - ever_seen):
        items[secret] = "peeked by another seat" if secret in peeked else "face down / undrawn"
    items[now.seed_bytes.hex()] = "seed"
    if viewer is None:
        items[scene.said] = "table talk"
    if viewer != 0:  # seat 0's standing order is its own until it acts
        items[ORDER_NOTE] = "another seat's order"
    mine = {records.seat_audience(viewer)} if viewer is not None else set()
    for event in scene.services.ledger.events.get(now.id):
        record = event_record(event)
        for aud in record["private"]:
            if aud not in mine:
                items[records.salt(now.seed_bytes, record["version"], aud).hex()] = "salt"
    return items


ORDER_NOTE = "ORDERNOTE7f3a9c"


def give_seat_0_private_orders(scene: Scene) -> None:
    """Seat 0 leaves a standing order that never acts (its filter matches nothing: dropped with a
    private note when its kind comes up): private to seat 0."""
    from ledger.orders import kinds_of

    g = f"{API}/games/{scene.game_id}"
    rule = {"kinds": list(kinds_of(scene.game().title)), "where": {"type": "none such"}, "note": ORDER_NOTE}
    r = scene.client.put(g + "/orders", json={"rules": [rule]}, headers=scene.table.auth(0))
    assert r.status_code == 200, r.text
    kept = ORDER_NOTE in scene.client.get(g + "/orders", headers=scene.table.auth(0)).text
    dropped = (
        ORDER_NOTE not in r.text
        and "orders_dropped"
        in scene.client.get(g + "/events", params={"limit": 5000}, headers=scene.table.auth(0)).text
    )
    assert kept or dropped, "seat 0 sees its own order, or the note that dropped it"


# -- the walk ------------------------------------------------------------------------------------


def walk(scene: Scene, viewer: int | None) -> list[tuple[str, str]]:
    """Every read answer this viewer gets about the game, as (endpoint, text)."""
    c = scene.client
    h = bearer(scene.token(viewer))
    g = f"{API}/games/{scene.game_id}"
    version = scene.game().version
    out: list[tuple[str, str]] = []

    def get(name: str, url: str, **params: Any) -> None:
        r = c.get(url, headers=h, params=params or None)
        assert r.status_code == 200, (name, r.status_code, r.text[:200])
        out.append((name, r.text))

    get("game view", g)
    get("events", g + "/events", limit=5000)
    get("state now", g + "/state")
    # the spectator reads the position after every event; each seat every third one
    versions = range(1, version + 1) if viewer is None else range(version, 0, -3)
    for k in versions:
        get("state at version", g + "/state", version=k)
    get("export", g + "/export")
    get("audit", g + "/audit")
    if viewer is not None:  # the viewer's own standing order and replies
        get("standing orders", g + "/orders")
        get("conditional replies", g + "/replies")
    get("game stream", g + "/stream", max_seconds=0.05, interval=0.1)
    get("scoreboard", g + "/scoreboard")
    get("share values", g + "/share-values")
    get("share values csv", g + "/share-values", format="csv")
    get("share values svg", g + "/share-values.svg")
    get("disputes", g + "/disputes")
    if scene.dispute:  # a dispute is for the game's players (and whoever rules on it): not a spectator
        r = c.get(f"{g}/disputes/{scene.dispute}", headers=h)
        assert r.status_code == (403 if viewer is None else 200), r.text[:200]
        out.append(("dispute", r.text))
    talk = c.get(g + "/messages", headers=h)
    assert talk.status_code == (403 if viewer is None else 200), talk.text
    assert (scene.said in talk.text) == (viewer is not None), "the players read their table talk"
    out.append(("table talk", talk.text))
    get("lobby list", f"{API}/games")
    get("my turns", f"{API}/me/turns")
    get("ledger digest", f"{API}/ledger/digest", game=scene.game_id)
    get("ledger digests", f"{API}/ledger/digests")
    get("title stats", f"{API}/titles/{scene.scenario.title}/stats")
    get("player stats", f"{API}/players/me/stats")
    if viewer is not None:
        get("notifications", f"{API}/me/notifications")
        get("notification stream", f"{API}/me/stream", after=0, max_seconds=0.05, interval=0.1)
    # previews: the awaited seat's of its listed decisions (what each would do, as it would be
    # shown), everyone else's of the awaited seat's decisions (refused)
    game = scene.game()
    awaited = game.awaiting[0]
    legal = scene.table.game(awaited)["legal_decisions"]
    for decision in legal[:: max(1, len(legal) // 12)] if viewer == awaited else legal[:1]:
        r = c.post(
            g + "/decisions/preview", json={"expected_version": version, "decision": decision}, headers=h
        )
        assert r.status_code == (200 if viewer == awaited else 403), (r.status_code, r.text[:200])
        out.append(("decision previews", r.text))
    refused = c.post(g + "/forks", json={"version": version}, headers=h)
    assert refused.status_code == 409, refused.text  # a running game that hides something
    out.append(("refused fork", refused.text))
    out.extend(
        ("decision answers", text) for text in scene.answers.get(viewer if viewer is not None else -1, [])
    )
    for name, stream in scene.pushed.get(viewer, []):
        if name == "pushed game stream" and viewer is not None:  # the players are pushed their talk
            stream.wait_for(lambda evs: any(e.event == "talk" for e in evs))
        text = stream.stop()
        if name == "pushed game stream":
            assert text.count("event: game") > 1, "the stream was pushed the game's changes"
        out.append((name, text))
    out.extend(
        ("webhook payloads", body.decode()) for url, body in scene.webhooks if url == scene.url(viewer)
    )
    out.extend(("chat messages", body.decode()) for url, body in scene.chats if url == scene.chat_url(viewer))
    c.cookies.set("gl_token", scene.token(viewer))
    try:
        for name, url, params in [
            ("game page", f"/games/{scene.game_id}", {}),
            ("audit page", f"/games/{scene.game_id}/audit", {}),
            ("lobby page", "/lobby", {}),
            *[("replay page", f"/games/{scene.game_id}/replay", {"v": k}) for k in versions],
            *(
                [("dispute page", f"/games/{scene.game_id}/disputes/{scene.dispute}", {})]
                if scene.dispute
                else []
            ),
        ]:
            r = c.get(url, params=params or None)
            refused = name == "dispute page" and viewer is None  # a spectator is shown nothing of it
            assert r.status_code == (403 if refused else 200), (name, r.status_code)
            out.append((name, r.text))
    finally:
        c.cookies.clear()
    return out


def refusals_reveal_nothing(scene: Scene) -> int:
    """No error oracle: a decision naming a hidden card or marker is refused exactly as one
    naming a card that does not exist (the same status, code and words but for the id)."""
    game = scene.game()
    seat = game.awaiting[0]
    mine = scene.table.game(seat)
    hidden = sorted(i for i, k in hidden_items(scene, seat).items() if k not in ("seed", "salt"))[:10]
    before = game.version
    tried = 0
    for decision in {d["type"]: d for d in mine["legal_decisions"]}.values():
        for key, value in decision.items():
            if key == "type" or not isinstance(value, str) or not re.fullmatch(r"[A-Z][A-Z0-9_/:-]+", value):
                continue
            answers = set()
            for candidate in [*hidden, "ZZ999"]:
                r = scene.table.decide(seat, {**decision, key: candidate}, mine["version"])
                assert r.status_code in (409, 422), (decision, key, candidate, r.text)
                body = r.json()
                answers.add((r.status_code, body["code"], body["message"].replace(candidate, "<id>")))
                tried += 1
            assert len(answers) == 1, f"refusals tell hidden {key}s apart: {sorted(answers)[:3]}"
    assert scene.game().version == before
    return tried


# What each scenario searches at least (hidden items; item-endpoint checks), and the endpoints read:
# the README's Reliability row quotes their sums, which a test holds to these.
FLOORS = {  # each store plays other games (their seeds come from the test's id)
    "sqlite": {
        "cotton-trade-simple": (40, 5260),
        "cotton-trade-advanced": (54, 6988),
        "water-frame": (37, 4816),
        "card-game-expert": (10, 1180),
    },
    "postgres": {
        "cotton-trade-simple": (40, 5260),
        "cotton-trade-advanced": (55, 7084),
        "water-frame": (36, 4716),
        "card-game-expert": (10, 1180),
    },
}
ENDPOINTS_FLOOR = 36
STORES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


def test_the_readme_quotes_the_floors_of_the_hidden_information_walk() -> None:
    from tests.test_readme import README

    assert f"{ENDPOINTS_FLOOR} read endpoints" in README
    for store, floors in FLOORS.items():
        assert set(floors) == set(SCENARIOS)
        items = sum(i for i, _ in floors.values())
        checks = sum(c for _, c in floors.values())
        assert f"{items} hidden items" in README and f"{checks:,} checks on {STORES[store]}" in README


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_hidden_items_reach_no_other_seat_and_no_spectator(
    client: TestClient, name: str, request: pytest.FixtureRequest
) -> None:
    scene = set_up(client, SCENARIOS[name])
    request.addfinalizer(scene.stop_streams)
    play_to_hidden_position(scene)
    said = client.post(
        f"{API}/games/{scene.game_id}/messages", json={"text": scene.said}, headers=scene.table.auth(0)
    )
    assert said.status_code == 201, said.text
    draws = [
        e
        for e in scene.services.ledger.events.get(scene.game().id)
        if type(e).TOPIC.endswith("draw_recorded")
    ]
    opened = client.post(
        f"{API}/games/{scene.game_id}/disputes",
        json={"versions": [draws[-1].originator_version], "text": "was this draw fair?", "messages": [1]},
        headers=scene.table.auth(1),
    )
    assert opened.status_code == 201, opened.text
    scene.dispute = opened.json()["dispute"]
    give_seat_0_private_orders(scene)
    run = client.post(f"{API}/admin/webhooks/run", headers=bearer(ADMIN_TOKEN))
    assert run.status_code == 200 and scene.webhooks, "webhooks were sent to search"
    scene.services.refresh("notifications")
    scene.services.channels.run_once()
    scene.services.mail.run_once()
    assert scene.chats, "chat messages were sent to search"
    players = scene.scenario.players

    checked = 0
    kinds: Counter[str] = Counter()
    endpoints: set[str] = set()
    everything: dict[str, str] = {}
    notified = 0
    for viewer in [*range(players), None]:
        items = hidden_items(scene, viewer)
        everything.update(items)
        kinds.update(f"{'spectator' if viewer is None else 'seat'}:{k}" for k in items.values())
        answers = walk(scene, viewer)
        if viewer is None:
            spectator_view = dict(answers)["game view"]
        endpoints |= {n for n, _ in answers}
        notified += sum(
            t.count("event: notification") for n, t in answers if n == "pushed notification stream"
        )
        leaks = []
        words = renderer_for(scene.scenario.title).words
        # Cotton Trade's pages name its cards in words ("contract 52" for C052): searched too
        named: dict[str, list[tuple[str, str]]] = {}  # the words, lower case: (kind, the words)
        for item, kind in items.items():
            said = (
                words.name(item)
                if scene.scenario.title == "cotton-trade" and kind not in ("seed", "salt")
                else item
            )
            if said != item:
                named.setdefault(said.lower(), []).append((kind, said))
        every_item = any_of(items) if items else None
        every_name = any_of(named, re.IGNORECASE) if named else None
        for where, text in answers:
            if every_item:
                found = {m.group(1) for m in every_item.finditer(text)}
                leaks += [(items[item], item, where) for item in sorted(found)]
            if every_name and where.endswith("page"):
                found = {m.group(1).lower() for m in every_name.finditer(text)}
                leaks += [(kind, said, where) for key in sorted(found) for kind, said in named[key]]
        assert not leaks, f"{name}: viewer {viewer} was shown hidden items: {leaks[:5]}"
        checked += len(items) * len({n for n, _ in answers})
    print(
        f"{name}: {len(everything)} hidden items x {len(endpoints)} endpoints, {checked} item-endpoint checks"
    )
    # the README's figure (141 items x 36 endpoints, 18,244 checks per store) is these floors' sum
    items_floor, checks_floor = FLOORS[request.node.callspec.params["database_url"]][name]
    assert len(endpoints) >= ENDPOINTS_FLOOR, sorted(endpoints)
    assert len(everything) >= items_floor and checked >= checks_floor, (len(everything), checked)

    assert notified, "the players' streams were pushed notifications to search"

    oracles = refusals_reveal_nothing(scene)
    print(f"{name}: {oracles} decisions naming hidden items refused alike")

    # there was something to hide, of every kind this scenario is about
    face_down = [i for i, k in everything.items() if k == "face down / undrawn"]
    assert len(face_down) >= 5, everything
    assert kinds["spectator:seed"] == 1 and kinds["spectator:salt"] >= 1
    game = scene.game()
    # and something that was hidden at the start is public now: the same search finds it
    states = scene.states()
    ever_hidden = set().union(*(game.engine.secrets(st, None) for st in states if st is not None))
    revealed = (ever_hidden - game.engine.secrets(game.state, None)) & strings(
        game.engine.view(game.state, None)
    )
    if game.title == "cotton-trade":  # contracts and ships are shown by their ids once public
        assert revealed, "the position is past a reveal"
        assert all(pattern(i).search(spectator_view) for i in revealed), revealed
    if game.title == "water-frame":  # markers are shown by what they do: no more than are turned up
        shown = json.loads(spectator_view)["state"]["economy_markers_revealed"]
        assert 1 <= len(shown) == game.state.economy_revealed < len(game.state.economy)
    if game.title == "cotton-trade":
        assert {"ship", "contract"} <= {"ship" if i.startswith("S") else "contract" for i in face_down}
    if name == "cotton-trade-simple":
        row_cards = {slot.card for row in game.state.contract_row for slot in row if not slot.face_up}
        assert row_cards and row_cards <= set(face_down), "face-down contracts are among the items"
    if name == "cotton-trade-advanced":
        (peeker, card), *_ = game.state.peeks
        assert kinds["seat:peeked by another seat"] >= 1 and kinds["spectator:peeked by another seat"] == 1
        assert card not in hidden_items(scene, peeker), "the peeker knows the card"
        mine = client.get(f"{API}/games/{scene.game_id}", headers=scene.table.auth(peeker)).text
        assert pattern(card).search(mine), "the peeker is shown the card it peeked at"
        own_events = client.get(
            f"{API}/games/{scene.game_id}/events", headers=scene.table.auth(peeker)
        ).json()
        assert any(records.seat_audience(peeker) in e.get("salts", {}) for e in own_events["events"])

    # the search finds each item once it is no longer hidden: abandoned, the game shows all
    done = client.post(
        f"{API}/games/{scene.game_id}/abandon", json={"reason": "hidden walk"}, headers=bearer(ADMIN_TOKEN)
    )
    assert done.status_code == 200, done.text
    export = client.get(f"{API}/games/{scene.game_id}/export", headers=bearer(scene.token(None))).text
    missing = [i for i, kind in everything.items() if kind != "table talk" and not pattern(i).search(export)]
    assert not missing, f"not findable even when public: {missing[:5]}"

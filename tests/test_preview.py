"""The preview of a decision (issue 18): what it would do, stored nowhere.

It is refused exactly as the decision itself would be, never changes the game (version, head,
state digest, the store), shows the effects the decision's own answer shows the caller, and
stops before a random draw, naming it without drawing it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.web.table import renderer_for
from ledger import records
from ledger.registry import TITLES
from tests.api_helpers import API, Table


def preview(t: Table, seat: int, decision: dict[str, Any], version: int) -> Any:
    return t.client.post(
        f"{API}/games/{t.game_id}/decisions/preview",
        json={"expected_version": version, "decision": decision},
        headers=t.auth(seat),
    )


def fingerprint(client: TestClient, game_id: str) -> tuple[int, str, str, int]:
    """The game's version, head hash and state digest, and the store's last notification id."""
    services = client.app.state.services  # type: ignore[attr-defined]
    game = services.ledger.get_game(game_id)
    digest = records.state_digest(
        game.seed_bytes, game.engine.state_adapter.dump_python(game.state, mode="json")
    )
    return game.version, game.head_hash, digest, int(services.ledger.recorder.max_notification_id() or 0)


@pytest.mark.parametrize("title", list(TITLES))
def test_a_preview_shows_what_the_decision_then_does_and_changes_nothing(
    client: TestClient, title: str
) -> None:
    t = Table(client, 3, title)
    rnd = random.Random(18)
    compared = 0
    for _ in range(40):
        g = t.game()
        if g["status"] != "active":
            break
        seat = g["awaiting"][0]["seat"]
        mine = t.game(seat)
        legal = mine["legal_decisions"]
        # a few other listed decisions previewed first: none of them moves the game
        for other in rnd.sample(legal, min(3, len(legal))):
            before = fingerprint(client, t.game_id)
            r = preview(t, seat, other, mine["version"])
            assert r.status_code == 200, r.text
            assert fingerprint(client, t.game_id) == before, "a preview changed the game or the store"
        decision = rnd.choice(legal)
        seen = preview(t, seat, decision, mine["version"]).json()
        assert seen["version"] == mine["version"] and seen["seat"] == seat
        assert seen["decision"] == decision
        stored = t.decide(seat, decision, mine["version"])
        assert stored.status_code == 200, stored.text
        complete = seen["draw"] is None and seen["reveal"] is None
        if complete:
            # the same effects, in the same words, as the decision's own answer
            assert seen["effects"] == stored.json()["effects"]
            assert seen["log"] == stored.json()["log"]
            compared += 1
        after = t.game(seat)
        if seen["awaiting"] and complete:
            assert [a["seat"] for a in after["awaiting"]] == seen["awaiting"]
            assert seen["state"] == after["state"] | (
                {"private": after["private"]} if after["private"] else {}
            )
        money = [e for e in seen["effects"] if e["kind"] == "money_changed" and e["seat"] == seat]
        assert seen["cost"]["change"] == sum(e["amount"] for e in money)
        board = client.get(f"{API}/games/{t.game_id}/scoreboard", headers=t.auth(0)).json()
        if complete and not seen["finished"]:
            shown = {s["seat"]: s["share_value"] for s in board["seats"]}
            assert {v["seat"]: v["after"] for v in seen["share_values"]} == shown
    assert compared >= 10


def test_a_preview_is_refused_exactly_as_the_decision_and_writes_nothing(client: TestClient) -> None:
    t = Table(client, 3, "water-frame")
    rnd = random.Random(3)
    for _ in range(5):
        t.step(rnd)
    g = t.game()
    seat = g["awaiting"][0]["seat"]
    other = next(s for s in range(3) if s not in [a["seat"] for a in g["awaiting"]])
    mine = t.game(seat)
    decision = mine["legal_decisions"][0]
    spectator = client.post(f"{API}/players", json={"name": "Looker"}).json()
    before = fingerprint(client, t.game_id)

    def both(headers: dict[str, str], body: dict[str, Any]) -> tuple[tuple[int, str], tuple[int, str]]:
        p = client.post(f"{API}/games/{t.game_id}/decisions/preview", json=body, headers=headers)
        d = client.post(f"{API}/games/{t.game_id}/decisions", json=body, headers=headers)
        return (p.status_code, p.json()["code"]), (d.status_code, d.json()["code"])

    cases = [
        (t.auth(other), {"expected_version": mine["version"], "decision": decision}, "game/not_your_turn"),
        (
            {"Authorization": f"Bearer {spectator['token']}"},
            {"expected_version": mine["version"], "decision": decision},
            "game/not_seated",
        ),
        (t.auth(seat), {"expected_version": mine["version"] - 1, "decision": decision}, "game/stale_version"),
        (t.auth(seat), {"expected_version": mine["version"], "decision": {"type": "nonsense"}}, "request/"),
        (
            t.auth(seat),
            {"expected_version": mine["version"], "decision": {"type": "end_turn"}},
            "rule/water-frame/",
        ),
    ]
    for headers, body, code in cases:
        seen, decided = both(headers, body)
        assert seen == decided, (body, seen, decided)
        assert seen[1].startswith(code), seen
        assert fingerprint(client, t.game_id) == before
    r = client.post(
        f"{API}/games/{t.game_id}/decisions/preview",
        json={"expected_version": mine["version"], "decision": decision},
    )
    assert r.status_code == 401 and r.json()["code"].startswith("auth/")


def _to_a_draw(t: Table, rnd: random.Random) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """Play Cotton Trade until a listed decision leads to a draw; that seat, its view, the decision."""
    for _ in range(600):
        seat, mine = t.awaited()
        for decision in mine["legal_decisions"]:
            seen = preview(t, seat, decision, mine["version"]).json()
            if seen["draw"] is not None:
                return seat, mine, decision
        t.decide(seat, rnd.choice(mine["legal_decisions"]), mine["version"])
    raise AssertionError("no decision led to a draw")


def test_cotton_trade_previews_say_money_in_the_stages_coins(client: TestClient) -> None:
    """In its first stage Cotton Trade counts in pence: the preview's scoreboard and share values
    say which coins they are in (the page writes 7d, not £7); Water Frame's are pounds."""
    for title, coins in (("cotton-trade", "pence"), ("water-frame", None)):
        t = Table(client, 3, title)
        seat = t.game()["awaiting"][0]["seat"]
        mine = t.game(seat)
        seen = preview(t, seat, mine["legal_decisions"][0], mine["version"]).json()
        board = client.get(f"{API}/games/{t.game_id}/scoreboard", headers=t.auth(0)).json()
        assert seen["currency"] == board.get("currency") == coins
        assert {v["currency"] for v in seen["share_values"]} == {coins}


def test_a_decision_that_leads_to_a_draw_is_previewed_up_to_the_draw(client: TestClient) -> None:
    t = Table(client, 3, "cotton-trade")
    seat, mine, decision = _to_a_draw(t, random.Random(5))
    before = fingerprint(client, t.game_id)
    seen = preview(t, seat, decision, mine["version"]).json()
    assert fingerprint(client, t.game_id) == before, "no draw was derived or written"
    draw = seen["draw"]
    assert draw["kind"] == "shuffle" and draw["hidden"] and draw["size"] > 1
    said = renderer_for("cotton-trade").words.text(
        draw["label"]
    )  # the deck in words: "the Egypt contract deck"
    assert said in draw["text"] and "will be shuffled" in draw["text"]
    assert "outcome" not in draw and "items" not in draw, "what is drawn is never said"
    assert seen["awaiting"] == [], "nobody decides before the draw"
    stored = t.decide(seat, decision, mine["version"]).json()
    # everything the preview showed happens, then the draw and what follows it
    assert stored["effects"][: len(seen["effects"])] == seen["effects"]


def test_a_decision_that_turns_up_something_hidden_is_previewed_without_its_effects(
    client: TestClient,
) -> None:
    """The last turn of a Water Frame cycle turns up the next economy marker: previewing it
    must not show the marker (nor anything that followed from it)."""
    t = Table(client, 3, "water-frame")
    rnd = random.Random(11)
    for _ in range(400):
        seat, mine = t.awaited()
        found = None
        for decision in mine["legal_decisions"]:
            seen = preview(t, seat, decision, mine["version"]).json()
            if seen["reveal"] is not None:
                found = decision, seen
                break
        if found is None:
            t.decide(seat, rnd.choice(mine["legal_decisions"]), mine["version"])
            continue
        decision, seen = found
        assert seen["effects"] == [] and seen["log"] == [] and seen["cost"]["change"] == 0
        assert "stops before it" in seen["reveal"]
        assert seen["state"] == mine["state"] | ({"private": mine["private"]} if mine["private"] else {})
        stored = t.decide(seat, decision, mine["version"]).json()
        kinds = {e["kind"] for e in stored["effects"]}
        assert kinds & {"economy_marker_revealed", "event_revealed"}, kinds
        return
    raise AssertionError("no decision turned up a hidden marker")

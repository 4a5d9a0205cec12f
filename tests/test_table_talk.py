"""Table talk (issue 19 item 4): a game's players write to its conversation, a record with its
own hash chain, exported with the game and checked by ``gameledger verify``; spectators only
when the creator allows them; at most 1,000 characters, rate-limited; the operator hides a
message with a reason; a dispute cites messages; each message is pushed on the game's stream."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.verify import verify_export
from tests.api_helpers import API, Table
from tests.sse import LiveStream
from tests.trust_world import ADMIN_TOKEN, bearer


def talk(client: TestClient, game_id: str, token: str, text: str) -> Any:
    return client.post(f"{API}/games/{game_id}/messages", json={"text": text}, headers=bearer(token))


def read(client: TestClient, game_id: str, token: str, **params: Any) -> Any:
    return client.get(f"{API}/games/{game_id}/messages", headers=bearer(token), params=params or None)


@pytest.fixture
def table(client: TestClient) -> Table:
    return Table(client, n=3)


@pytest.fixture
def watcher(client: TestClient) -> str:
    return str(client.post(f"{API}/players", json={"name": "Watcher"}).json()["token"])


def token(table: Table, seat: int) -> str:
    return str(table.players[seat]["token"])


def test_the_seated_players_talk_and_each_message_names_its_seat_and_the_game_version(
    client: TestClient, table: Table
) -> None:
    version = table.game()["version"]
    r = talk(client, table.game_id, token(table, 1), "  Good luck, all.  ")
    assert r.status_code == 201, r.text
    said = r.json()
    assert said["number"] == 1 and said["text"] == "Good luck, all." and said["seat"] == 1
    assert said["game_version"] == version and said["name"] == "P1" and said["hidden"] is None
    talk(client, table.game_id, token(table, 0), "Thanks!\nYou too.")
    for seat in range(3):
        got = read(client, table.game_id, token(table, seat)).json()
        assert [m["text"] for m in got["messages"]] == ["Good luck, all.", "Thanks!\nYou too."]
        assert got["count"] == 2 and got["spectators_allowed"] is False
    assert [
        m["number"] for m in read(client, table.game_id, token(table, 2), after=1).json()["messages"]
    ] == [2]


def test_a_spectator_neither_reads_nor_writes_until_the_creator_allows_it(
    client: TestClient, table: Table, watcher: str
) -> None:
    talk(client, table.game_id, token(table, 0), "seated only")
    before = client.app.state.services.ledger.recorder.max_notification_id()  # type: ignore[attr-defined]
    for r in (read(client, table.game_id, watcher), talk(client, table.game_id, watcher, "hello?")):
        assert (r.status_code, r.json()["code"]) == (403, "game/not_seated"), r.text
    settings = f"{API}/games/{table.game_id}/messages/settings"
    r = client.put(settings, json={"spectators": True}, headers=bearer(token(table, 1)))
    assert (r.status_code, r.json()["code"]) == (403, "game/not_creator"), "only the creator (seat 0 here)"
    assert client.app.state.services.ledger.recorder.max_notification_id() == before  # type: ignore[attr-defined]
    r = client.put(settings, json={"spectators": True}, headers=bearer(token(table, 0)))
    assert r.status_code == 200 and r.json()["spectators_allowed"] is True
    assert [m["text"] for m in read(client, table.game_id, watcher).json()["messages"]] == ["seated only"]
    r = talk(client, table.game_id, watcher, "hello from the rail")
    assert r.status_code == 201 and r.json()["seat"] is None
    client.put(settings, json={"spectators": False}, headers=bearer(token(table, 0)))
    assert read(client, table.game_id, watcher).status_code == 403


def test_a_message_is_one_to_a_thousand_characters_and_nothing_else_is_written(
    client: TestClient, table: Table
) -> None:
    ledger = client.app.state.services.ledger  # type: ignore[attr-defined]
    assert talk(client, table.game_id, token(table, 0), "x" * 1000).status_code == 201
    before = ledger.recorder.max_notification_id()
    for text, code in [
        ("x" * 1001, "talk/bad_text"),
        ("   \n ", "talk/bad_text"),
        ("bell\x07", "talk/bad_text"),
    ]:
        r = talk(client, table.game_id, token(table, 0), text)
        assert (r.status_code, r.json()["code"]) == (422, code), (text[:20], r.text)
    r = talk(client, table.game_id, token(table, 0), "x" * 5000)  # beyond the schema's bound
    assert r.status_code == 422
    r = talk(client, table.game_id, ADMIN_TOKEN, "the operator")
    assert (r.status_code, r.json()["code"]) == (403, "game/not_seated")
    assert ledger.recorder.max_notification_id() == before


def test_a_writer_may_post_five_messages_in_thirty_seconds(client: TestClient, table: Table) -> None:
    ledger = client.app.state.services.ledger  # type: ignore[attr-defined]
    for i in range(5):
        assert talk(client, table.game_id, token(table, 0), f"message {i}").status_code == 201
    before = ledger.recorder.max_notification_id()
    r = talk(client, table.game_id, token(table, 0), "one too many")
    assert (r.status_code, r.json()["code"]) == (429, "request/rate_limited"), r.text
    assert 1 <= int(r.headers["retry-after"]) <= 31
    assert ledger.recorder.max_notification_id() == before
    assert talk(client, table.game_id, token(table, 1), "someone else may").status_code == 201


def test_the_operator_hides_a_message_with_a_reason_and_the_record_keeps_both(
    client: TestClient, table: Table
) -> None:
    talk(client, table.game_id, token(table, 1), "something rude")
    talk(client, table.game_id, token(table, 2), "calm down")
    hide = f"{API}/games/{table.game_id}/messages/1/hide"
    r = client.post(hide, json={"reason": "abuse"}, headers=bearer(token(table, 0)))
    assert (r.status_code, r.json()["code"]) == (403, "auth/admin_only")
    r = client.post(hide, json={"reason": "abuse"}, headers=bearer(ADMIN_TOKEN))
    assert r.status_code == 200 and r.json()["hidden"] == {"reason": "abuse"}
    again = client.post(hide, json={"reason": "abuse"}, headers=bearer(ADMIN_TOKEN))
    assert (again.status_code, again.json()["code"]) == (409, "talk/already_hidden")
    missing = client.post(
        f"{API}/games/{table.game_id}/messages/9/hide", json={"reason": "x"}, headers=bearer(ADMIN_TOKEN)
    )
    assert (missing.status_code, missing.json()["code"]) == (404, "talk/not_found")
    seen = read(client, table.game_id, token(table, 2)).json()["messages"]
    assert seen[0]["text"] is None and seen[0]["hidden"] == {"reason": "abuse"}
    assert seen[1]["text"] == "calm down"
    assert read(client, table.game_id, ADMIN_TOKEN).json()["messages"][0]["text"] == "something rude"
    lines = client.get(f"{API}/games/{table.game_id}/export", headers=table.auth(0)).text.splitlines()
    talk_types = [json.loads(x)["type"] for x in lines if '"record": "talk"' in x]
    assert talk_types == [
        "gameledger.talk.created",
        "gameledger.talk.message_posted",
        "gameledger.talk.message_posted",
        "gameledger.talk.message_hidden",
    ]


def test_the_talk_is_exported_with_the_game_in_its_own_chain_and_verify_checks_it(
    client: TestClient, table: Table, watcher: str
) -> None:
    ledger = client.app.state.services.ledger  # type: ignore[attr-defined]
    game_hashes = [e.hash for e in ledger.events.get(ledger.get_game(table.game_id).id)]
    for seat, text in [(0, "talk-alpha"), (1, "talk-beta"), (2, "talk-gamma")]:
        talk(client, table.game_id, token(table, seat), text)
    assert [e.hash for e in ledger.events.get(ledger.get_game(table.game_id).id)] == game_hashes, (
        "talking changes none of the game's events"
    )
    lines = client.get(f"{API}/games/{table.game_id}/export", headers=table.auth(1)).text.splitlines()
    header = json.loads(lines[0])
    assert header["talk_version"] == 4 and header["version"] == len(game_hashes)
    report = verify_export(lines)
    assert report.ok, report.text()
    assert any(name == "table talk hash chain" and ok for name, ok, _ in report.checks), report.text()

    def tampered(change: Any) -> list[str]:
        out = list(lines)
        i = next(k for k, x in enumerate(out) if '"talk-beta"' in x)
        row = json.loads(out[i])
        change(out, i, row)
        return out

    def edit(out: list[str], i: int, row: dict[str, Any]) -> None:
        row["public"]["text"] = "talk-betta"
        out[i] = json.dumps(row)

    def drop(out: list[str], i: int, row: dict[str, Any]) -> None:
        del out[i]

    for change in (edit, drop):
        report = verify_export(tampered(change))
        assert not report.ok
        assert [ok for name, ok, _ in report.checks if name == "table talk hash chain"] == [False], (
            report.text()
        )
    spectator = client.get(f"{API}/games/{table.game_id}/export", headers=bearer(watcher)).text
    assert "talk-alpha" not in spectator and "talk_version" not in spectator, (
        "a spectator's export has no talk"
    )


def test_a_dispute_cites_messages_of_the_talk(client: TestClient, table: Table) -> None:
    talk(client, table.game_id, token(table, 1), "I will pay you back next round")
    disputes = f"{API}/games/{table.game_id}/disputes"
    bad = client.post(
        disputes, json={"versions": [1], "text": "a broken promise", "messages": [2]}, headers=table.auth(0)
    )
    assert (bad.status_code, bad.json()["code"]) == (422, "dispute/bad_messages"), bad.text
    r = client.post(
        disputes, json={"versions": [1], "text": "a broken promise", "messages": [1]}, headers=table.auth(0)
    )
    assert r.status_code == 201, r.text
    listed = client.get(disputes, headers=table.auth(2)).json()["disputes"]
    assert listed[0]["messages"] == [1]


@pytest.fixture
def streams() -> Iterator[list[LiveStream]]:
    opened: list[LiveStream] = []
    yield opened
    for s in opened:
        s.stop()


def test_a_message_is_pushed_on_the_games_stream_to_those_who_may_read_it(
    client: TestClient, table: Table, watcher: str, streams: list[LiveStream]
) -> None:
    path = f"{API}/games/{table.game_id}/stream"
    player = LiveStream(client, path, token(table, 2), {"max_seconds": 60})
    rail = LiveStream(client, path, watcher, {"max_seconds": 60})
    streams += [player, rail]
    for s in streams:
        s.wait_for(lambda evs: any(e.event == "game" for e in evs))
    talk(client, table.game_id, token(table, 0), "<b>pushed</b>")
    events = player.wait_for(lambda evs: any(e.event == "talk" for e in evs))
    message = next(e for e in events if e.event == "talk")
    assert message.data["text"] == "<b>pushed</b>" and message.id is None
    table.step(__import__("random").Random(3))  # the game moves on: the spectator's stream wakes
    rail.wait_for(lambda evs: sum(e.event == "game" for e in evs) >= 2)
    assert not [e for e in rail.events if e.event == "talk"], "a spectator is not pushed the talk"


def page(client: TestClient, token: str, path: str, **params: Any) -> str:
    client.cookies.set("gl_token", token)
    try:
        r = client.get(path, params=params or None)
    finally:
        client.cookies.clear()
    assert r.status_code == 200, r.text[:300]
    return r.text


def test_the_pages_show_the_talk_escaped_to_its_players_and_the_replay_at_the_moment_it_was_written(
    client: TestClient, table: Table, watcher: str
) -> None:
    import random

    written_at = table.game()["version"]
    talk(client, table.game_id, token(table, 0), "<script>alert(1)</script> at the start")
    table.step(random.Random(1))
    later = table.game()["version"]
    talk(client, table.game_id, token(table, 1), "after a move")
    client.post(
        f"{API}/games/{table.game_id}/messages/2/hide",
        json={"reason": "spoiler"},
        headers=bearer(ADMIN_TOKEN),
    )
    game_page = page(client, token(table, 2), f"/games/{table.game_id}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; at the start" in game_page
    assert "<script>alert(1)" not in game_page
    assert "Hidden by the operator: spoiler" in game_page and "after a move" not in game_page
    assert 'id="talk-form"' in game_page
    spectator_page = page(client, watcher, f"/games/{table.game_id}")
    assert 'id="talk"' not in spectator_page and "at the start" not in spectator_page
    then = page(client, token(table, 1), f"/games/{table.game_id}/replay", v=written_at)
    assert "at the start" in then and "Table talk after event" in then
    assert "at the start" not in page(client, token(table, 1), f"/games/{table.game_id}/replay", v=later)
    assert "at the start" not in page(client, watcher, f"/games/{table.game_id}/replay", v=written_at)


def test_messages_written_at_the_same_moment_all_go_in_numbered_one_after_another(
    client: TestClient, table: Table
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    ledger = client.app.state.services.ledger  # type: ignore[attr-defined]
    players = [str(p["player_id"]) for p in table.players]
    with ThreadPoolExecutor(3) as pool:
        done = list(
            pool.map(lambda i: ledger.post_message(table.game_id, players[i], f"at once {i}"), range(3))
        )
    numbers = sorted(number for _, number in done)
    assert numbers == [1, 2, 3]
    said = read(client, table.game_id, token(table, 0)).json()["messages"]
    assert sorted(m["text"] for m in said) == ["at once 0", "at once 1", "at once 2"]

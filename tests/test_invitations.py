"""Private tables and invitations (issue 31, item 3), over HTTP on both stores: a private table is
listed to nobody else and a stranger's join is refused; players are invited by name, by address
(a mailed link) or with a link to share; a link works once, in its own game only, until it
expires or is withdrawn; the creator withdraws an invitation or opens a seat; the game starts
when the last seat is taken. An address never enters the game's record."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api_helpers import API

Headers = dict[str, str]


def player(client: TestClient, name: str) -> dict[str, Any]:
    r = client.post(f"{API}/players", json={"name": name})
    assert r.status_code == 201, r.text
    p = r.json()
    p["auth"] = {"Authorization": f"Bearer {p['token']}"}
    return p


def services(client: TestClient) -> Any:
    return client.app.state.services  # type: ignore[attr-defined]


def written(client: TestClient) -> int:
    return int(services(client).ledger.recorder.max_notification_id() or 0)


def private_table(client: TestClient, ann: dict[str, Any], seats: int = 3, **extra: Any) -> str:
    body = {"title": "cotton-trade", "seats": seats, "private": True, **extra}
    r = client.post(f"{API}/games", json=body, headers=ann["auth"])
    assert r.status_code == 201, r.text
    return str(r.json()["game_id"])


def listed(client: TestClient, who: dict[str, Any], **query: Any) -> set[str]:
    r = client.get(f"{API}/games", params={"position": written(client), **query}, headers=who["auth"])
    assert r.status_code == 200, r.text
    return {g["game_id"] for g in r.json()["games"]}


def invite(client: TestClient, game: str, by: dict[str, Any], **body: Any) -> Any:
    return client.post(f"{API}/games/{game}/invitations", json=body, headers=by["auth"])


def accept(client: TestClient, game: str, who: dict[str, Any], token: str | None = None) -> Any:
    body = {"token": token} if token else {}
    return client.post(f"{API}/games/{game}/invitations/accept", json=body, headers=who["auth"])


def token_of(url: str) -> str:
    return url.split("#token=", 1)[1]


@pytest.fixture
def people(client: TestClient) -> Iterator[dict[str, dict[str, Any]]]:
    yield {name: player(client, name) for name in ("Ann", "Bob", "Cid", "Stranger")}


def test_a_private_table_is_listed_to_its_people_only_and_a_strangers_join_is_refused(
    client: TestClient, people: dict[str, dict[str, Any]]
) -> None:
    ann, bob, stranger = people["Ann"], people["Bob"], people["Stranger"]
    game = private_table(client, ann, invite=["Bob"])
    public = client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 3}, headers=ann["auth"])
    assert game not in listed(client, stranger) and game not in listed(client, stranger, open=True)
    assert public.json()["game_id"] in listed(client, stranger, open=True), "a public table is listed"
    assert game in listed(client, ann) and game in listed(client, bob), "its creator and invited see it"
    before = written(client)
    r = client.post(f"{API}/games/{game}/join", headers=stranger["auth"])
    assert (r.status_code, r.json()["code"]) == (403, "game/private_table")
    assert written(client) == before, "a refused join writes nothing"
    client.cookies.set("gl_token", stranger["token"])
    try:
        lobby = client.get("/lobby")
        assert lobby.status_code == 200 and game not in lobby.text
    finally:
        client.cookies.clear()


def test_an_invited_player_takes_the_seat_held_by_name_and_the_last_seat_starts_the_game(
    client: TestClient, people: dict[str, dict[str, Any]]
) -> None:
    ann, bob, cid = people["Ann"], people["Bob"], people["Cid"]
    game = private_table(client, ann)
    by_name = invite(client, game, ann, player="bob")  # a name, in any case
    by_id = invite(client, game, ann, player=cid["player_id"])
    assert by_name.status_code == by_id.status_code == 201, (by_name.text, by_id.text)
    assert by_name.json()["seat"] == 1 and by_id.json()["seat"] == 2
    assert by_name.json()["player_id"] == bob["player_id"] and by_name.json()["url"] is None
    r = accept(client, game, people["Stranger"])
    assert (r.status_code, r.json()["code"]) == (404, "invitation/not_found")
    r = accept(client, game, bob)
    assert r.status_code == 200 and r.json()["status"] == "waiting" and r.json()["my_seats"] == [1]
    r = accept(client, game, bob)
    assert r.status_code == 409 and r.json()["code"] in ("invitation/used", "game/already_seated")
    r = accept(client, game, cid)
    assert r.status_code == 200 and r.json()["status"] == "active", "the last seat taken starts it"
    events = client.get(f"{API}/games/{game}/events", headers=ann["auth"]).json()["events"]
    kinds = [e["type"].rsplit(".", 1)[-1] for e in events]
    assert kinds.count("invitation_issued") == 2 and kinds.count("seat_claimed") == 2, kinds
    claimed = [e["public"] for e in events if e["type"].endswith(".seat_claimed")]
    assert [c.get("invitation") for c in claimed] == [1, 2], "the record says which invitation seated whom"


def test_a_link_works_once_in_its_own_game_until_it_expires_or_is_withdrawn(
    client: TestClient, people: dict[str, dict[str, Any]]
) -> None:
    ann, bob, cid, stranger = people["Ann"], people["Bob"], people["Cid"], people["Stranger"]
    game = private_table(client, ann, seats=4)
    other = private_table(client, ann, seats=3)
    shared = invite(client, game, ann, link=True)
    assert shared.status_code == 201 and "/invitation/" in shared.json()["url"], shared.text
    token = token_of(shared.json()["url"])
    assert token not in str(client.get(f"{API}/games/{game}/events", headers=ann["auth"]).json())

    before = written(client)
    r = accept(client, other, bob, token)  # another game's address: no seat there
    assert (r.status_code, r.json()["code"]) == (403, "invitation/other_game")
    r = accept(client, game, bob, token[:-3] + "xyz")
    assert (r.status_code, r.json()["code"]) == (404, "invitation/unknown_link")
    assert written(client) == before

    assert accept(client, game, bob, token).status_code == 200
    r = accept(client, game, cid, token)
    assert (r.status_code, r.json()["code"]) == (409, "invitation/used"), "a link works once"

    withdrawn = invite(client, game, ann, link=True).json()
    r = client.delete(f"{API}/games/{game}/invitations/{withdrawn['invitation']}", headers=ann["auth"])
    assert r.status_code == 200, r.text
    r = accept(client, game, cid, token_of(withdrawn["url"]))
    assert (r.status_code, r.json()["code"]) == (409, "invitation/withdrawn")

    late = invite(client, game, ann, link=True).json()
    ledger = services(client).ledger
    clock = ledger.clock
    ledger.clock = lambda: datetime.now(UTC) + timedelta(days=8)
    try:
        before = written(client)
        r = accept(client, game, stranger, token_of(late["url"]))
        assert (r.status_code, r.json()["code"]) == (409, "invitation/expired")
        assert written(client) == before
    finally:
        ledger.clock = clock


def test_the_creator_withdraws_an_invitation_or_opens_a_seat_and_nobody_else_does(
    client: TestClient, people: dict[str, dict[str, Any]]
) -> None:
    ann, bob, stranger = people["Ann"], people["Bob"], people["Stranger"]
    game = private_table(client, ann, invite=["Bob", "Cid"])
    before = written(client)
    for call in (
        client.delete(f"{API}/games/{game}/invitations/1", headers=bob["auth"]),
        client.post(f"{API}/games/{game}/seats/2/open", headers=stranger["auth"]),
        invite(client, game, bob, player="Stranger"),
    ):
        assert (call.status_code, call.json()["code"]) == (403, "game/not_creator"), call.text
    assert written(client) == before
    r = invite(client, game, ann, player="Stranger")
    assert (r.status_code, r.json()["code"]) == (409, "invitation/no_free_seat"), "every seat is held"

    assert client.delete(f"{API}/games/{game}/invitations/1", headers=ann["auth"]).status_code == 200
    r = accept(client, game, bob)
    assert (r.status_code, r.json()["code"]) == (409, "invitation/withdrawn")
    r = client.delete(f"{API}/games/{game}/invitations/1", headers=ann["auth"])
    assert (r.status_code, r.json()["code"]) == (409, "invitation/not_pending")

    r = client.post(f"{API}/games/{game}/seats/2/open", headers=ann["auth"])  # Cid's seat, opened
    assert r.status_code == 200, r.text
    listing = client.get(f"{API}/games/{game}/invitations", headers=ann["auth"]).json()["invitations"]
    assert [i["status"] for i in listing] == ["withdrawn", "withdrawn"]
    r = client.post(f"{API}/games/{game}/join", headers=stranger["auth"])
    assert r.status_code == 200 and r.json()["my_seats"] == [2], (
        "an opened seat takes anyone with the address"
    )
    r = client.post(f"{API}/games/{game}/join", headers=bob["auth"])
    assert (r.status_code, r.json()["code"]) == (403, "game/private_table"), "the other seat stays closed"


def test_an_address_is_mailed_its_link_and_never_enters_the_record(
    client: TestClient, people: dict[str, dict[str, Any]]
) -> None:
    ann, cid = people["Ann"], people["Cid"]
    game = private_table(client, ann, invite=["cid.invited@example.org"])
    outbox = services(client).mail.outbox
    rows = outbox.rows(f"SELECT recipient, subject, body FROM {outbox.t('outbox')}")  # noqa: S608
    mailed = [r for r in rows if "invites you" in r["subject"]]
    assert mailed, rows
    url = re.search(r"(\S+/invitation/\S+#token=\S+)", mailed[0]["body"]).group(1)  # type: ignore[union-attr]
    assert f"/invitation/{game}#token=" in url
    export = client.get(f"{API}/games/{game}/export", headers=ann["auth"]).text
    assert "cid.invited" not in export and token_of(url) not in export
    listing = client.get(f"{API}/games/{game}/invitations", headers=ann["auth"]).json()["invitations"]
    assert listing[0]["kind"] == "email" and listing[0]["email"] == "cid.invited@example.org"
    r = accept(client, game, cid, token_of(url))
    assert r.status_code == 200 and r.json()["my_seats"] == [1]


def test_every_count_of_invitations_is_bounded(client: TestClient, people: dict[str, dict[str, Any]]) -> None:
    ann = people["Ann"]
    r = client.post(
        f"{API}/games",
        json={
            "title": "cotton-trade",
            "seats": 3,
            "private": True,
            "invite": [f"p{i}@example.org" for i in range(6)],
        },
        headers=ann["auth"],
    )
    assert r.status_code == 422, "at most five invitees with a new game"
    r = client.post(
        f"{API}/games",
        json={"title": "cotton-trade", "seats": 3, "private": True, "invite": ["Nobody by that name"]},
        headers=ann["auth"],
    )
    assert (r.status_code, r.json()["code"]) == (404, "invitation/unknown_player"), "nothing made"
    game = private_table(client, ann, seats=2)
    made = 0
    for _ in range(4):  # two invitations per seat in all, withdrawn ones included
        r = invite(client, game, ann, link=True)
        if r.status_code != 201:
            break
        made += 1
        client.delete(f"{API}/games/{game}/invitations/{r.json()['invitation']}", headers=ann["auth"])
    assert made == 4 and invite(client, game, ann, link=True).json()["code"] == "invitation/too_many"
    r = invite(client, game, ann, player="Bob", link=True)
    assert (r.status_code, r.json()["code"]) == (422, "invitation/invalid")


def test_a_table_filled_by_invitation_passes_its_audit_and_its_export_verifies(
    client: TestClient, people: dict[str, dict[str, Any]]
) -> None:
    from ledger.verify import verify_export

    ann, bob, cid = people["Ann"], people["Bob"], people["Cid"]
    game = private_table(client, ann, invite=["Bob"])
    shared = invite(client, game, ann, link=True).json()
    assert client.post(f"{API}/games/{game}/invitations/1", headers=ann["auth"]).status_code == 405
    assert accept(client, game, bob).status_code == 200
    assert accept(client, game, cid, token_of(shared["url"])).json()["status"] == "active"
    audit = client.get(f"{API}/games/{game}/audit", headers=ann["auth"]).json()
    assert audit["ok"], [c for c in audit["checks"] if not c["ok"]]
    report = verify_export(client.get(f"{API}/games/{game}/export", headers=ann["auth"]).text.splitlines())
    assert report.ok, report.text()


def test_a_new_games_invitees_are_checked_before_anything_is_made(
    client: TestClient, people: dict[str, dict[str, Any]]
) -> None:
    ann = people["Ann"]
    before = written(client)
    for invitees, code in (
        (["Bob", "bob"], "invitation/duplicate"),
        (["Ann"], "invitation/already_seated"),
        (["Bob", "Cid", "x@example.org"], "invitation/no_free_seat"),
    ):
        body = {"title": "cotton-trade", "seats": 3, "private": True, "invite": invitees}
        r = client.post(f"{API}/games", json=body, headers=ann["auth"])
        assert r.json()["code"] == code, (invitees, r.text)
    assert written(client) == before, "no game was made"

"""Who rules on a dispute (issue 28, item 2), one open dispute per seat per event (item 1),
the limits on opening them (item 5), every party told (items 1 and 2), and a league's standings
following a ruling."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services
from api.settings import Settings
from ledger.domain import ADMIN
from tests.api_helpers import API
from tests.dispute_kit import OPERATOR, LeagueGame
from tests.mail_world import mailing, served
from tests.mailkit import SmtpServer, smtp_server, text_of
from tests.trust_world import assert_error_shape, bearer


def refused(r: Any, status: int, code: str) -> None:
    assert (r.status_code, assert_error_shape(r)) == (status, code), r.text


def written(services: Services) -> int:
    return int(services.ledger.recorder.max_notification_id() or 0)


def test_the_leagues_organiser_rules_on_its_games_the_operator_on_any_and_nobody_on_their_own(
    client: TestClient, services: Services
) -> None:
    t = LeagueGame.build(client)
    t.play(6)
    opened = t.dispute(0, [5])
    assert opened.status_code == 201, opened.text
    number = opened.json()["dispute"]
    before = written(services)
    refused(t.rule(t.auth(1), number), 403, "dispute/plays_in_game")  # a player of the game
    refused(t.rule(t.auth(0), number), 403, "dispute/plays_in_game")  # the one who disputes
    refused(t.rule(t.auth(t.other_organiser), number), 403, "dispute/not_adjudicator")
    refused(t.rule(t.auth(t.spectator), number), 403, "dispute/not_adjudicator")
    assert written(services) == before, "a refused ruling wrote"
    ruled = t.rule(t.auth(t.organiser), number, note="the event stands")
    assert ruled.status_code == 200, ruled.text
    d = ruled.json()["disputes"][0]
    assert (d["status"], d["outcome"], d["by"], d["note"]) == (
        "resolved",
        "no_change",
        t.organiser["player_id"],
        "the event stands",
    )
    event = list(services.ledger.events.get(services.ledger.get_game(t.game_id).id))[-1]
    assert event.public["by"] == t.organiser["player_id"], "the ruling is an event naming who ruled"
    refused(t.rule(t.auth(t.organiser), number), 409, "dispute/resolved")
    # the operator rules on any game's disputes
    second = t.dispute(1, [6]).json()["dispute"]
    assert t.rule(OPERATOR, second).json()["disputes"][1]["by"] == ADMIN

    # the organiser plays in a game of the league: the operator rules on it, the organiser cannot
    body = {"title": "cotton-trade", "seats": 2, "league": t.league_id}
    own = client.post(f"{API}/games", json=body, headers=t.auth(t.organiser)).json()["game_id"]
    assert client.post(f"{API}/games/{own}/join", headers=t.auth(0)).status_code == 200
    n = client.post(f"{API}/games/{own}/disputes", json={"versions": [2], "text": "x"}, headers=t.auth(0))
    assert n.status_code == 201, n.text
    resolve = f"{API}/games/{own}/disputes/{n.json()['dispute']}/resolve"
    refused(
        client.post(resolve, json={"outcome": "no_change"}, headers=t.auth(t.organiser)),
        403,
        "dispute/plays_in_game",
    )
    assert client.post(resolve, json={"outcome": "no_change"}, headers=OPERATOR).status_code == 200

    # a game added to the league after it was created: its organiser rules on it
    later = client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 2}, headers=t.auth(0)).json()
    assert client.post(f"{API}/games/{later['game_id']}/join", headers=t.auth(1)).status_code == 200
    for seat in (0, 1):  # a game someone else created joins the league with every seat a member
        enrol = {"player_id": t.players[seat]["player_id"]}
        r = client.post(f"{API}/leagues/{t.league_id}/members", json=enrol, headers=t.auth(t.organiser))
        assert r.status_code == 200, r.text
    added = client.post(
        f"{API}/leagues/{t.league_id}/games", json={"game_id": later["game_id"]}, headers=t.auth(t.organiser)
    )
    assert added.status_code == 200, added.text
    m = client.post(
        f"{API}/games/{later['game_id']}/disputes", json={"versions": [1], "text": "x"}, headers=t.auth(1)
    )
    resolve = f"{API}/games/{later['game_id']}/disputes/{m.json()['dispute']}/resolve"
    refused(
        client.post(resolve, json={"outcome": "no_change"}, headers=t.auth(t.other_organiser)),
        403,
        "dispute/not_adjudicator",
    )
    assert client.post(resolve, json={"outcome": "no_change"}, headers=t.auth(t.organiser)).status_code == 200

    # a game in no league: the operator alone
    free = client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 2}, headers=t.auth(0)).json()
    assert client.post(f"{API}/games/{free['game_id']}/join", headers=t.auth(1)).status_code == 200
    k = client.post(
        f"{API}/games/{free['game_id']}/disputes", json={"versions": [1], "text": "x"}, headers=t.auth(1)
    )
    resolve = f"{API}/games/{free['game_id']}/disputes/{k.json()['dispute']}/resolve"
    for who in (t.organiser, t.other_organiser, t.spectator):
        refused(
            client.post(resolve, json={"outcome": "no_change"}, headers=t.auth(who)),
            403,
            "dispute/not_adjudicator",
        )
    assert (
        client.post(resolve, json={"outcome": "annulment", "note": "void"}, headers=OPERATOR).status_code
        == 200
    )


def test_one_open_dispute_per_seat_per_event_and_a_repeated_submission_is_answered_with_it(
    client: TestClient, services: Services
) -> None:
    t = LeagueGame.build(client)
    t.play(8)
    first = t.dispute(0, [5, 6])
    assert first.status_code == 201 and first.json()["existing"] is False, first.text
    number = first.json()["dispute"]
    assert first.json()["url"] == f"/games/{t.game_id}/disputes/{number}"
    before = written(services)
    for versions in ([5, 6], [6, 5], [6], [5, 5]):  # the same events, or some of them: the open one
        again = t.dispute(0, versions, "said again, in other words")
        assert (again.status_code, again.json()["dispute"], again.json()["existing"]) == (200, number, True)
    assert written(services) == before, "a repeated submission wrote"
    overlap = t.dispute(0, [6, 7])
    refused(overlap, 409, "dispute/already_open")
    assert overlap.json()["details"]["dispute"] == number
    other_seat = t.dispute(1, [5])  # another seat disputes the same event: its own dispute
    assert other_seat.status_code == 201 and other_seat.json()["dispute"] == number + 1
    assert t.rule(t.auth(t.organiser), number).status_code == 200
    reopened = t.dispute(0, [5])  # resolved: the seat may dispute the event again
    assert reopened.status_code == 201 and reopened.json()["dispute"] == number + 2
    # bad input changes nothing
    before = written(services)
    for body, code in (
        ({"versions": [999], "text": "x"}, "dispute/bad_versions"),
        ({"versions": [7], "text": "   "}, "dispute/bad_text"),
        ({"versions": [7], "text": "bell\x07"}, "dispute/bad_text"),
        ({"versions": [7], "text": "x", "messages": [3]}, "dispute/bad_messages"),
    ):
        r = client.post(f"{API}/games/{t.game_id}/disputes", json=body, headers=t.auth(0))
        refused(r, 422, code)
    refused(
        client.post(
            f"{API}/games/{t.game_id}/disputes", json={"versions": [7], "text": "x" * 2001}, headers=t.auth(0)
        ),
        422,
        "request/invalid",
    )
    assert written(services) == before


def test_submissions_at_the_same_moment_make_one_dispute(services: Services, client: TestClient) -> None:
    """Six submissions of the same dispute at once (a double click, a retry racing the first):
    one dispute, and every one of them answered with it."""
    t = LeagueGame.build(client)
    t.play(4)
    ledger = services.ledger
    player = t.players[0]["player_id"]
    answers: list[int] = []
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def submit() -> None:
        try:
            start.wait()
            answers.append(ledger.open_dispute(t.game_id, player, [3], "at the same moment").number)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=submit) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    game = ledger.get_game(t.game_id)
    assert answers == [1] * 6 and list(game.disputes) == ["1"]


@pytest.fixture
def limited(settings: Settings, services: Services) -> Iterator[TestClient]:
    strict = settings.model_copy(update={"dispute_rate": 1.0, "dispute_burst": 2})
    with TestClient(create_app(strict, services)) as c:
        yield c


def test_disputes_are_rate_limited_per_player_and_per_game(limited: TestClient, services: Services) -> None:
    t = LeagueGame.build(limited, seats=3)
    t.play(10)
    assert [t.dispute(0, [v]).status_code for v in (2, 3)] == [201, 201]
    before = written(services)
    over = t.dispute(0, [4])
    refused(over, 429, "request/rate_limited")
    assert int(over.headers["retry-after"]) >= 1 and "by you" in over.json()["message"]
    assert written(services) == before, "a refused dispute wrote"
    # a stranger's attempts use up nothing of the players'
    for _ in range(5):
        assert t.dispute(0, [4]).status_code == 429
        r = limited.post(
            f"{API}/games/{t.game_id}/disputes",
            json={"versions": [4], "text": "x"},
            headers=t.auth(t.spectator),
        )
        assert r.status_code in (403, 429)
    # the game takes twice a player's burst from all its players together: Bob's two, then Cid is refused
    assert [t.dispute(1, [v]).status_code for v in (5, 6)] == [201, 201]
    by_game = t.dispute(2, [7])
    refused(by_game, 429, "request/rate_limited")
    assert "in this game" in by_game.json()["message"]
    assert len(services.ledger.get_game(t.game_id).disputes) == 4


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with smtp_server() as server:
        yield server


def test_the_other_seats_the_organiser_and_the_operator_are_told_and_every_party_gets_the_ruling(
    settings: Settings, smtp: SmtpServer
) -> None:
    s = mailing(settings, smtp, operator_email="operator@play.test")
    with served(s) as (services, client):
        t = LeagueGame.build(client, seats=3)
        addresses = {
            "Ann": "ann@play.test",
            "Bob": "bob@play.test",
            "Cid": "cid@play.test",
            "Olga": "olga@play.test",
        }
        for person in [*t.players, t.organiser]:
            confirm(client, services, smtp, person, addresses[person["name"]])
        t.play(8)
        said = t.say(1, "<b>I never chose that</b>")
        number = t.dispute(0, [7], "I clicked <script>x</script> the other ship", messages=[said]).json()[
            "dispute"
        ]

        def deliver() -> None:
            services.refresh("notifications")
            services.channels.run_once()
            services.mail.run_once()

        deliver()
        opened = {who: mails(smtp, a, "A dispute") for who, a in addresses.items()}
        operator = mails(smtp, "operator@play.test", "A dispute")
        assert [len(opened[w]) for w in ("Ann", "Bob", "Cid", "Olga")] == [0, 1, 1, 1]
        assert len(operator) == 1
        page = f"http://play.test/games/{t.game_id}/disputes/{number}"
        assert "you rule on it" in text_of(opened["Olga"][0]) and page in text_of(opened["Olga"][0])
        assert "the league's organiser rules on it" in text_of(opened["Bob"][0])
        assert page in text_of(operator[0]) and "the league's organiser rules on it" in text_of(operator[0])
        told = client.get(f"{API}/me/notifications", headers=bearer(t.organiser["token"])).json()[
            "notifications"
        ]
        assert [n["url"] for n in told if n["kind"] == "dispute_opened"] == [
            f"/games/{t.game_id}/disputes/{number}"
        ]

        ruled = t.rule(
            t.auth(t.organiser), number, "correction", rewind_to=7, note="Back to before event 7 & on."
        )
        assert ruled.status_code == 200, ruled.text
        deliver()
        resolved = {who: mails(smtp, a, "was resolved") for who, a in addresses.items()}
        assert [len(resolved[w]) for w in ("Ann", "Bob", "Cid", "Olga")] == [1, 1, 1, 1], (
            "every party, whoever ruled too"
        )
        for mail in [*resolved["Ann"], *mails(smtp, "operator@play.test", "was resolved")]:
            assert "correction" in text_of(mail) and "Back to before event 7 & on." in text_of(mail)


def confirm(
    client: TestClient, services: Services, smtp: SmtpServer, person: dict[str, Any], email: str
) -> None:
    from tests.mailkit import link_in

    r = client.post(f"{API}/me/email", json={"email": email}, headers=bearer(person["token"]))
    assert r.status_code in (200, 202), r.text
    services.mail.run_once()
    link = next(m for m in smtp.inbox.to(email) if "/account/confirm#" in text_of(m))
    assert client.post(f"{API}/players/confirm-email", json={"token": link_in(link)[2]}).status_code == 200
    client.cookies.clear()


def mails(smtp: SmtpServer, address: str, subject: str) -> list[Any]:
    return [m for m in smtp.inbox.to(address) if subject in (m["Subject"] or "")]


def in_force(services: Services, game_id: str) -> dict[str, int]:
    """The decisions each player made in the game's record, less those a compensating event set
    aside: counted by a plain walk of the record, as anyone could from its export."""
    kept: list[Any] = []
    for e in services.ledger.events.get(services.ledger.get_game(game_id).id):
        topic = type(e).TOPIC
        if topic.endswith("decision_undone"):
            kept = [k for k in kept if k.originator_version < e.public["target_version"]]
        elif topic.endswith("decision_recorded"):
            kept.append(e)
    game = services.ledger.get_game(game_id)
    counts: dict[str, int] = {}
    for e in kept:
        player = game.seats[e.public["seat"]]
        counts[player] = counts.get(player, 0) + 1
    return counts


def test_the_league_standings_follow_a_correction_and_an_annulment(
    client: TestClient, services: Services
) -> None:
    t = LeagueGame.build(client)
    version = t.play(14)
    number = t.dispute(1, [version - 4]).json()["dispute"]
    ruled = t.rule(t.auth(t.organiser), number, "correction", rewind_to=version - 6, note="replay from there")
    assert ruled.status_code == 200, ruled.text
    assert ruled.json()["version"] < version + 2 + 6, "the game is back at the chosen position"
    ledger = services.ledger
    rnd = random.Random(5)
    while (game := ledger.get_game(t.game_id)).status == "active":  # played to its end, quickly
        seat = game.awaiting[0]
        legal = game.engine.legal_decisions(game.state, seat)
        ledger.decide(game.id, game.seats[seat], game.version, rnd.choice(legal).model_dump(mode="json"))
    services.refresh()
    league = client.get(f"{API}/leagues/{t.league_id}", headers=t.auth(0)).json()
    made = {row["player_id"]: sum(row["decisions_by"].values()) for row in league["standings"]}
    assert made == in_force(services, t.game_id), "the standings count the decisions in force only"
    assert sum(row["games"] for row in league["standings"]) == 2

    # annulled by the organiser (the game is over): it leaves the league's standings
    number = t.dispute(0, [3]).json()["dispute"]
    assert t.rule(t.auth(t.organiser), number, "annulment", note="void").status_code == 200
    services.refresh()
    league = client.get(f"{API}/leagues/{t.league_id}", headers=t.auth(0)).json()
    assert league["standings"] == [] and league["finished_games"] == 0

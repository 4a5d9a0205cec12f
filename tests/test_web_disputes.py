"""Disputes in headless Chromium (issue 28, "Done when"), with the real server (``gameledger
serve``) mailing through a real SMTP server in the test process.

Olga organises the Spring league; Ann and Bob play Cotton Trade in it. Bob says something at the
table; Ann disputes one of Bob's moves from the replay, citing it. Olga finds the dispute in her
queue and rules a correction from the dispute page, the rewind point picked on its slider: the
game is back at the chosen position, every party (Ann, Bob, Olga, the operator) is mailed the
ruling, and once the game is played to its end the league's standings count the decisions in
force only. Then a finished game of the league is disputed and Olga annuls it: it leaves the
league's standings. axe-core checks the queue, the dispute page (before and after the ruling),
the replay with its dispute form and the audit page; screenshots at 1366 px and at 390 px."""

from __future__ import annotations

import json
import random
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_kit import GAME_URL, SHOTS, Person, check_accessibility, serving
from tests.mailkit import SmtpServer, text_of
from tests.test_web_notifications import sign_up

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # whole journeys in Chromium: .ci/run runs them

OPERATOR_MAIL = "operator@play.test"
ADDRESSES = {"Olga": "olga@play.test", "Ann": "ann@play.test", "Bob": "bob@play.test"}
WIDE, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def dispute_server(tmp_path_factory: pytest.TempPathFactory, smtp: SmtpServer) -> Iterator[str]:
    """The server mailing through the test's SMTP server, the operator's address set."""
    with serving(
        tmp_path_factory.mktemp("web-disputes"),
        GAMELEDGER_SMTP_URL=smtp.url,
        GAMELEDGER_PUBLIC_URL="http://127.0.0.1:{port}",
        GAMELEDGER_MAIL_FROM="gameledger <noreply@play.test>",
        GAMELEDGER_MAIL_INTERVAL="0.2",
        GAMELEDGER_WEBHOOK_INTERVAL="0.2",
        GAMELEDGER_OPERATOR_EMAIL=OPERATOR_MAIL,
        GAMELEDGER_ADMIN_TOKEN="test-admin-token-0123456789",
    ) as base:
        yield base


@pytest.fixture(scope="module")
def folks(browser: Any, dispute_server: str, smtp: SmtpServer) -> Iterator[dict[str, Person]]:
    """Olga, Ann and Bob, signed up with confirmed addresses; Olga's Spring league."""
    people = {name: Person(browser, dispute_server, name, viewport=WIDE) for name in ADDRESSES}
    try:
        for name, person in people.items():
            sign_up(person, name, ADDRESSES[name], smtp)
        page = people["Olga"].go("/leagues")
        page.fill("#league-name", "Spring league")
        page.click("#new-league-form button[type=submit]")
        page.wait_for_url("**/leagues/*")
        yield people
        for person in people.values():
            assert not person.problems, person.problems
    finally:
        for person in people.values():
            person.context.close()


def send(person: Person, method: str, path: str, body: Any = None) -> Any:
    """The person's call to the API from their open page, signed in by its session cookie."""
    answer = person.page.evaluate(
        """([m, p, b]) => fetch('/api/v1' + p, {method: m, credentials: 'same-origin', headers: {
             'Content-Type': 'application/json', 'Accept': 'application/json',
             'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content},
           body: b === null ? undefined : JSON.stringify(b)}).then(async r => ({status: r.status, body: await r.json()}))""",
        [method, path, body],
    )
    assert answer["status"] < 400, (person.name, method, path, answer)
    return answer["body"]


def league_game(folks: dict[str, Person]) -> str:
    """Ann opens a two-seat Cotton Trade game in the Spring league on the new-game page; Bob joins."""
    ann, bob = folks["Ann"], folks["Bob"]
    page = ann.go("/games/new")
    page.check("#title-cotton-trade")
    page.fill("#seats", "2")
    page.fill("#league", "Spring league")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url(GAME_URL)
    game_id = page.url.rsplit("/", 1)[-1]
    bob.go("/lobby").click(f"button[data-join='{game_id}']")
    bob.page.wait_for_url(f"**/games/{game_id}")
    return game_id


def play(folks: dict[str, Person], game_id: str, moves: int, seed: int) -> dict[str, Any]:
    """Random legal moves by whoever is awaited, through the API with each player's session (the
    bearer of the page's sign-in: no page involved, so that a whole game takes seconds)."""
    rnd = random.Random(seed)
    players = {p.name: Player(p) for p in (folks["Ann"], folks["Bob"])}
    person = players["Ann"]
    game = person.call("GET", f"/games/{game_id}")
    made = 0
    while made < moves and game["status"] == "active":
        if not game["legal_decisions"]:  # another is awaited: ask as them
            person = players[rnd.choice(game["awaiting"])["name"]]
            game = person.call("GET", f"/games/{game_id}")
            continue
        body = {"expected_version": game["version"], "decision": rnd.choice(game["legal_decisions"])}
        person.call("POST", f"/games/{game_id}/decisions", body)
        made += 1
        game = person.call("GET", f"/games/{game_id}")
    return game


class Player:
    """A person's calls to the API by their session's bearer (the cookie the page signed in with)."""

    def __init__(self, person: Person) -> None:
        self.base = person.base
        self.token = next(c["value"] for c in person.context.cookies() if c["name"] == "gl_session")

    def call(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(  # noqa: S310 - our own server
            f"{self.base}/api/v1{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - our own server
            return json.loads(answer.read())


def events(person: Person, game_id: str) -> list[dict[str, Any]]:
    return list(send(person, "GET", f"/games/{game_id}/events?limit=5000")["events"])


def in_force(person: Person, game_id: str) -> dict[str, int]:
    """Each player's decisions in the record less those set aside: a plain walk of its events."""
    kept: list[dict[str, Any]] = []
    for e in events(person, game_id):
        if e["type"].endswith("decision_undone"):
            kept = [k for k in kept if k["version"] < e["public"]["target_version"]]
        elif e["type"].endswith("decision_recorded"):
            kept.append(e)
    seats = {s["seat"]: s["player_id"] for s in send(person, "GET", f"/games/{game_id}")["seats"]}
    counts: dict[str, int] = {}
    for e in kept:
        counts[seats[e["public"]["seat"]]] = counts.get(seats[e["public"]["seat"]], 0) + 1
    return counts


def resolved(smtp: SmtpServer, address: str) -> list[Any]:
    """The ruling mails sent to ``address`` so far."""
    return [m for m in smtp.inbox.to(address) if "was resolved" in (m["Subject"] or "")]


def rulings(smtp: SmtpServer, address: str, after: int = 0, seconds: float = 20) -> list[Any]:
    """The ruling mails to ``address`` beyond the first ``after``, waited for."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = resolved(smtp, address)[after:]
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"no ruling mailed to {address}")


def shots(person: Person, name: str, check: str) -> None:
    """axe-core on the page, and its screenshots at 1366 px and at a 390 px phone."""
    check_accessibility(person, check)
    person.shot(f"{name}-1366")
    person.page.set_viewport_size(PHONE)
    person.page.wait_for_timeout(150)
    check_accessibility(person, f"{check}, on a phone")
    person.shot(f"{name}-390")
    person.page.set_viewport_size(WIDE)


def dispute_from_the_replay(person: Person, game_id: str, version: int, text: str, cite: int | None) -> str:
    """On the replay at ``version``: open 'Dispute a move', add the event, say what is wrong, tick
    the message to cite, open the dispute; returns the dispute page's path."""
    page = person.go(f"/games/{game_id}/replay?v={version}")
    page.click("#dispute-panel summary")
    page.click("#dispute-select")
    assert f"event {version}" in page.inner_text("#dispute-selected")
    page.fill("#dispute-text", text)
    if cite is not None:
        page.check(f"#cite-{cite}")
    return submit_dispute(person, game_id)


def submit_dispute(person: Person, game_id: str) -> str:
    page = person.page
    page.click("#dispute-form button[type=submit]")
    page.wait_for_url(f"**/games/{game_id}/disputes/*")
    page.wait_for_selector("html[data-ready]", state="attached")
    return page.url.split(person.base, 1)[1]


def rule(
    olga: Person, path: str, outcome: str, note: str, rewind_to: int | None = None, shot: str = ""
) -> None:
    """From the queue to the dispute page, and the ruling there."""
    queue = olga.go("/disputes")
    queue.click(f"#disputes a[href='{path}']")
    page = olga.page
    page.wait_for_url(f"**{path}")
    page.wait_for_selector("html[data-ready]", state="attached")
    page.check(f"#outcome-{outcome}")
    if rewind_to is not None:
        assert page.is_visible("#rewind-to"), "the slider shows for a correction"
        page.eval_on_selector(
            "#rewind-to", "(s, v) => { s.value = String(v); s.dispatchEvent(new Event('input')); }", rewind_to
        )
        page.wait_for_function(
            "v => document.querySelector('#rewind-out').textContent === 'event ' + v", arg=rewind_to
        )
        page.wait_for_selector("#rewind-words ul.log li")
    page.fill("#ruling-note", note)
    if shot:  # the talk it cites, the audit of the event in words, the ruling about to be sent
        page.eval_on_selector("#cited-heading", "h => h.scrollIntoView()")
        olga.shot(shot, full_page=False)
    page.click("#ruling-form button[type=submit]")
    page.wait_for_selector(".dispute-status.resolved")


def test_a_player_disputes_from_the_replay_and_the_organiser_rules_a_correction(
    folks: dict[str, Person], smtp: SmtpServer
) -> None:
    started = time.monotonic()
    olga, ann, bob = folks["Olga"], folks["Ann"], folks["Bob"]
    game_id = league_game(folks)
    game = play(folks, game_id, 14, seed=28)
    league = send(olga, "GET", "/leagues/Spring league")
    assert game_id in [g["game_id"] for g in league["games"]]
    # Bob says something at the table, on the game page
    page = bob.go(f"/games/{game_id}")
    page.fill("#talk-text", "Ann, <b>that</b> contract was mine; I was about to take it.")
    page.click("#talk-form button[type=submit]")
    page.wait_for_selector("#talk-messages li[data-number='1'] .text")
    # Ann disputes one of Bob's moves from the replay, citing what he said
    bobs = [
        e["version"]
        for e in events(ann, game_id)
        if e["type"].endswith("decision_recorded") and e["public"]["seat"] == game["seats"][1]["seat"]
    ]
    disputed = bobs[-2]
    page = ann.go(f"/games/{game_id}/replay?v={disputed}")
    page.click("#dispute-panel summary")
    page.wait_for_selector("#cite-1")
    assert "<b>that</b>" in page.inner_text("label[for='cite-1']"), "the message as text, never markup"
    page.click("#dispute-select")
    page.fill("#dispute-text", "Bob's move was made twice <script>alert(1)</script> by a double click.")
    page.check("#cite-1")
    check_accessibility(ann, "the replay with its dispute form")
    ann.shot("replay-dispute-form-1366", full_page=False)
    path = submit_dispute(ann, game_id)
    assert "<script>alert(1)</script>" in ann.page.inner_text(".said"), "the text is shown as text"
    # Olga's queue has it; she rules a correction from the dispute page
    queue = olga.go("/disputes")
    assert queue.query_selector(f"#disputes a[href='{path}']"), "the organiser's queue lists it"
    shots(olga, "disputes-queue", "the organiser's queue")
    page = olga.go(path)
    assert page.query_selector("#ruling-form") and page.query_selector_all(".before-after .board-svg")
    assert "<b>that</b> contract was mine" in page.inner_text("#cited-heading + ol")
    assert "This move was legal in its position" in page.inner_text("#stretch-heading ~ .stretch")
    shots(olga, "dispute-page", "the dispute page, to rule from")
    olga.shot("dispute-page-top", full_page=False)
    mailed = {a: len(resolved(smtp, a)) for a in [*ADDRESSES.values(), OPERATOR_MAIL]}
    rule(olga, path, "correction", "Back to before Bob's move: play it again.", disputed, "dispute-ruling")
    check_accessibility(olga, "the dispute page, resolved")
    assert "Ruled by Olga" in olga.page.inner_text("#status-heading + p")
    # the game is back at the position before the chosen event
    record = events(olga, game_id)
    undone = [e for e in record if e["type"].endswith("decision_undone")][-1]
    assert undone["public"]["target_version"] == disputed and undone["public"]["dispute"] == 1
    before = [e for e in record if e["version"] < disputed and "state_digest" in e["public"]][-1]
    assert undone["public"]["state_digest"] == before["public"]["state_digest"]
    # every party is mailed the ruling with its note
    for address in [*ADDRESSES.values(), OPERATOR_MAIL]:
        mail = rulings(smtp, address, mailed[address])[-1]
        assert "correction" in text_of(mail) and "play it again" in text_of(mail), address
        assert path in text_of(mail), "the mail links to the dispute's page"
    # played on to its end, the league's standings count the decisions in force only
    game = play(folks, game_id, 5_000, seed=29)
    assert game["status"] == "finished"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        league = send(olga, "GET", "/leagues/Spring league")
        if league["finished_games"] == 1:
            break
        time.sleep(0.2)
    made = {row["player_id"]: sum(row["decisions_by"].values()) for row in league["standings"]}
    assert made == in_force(olga, game_id), "the standings follow the correction"
    page = ann.go(f"/games/{game_id}/audit")
    assert "Every check passed" in page.inner_text("#outcome-heading + p")
    assert page.query_selector("pre.verify-output")
    shots(ann, "audit-page", "the audit page of a finished game")
    print(f"dispute, correction and the game's end in the browser: {time.monotonic() - started:.0f} s")  # noqa: T201


def test_a_finished_league_game_annulled_from_the_dispute_page_leaves_the_standings(
    folks: dict[str, Person], smtp: SmtpServer
) -> None:
    started = time.monotonic()
    olga, bob = folks["Olga"], folks["Bob"]
    game_id = league_game(folks)
    game = play(folks, game_id, 5_000, seed=30)
    assert game["status"] == "finished"
    deadline = time.monotonic() + 10
    while (league := send(olga, "GET", "/leagues/Spring league"))["finished_games"] < 2:
        assert time.monotonic() < deadline, league
        time.sleep(0.2)
    games_counted = sum(row["games"] for row in league["standings"])
    assert games_counted == 4, "two finished games of two players each"
    mailed = len(resolved(smtp, ADDRESSES["Bob"]))
    version = [e["version"] for e in events(bob, game_id) if e["type"].endswith("draw_recorded")][-1]
    path = dispute_from_the_replay(
        bob, game_id, version, "The last shuffle came after a server restart.", None
    )
    check_accessibility(bob, "the dispute page, as a player")
    assert not bob.page.query_selector("#ruling-form"), "a player of the game does not rule"
    assert "shuffled into" in bob.page.inner_text("#stretch-heading ~ .stretch"), (
        "a finished game's draw said"
    )
    rule(olga, path, "annulment", "Void: the league replays this one.")
    assert "Resolved: annulment" in olga.page.inner_text("#status-heading")
    deadline = time.monotonic() + 10
    while (league := send(olga, "GET", "/leagues/Spring league"))["finished_games"] != 1:
        assert time.monotonic() < deadline, league
        time.sleep(0.2)
    assert sum(row["games"] for row in league["standings"]) == 2, "the annulled game counts no more"
    assert [g["status"] for g in league["games"] if g["game_id"] == game_id] == ["annulled"]
    mail = rulings(smtp, ADDRESSES["Bob"], mailed)[-1]
    assert "annulment" in text_of(mail) and "Void: the league replays this one." in text_of(mail)
    page = olga.go(f"/leagues/{league['league_id']}")
    assert "1 finished" in page.inner_text("dl.facts")
    assert (SHOTS / "dispute-page-1366.png").exists() and (SHOTS / "dispute-page-390.png").exists()
    print(f"annulment in the browser: {time.monotonic() - started:.0f} s")  # noqa: T201

"""One page to rule from (issue 28, item 3): ``/games/{id}/disputes/{n}`` and its JSON, and the
queues of disputes (``/disputes``, ``GET /api/v1/disputes``), walked as every role a league's
dispute has: the league's organiser (who rules), another league's organiser, a player of the game
(who cannot rule), a spectator, a stranger and the operator."""

from __future__ import annotations

import html
import random
import re
from typing import Any

from fastapi.testclient import TestClient

from api.services import Services
from ledger.domain import ADMIN
from tests.api_helpers import API
from tests.dispute_kit import OPERATOR, LeagueGame
from tests.trust_world import ADMIN_TOKEN, assert_error_shape

SAID = "I clicked <script>alert('x')</script> the other ship & nobody saw"
TALK = "<b>Careful</b>: that ship is mine"


def as_page(client: TestClient, token: str | None, path: str) -> Any:
    client.cookies.clear()
    if token:
        client.cookies.set("gl_token", token)
    try:
        return client.get(path, follow_redirects=False)
    finally:
        client.cookies.clear()


def disputed(client: TestClient) -> tuple[LeagueGame, int, int]:
    """A three-seat league game, ten moves in, Bob's message, and Ann's dispute of a move of
    Cid's (or Bob's) citing it: (table, dispute number, disputed version)."""
    t = LeagueGame.build(client, seats=3)
    t.play(12)
    events = client.get(f"{API}/games/{t.game_id}/events", headers=t.auth(0)).json()["events"]
    move = next(
        e for e in reversed(events) if e["type"].endswith("decision_recorded") and e["public"]["seat"] != 0
    )
    said = t.say(1, TALK)
    r = t.dispute(0, [move["version"]], SAID, messages=[said])
    assert r.status_code == 201, r.text
    return t, int(r.json()["dispute"]), int(move["version"])


def test_every_role_of_a_league_game_sees_what_it_may_of_a_dispute(
    client: TestClient, services: Services
) -> None:
    t, number, version = disputed(client)
    gid = t.game_id
    page = f"/games/{gid}/disputes/{number}"
    roles: dict[str, str | None] = {
        "organiser": t.organiser["token"],
        "other organiser": t.other_organiser["token"],
        "player": t.players[1]["token"],
        "spectator": t.spectator["token"],
        "stranger": None,
        "operator": ADMIN_TOKEN,
    }
    parties = {"organiser", "player", "operator"}
    rulers = {"organiser", "operator"}
    for role, token in roles.items():
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        # the dispute's page
        r = as_page(client, token, page)
        if role == "stranger":
            assert r.status_code == 303 and r.headers["location"].startswith("/signup"), role
        elif role in parties:
            assert r.status_code == 200, (role, r.status_code)
            assert ('id="ruling-form"' in r.text) == (role in rulers), role
            assert "I clicked &lt;script&gt;alert(" in r.text and "<script>alert" not in r.text, "escaped"
        else:
            assert r.status_code == 403, (role, r.status_code)
            assert "other ship" not in r.text and "Careful" not in r.text, role
        # its JSON
        j = client.get(f"{API}{page}", headers=headers)
        if role == "stranger":
            assert j.status_code == 401, role
        elif role in parties:
            assert j.status_code == 200 and j.json()["may_rule"] == (role in rulers), (role, j.text[:200])
            assert j.json()["adjudicator"] == {"player_id": t.organiser["player_id"], "name": "Olga"}
        else:
            assert (j.status_code, assert_error_shape(j)) == (403, "dispute/not_a_party"), role
        # the queues
        q = client.get(f"{API}/disputes", headers=headers)
        if role == "stranger":
            assert q.status_code == 401
            continue
        queue = q.json()
        found = {k: [f"{d['game_id']}:{d['number']}" for d in v] for k, v in queue.items()}
        mine = f"{gid}:{number}"
        assert (mine in found["to_rule"]) == (role == "organiser"), (role, found)
        assert (mine in found["in_my_games"]) == (role == "player"), (role, found)
        assert (mine in found["others"]) == (role == "operator"), (role, found)
        listing = as_page(client, token, "/disputes")
        assert listing.status_code == 200
        assert (f'href="{page}"' in listing.text) == (role in parties), role
    # the ruling, as each role
    for role in ("player", "other organiser", "spectator"):
        r = t.rule({"Authorization": f"Bearer {roles[role]}"}, number)
        code = "dispute/plays_in_game" if role == "player" else "dispute/not_adjudicator"
        assert (r.status_code, assert_error_shape(r)) == (403, code), role
    assert t.rule({}, number).status_code == 401
    assert t.rule(t.auth(t.organiser), number, note="the move stands").status_code == 200
    queue = client.get(f"{API}/disputes", headers=t.auth(t.organiser)).json()
    assert queue["to_rule"] == [] and [d["outcome"] for d in queue["ruled"]] == ["no_change"]
    assert queue["ruled"][0]["ruled_by_name"] == "Olga"


def test_the_dispute_page_puts_the_board_the_log_the_talk_and_the_audit_side_by_side(
    client: TestClient, services: Services
) -> None:
    t, number, version = disputed(client)
    r = as_page(client, t.organiser["token"], f"/games/{t.game_id}/disputes/{number}")
    text = r.text
    assert r.status_code == 200
    # the board before (the decision marked) and after the event
    assert "Before: the position it was decided on, the decision marked" in text
    assert f"After event {version}" in text and text.count('class="board-svg') == 2
    assert "highlight" in text.split('id="after-heading"')[0], "the decision is marked on the board before it"
    # the log around it, the disputed event marked
    around = text.split('id="around-heading"')[1].split("</section>")[0]
    assert f'#{version}</a> <span class="badge">disputed</span>' in around
    last = services.ledger.get_game(t.game_id).version
    shown = [int(v) for v in re.findall(r'class="v" href="[^"]*\?v=(\d+)"', around)]
    assert shown == list(range(max(1, version - 3), min(last, version + 3) + 1))
    # the cited talk, escaped
    cited = text.split('id="cited-heading"')[1].split("</section>")[0]
    assert html.escape(TALK, quote=False) in cited and "message 1" in cited
    # the audit of the disputed event in words
    stretch = html.unescape(text.split('id="stretch-heading"')[1].split("</section>")[0])
    assert "The record is unchanged since it was written" in stretch
    assert "This move was legal in its position: it was among the moves the rules offered" in stretch
    assert "holds the game up to event" in stretch, "the ledger's signed digest covers it"
    # the rulings: the rewind point on a slider over the events a correction may set aside
    slider = re.search(r'<input type="range" id="rewind-to" min="(\d+)" max="(\d+)" value="(\d+)"', text)
    assert slider and int(slider.group(2)) == services.ledger.get_game(t.game_id).version
    assert int(slider.group(3)) == version and int(slider.group(1)) >= 2
    # what if: a running game's position with hidden cards cannot be forked; the page says why
    assert "is not possible here" in text and "hidden information" in text

    # ruled: the page says who ruled, how, and the note; no rulings any more
    ruled = t.rule(
        t.auth(t.organiser), number, "correction", rewind_to=version, note="Back to before <that> move."
    )
    assert ruled.status_code == 200, ruled.text
    after = as_page(client, t.players[2]["token"], f"/games/{t.game_id}/disputes/{number}").text
    assert "Resolved: a correction" in after and "Ruled by Olga" in after
    assert "Back to before &lt;that&gt; move." in after and 'id="ruling-form"' not in after


def test_a_disputed_draw_of_a_finished_game_is_said_with_its_outcome(
    client: TestClient, services: Services
) -> None:
    t = LeagueGame.build(client)
    ledger = services.ledger
    rnd = random.Random(3)
    while (game := ledger.get_game(t.game_id)).status == "active":
        seat = game.awaiting[0]
        legal = game.engine.legal_decisions(game.state, seat)
        ledger.decide(game.id, game.seats[seat], game.version, rnd.choice(legal).model_dump(mode="json"))
    draws = [e for e in ledger.events.get(game.id) if type(e).TOPIC.endswith("draw_recorded")]
    hidden = next(e for e in draws if "outcome" not in e.public and e.public["kind"] == "shuffle")
    r = t.dispute(1, [hidden.originator_version], "was this shuffle fair?")
    number = r.json()["dispute"]
    out = client.get(f"{API}/games/{t.game_id}/disputes/{number}", headers=t.auth(0)).json()
    (stretch,) = out["stretch"]
    said = " ".join(c["sentence"] for c in stretch["checks"])
    assert "This draw is the one the committed seed gives:" in said and "shuffled into" in said
    assert len(stretch["outcome"]) == hidden.public["size"]
    assert out["correction"]["possible"] is False
    # the what-if fork from before the draw: the game is over, so it may be forked
    text = as_page(client, t.players[1]["token"], f"/games/{t.game_id}/disputes/{number}").text
    assert 'id="fork-form"' in text
    fork = client.post(
        f"{API}/games/{t.game_id}/forks", json={"version": hidden.originator_version - 1}, headers=t.auth(1)
    )
    assert fork.status_code == 201 and fork.json()["sandbox"], fork.text
    # a running game's hidden draw keeps its outcome to itself
    other = LeagueGame.build(client, league="Summer league")
    other.play(3)
    running = next(
        e
        for e in ledger.events.get(ledger.get_game(other.game_id).id)
        if type(e).TOPIC.endswith("draw_recorded") and "outcome" not in e.public
    )
    n = other.dispute(0, [running.originator_version]).json()["dispute"]
    out = client.get(f"{API}/games/{other.game_id}/disputes/{n}", headers=other.auth(1)).json()
    said = " ".join(c["sentence"] for c in out["stretch"][0]["checks"])
    assert "Its outcome stays hidden while the game runs" in said and out["stretch"][0]["outcome"] is None


def test_the_operator_rules_on_a_game_its_organiser_plays_in_and_queues_it_as_theirs(
    client: TestClient, services: Services
) -> None:
    t = LeagueGame.build(client)
    body = {"title": "cotton-trade", "seats": 2, "league": t.league_id}
    own = client.post(f"{API}/games", json=body, headers=t.auth(t.organiser)).json()["game_id"]
    assert client.post(f"{API}/games/{own}/join", headers=t.auth(0)).status_code == 200
    r = client.post(f"{API}/games/{own}/disputes", json={"versions": [3], "text": "x"}, headers=t.auth(0))
    number = r.json()["dispute"]
    operator = client.get(f"{API}/disputes", headers=OPERATOR).json()
    assert [(d["game_id"], d["rules"]) for d in operator["to_rule"]] == [(own, ADMIN)]
    organiser = client.get(f"{API}/disputes", headers=t.auth(t.organiser)).json()
    assert organiser["to_rule"] == [] and [d["game_id"] for d in organiser["in_my_games"]] == [own]
    page = as_page(client, t.organiser["token"], f"/games/{own}/disputes/{number}").text
    assert 'id="ruling-form"' not in page and "The operator rules on it (the league's organiser plays" in page


def test_a_player_disputes_from_the_replay_and_the_game_pages_log(
    client: TestClient, services: Services
) -> None:
    t = LeagueGame.build(client, seats=3)
    version = t.play(8)
    t.say(1, TALK)
    t.say(2, "second <i>thoughts</i>")
    replay = f"/games/{t.game_id}/replay"
    # a player of the game: the panel to dispute from, the talk to cite picked by ticking it
    text = as_page(client, t.players[0]["token"], f"{replay}?v={version - 2}&dispute=1").text
    panel = text.split('id="dispute-panel"')[1].split("</details>")[0]
    assert f'data-preselect="{version - 2}" open' in panel, "opened from a log entry: that event chosen"
    assert "the league&#39;s organiser rules on it" in panel
    assert f'data-talk-url="/api/v1/games/{t.game_id}/messages"' in panel, (
        "the talk to cite, read when it opens"
    )
    assert "Careful" not in text, "the replay at each event carries no talk but that event's"
    assert 'id="fork-form"' not in text and "No sandbox from here" in text, "a running game's hidden position"
    # nobody else is offered it; without dispute=1 it is there, closed
    for token in (t.spectator["token"], t.organiser["token"], ADMIN_TOKEN):
        assert 'id="dispute-panel"' not in as_page(client, token, f"{replay}?v={version}").text
    assert "data-preselect" not in as_page(client, t.players[1]["token"], replay).text
    # the game page's log: each entry of a player's game links to the replay's dispute form
    game = as_page(client, t.players[0]["token"], f"/games/{t.game_id}").text
    assert f'href="/games/{t.game_id}/replay?v={version}&amp;dispute=1"' in game
    assert f'href="/games/{t.game_id}/audit"' in game
    assert "dispute-link" not in as_page(client, t.spectator["token"], f"/games/{t.game_id}").text
    # the dispute, opened as the replay's form sends it, is listed on the game page and the replay
    r = client.post(
        f"{API}/games/{t.game_id}/disputes",
        json={"versions": [version - 2], "text": "not what I chose", "messages": [1]},
        headers={**t.auth(0), "Idempotency-Key": "replay-form-1"},
    )
    again = client.post(
        f"{API}/games/{t.game_id}/disputes",
        json={"versions": [version - 2], "text": "not what I chose", "messages": [1]},
        headers={**t.auth(0), "Idempotency-Key": "replay-form-1"},
    )
    assert (
        r.status_code == 201 and again.json()["replayed"] and again.json()["dispute"] == r.json()["dispute"]
    )
    link = f'href="/games/{t.game_id}/disputes/{r.json()["dispute"]}"'
    assert link in as_page(client, t.players[2]["token"], f"/games/{t.game_id}").text
    assert link in as_page(client, t.players[0]["token"], replay).text

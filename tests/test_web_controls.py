"""The page controls of what the API already offered: the stand-in's "take my seat back", a seat's
standing orders and conditional replies, a table's Discord or Slack channel, which notifications
are mailed; and the Water Frame board's seat colours."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from api.web.table.water_frame import GOOD_FILL, SEAT_FILL, rect, token
from ledger.domain import Game
from ledger.orders import kinds_of
from tests.api_helpers import API
from tests.test_play_by_web import FakeClock
from tests.test_web_pages import assert_accessible

STATIC = Path(__file__).resolve().parents[1] / "api" / "web" / "static"


@pytest.fixture
def chromium_page(browser: Any) -> Iterator[Any]:
    """A blank page in headless Chromium (the module's browser, tests/browser_kit.py)."""
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


@pytest.mark.browser
def test_every_seats_token_and_every_good_shows_its_own_colour_on_the_board(chromium_page: Any) -> None:
    """Seat 1's square token is a rect: the board's white for rects painted it over (and the goods'
    columns and factories with it); the browser now shows the colour each was drawn with."""
    css = (STATIC / "table.css").read_text()
    shapes = [token(seat, 20 + 20 * seat, 20) for seat in range(4)]
    shapes += [rect(100 + 30 * k, 40, 20, 20, "good", fill=fill) for k, fill in enumerate(GOOD_FILL.values())]
    shapes.append(rect(10, 70, 20, 20, "plain"))
    svg = f'<svg class="board-svg" viewBox="0 0 300 100">{"".join(shapes)}</svg>'
    page = chromium_page
    page.set_content(f"<!doctype html><html><head><style>{css}</style></head><body>{svg}</body></html>")
    fills = page.eval_on_selector_all(".board-svg > *", "els => els.map(e => getComputedStyle(e).fill)")
    assert fills[:4] == [_rgb(c) for c in SEAT_FILL], "each seat's token in its own colour"
    assert fills[4:8] == [_rgb(c) for c in GOOD_FILL.values()], "each good in its own colour"
    assert fills[8] == "rgb(255, 255, 255)", "a rect drawn without a colour stays white"
    assert re.search(r'<rect [^>]*fill="#d55e00" class="tok"', shapes[1]), "seat 1's token is a square"


# -- the game page and the settings page, signed in as a browser is ---------------------------------

CODE = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[A-Z]{2,}_[A-Z_]+\b|\{|\}")  # snake_case, CONSTANTS, JSON


class Browser:
    """A player's browser: the session cookie, and each control pressed as app.js sends it (the
    page's own method, address, fields and anti-forgery proof)."""

    def __init__(self, client: TestClient, token: str) -> None:
        self.client = client
        client.cookies.clear()
        assert client.post(f"{API}/sessions", json={"token": token}).status_code == 201
        self.html = ""

    def open(self, path: str) -> str:
        r = self.client.get(path)
        assert r.status_code == 200, r.text[:300]
        self.html = r.text
        assert_accessible(r.text)  # a language, landmarks, a label for every input, no id twice
        return self.html

    def section(self, element_id: str) -> str | None:
        """The element's HTML (a section or a div of the page), or None when the page has none."""
        m = re.search(rf'<(section|div)[^>]* id="{element_id}"[^>]*>(.*?)</\1>', self.html, re.S)
        return m.group(2) if m else None

    def words(self, element_id: str) -> str:
        part = self.section(element_id) or ""
        return " ".join(re.sub(r"<code>.*?</code>|<[^>]+>", " ", part, flags=re.S).split())

    def press(self, label: str) -> Any:
        """The button with these words: its API call, as app.js makes it."""
        proof = re.search(r'<meta name="csrf-token" content="([^"]+)"', self.html)
        assert proof, "the page carries the anti-forgery proof"
        headers = {"X-CSRF-Token": proof.group(1)}
        button = re.search(
            rf'<button type="button" data-api-(post|delete)="([^"]+)"[^>]*>{re.escape(label)}</button>',
            self.html,
        )
        if button:
            return self.client.request(button.group(1).upper(), button.group(2), headers=headers)
        for form in re.finditer(
            r'<form [^>]*data-api-form="(\w+) ([^"]+)"[^>]*>(.*?)</form>', self.html, re.S
        ):
            if f">{label}</button>" in form.group(3):
                return self.client.request(form.group(1), form.group(2), json={}, headers=headers)
        raise AssertionError(f"no control {label!r} on the page")

    def submit(self, form_id: str, **values: Any) -> Any:
        """A form that is one API call: its fields (by their data-field names) as the JSON body."""
        proof = re.search(r'<meta name="csrf-token" content="([^"]+)"', self.html)
        assert proof
        form = re.search(rf'<form id="{form_id}" data-api-form="(\w+) ([^"]+)"', self.html)
        assert form, f"no form {form_id}"
        for name in values:
            assert f'data-field="{name}"' in self.html, f"the form has no field {name}"
        return self.client.request(
            form.group(1), form.group(2), json=values, headers={"X-CSRF-Token": proof.group(1)}
        )


def _players(client: TestClient, n: int) -> list[dict[str, Any]]:
    return [client.post(f"{API}/players", json={"name": f"Player {i}"}).json() for i in range(n)]


def _game(client: TestClient, services: Services, **kw: Any) -> tuple[list[dict[str, Any]], list[str], Game]:
    """Two players at a Water Frame table (the first its creator)."""
    people = _players(client, 2)
    ids = [p["player_id"] for p in people]
    return people, ids, services.ledger.create_game(creator=ids[0], title="water-frame", players=ids, **kw)


def _no_codes(text: str) -> None:
    assert not CODE.search(text), f"code-looking words on the page: {CODE.findall(text)} in {text!r}"


def test_take_my_seat_back_is_offered_exactly_while_the_stand_in_plays_my_seat(
    client: TestClient, services: Services
) -> None:
    clock = FakeClock()
    services.ledger.clock = clock
    hours = {"initial_hours": 1, "increment_hours": 1, "cap_hours": 3}  # an hour to decide, then the stand-in
    control = {"preset": "custom", **hours, "on_expiry": "bot"}
    people, ids, game = _game(client, services, time_control=control)
    away = game.awaiting[0]
    me, other = Browser(client, people[away]["token"]), None
    assert "Take my seat back" not in me.open(f"/games/{game.id}"), "my clock has not run out"
    clock.advance(minutes=61)
    assert services.ledger.expire(game.id) == [away]
    me = Browser(client, people[away]["token"])
    me.open(f"/games/{game.id}")
    assert "The stand-in is playing for you" in me.words("stand-in")
    _no_codes(me.words("stand-in"))
    other = Browser(client, people[1 - away]["token"])
    assert other.section("stand-in") is None, "only the seat the stand-in plays is offered its return"
    me = Browser(client, people[away]["token"])
    me.open(f"/games/{game.id}")
    r = me.press("Take my seat back")
    assert r.status_code == 200, r.text
    assert services.ledger.get_game(game.id).stand_in == ()
    assert (
        me.section("stand-in") is not None and me.open(f"/games/{game.id}") and me.section("stand-in") is None
    )


def test_my_standing_orders_and_replies_are_listed_in_words_and_cancelled_from_the_page(
    client: TestClient, services: Services
) -> None:
    people, ids, game = _game(client, services)
    awaited = game.awaiting[0]
    seat = 1 - awaited
    me = Browser(client, people[seat]["token"])
    assert me.open(f"/games/{game.id}") and me.section("standing") is None, "nothing to list: no disclosure"
    kind = kinds_of("water-frame")[0]
    services.ledger.set_orders(
        game.id, ids[seat], [{"kinds": [kind], "until_round": 3, "cancel_on_own_decision": True}]
    )
    answer = game.engine.legal_decisions(game.state, awaited)[0].model_dump(mode="json")
    services.ledger.set_replies(
        game.id, ids[seat], [{"seat": awaited, "kind": answer["type"], "reply": answer}]
    )
    me.open(f"/games/{game.id}")
    listed = me.words("standing")
    assert "Your standing orders and replies (2)" in listed
    assert "until 3 rounds are played" in listed and "until you decide yourself" in listed
    assert f"If {people[awaited]['name']} decides" in listed
    _no_codes(listed)
    other = Browser(client, people[awaited]["token"])
    assert other.open(f"/games/{game.id}") and other.section("standing") is None, (
        "my orders are my seat's only"
    )
    me = Browser(client, people[seat]["token"])
    me.open(f"/games/{game.id}")
    assert me.press("Cancel all standing orders").status_code == 200
    assert services.ledger.get_game(game.id).orders.get(str(seat), ()) in ((), [])
    me.open(f"/games/{game.id}")
    assert "Cancel all standing orders" not in me.html and "Your standing orders and replies (1)" in me.words(
        "standing"
    )
    assert me.press("Cancel all replies").status_code == 200
    assert me.open(f"/games/{game.id}") and me.section("standing") is None


def test_the_creator_sets_the_tables_discord_channel_from_the_page_and_others_see_which_service_only(
    client: TestClient, services: Services
) -> None:
    people, ids, game = _game(client, services)
    guest = Browser(client, people[1]["token"])
    assert guest.open(f"/games/{game.id}") and guest.section("table-chat") is None, (
        "no channel: nothing to say"
    )
    creator = Browser(client, people[0]["token"])
    creator.open(f"/games/{game.id}")
    assert "posts nowhere yet" in creator.words("table-chat")
    bad = creator.submit("table-chat-form", service="discord", url="https://example.org/hook")
    assert bad.status_code == 422
    secret = "https://discord.com/api/webhooks/123/secret-part-of-it"
    r = creator.submit("table-chat-form", service="discord", url=secret)
    assert r.status_code == 200, r.text
    creator.open(f"/games/{game.id}")
    assert "This table posts to Discord" in creator.words("table-chat")
    assert "secret-part-of-it" not in creator.html and "Stop posting to Discord" in creator.html
    _no_codes(creator.words("table-chat"))
    guest = Browser(client, people[1]["token"])
    guest.open(f"/games/{game.id}")
    assert "This table posts to Discord" in guest.words("table-chat")
    assert "table-chat-form" not in guest.html and "webhooks" not in guest.html, "others: which service only"
    creator = Browser(client, people[0]["token"])
    creator.open(f"/games/{game.id}")
    assert creator.press("Stop posting to Discord").status_code == 200
    assert services.channels is not None and services.channels.store.table_hook(str(game.id)) is None
    assert "posts nowhere yet" in (creator.open(f"/games/{game.id}") and creator.words("table-chat"))


def test_the_settings_page_chooses_which_notifications_are_mailed_in_words(
    client: TestClient, services: Services
) -> None:
    (person,) = _players(client, 1)
    me = Browser(client, person["token"])
    me.open("/settings")
    listed = me.words("channels")
    assert "Mail me (and post to my channel) when" in listed
    assert "it is your turn" in listed and "your clock is running low" in listed
    _no_codes(listed)
    boxes = re.findall(r'<input type="checkbox" id="channels-kind-\d+" value="(\w+)"( checked)?>', me.html)
    assert boxes and all(checked for _, checked in boxes), "every kind is mailed until one chooses"
    r = me.submit("channels-form", mail="each", digest_hours=24, kinds=["your_turn", "game_finished"])
    assert r.status_code == 200 and r.json()["kinds"] == ["game_finished", "your_turn"], r.text
    me.open("/settings")
    ticked = {
        k
        for k, checked in re.findall(r'id="channels-kind-\d+" value="(\w+)"( checked)?>', me.html)
        if checked
    }
    assert ticked == {"your_turn", "game_finished"}
    bad = me.submit("channels-form", kinds=["everything"])
    assert bad.status_code == 422 and bad.json()["code"] == "request/invalid_notification_kind"
    assert me.submit("channels-form", kinds=None).json()["kinds"] is None, "every box ticked: every kind"


@pytest.mark.browser
def test_a_checkbox_list_field_sends_the_values_ticked_and_null_when_all_are(chromium_page: Any) -> None:
    form = (
        '<form id="f"><fieldset data-field="kinds" data-kind="checks">'
        + "".join(f'<input type="checkbox" value="{k}" checked>' for k in ("a_b", "c_d", "e_f"))
        + "</fieldset></form>"
    )
    page = chromium_page
    page.set_content(f"<!doctype html><html><body>{form}</body></html>")
    page.add_script_tag(content=(STATIC / "app.js").read_text())
    collect = "() => window.gameledger.collect(document.getElementById('f'))"
    all_ticked = page.evaluate(collect)
    page.uncheck("input[value=c_d]")
    some = page.evaluate(collect)
    page.uncheck("input[value=a_b]")
    page.uncheck("input[value=e_f]")
    none = page.evaluate(collect)
    assert (all_ticked, some, none) == ({"kinds": None}, {"kinds": ["a_b", "e_f"]}, {"kinds": []})

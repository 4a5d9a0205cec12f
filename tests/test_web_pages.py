"""The web pages without a browser: every page renders, forms come from the decision schemas,
the HTML has a language, a main landmark and a label for every input."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from api.web.features import Features
from api.web.forms import decision_form, decision_forms, decision_schemas, option_fields
from api.web.pages import decision_schema, templates
from api.words import signed
from ledger.registry import TITLES
from tests.api_helpers import API, Table
from tests.table_helpers import canonical, offered


class Page(HTMLParser):
    """The parts of an HTML page the checks look at."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.label_for: set[str] = set()
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.append((tag, a))
        if tag == "label" and a.get("for"):
            self.label_for.add(a["for"])

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def all(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())]

    @property
    def words(self) -> str:
        return " ".join(" ".join(self.text).split())

    def controls(self) -> list[dict[str, str]]:
        return [
            a
            for t, a in self.tags
            if t in ("input", "select", "textarea") and a.get("type") not in ("hidden", "submit", "button")
            if "hidden" not in a
        ]


def assert_accessible(html: str) -> Page:
    page = Page(html)
    assert page.all("html", lang="en"), "the page names its language"
    assert len(page.all("main")) == 1, "one main landmark"
    assert len(page.all("h1")) == 1, "one top heading"
    assert page.all("nav"), "a navigation landmark"
    for control in page.controls():
        named = (
            control.get("id") in page.label_for or control.get("aria-label") or control.get("aria-labelledby")
        )
        assert named, f"an input without a label: {control}"
    ids = [a["id"] for _, a in page.tags if a.get("id")]
    assert len(ids) == len(set(ids)), f"duplicate ids: {sorted({i for i in ids if ids.count(i) > 1})}"
    return page


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("web") / "ledger.sqlite3"
    with TestClient(create_app(Settings(database_url=f"sqlite:///{db}"))) as c:
        yield c


@pytest.fixture(scope="module")
def tables(client: TestClient) -> dict[str, Table]:
    """A game of every title, some decisions in; and a finished Cotton Trade game."""
    out = {}
    for title in TITLES:
        t = Table(client, 3, title)
        rnd = random.Random(8)
        for _ in range(25):
            t.step(rnd)
        out[title] = t
    finished = Table(client, 3, "cotton-trade")
    rnd = random.Random(9)
    while finished.step(rnd):
        pass
    out["finished"] = finished
    return out


def signed_in(client: TestClient, token: str) -> TestClient:
    client.cookies.clear()
    client.cookies.set("gl_token", token)
    return client


def awaited_seat(t: Table) -> int:
    return int(t.game()["awaiting"][0]["seat"])


def test_every_page_renders_for_a_signed_in_player(client: TestClient, tables: dict[str, Table]) -> None:
    for name, t in tables.items():
        seat = awaited_seat(t) if name != "finished" else 0
        signed_in(client, t.players[seat]["token"])
        for path in (
            "/lobby",
            "/games/new",
            f"/games/{t.game_id}",
            f"/games/{t.game_id}/replay",
            f"/games/{t.game_id}/replay?v=1",
            f"/games/{t.game_id}/replay?v=9",
            "/settings",
            "/signup",
        ):
            r = client.get(path, follow_redirects=False)
            assert r.status_code == 200, (path, r.text[:500])
            assert r.headers["content-type"].startswith("text/html")
            assert "default-src 'self'" in r.headers["content-security-policy"]
            assert_accessible(r.text)


def test_pages_without_a_token_send_you_to_sign_up(client: TestClient, tables: dict[str, Table]) -> None:
    client.cookies.clear()
    game = tables["cotton-trade"].game_id
    for path in ("/lobby", "/games/new", f"/games/{game}", f"/games/{game}/replay?v=3", "/settings"):
        r = client.get(path, follow_redirects=False)
        assert r.status_code == 303, path
        assert r.headers["location"].startswith("/signup?next=%2F"), r.headers["location"]
    assert client.get("/", follow_redirects=False).headers["location"] == "/signup"
    for elsewhere in ("//evil.example", "/\\evil.example", "https://evil.example", "javascript:alert(1)"):
        page = assert_accessible(client.get("/signup", params={"next": elsewhere}).text)
        assert page.all("form", id="signup-form")[0]["data-next"] == "/lobby", f"no redirect to {elsewhere}"
    page = Page(client.get("/signup", params={"next": "/games/abc/replay?v=3"}).text)
    assert page.all("form", id="signup-form")[0]["data-next"] == "/games/abc/replay?v=3"
    signed_in(client, "gl_" + "0" * 32 + "_nonsense")
    assert client.get("/lobby", follow_redirects=False).status_code == 303, "an unknown token is no sign-in"


def test_home_leads_a_signed_in_player_to_the_lobby(client: TestClient, tables: dict[str, Table]) -> None:
    signed_in(client, tables["cotton-trade"].players[0]["token"])
    assert client.get("/", follow_redirects=False).headers["location"] == "/lobby"


def test_an_unknown_game_is_a_page_saying_so(client: TestClient, tables: dict[str, Table]) -> None:
    signed_in(client, tables["cotton-trade"].players[0]["token"])
    r = client.get("/games/00000000-0000-0000-0000-000000000000")
    assert r.status_code == 404
    assert "There is no game" in assert_accessible(r.text).words


def test_cookies_never_authorise_a_decision(client: TestClient, tables: dict[str, Table]) -> None:
    t = tables["cotton-trade"]
    seat = awaited_seat(t)
    mine = t.game(seat)
    signed_in(client, t.players[seat]["token"])
    r = client.post(
        f"{API}/games/{t.game_id}/decisions",
        json={"expected_version": mine["version"], "decision": mine["legal_decisions"][0]},
    )
    assert r.status_code == 401


def test_the_game_page_offers_the_awaited_seat_its_legal_decisions(
    client: TestClient, tables: dict[str, Table]
) -> None:
    for title in TITLES:
        t = tables[title]
        seat = awaited_seat(t)
        legal = t.game(seat)["legal_decisions"]
        html = signed_in(client, t.players[seat]["token"]).get(f"/games/{t.game_id}").text
        page = Page(html)
        assert offered(html) == Counter(canonical(d) for d in legal), "each listed decision, once"
        types = list(dict.fromkeys(d["type"] for d in legal))
        assert not page.all("form", **{"class": "decision"}), "the power users' forms load when opened"
        power = [a for a in page.all("details") if "data-forms" in a]
        fragment = client.get(power[0]["data-forms"]).text if power else ""
        forms = [a["data-type"] for a in Page(fragment).all("form") if "data-type" in a]
        for type_ in types:
            of_type = [d for d in legal if d["type"] == type_]
            assert len(of_type[0]) == 1 or type_ in forms, f"{title} {type_}: the power users' form too"
        assert "Your turn" in page.words
        live = page.all("div", id="live")[0]
        assert live["data-version"] == str(t.game(seat)["version"])
        others = [s for s in range(3) if s != seat]
        other = signed_in(client, t.players[others[0]]["token"]).get(f"/games/{t.game_id}").text
        if others[0] not in [a["seat"] for a in t.game()["awaiting"]]:
            assert offered(other) == Counter(), "nothing to choose out of turn"
            theirs = client.get(f"/games/{t.game_id}/forms").text  # the other seat's cookie now
            assert offered(theirs) == Counter() and "<form" not in theirs, "no seat's forms but one's own"


def test_the_board_of_each_title_is_laid_out(client: TestClient, tables: dict[str, Table]) -> None:
    expected = {
        "cotton-trade": [
            "Cotton demand",
            "Regions",
            "North America",
            "Ships for rent",
            "Contracts",
            "Harbour",
        ],
        "water-frame": [
            "English market",
            "Job market",
            "Administration",
            "Special markers mat",
            "Share value",
        ],
        "arkwright-card-game": ["Home market", "Wages", "Development supply", "Reserve"],
    }
    for title, words in expected.items():
        t = tables[title]
        page = Page(signed_in(client, t.players[0]["token"]).get(f"/games/{t.game_id}").text)
        for word in [*words, "Scoreboard", "Share values", "Latest moves"]:
            assert word in page.words, f"{title}: {word}"
        assert page.all("svg", **{"class": "share-chart"}), "the share-value chart is drawn into the page"
        log = t.client.get(f"{API}/games/{t.game_id}/events?after=20", headers=t.auth(0)).json()
        assert log["events"][-1]["log"][-1] in page.words


def test_a_finished_game_shows_the_final_standings(client: TestClient, tables: dict[str, Table]) -> None:
    t = tables["finished"]
    page = Page(signed_in(client, t.players[1]["token"]).get(f"/games/{t.game_id}").text)
    assert "Final standings" in page.words
    for s in t.game()["standings"]:
        assert signed(s["summary"]) in page.words  # a debt as people write it: "−£4 1s 0d"
    lobby = Page(client.get("/lobby").text)
    assert "finished: won by" in lobby.words


def by_name_id(client: TestClient) -> str:
    return str(client.get(f"{API}/leagues/Page club").json()["league_id"])


def test_a_league_page_publishes_standings_ratings_members_and_games(
    client: TestClient, tables: dict[str, Table]
) -> None:
    t = tables["finished"]
    organiser = {"Authorization": f"Bearer {t.players[0]['token']}"}
    client.cookies.clear()
    made = client.post(
        f"{API}/leagues", json={"name": "Page league", "title": "cotton-trade"}, headers=organiser
    )
    assert made.status_code == 201, made.text
    league_id = made.json()["league_id"]
    added = client.post(f"{API}/leagues/{league_id}/games", json={"game_id": t.game_id}, headers=organiser)
    assert added.status_code == 200, added.text
    club = {"name": "Page club", "members_only": True, "members": [t.players[1]["player_id"]]}
    assert client.post(f"{API}/leagues", json=club, headers=organiser).status_code == 201

    signed_in(client, tables["water-frame"].players[0]["token"])  # any player may read it
    listing = assert_accessible(client.get("/leagues").text)
    assert "Page league" in listing.words and "Page club" in listing.words
    page = assert_accessible(client.get(f"/leagues/{league_id}").text)
    names = [p["name"] for p in t.players]
    winner = next(s for s in t.game()["standings"] if s["rank"] == 1)
    assert f"1 {names[winner['seat']]}" in page.words, "the winner heads the standings"
    assert all(name in page.words for name in names), "every player of the finished game is ranked"
    assert "Ratings" in page.words and "Members" not in page.words
    assert page.all("tr", **{"data-game": t.game_id}), "the league's games, even one added afterwards"
    by_name = assert_accessible(client.get("/leagues/Page club").text)
    assert "members only" in by_name.words and names[1] in by_name.words
    assert listing.all("form", id="new-league-form"), "any player may create a league"
    assert not page.all("form", id="add-member-form"), "only the organiser organises"

    signed_in(client, t.players[0]["token"])  # the organiser
    mine = assert_accessible(client.get("/leagues/Page club").text)
    admit = mine.all("form", id="add-member-form")
    assert admit and admit[0]["data-api-form"].endswith("/members")
    assert mine.all("button", **{"data-api-post": f"/api/v1/leagues/{by_name_id(client)}/admission"})
    assert mine.all(
        "button",
        **{"data-api-delete": f"/api/v1/leagues/{by_name_id(client)}/members/{t.players[1]['player_id']}"},
    )
    missing = client.get("/leagues/No such league")
    assert missing.status_code == 404 and "There is no league" in missing.text
    client.cookies.clear()
    assert client.get("/leagues", follow_redirects=False).status_code == 303


def test_the_lobby_lists_open_games_my_games_and_games_waiting_on_me(
    client: TestClient, tables: dict[str, Table]
) -> None:
    t = tables["cotton-trade"]
    seat = awaited_seat(t)
    creator = t.players[seat]
    r = client.post(f"{API}/games", json={"title": "water-frame", "seats": 2}, headers=t.auth(seat))
    open_id = r.json()["game_id"]
    mine = Page(signed_in(client, creator["token"]).get("/lobby").text)
    rows = [a["data-game"] for a in mine.all("tr") if "data-game" in a]
    assert rows.count(t.game_id) == 2, "waiting on me, and among my games"
    assert open_id in rows
    assert not [a for a in mine.all("button") if a.get("data-join") == open_id], "no join of my own game"
    stranger = client.post(f"{API}/players", json={"name": "Stranger"}).json()
    theirs = Page(signed_in(client, stranger["token"]).get("/lobby").text)
    assert [a for a in theirs.all("button") if a.get("data-join") == open_id]
    assert "No game is waiting on you." in theirs.words


def test_the_replay_steps_through_every_event(client: TestClient, tables: dict[str, Table]) -> None:
    t = tables["finished"]
    signed_in(client, t.players[0]["token"])
    last = t.game()["version"]
    first = Page(client.get(f"/games/{t.game_id}/replay?v=1").text)
    slider = first.all("input", id="replay-v")[0]
    assert (slider["min"], slider["max"], slider["value"]) == ("1", str(last), "1")
    assert "Event 1" in first.words
    assert [a for a in first.all("a") if a.get("rel") == "next"][0]["href"] == "?v=2"
    middle = Page(client.get(f"/games/{t.game_id}/replay?v=30").text)
    assert middle.all("div", id="replay-live")[0]["data-version"] == "30"
    assert "The board" in middle.words
    beyond = Page(client.get(f"/games/{t.game_id}/replay?v={last + 50}").text)
    assert beyond.all("div", id="replay-live")[0]["data-version"] == str(last)
    assert "Final standings" in beyond.words


def test_the_create_page_has_every_titles_options_and_a_time_control(
    client: TestClient, tables: dict[str, Table]
) -> None:
    page = Page(signed_in(client, tables["cotton-trade"].players[0]["token"]).get("/games/new").text)
    for meta in TITLES.values():
        assert page.all("input", type="radio", value=meta.id)
        fieldset = [a for a in page.all("fieldset") if a.get("data-options-for") == meta.id]
        assert fieldset
        for name in meta.options_schema().get("properties", {}):
            assert name in {a.get("data-field") for _, a in page.tags}, f"{meta.id}: option {name}"
    assert page.all("select", id="tc-preset")
    assert page.all("input", id="league")


def test_missing_optional_calls_leave_their_controls_out(
    client: TestClient, tables: dict[str, Table]
) -> None:
    app: Any = client.app
    saved = app.state.web_features
    app.state.web_features = Features(routes=frozenset(), create_fields=frozenset())
    try:
        t = tables["cotton-trade"]
        signed_in(client, t.players[0]["token"])
        new = Page(client.get("/games/new").text)
        tc = [a for a in new.all("fieldset") if a.get("class") == "time-control"][0]
        assert "disabled" in tc
        settings = Page(client.get("/settings").text)
        assert "does not offer vacations yet" in settings.words
        assert "does not offer notification settings yet" in settings.words
        game = Page(client.get(f"/games/{t.game_id}").text)
        assert "data-stream-url" not in game.all("div", id="game-page")[0]
        assert "Take back a decision" not in game.words
    finally:
        app.state.web_features = saved
    game = Page(client.get(f"/games/{tables['cotton-trade'].game_id}").text)
    has_stream = app.state.web_features.game_stream
    assert ("data-stream-url" in game.all("div", id="game-page")[0]) == has_stream


FIELD_TEMPLATE = (
    '{% from "_macros.html" import field %}'
    '<html lang="en"><body><nav></nav><main><h1>x</h1>'
    "{% for f in fields %}{{ field(f, prefix) }}{% endfor %}</main></body></html>"
)


def render_fields(fields: list[Any], prefix: str) -> Page:
    html = templates.from_string(FIELD_TEMPLATE).render(fields=fields, prefix=prefix)
    return assert_accessible(html)


@pytest.mark.parametrize("title", list(TITLES))
def test_every_decision_type_has_a_form_with_a_field_for_every_required_property(title: str) -> None:
    schema = decision_schema(title)
    defs = schema.get("$defs", {})
    types = decision_schemas(schema)
    assert types, "the title's decisions are a discriminated union"
    for type_, sub in types.items():
        form = decision_form(type_, sub, defs, [])
        page = render_fields(list(form.fields), f"d-{type_}")
        present = {a.get("data-field") for _, a in page.tags}
        for name in sub.get("required", []):
            if name != "type":
                assert name in present, f"{title} {type_}: no field for {name}"
        for name, prop in sub.get("properties", {}).items():
            if name != "type":
                assert name in present, f"{title} {type_}: no field for optional {name} ({prop})"


def test_a_form_is_prefilled_with_the_first_legal_decision_and_lists_legal_values_first() -> None:
    schema = decision_schema("water-frame")
    legal = [
        {"type": "place_contract", "good": "CLOTHES", "space": 4},
        {"type": "place_contract", "good": "LAMPS", "space": 8},
        {"type": "finish_main_action"},
    ]
    forms = decision_forms(schema, legal)
    assert [f.type for f in forms] == ["place_contract", "finish_main_action"]
    good, space = forms[0].fields
    assert (good.kind, good.value, space.kind, space.value) == ("select", "CLOTHES", "int", 4)
    assert [o.value for o in good.options[:2]] == ['"CLOTHES"', '"LAMPS"']
    assert all(o.listed for o in good.options[:2]) and not any(o.listed for o in good.options[2:])
    assert "4, 8" in space.hint
    assert [b.decision for b in forms[0].buttons] == legal[:2]
    assert forms[1].fields == () and forms[1].buttons[0].decision == {"type": "finish_main_action"}
    page = render_fields(list(forms[0].fields), "d-place_contract")
    selected = [a for a in page.all("option") if "selected" in a]
    assert selected[0]["value"] == '"CLOTHES"'
    assert page.all("input", type="number", value="4", min="2", max="10") or page.all(
        "input", type="number", value="4"
    )


def test_options_become_fields_with_their_defaults() -> None:
    for meta in TITLES.values():
        fields = {f.name: f for f in option_fields(meta.options_schema())}
        for name, prop in meta.options_schema().get("properties", {}).items():
            assert fields[name].value == prop.get("default"), (meta.id, name)
    ct = {f.name: f for f in option_fields(TITLES["cotton-trade"].options_schema())}
    assert ct["shares_trade"].kind == "bool" and ct["unrest_scope"].kind == "select"


def test_tuples_arrays_and_nullable_values_get_inputs_a_person_can_use() -> None:
    schema = decision_schema("water-frame")
    defs = schema["$defs"]
    store = decision_form("store_goods", decision_schemas(schema)["store_goods"], defs, [])
    large = next(f for f in store.fields if f.name == "large")
    assert large.kind == "tuple" and [p.label for p in large.parts][0].endswith("food")
    tile = decision_form("take_tile", decision_schemas(schema)["take_tile"], defs, [])
    give_back = next(f for f in tile.fields if f.name == "give_back")
    assert give_back.kind == "select" and give_back.nullable and give_back.options[-1].value == "null"
    acg = decision_schema("arkwright-card-game")
    inventor = decision_schemas(acg)["upgrade_with_inventor"]
    goods = next(f for f in decision_form("x", inventor, acg["$defs"], []).fields if f.name == "goods")
    assert goods.kind == "list" and len(goods.parts) == 4


def test_the_static_files_are_served_and_packaged(client: TestClient) -> None:
    for name in ("app.css", "app.js", "pages.js"):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and len(r.text) > 1000
    root = Path(__file__).resolve().parents[1]
    pyproject = (root / "pyproject.toml").read_text()
    assert '"api.web"' in pyproject and "jinja2" in pyproject

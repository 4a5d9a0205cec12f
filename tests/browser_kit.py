"""What the browser tests share: Debian's Chromium through Python Playwright (the ``browser``
fixture, one per test module: Playwright's sync API keeps an event loop running in the thread
while it is open, where a later test's asyncio.run() would fail), the real server (``serving``; the ``server`` fixture on SQLite in
a temporary directory, ``mail_server`` mailing through the test's SMTP server ``smtp``), the
people at the table (``Person``, the ``people`` fixture, signing up, creating and filling games,
playing by clicking only listed decisions), axe-core's accessibility check, and a finished Water
Frame game (``finished_water_frame``). tests/conftest.py registers this module as a plugin, so
that every test module can ask for its fixtures by name; the test modules import only the plain
functions they call.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mailkit import SmtpServer, smtp_server

try:
    from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the test extra brings it; without it this module is skipped
    sync_playwright = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# axe-core, the accessibility checker the pages are tested with: the npm package axe-core 4.14.1,
# its axe.min.js kept unmodified in tests/vendor/axe-core (MPL-2.0; README.md there says how to
# update it), checked against its sha256 before use.
AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
CHOICES = "#live [data-decision], #live [data-decision-template]"
GAME_URL = re.compile(r".*/games/[0-9a-f-]{36}$")


def _missing() -> str | None:
    if sync_playwright is None:
        return "Python Playwright is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium chromium-driver)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    problem = _missing()
    if problem:
        if IN_CI:
            pytest.fail(f"the browser tests are mandatory under CI: {problem}")
        pytest.skip(problem)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def save_shot(png: bytes, name: str) -> None:
    """A screenshot to test-artifacts/screenshots/NAME.png, whole: written aside and renamed, as
    two pytest-xdist workers may save one of the same name at once."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    aside = SHOTS / f".{name}.{os.getpid()}.png"
    aside.write_bytes(png)
    aside.replace(SHOTS / f"{name}.png")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(data: Path, **settings: str) -> Iterator[str]:
    """``gameledger serve`` on a free port, SQLite in ``data``, with these GAMELEDGER_* settings."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMELEDGER_")}
    env["GAMELEDGER_DATA_DIR"] = str(data)
    env.update({k.replace("{port}", str(port)): v.replace("{port}", str(port)) for k, v in settings.items()})
    log = (data / "server.log").open("w")
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gameledger"),
            "serve",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=1) as r:  # noqa: S310 - our own server
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("the server did not start: " + (data / "server.log").read_text()[-2000:])
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``gameledger serve`` on a free port, SQLite in a temporary directory."""
    with serving(tmp_path_factory.mktemp("web-browser")) as base:
        yield base


# Every note the page shows a person in its notification area (each replaces the last and fades
# after a few seconds), kept for the test in window.notesShown.
NOTE_KEEPER = """
window.notesShown = [];
document.addEventListener("DOMContentLoaded", function () {
  var area = document.getElementById("notifications");
  if (!area) return;
  new MutationObserver(function () {
    var text = area.textContent.trim();
    if (text) window.notesShown.push(text);
  }).observe(area, { childList: true, subtree: true, characterData: true });
});
"""


class Person:
    """One person: their own browser context (cookies, localStorage) and one tab."""

    def __init__(self, browser: Browser, base: str, name: str, **context: Any) -> None:
        self.base = base
        self.name = name
        self.context: BrowserContext = browser.new_context(**context)
        self.context.add_init_script(NOTE_KEEPER)
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.token = ""  # the API token shown once at sign-up
        self.problems: list[str] = []
        self.stalls = 0  # confirmations whose outcome the page did not show (then reloaded)
        self.page.on("pageerror", lambda e: self.problems.append(f"{name}: page error {e}"))
        self.page.on(
            "console",
            lambda m: (
                self.problems.append(f"{name}: {m.text}")
                if m.type == "error" and "status of 4" not in m.text
                else None
            ),
        )

    def go(self, path: str) -> Page:
        self.page.goto(self.base + path)
        self.page.wait_for_selector("html[data-ready]", state="attached")
        return self.page

    def notes(self) -> list[str]:
        return list(self.page.evaluate("window.notesShown || []"))

    def api(self, path: str) -> Any:
        """A GET of the API from this person's page (signed in by its cookie)."""
        return self.page.evaluate(
            "p => fetch('/api/v1' + p).then(r => r.ok ? r.json() : Promise.reject(r.status))", path
        )

    @property
    def version(self) -> int:
        return int(self.page.get_attribute("#live", "data-version") or 0)

    def shot(self, name: str, full_page: bool = True) -> None:
        save_shot(self.page.screenshot(full_page=full_page), name)

    def ask_for_a_sign_in_link(self, email: str) -> str:
        """'Lost access?' on the sign-up page: a sign-in link mailed to ``email``; what the page says."""
        page = self.go("/signup")
        page.click("#recover summary")
        page.fill("#recover-email", email)
        page.click("#recover-form button[type=submit]")
        said = page.wait_for_selector("#recover-form [data-ok]:not(:empty)")
        assert said is not None
        return said.inner_text()

    def redeem_to_the_lobby(self, name: str, game_id: str, shot: str | None = None) -> None:
        """On a mailed link's page (opened): redeem it (``shot`` of the page then), and the lobby
        shows the person signed in as ``name`` with the game ``game_id``."""
        self.page.click("#account-link [data-redeem]")
        self.page.wait_for_selector("#account-link [data-ok]:not(:empty)")
        if shot:
            self.shot(shot, full_page=False)
        self.page.click("#account-link [data-lobby]")
        self.page.wait_for_url("**/lobby")
        self.page.wait_for_selector("html[data-ready]", state="attached")
        assert f"Signed in as {name}" in self.page.inner_text("header")
        assert self.page.query_selector(f"#lobby a[href='/games/{game_id}']") is not None, "their games"


@contextlib.contextmanager
def signed_up(
    browser: Browser, base: str, names: tuple[str, ...], width: int = 1280
) -> Iterator[list[Person]]:
    """People who sign up on the sign-up page, each in a browser of its own that keeps its token;
    on leaving, no page they saw showed a problem."""
    folks = [Person(browser, base, name, viewport={"width": width, "height": 900}) for name in names]
    for person in folks:
        page = person.go("/")
        assert page.url.endswith("/signup")
        page.fill("#signup-name", person.name)
        page.click("#signup-form button[type=submit]")
        page.wait_for_selector("#signup-done:not([hidden])")
        person.token = page.input_value("#signup-token")
        assert person.token.startswith("gl_")
        page.click("[data-continue]")
        page.wait_for_url("**/lobby")
        assert f"Signed in as {person.name}" in page.inner_text("header")
    try:
        yield folks
    finally:
        for person in folks:
            person.context.close()
    for person in folks:
        assert not person.problems, person.problems


@pytest.fixture(scope="module")
def people(browser: Browser, server: str) -> Iterator[list[Person]]:
    """Ann, Bob and Cid sign up on the sign-up page; each browser keeps its own token."""
    with signed_up(browser, server, ("Ann", "Bob", "Cid")) as folks:
        folks[0].shot("signup-done-lobby", full_page=False)
        yield folks


def create_and_fill(
    people: list[Person], title: str, preset: str | None = None, checks: tuple[str, ...] = ()
) -> str:
    """The first person creates a game of ``title`` for everyone (ticking the option boxes
    ``checks``); the others join from the lobby."""
    ann = people[0]
    page = ann.go("/games/new")
    page.check(f"#title-{title}")
    for box in checks:
        page.check(box)
    page.fill("#seats", str(len(people)))
    if preset:
        page.select_option("#tc-preset", preset)
    ann.shot(f"new-game-{title}")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url(GAME_URL)
    game_id = page.url.rsplit("/", 1)[-1]
    assert "Waiting for players" in page.inner_text("#now-heading")
    for person in people[1:]:
        lobby = person.go("/lobby")
        lobby.click(f"button[data-join='{game_id}']")
        lobby.wait_for_url(f"**/games/{game_id}")
    # the creator's open page learns that the game started, without a reload
    page.wait_for_selector("#live[data-status='active']", state="attached")
    for person in people:
        person.page.wait_for_selector("#live[data-status='active']", state="attached")
    return game_id


def call(person: Person, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """The person's request to the HTTP API, by the token they were shown at sign-up."""
    request = urllib.request.Request(  # noqa: S310 - our own server
        f"{person.base}/api/v1{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {person.token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - our own server
            return json.loads(answer.read())
    except urllib.error.HTTPError as e:
        raise AssertionError(f"{method} {path} as {person.name}: {e.code} {e.read().decode()[:500]}") from e


def played_through_the_api(people: list[Person], title: str, seed: int) -> str:
    """A game of ``title`` that the first person creates and the others join through the HTTP
    API, played to the end there by random legal decisions (no page involved: a few seconds);
    returns its id. For the tests that need a finished game in everyone's lobby, so that the
    whole games played through the pages can be marked slow."""
    rnd = random.Random(seed)
    game_id = str(call(people[0], "POST", "/games", {"title": title, "seats": len(people)})["game_id"])
    for person in people[1:]:
        call(person, "POST", f"/games/{game_id}/join")
    person = people[0]
    for _ in range(5_000):
        game = call(person, "GET", f"/games/{game_id}")
        if game["status"] == "finished":
            return game_id
        if not game["legal_decisions"]:  # someone else is awaited: ask as them
            name = rnd.choice(game["awaiting"])["name"]
            person = next(p for p in people if p.name == name)
            continue
        decision = rnd.choice(game["legal_decisions"])
        body = {"expected_version": game["version"], "decision": decision}
        call(person, "POST", f"/games/{game_id}/decisions", body)
    raise AssertionError(f"the {title} game through the API did not end in 5,000 decisions")


@pytest.fixture(scope="module")
def finished_water_frame(people: list[Person]) -> str:
    """A Water Frame game of Ann, Bob and Cid, played to the end through the API."""
    return played_through_the_api(people, "water-frame", 1769)


def awaited(people: list[Person]) -> Person | None:
    """A person whose page offers decisions now (their page is up to date by the live updates)."""
    for person in people:
        if person.page.query_selector(CHOICES):
            return person
    return None


def next_to_move(people: list[Person], timeout: float = 20) -> Person:
    """Wait until someone's page offers a decision (the live updates bring it there)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        person = awaited(people)
        if person is not None:
            return person
        time.sleep(0.05)
    raise AssertionError("no page offers a decision")


def entry_points(page: Page) -> list[Any]:
    """What a person can click to choose: the marked things on the board (one decision each, or
    a menu of them) and the buttons of the list in words."""
    board = page.query_selector_all("#live .board-svg .act")
    listed = page.query_selector_all(
        "#live .choices [data-decision], #live .choices [data-decision-template]"
    )
    return [*board, *listed]


def choose(person: Person, rnd: random.Random, keyboard: bool = False) -> str | None:
    """Pick one of the offered elements as a person would, open its preview, set its number if
    it has one; returns what was chosen (its accessible name), or None when the game had moved
    on meanwhile (the preview is refused as stale and the page shows the new position, or a
    live update replaced the element chosen: the caller looks again)."""
    try:
        return _choose(person, rnd, keyboard)
    except PlaywrightError as e:
        if "not attached" in str(e) or "detached" in str(e):
            return None
        raise


def _choose(person: Person, rnd: random.Random, keyboard: bool) -> str | None:
    page = person.page
    before = person.version
    target = rnd.choice(entry_points(page))
    # a long list in words is folded away: open it, as a person would
    target.evaluate("e => { const d = e.closest('details'); if (d) d.open = true; }")
    if keyboard:
        target.focus()
        page.keyboard.press("Enter")
    else:
        target.click()
    if "menu" in (target.get_attribute("class") or ""):
        menu = page.wait_for_selector(".menu-pop:not([hidden])")
        assert menu is not None
        items = menu.query_selector_all("[data-decision], [data-decision-template]")
        target = rnd.choice(items)
        if keyboard:
            target.focus()
            page.keyboard.press("Enter")
        else:
            target.click()
    shown = "#preview"
    template = target.get_attribute("data-values")
    if template:
        value = rnd.choice(template.split(","))
        page.fill("#preview-amount", value)
        # the page previews a typed number after 120 ms: wait for that preview, not the first one
        # (the same number when the value chosen is the one it started at; Enter or the button
        # pressed while the number is previewed again does nothing)
        page.wait_for_timeout(200)
        shown = f"#preview[data-amount='{value}']"  # the preview of the number chosen
    page.wait_for_selector(
        f"{shown} [data-confirm]:not([disabled]), #preview .error:not(:empty), #live:not([data-version='{before}'])",
        state="attached",
    )
    if person.version != before:
        return None
    return str(target.get_attribute("aria-label") or target.inner_text())


def play_one(person: Person, rnd: random.Random, keyboard: bool = False) -> float | None:
    """Choose, read the preview, confirm (Enter or the button) and wait for the result; returns
    the milliseconds from the click to the preview shown, as the page measured them (None: the
    page was behind the game, nothing was decided)."""
    page = person.page
    before = person.version
    chosen = choose(person, rnd, keyboard)
    if chosen is None:
        return None
    error = page.query_selector("#preview .error:not(:empty)")
    assert error is None, f"the preview of {chosen!r} was refused: {error.inner_text() if error else ''}"
    shown = float(page.get_attribute("#preview", "data-preview-ms") or "nan")
    if keyboard:
        page.keyboard.press("Enter")
    else:
        try:
            page.click("#preview [data-confirm]", timeout=5000)
        except PlaywrightTimeout:
            if person.version != before:  # the game moved on meanwhile (an undo taking effect)
                return None
            raise
    try:
        page.wait_for_selector(
            f"#live:not([data-version='{before}']), #preview .error:not(:empty)", state="attached"
        )
    except PlaywrightTimeout:
        # the page did not show the outcome (a refresh racing the live update, on a loaded
        # machine): the person reloads, as anyone would, and goes on from what it shows; a
        # page that keeps doing this fails the test
        person.stalls += 1
        print(f"{person.name}: no outcome shown 20 s after confirming {chosen!r}; reloading")  # noqa: T201
        assert person.stalls <= 3, (
            f"{person.name}: the page showed no outcome of a confirmation {person.stalls} times"
        )
        page.reload()
        page.wait_for_selector("html[data-ready]", state="attached")
        return None
    errors = [e.inner_text() for e in page.query_selector_all("#live .error") if e.inner_text().strip()]
    assert not errors or "stale_version" in errors[0], (chosen, errors)
    return shown


def decade(person: Person) -> int:
    """The Water Frame decade the person's page shows."""
    found = re.search(r"(\d{4}) · level", person.page.inner_text("#live .board"))
    assert found, "the board shows the decade"
    return int(found.group(1))


def play(
    people: list[Person],
    rnd: random.Random,
    *,
    until_finished: bool,
    steps: int = 10_000,
    until: Callable[[], bool] | None = None,
    times: list[float] | None = None,
    seconds: float = 600,
) -> int:
    made = 0
    deadline = time.monotonic() + seconds
    while made < steps and time.monotonic() < deadline:
        if until_finished and people[0].page.query_selector("#live[data-status='finished']"):
            break
        if until is not None and until():
            break
        person = awaited(people)
        if person is None:
            time.sleep(0.05)
            continue
        shown = play_one(person, rnd, keyboard=made % 5 == 2)  # now and then by keyboard
        if shown is None:
            continue
        if times is not None:
            times.append(shown)
        made += 1
    return made


@functools.cache
def axe_source() -> str:
    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, f"{AXE} is not axe-core {AXE_VERSION} as vendored"
    return data.decode()


def check_accessibility(person: Person, name: str) -> int:
    """axe-core on the page as it stands: no serious or critical violation. Returns the number
    of rules that passed."""
    page = person.page
    page.evaluate(axe_source())
    assert page.evaluate("axe.version") == AXE_VERSION
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    bad = [
        (v["id"], v["impact"], v["help"], [n["target"] for n in v["nodes"]][:3])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, f"{name}: {bad}"
    return len(result.get("passes", []))


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpServer]:
    with smtp_server() as server:
        yield server


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory, smtp: SmtpServer) -> Iterator[str]:
    """The server, mailing through the test's SMTP server, its links pointing at itself."""
    with serving(
        tmp_path_factory.mktemp("web-accounts"),
        GAMELEDGER_SMTP_URL=smtp.url,
        GAMELEDGER_PUBLIC_URL="http://127.0.0.1:{port}",
        GAMELEDGER_MAIL_FROM="gameledger <noreply@play.test>",
        GAMELEDGER_MAIL_INTERVAL="0.2",
    ) as base:
        yield base


def to_the_middle_and_the_end(
    people: list[Person],
    rnd: random.Random,
    middle: Callable[[], bool],
    times: list[float],
    title: str,
    when: str,
) -> int:
    """Play on to the middle of the game (screenshot, axe-core), then to its end (the final
    standings on every page); returns the decisions made."""
    made = play(people, rnd, until_finished=False, until=middle, times=times)
    person = next_to_move(people)
    person.shot(f"{title}-table-middle", full_page=False)
    check_accessibility(person, f"the {title} game page ({when})")
    made += play(people, rnd, until_finished=True, times=times, seconds=900)
    assert people[0].page.query_selector("#live[data-status='finished']"), (
        f"the game ended ({made} decisions)"
    )
    for person in people:
        person.page.wait_for_selector("#standings-heading")
    return made


def told(what: str, started: float, times: list[float]) -> None:
    """Print how long the game took through the board and how fast each preview came."""
    times.sort()
    median = times[len(times) // 2] if times else float("nan")
    print(  # noqa: T201
        f"{what} through the board in {time.monotonic() - started:.0f} s, "
        f"click to preview shown: median {median:.0f} ms, slowest {times[-1] if times else 0:.0f} ms"
    )


def replay_marks_the_decision(person: Person, game_id: str, versions: range, shot: str) -> None:
    """The replay shows the same board (checked by axe-core), a decision marked where it was made
    at one of ``versions`` at least (its screenshot: ``shot``)."""
    page = person.go(f"/games/{game_id}/replay?v={versions.start}")
    assert page.query_selector("#replay-live .board-svg")
    check_accessibility(person, f"the replay page ({shot})")
    for v in versions:
        page = person.go(f"/games/{game_id}/replay?v={v}")
        if page.query_selector("#replay-live .board-svg .highlight"):
            person.shot(shot, full_page=False)
            return
    raise AssertionError("no replayed decision is marked on the board")

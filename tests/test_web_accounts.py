"""Accounts through the web pages in headless Chromium (issue 19, item 1), with the real server
(``gameledger serve``) mailing through a real SMTP server in the test process (aiosmtpd).

Ann signs up with her address and a password and confirms the address from the mailed link;
she opens a game that Bob (whose name holds markup) joins. On a new laptop she signs in with
her address and password. Then, in a fresh browser with nothing kept, she gets back in from a
mailed sign-in link, sees her games, plays her turn through the page (the page's writes carry
its anti-forgery proof), sets a new password without the old one (which ends the laptop's
session) and signs out. Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.browser_kit import Person, create_and_fill, next_to_move, play_one
from tests.mailkit import SmtpServer, link_in, text_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # whole journeys in Chromium: .ci/run runs them

PASSWORD = "ann's long password"
BOB = "Bob <img src=x onerror=alert(1)>"


def open_link(person: Person, smtp: SmtpServer, address: str, count: int, base: str) -> str:
    """Open the newest link mailed to ``address`` (the ``count``-th mail) in the person's browser."""
    message = smtp.inbox.wait_for(address, count, accounts_only=True)[count - 1]  # (not the notifications)
    url, path, token = link_in(message)
    assert url == base, "the link points at the public URL"
    person.go(f"{path}#token={token}")
    assert "token" not in person.page.url, "the token leaves the address bar at once"
    return token


def test_an_account_survives_a_lost_browser(browser: Any, mail_server: str, smtp: SmtpServer) -> None:
    base = mail_server
    ann = Person(browser, base, "Ann", viewport={"width": 1280, "height": 900})
    bob = Person(browser, base, "Bob", viewport={"width": 1280, "height": 900})
    people = [ann, bob]
    try:
        # Ann signs up with her address and a password
        page = ann.go("/")
        assert page.url.endswith("/signup")
        page.fill("#signup-name", "Ann")
        page.fill("#signup-email", "Ann@Example.org")
        page.fill("#signup-password", PASSWORD)
        page.click("#signup-form button[type=submit]")
        page.wait_for_selector("#signup-done:not([hidden])")
        assert "ann@example.org" in page.inner_text("#signup-done [data-mailed]")
        assert page.input_value("#signup-token").startswith("gl_")
        ann.shot("account-signed-up", full_page=False)
        page.click("[data-continue]")
        page.wait_for_url("**/lobby")
        assert "Signed in as Ann" in page.inner_text("header")
        assert not page.evaluate("document.cookie.includes('gl_session')"), "the session cookie is HttpOnly"
        assert not page.evaluate("localStorage.getItem('gl_token')"), "no token kept where a script reads it"

        # the confirmation mail, opened in her browser
        (mail,) = smtp.inbox.wait_for("ann@example.org")
        assert mail["Subject"] == "Confirm your email address for gameledger" and "Hello Ann" in text_of(mail)
        open_link(ann, smtp, "ann@example.org", 1, base)
        ann.page.click("#account-link [data-redeem]")
        done = ann.page.wait_for_selector("#account-link [data-ok]:not(:empty)")
        assert done is not None and "ann@example.org is now the confirmed address of Ann" in done.inner_text()
        ann.shot("account-confirmed", full_page=False)

        # Bob, with markup in his name, signs up the old way (a name only) and joins Ann's game
        page = bob.go("/signup")
        page.fill("#signup-name", BOB)
        page.click("#signup-form button[type=submit]")
        page.wait_for_selector("#signup-done:not([hidden])")
        game_id = create_and_fill(people, "cotton-trade")
        game = ann.go(f"/games/{game_id}")
        assert BOB in game.inner_text("main"), "the name is shown as written"
        assert (
            game.query_selector("img[src=x]") is None
            and bob.go("/lobby").query_selector("img[src=x]") is None
        )

        # a new laptop: Ann signs in with her address and password
        laptop = Person(browser, base, "Ann's laptop")
        people.append(laptop)
        page = laptop.go("/lobby")
        assert "/signup" in page.url
        page.fill("#signin-email", "ann@example.org")
        page.fill("#signin-password", "not it")
        page.click("#signin-form button[type=submit]")
        error = page.wait_for_selector("#signin-form [data-error]:not(:empty)")
        assert error is not None and "auth/bad_credentials" in error.inner_text()
        page.fill("#signin-password", PASSWORD)
        page.click("#signin-form button[type=submit]")
        page.wait_for_url("**/lobby")
        assert page.query_selector(f"#lobby a[href='/games/{game_id}']") is not None

        # everything lost: a fresh browser, and 'Lost access?'
        fresh = Person(browser, base, "Ann, fresh browser", viewport={"width": 1280, "height": 900})
        people.append(fresh)
        assert "sign-in link is on its way" in fresh.ask_for_a_sign_in_link("ann@example.org")
        fresh.shot("account-recover-asked", full_page=False)
        open_link(fresh, smtp, "ann@example.org", 2, base)
        fresh.redeem_to_the_lobby("Ann", game_id, shot="account-recovered")

        # the used link does not sign anyone in again
        again = Person(browser, base, "Someone with the old mail")
        people.append(again)
        token = link_in(smtp.inbox.to("ann@example.org", accounts_only=True)[1])[2]
        again.go(f"/account/recover#token={token}")
        again.page.click("#account-link [data-redeem]")
        refused = again.page.wait_for_selector("#account-link [data-error]:not(:empty)")
        assert refused is not None and "link/used" in refused.inner_text()

        # she plays her turn through the page of the recovered browser (or Bob plays his)
        fresh.go(f"/games/{game_id}")
        bob.go(f"/games/{game_id}")
        rnd = random.Random(19)
        for _ in range(3):
            play_one(next_to_move([fresh, bob]), rnd)

        # a new password, no old one needed in a session a recovery link opened; the laptop is out
        page = fresh.go("/settings")
        assert page.query_selector("#current-password") is None
        page.fill("#new-password", "a brand new password")
        page.click("#password-form button[type=submit]")
        page.wait_for_selector("#password-form [data-ok]:not(:empty)")
        assert "/signup" in laptop.go("/lobby").url, "the laptop's session ended with the new password"
        page = fresh.go("/settings")
        assert "first token" in page.inner_text("#tokens") and "recovery" in page.inner_text("#sessions")
        assert "ann@example.org" in page.inner_text("main")
        page.fill("#token-name", "my bot")
        page.click("#token-new-form button[type=submit]")
        page.wait_for_selector("#token-new-form [data-new-token]:not([hidden])")
        assert page.input_value("#token-value").startswith("gl_")
        fresh.shot("account-settings", full_page=True)
        notices = [m for m in smtp.inbox.to("ann@example.org") if "password" in m["Subject"]]
        assert notices, "Ann is told her password changed"

        # and signs out
        page.click("header [data-sign-out]")
        page.wait_for_url("**/signup")
        assert "Signed in" not in page.inner_text("header")
        assert "/signup" in fresh.go("/lobby").url
        for person in people:
            assert not person.problems, person.problems
    finally:
        for person in people:
            person.context.close()

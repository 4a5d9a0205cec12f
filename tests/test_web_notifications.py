"""Notification mails through the web pages in headless Chromium (issue 19, item 2), with the
real server (``gameledger serve``) mailing through a real SMTP server in the test process.

Ann signs up with her address and a password; Bob does too and joins her game; both receive
"your turn" mails while they play through the pages. Bob, in a fresh browser, gets back into
his account from a mailed sign-in link and plays on. Ann unsubscribes from her mail's link
(a page with a button: opening the link alone changes nothing) and receives no more, while
Bob still does. Between the two, Ann and Bob (in his fresh browser) exchange table talk, each
message pushed to the other's open page.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.browser_kit import Person, create_and_fill, next_to_move, play_one
from tests.mailkit import SmtpServer, link_in, text_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # whole journeys in Chromium: .ci/run runs them


def sign_up(person: Person, name: str, email: str, server: SmtpServer) -> None:
    """Sign up with an address and a password, and confirm the address from the mailed link."""
    page = person.go("/signup")
    page.fill("#signup-name", name)
    page.fill("#signup-email", email)
    page.fill("#signup-password", f"{name}'s long password")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#signup-done:not([hidden])")
    page.click("[data-continue]")
    page.wait_for_url("**/lobby")
    (mail,) = server.inbox.wait_for(email)
    _, path, token = link_in(mail)
    person.go(f"{path}#token={token}")
    person.page.click("#account-link [data-redeem]")
    person.page.wait_for_selector("#account-link [data-ok]:not(:empty)")


def notifications(server: SmtpServer, address: str, what: str = "") -> list[Any]:
    return [m for m in server.inbox.to(address) if m["List-Unsubscribe"] and what in m["Subject"]]


def wait_until(check: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_players_are_mailed_their_turns_recover_by_mail_and_unsubscribe_in_one_click(
    browser: Any,
    mail_server: str,
    smtp: SmtpServer,
) -> None:
    base = mail_server
    ann = Person(browser, base, "Ann", viewport={"width": 1280, "height": 900})
    bob = Person(browser, base, "Bob", viewport={"width": 1280, "height": 900})
    people = [ann, bob]
    try:
        sign_up(ann, "Ann", "ann@example.org", smtp)
        sign_up(bob, "Bob", "bob@example.org", smtp)
        game_id = create_and_fill([ann, bob], "cotton-trade")
        for address in ("ann@example.org", "bob@example.org"):
            wait_until(lambda a=address: notifications(smtp, a, "has started"))

        # they play through the pages; each is mailed when it is their turn
        ann.go(f"/games/{game_id}")
        bob.go(f"/games/{game_id}")
        rnd = random.Random(19)
        for _ in range(40):
            if all(notifications(smtp, a, "Your turn") for a in ("ann@example.org", "bob@example.org")):
                break
            play_one(next_to_move([ann, bob]), rnd)
            time.sleep(0.1)
        wait_until(
            lambda: all(notifications(smtp, a, "Your turn") for a in ("ann@example.org", "bob@example.org"))
        )
        turn = notifications(smtp, "ann@example.org", "Your turn")[-1]
        assert f"{base}/games/{game_id}" in text_of(turn), "the mail links to the game page"
        assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

        # Bob, in a fresh browser with nothing kept, gets back in from a mailed link
        fresh = Person(browser, base, "Bob, fresh browser", viewport={"width": 1280, "height": 900})
        people.append(fresh)
        fresh.ask_for_a_sign_in_link("bob@example.org")
        wait_until(lambda: any("/account/recover#" in text_of(m) for m in smtp.inbox.to("bob@example.org")))
        recover = [m for m in smtp.inbox.to("bob@example.org") if "/account/recover#" in text_of(m)][-1]
        _, path, token = link_in(recover)
        fresh.go(f"{path}#token={token}")
        fresh.redeem_to_the_lobby("Bob", game_id)
        fresh.go(f"/games/{game_id}")
        players = [ann, fresh]

        # they exchange table talk: each message pushed to the other's open page
        ann.go(f"/games/{game_id}")
        for person in (ann, fresh):
            person.page.wait_for_selector("#live[data-status='active']", state="attached")
        ann.page.fill("#talk-text", "Welcome back, Bob.")
        ann.page.click("#talk-form button[type=submit]")
        said = fresh.page.wait_for_selector("#talk-messages li[data-number='1'] .text")
        assert said is not None and said.inner_text() == "Welcome back, Bob."
        fresh.page.fill("#talk-text", "Thanks, the mail found me.")
        fresh.page.click("#talk-form button[type=submit]")
        answer = ann.page.wait_for_selector("#talk-messages li[data-number='2'] .text")
        assert answer is not None and answer.inner_text() == "Thanks, the mail found me."

        # Ann unsubscribes from her mail's link: the link shows a button; the button does it
        url = turn["List-Unsubscribe"].strip("<>")
        assert url in text_of(turn) and url.startswith(f"{base}/unsubscribe/glu_")
        ann.page.goto(url)
        ann.page.wait_for_selector("#unsubscribe")
        ann.shot("notifications-unsubscribe", full_page=False)
        ann.page.click("#unsubscribe")
        ann.page.wait_for_selector("[data-unsubscribed]")
        page = ann.go("/settings")
        assert "you get none now" in page.inner_text("#channels")
        ann.shot("notifications-settings", full_page=True)
        before_ann = len(notifications(smtp, "ann@example.org"))
        before_bob = len(notifications(smtp, "bob@example.org"))

        ann.go(f"/games/{game_id}")
        for _ in range(12):
            play_one(next_to_move(players), rnd)
            time.sleep(0.1)
        wait_until(lambda: len(notifications(smtp, "bob@example.org")) > before_bob)
        time.sleep(1.5)  # the workers' rounds: anything for Ann would have come by now
        assert len(notifications(smtp, "ann@example.org")) == before_ann, "no more mails for Ann"
        for person in people:
            assert not person.problems, person.problems
    finally:
        for person in people:
            person.context.close()

"""A private table through the web pages in headless Chromium (issue 31, item 3), with the real
server mailing through the test's SMTP server.

Ann creates a private three-player Cotton Trade table on the new-game page, inviting Bob by name
and Cid by email address. A stranger's lobby does not list it and the stranger cannot join it;
Bob takes his held seat from the game's page; Cid follows the mailed link in a fresh browser,
signs up on the invitation's page and is seated, and the game starts. Screenshots go to
test-artifacts/screenshots/ (the new-game page, the waiting table, the invitation's page, at
1366 and 390 px).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_kit import GAME_URL, Person, check_accessibility, signed_up
from tests.mailkit import SmtpServer, text_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # about 20 s (a minute on a loaded machine): .ci/run

INVITE_LINK = re.compile(r"(https?://\S+?)(/invitation/[\w-]+)#token=(glk_\S+)")
CID = "cid@example.org"


def test_a_private_table_is_filled_by_invitation(browser: Any, mail_server: str, smtp: SmtpServer) -> None:
    base = mail_server
    with signed_up(browser, base, ("Ann", "Bob", "Stranger"), width=1366) as (ann, bob, stranger):
        # Ann: a private table for three, Bob invited by name and Cid by address
        page = ann.go("/games/new")
        page.check("#title-cotton-trade")
        page.fill("#seats", "3")
        page.check("#private")
        page.fill("#invite", f"Bob, {CID}")
        ann.shot("invitations-new-game")
        check_accessibility(ann, "the new-game page with invitations")
        page.click("#new-game-form button[type=submit]")
        page.wait_for_url(GAME_URL)
        game_id = page.url.rsplit("/", 1)[-1]
        listing = page.inner_text(".invitations")
        assert "held for Bob" in listing and CID in listing, listing
        assert page.query_selector("[data-api-delete*='/invitations/']") is not None, "she may withdraw them"
        ann.shot("invitations-waiting-table")
        check_accessibility(ann, "the waiting private table")

        # the stranger: not in the lobby's open games, and the table's address does not seat him
        lobby = stranger.go("/lobby")
        assert game_id not in lobby.content()
        table = stranger.go(f"/games/{game_id}")
        assert table.query_selector(f"button[data-join='{game_id}']") is None
        assert "joined by invitation only" in table.inner_text("main")
        refused = table.evaluate(
            "id => fetch('/api/v1/games/' + id + '/join', {method: 'POST', headers: {'X-CSRF-Token':"
            " document.querySelector('meta[name=csrf-token]').content}}).then(r => r.json())",
            game_id,
        )
        assert refused["code"] == "game/private_table", refused

        # Bob: his held seat, from the game's page
        table = bob.go(f"/games/{game_id}")
        assert "A seat is held for you" in table.inner_text("main")
        table.click("button[data-api-post$='/invitations/accept']")
        table.wait_for_function("() => !document.body.innerText.includes('A seat is held for you')")
        assert bob.api(f"/games/{game_id}")["my_seats"] == [1]

        # Cid: the mailed link, in a fresh browser with nothing kept; she signs up and is seated
        (mail,) = smtp.inbox.wait_for(CID)
        assert "Ann invites you" in mail["Subject"], mail["Subject"]
        found = INVITE_LINK.search(text_of(mail))
        assert found and found.group(1) == base, text_of(mail)
        for width, height in ((1366, 900), (390, 844)):
            look = Person(browser, base, "Cid looking", viewport={"width": width, "height": height})
            try:
                look.go(f"{found.group(2)}#token={found.group(3)}")
                assert "token" not in look.page.url, "the token leaves the address bar at once"
                look.shot(f"invitations-link-page-{width}", full_page=False)
                check_accessibility(look, f"the invitation's page at {width} px")
            finally:
                look.context.close()
        cid = Person(browser, base, "Cid", viewport={"width": 390, "height": 844})
        try:
            page = cid.go(f"{found.group(2)}#token={found.group(3)}")
            assert "You are invited to Cotton Trade" in page.inner_text("h1")
            page.fill("#invite-name", "Cid")
            page.click("#invite-signup-form button[type=submit]")
            page.wait_for_url(f"**/games/{game_id}")
            page.wait_for_selector("#live[data-status='active']", state="attached")
            assert cid.api(f"/games/{game_id}")["my_seats"] == [2]
            assert not cid.problems, cid.problems
        finally:
            cid.context.close()

        # the game started with the last seat: Ann's page learns it without a reload
        ann.page.wait_for_selector("#live[data-status='active']", state="attached")
        names = [s["name"] for s in ann.api(f"/games/{game_id}")["seats"]]
        assert names == ["Ann", "Bob", "Cid"], names
        again = stranger.go("/lobby")
        assert game_id not in again.content(), "still not listed to a stranger"

"""Accounts that survive a lost browser (issue 19, item 1), over the API, against SQLite and
PostgreSQL, with a real SMTP server in the test process (aiosmtpd) whose mails are read back:
sign up, add an address and confirm it from the mailed link, set a password, sign in; lost
access: a one-time sign-in link; named tokens; sessions; and the abuse: malformed addresses,
unknown, expired and replayed links and sessions, password guessing, an address claimed twice."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.mail import ERASED
from api.services import Services
from api.settings import Settings
from ledger.accounts import normalise_email
from ledger.errors import InvalidRequestError
from tests.api_helpers import API, Table
from tests.mail_world import PUBLIC, MailWorld, mailing, served
from tests.mailkit import SmtpServer, link_in, smtp_server, text_of
from tests.trust_world import assert_error_shape, bearer


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with smtp_server() as server:
        yield server


@pytest.fixture
def account_settings(settings: Settings, smtp: SmtpServer) -> Settings:
    return mailing(settings, smtp)


@pytest.fixture
def world(account_settings: Settings, smtp: SmtpServer) -> Iterator[World]:
    with served(account_settings) as (services, client):
        yield World(client, services, smtp)


class World(MailWorld):
    @property
    def accounts(self) -> Any:
        return self.services.accounts

    def link(self, address: str, page: str) -> str:
        """The token of the newest link to ``page`` mailed to ``address``."""
        for message in reversed(self.mails_to(address)):
            if f"/account/{page}#" in text_of(message):
                base, path, token = link_in(message)
                assert base == PUBLIC and path == f"/account/{page}"
                return token
        raise AssertionError(f"no {page} link mailed to {address}")

    def sign_up(self, name: str, **extra: Any) -> dict[str, Any]:
        r = self.client.post(f"{API}/players", json={"name": name, **extra})
        assert r.status_code == 201, r.text
        self.client.cookies.clear()
        return dict(r.json())

    def confirmed(self, name: str, email: str, password: str | None = "a good password") -> dict[str, Any]:
        """A player with a confirmed address (and a password)."""
        extra = {"email": email} | ({"password": password} if password else {})
        player = self.sign_up(name, **extra)
        r = self.client.post(f"{API}/players/confirm-email", json={"token": self.link(email, "confirm")})
        assert r.status_code == 200, r.text
        return player

    def move_email(self, token: str, email: str) -> None:
        """The player asks for ``email`` and follows the link mailed there."""
        r = self.client.post(f"{API}/me/email", json={"email": email}, headers=bearer(token))
        assert r.status_code == 202, r.text
        r = self.client.post(f"{API}/players/confirm-email", json={"token": self.link(email, "confirm")})
        assert r.status_code == 200, r.text

    def sign_in(self, **body: Any) -> Any:
        r = self.client.post(f"{API}/sessions", json=body)
        self.client.cookies.clear()
        return r

    def written(self) -> int:
        return int(self.services.ledger.recorder.max_notification_id() or 0)


def later(world: World, **delta: float) -> None:
    """Move the accounts' clock on (and forget what this process verified a moment ago)."""
    accounts = world.accounts
    before = accounts.now
    accounts.now = lambda: before() + timedelta(**delta)
    accounts._cache.clear()


# -- the whole way: sign up, address, password, sign in ---------------------------------------


def test_a_player_adds_an_address_confirms_it_from_the_mail_sets_a_password_and_signs_in(
    world: World,
) -> None:
    c = world.client
    ann = world.sign_up("Ann")
    me = bearer(ann["token"])
    r = c.post(f"{API}/me/email", json={"email": "  Ann@Example.ORG "}, headers=me)
    assert r.status_code == 202, r.text
    assert (r.json()["pending_email"], r.json()["email"], r.json()["sent"]) == ("ann@example.org", None, True)
    assert c.get(f"{API}/me", headers=me).json()["pending_email"] == "ann@example.org"

    (mail,) = world.mails_to("ann@example.org")
    assert (
        mail["From"] == "gameledger <noreply@play.test>"
        and mail["Subject"] == "Confirm your email address for gameledger"
    )
    assert "Hello Ann" in text_of(mail) and "within 48 hours" in text_of(mail)
    assert mail["Message-ID"] and mail["Date"] and mail["Auto-Submitted"] == "auto-generated"
    _, _, token = link_in(mail)
    outbox = world.services.mail.outbox  # type: ignore[union-attr]
    assert all(row["body"] == ERASED for row in outbox.rows(f"SELECT body FROM {outbox.t('outbox')}")), (
        "a sent link leaves no copy in the outbox"
    )

    confirmed = c.post(f"{API}/players/confirm-email", json={"token": token})
    assert confirmed.status_code == 200 and confirmed.json() == {
        "player_id": ann["player_id"],
        "name": "Ann",
        "email": "ann@example.org",
    }
    replay = c.post(f"{API}/players/confirm-email", json={"token": token})
    assert (replay.status_code, assert_error_shape(replay)) == (409, "link/used")
    account = c.get(f"{API}/me", headers=me).json()
    assert (account["email"], account["pending_email"], account["password_set"]) == (
        "ann@example.org",
        None,
        False,
    )

    r = c.put(f"{API}/me/password", json={"password": "correct horse battery"}, headers=me)
    assert r.status_code == 200 and r.json()["password_set"] is True
    (notice,) = [m for m in world.mails_to("ann@example.org") if "password" in m["Subject"]]
    assert "correct horse" not in text_of(notice)

    signed = world.sign_in(email="ANN@example.org", password="correct horse battery")
    assert signed.status_code == 201, signed.text
    body = signed.json()
    assert (body["player_id"], body["name"], body["opened_with"]) == (ann["player_id"], "Ann", "password")
    cookie = signed.headers["set-cookie"]
    assert (
        f"gl_session={body['token']}" in cookie and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    )
    assert "secure" not in cookie.lower(), "plain HTTP here: a Secure cookie would never come back"
    who = c.get(f"{API}/me", headers=bearer(body["token"])).json()
    assert (who["player_id"], who["signed_in_with"]) == (ann["player_id"], "session")

    # the record: the address and the password's hash are Player events; the password is not in them
    player = world.services.ledger.get_player(ann["player_id"])
    topics = [type(e).TOPIC for e in world.services.ledger.events.get(player.id)]
    assert topics[-2:] == ["gameledger.player.email_confirmed", "gameledger.player.password_set"], topics
    stored = world.services.ledger.get_player(ann["player_id"]).password_hash
    assert stored.startswith("$argon2id$") and "correct horse" not in stored


def test_signing_up_with_an_address_and_a_password_at_once(world: World) -> None:
    ann = world.sign_up("Ann", email="ann@example.org", password="correct horse battery")
    assert ann["pending_email"] == "ann@example.org" and ann["confirmation_expires_at"]
    # until the address is confirmed it signs nobody in (it could be anyone's)
    early = world.sign_in(email="ann@example.org", password="correct horse battery")
    assert (early.status_code, assert_error_shape(early)) == (401, "auth/bad_credentials")
    token = world.link("ann@example.org", "confirm")
    assert world.client.post(f"{API}/players/confirm-email", json={"token": token}).status_code == 200
    assert world.sign_in(email="ann@example.org", password="correct horse battery").status_code == 201


def test_any_valid_address_and_any_name_are_mailed_as_written(world: World) -> None:
    """Braces are valid in an address (RFC 5322 atext), markup in a name: plain text either way."""
    name = "{url} <b>Dee</b>"
    world.sign_up(name, email="dee{1}@example.org")
    (mail,) = world.mails_to("dee{1}@example.org")
    assert text_of(mail).startswith(f"Hello {name},") and "dee{1}@example.org is the address" in text_of(mail)
    assert mail.get_content_type() == "text/plain"
    token = world.link("dee{1}@example.org", "confirm")
    assert (
        world.client.post(f"{API}/players/confirm-email", json={"token": token}).json()["email"]
        == "dee{1}@example.org"
    )


def test_a_secure_cookie_under_https(account_settings: Settings, smtp: SmtpServer) -> None:
    with served(account_settings.model_copy(update={"public_url": "https://play.example.org"})) as (
        _,
        client,
    ):
        token = client.post(f"{API}/players", json={"name": "Ann"}).json()["token"]
        r = client.post(f"{API}/sessions", json={"token": token})
        assert r.status_code == 201 and "secure" in r.headers["set-cookie"].lower()


# -- lost access ----------------------------------------------------------------------------------


def test_a_recovery_link_signs_in_once_and_the_answer_never_tells_who_has_an_account(world: World) -> None:
    c = world.client
    ann = world.confirmed("Ann", "ann@example.org")
    game = c.post(
        f"{API}/games", json={"title": "cotton-trade", "seats": 2}, headers=bearer(ann["token"])
    ).json()

    answers = {}
    for address in ("ann@example.org", "nobody@example.org"):
        r = c.post(f"{API}/players/recover", json={"email": address})
        assert r.status_code == 202
        answers[address] = r.json()["message"].replace(address, "<address>")
    assert answers["ann@example.org"] == answers["nobody@example.org"], "the same answer, known or not"
    assert not world.mails_to("nobody@example.org")
    token = world.link("ann@example.org", "recover")
    mail = world.mails_to("ann@example.org")[-1]
    assert mail["Subject"] == "Sign in to gameledger" and "within 30 minutes" in text_of(mail)

    signed = world.sign_in(link=token)
    assert signed.status_code == 201 and signed.json()["opened_with"] == "recovery"
    session = bearer(signed.json()["token"])
    mine = c.get(f"{API}/games", params={"player": "me"}, headers=session).json()["games"]
    assert [g["game_id"] for g in mine] == [game["game_id"]], "Ann's games, from a browser that had nothing"
    replay = world.sign_in(link=token)
    assert (replay.status_code, assert_error_shape(replay)) == (409, "link/used")

    # within the hour of a sign-in by a recovery link, a new password needs no old one; other
    # sessions end (later, the old password is asked for as anywhere else)
    later(world, minutes=61)
    late = c.put(f"{API}/me/password", json={"password": "a brand new password"}, headers=session)
    assert (late.status_code, assert_error_shape(late)) == (403, "auth/current_password")
    later(world, minutes=-61)
    other = world.sign_in(email="ann@example.org", password="a good password").json()["token"]
    r = c.put(f"{API}/me/password", json={"password": "a brand new password"}, headers=session)
    assert r.status_code == 200, r.text
    assert c.get(f"{API}/me", headers=bearer(other)).status_code == 401
    assert c.get(f"{API}/me", headers=session).status_code == 200
    assert world.sign_in(email="ann@example.org", password="a brand new password").status_code == 201
    # and a player's token still works: it was not a password
    assert c.get(f"{API}/me", headers=bearer(ann["token"])).status_code == 200


def test_links_that_are_unknown_mistyped_expired_replaced_or_of_the_other_kind_are_refused(
    world: World,
) -> None:
    c = world.client
    world.confirmed("Ann", "ann@example.org")
    for _ in range(2):
        assert c.post(f"{API}/players/recover", json={"email": "ann@example.org"}).status_code == 202
    newest = world.link("ann@example.org", "recover")  # it replaced the one mailed before it
    mails = [m for m in world.mails_to("ann@example.org") if m["Subject"] == "Sign in to gameledger"]
    older = link_in(mails[0])[2]
    assert len(mails) == 2 and older != newest
    confirm_link = c.post(
        f"{API}/me/email", json={"email": "ann2@example.org"}, headers=bearer(world.sign_up("Bob")["token"])
    )
    assert confirm_link.status_code == 202
    wrong_kind = world.link("ann2@example.org", "confirm")
    cases = {
        "older": (older, 409, "link/used"),
        "mistyped": (newest[:-2] + ("AA" if not newest.endswith("AA") else "BB"), 404, "link/unknown"),
        "unknown": ("glk_" + "0" * 32 + "_nothing", 404, "link/unknown"),
        "not a link": ("hello", 404, "link/unknown"),
        "a confirmation link": (wrong_kind, 404, "link/unknown"),
    }
    before = world.written()
    for what, (token, status, code) in cases.items():
        r = world.sign_in(link=token)
        assert (r.status_code, assert_error_shape(r, what)) == (status, code), what
    assert world.written() == before
    later(world, minutes=31)
    r = world.sign_in(link=newest)
    assert (r.status_code, assert_error_shape(r)) == (409, "link/expired")
    # a mistyped link did not use up the real one; the expired one stays refused
    later(world, minutes=-31)
    assert world.sign_in(link=newest).status_code == 201


def test_recovery_mails_are_limited_per_address_and_requests_per_client(world: World) -> None:
    world.confirmed("Ann", "ann@example.org")  # a confirmation: counted apart from recoveries (issue 32)
    c = world.client
    limit = world.services.settings.recover_requests_per_client
    answers = [c.post(f"{API}/players/recover", json={"email": "ann@example.org"}) for _ in range(4)]
    assert {r.status_code for r in answers} == {202} and len({r.text for r in answers}) == 1
    recovery = [m for m in world.mails_to("ann@example.org") if m["Subject"] == "Sign in to gameledger"]
    assert len(recovery) == world.services.settings.account_mails_per_hour, "no mail bombing an address"
    rest = [c.post(f"{API}/players/recover", json={"email": "x@example.org"}) for _ in range(limit)]
    refused = rest[-1]
    assert (refused.status_code, assert_error_shape(refused)) == (429, "request/rate_limited")
    assert int(refused.headers["retry-after"]) > 0


# -- password guessing ---------------------------------------------------------------------------


def test_password_guessing_is_limited_per_account_and_per_client_and_answers_alike(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.confirmed("Ann", "ann@example.org", password="correct horse battery")
    accounts = world.accounts
    accounts.settings = accounts.settings.model_copy(
        update={"signin_attempts_per_account": 3, "signin_attempts_per_client": 9}
    )
    verified: list[str | None] = []
    real = accounts.passwords.verify
    monkeypatch.setattr(accounts.passwords, "verify", lambda h, p: verified.append(h) or real(h, p))

    per_account = accounts.settings.signin_attempts_per_account
    answers = set()
    for address in ("ann@example.org", "nobody@example.org"):
        for i in range(per_account):
            r = world.sign_in(email=address, password=f"guess {i}")
            assert r.status_code == 401, r.text
            answers.add((r.status_code, r.text))
        refused = world.sign_in(email=address, password="correct horse battery")
        assert (refused.status_code, assert_error_shape(refused)) == (429, "auth/too_many_attempts")
        assert 0 < int(refused.headers["retry-after"]) <= 15 * 60
    assert len(answers) == 1, "a wrong password and an unknown address get the same answer"
    assert len(verified) == 2 * per_account and verified.count(None) == per_account, (
        "every failed sign-in ran argon2, the unknown address against a dummy hash"
    )
    # the limit is per account: another account from elsewhere still signs in ...
    world.confirmed("Bob", "bob@example.org", password="bobs own password")
    assert world.sign_in(email="bob@example.org", password="bobs own password").status_code == 201
    # ... and per client address: this client has failed 2 x per_account times
    per_client = accounts.settings.signin_attempts_per_client
    for i in range(per_client - 2 * per_account):
        assert world.sign_in(email=f"guess{i}@example.org", password="guess").status_code == 401
    blocked = world.sign_in(email="bob@example.org", password="bobs own password")
    assert (blocked.status_code, assert_error_shape(blocked)) == (429, "auth/too_many_attempts")
    # a quarter of an hour later Ann signs in
    later(world, minutes=16)
    assert world.sign_in(email="ann@example.org", password="correct horse battery").status_code == 201


def test_changing_a_password_needs_the_current_one_and_weak_ones_are_refused(world: World) -> None:
    c = world.client
    ann = world.confirmed("Ann", "ann@example.org", password="correct horse battery")
    me = bearer(ann["token"])
    before = world.written()
    for body, status, code in [
        ({"password": "a new password"}, 403, "auth/current_password"),
        ({"password": "a new password", "current_password": "wrong"}, 403, "auth/current_password"),
        ({"password": "short", "current_password": "correct horse battery"}, 422, "request/weak_password"),
        ({"password": " " * 12, "current_password": "correct horse battery"}, 422, "request/weak_password"),
        (
            {"password": "ANN@example.org", "current_password": "correct horse battery"},
            422,
            "request/weak_password",
        ),
        ({"password": "x" * 201, "current_password": "correct horse battery"}, 422, "request/invalid"),
    ]:
        r = c.put(f"{API}/me/password", json=body, headers=me)
        assert (r.status_code, assert_error_shape(r, str(body))) == (status, code), body
    assert world.written() == before, "nothing changed"
    r = c.put(
        f"{API}/me/password",
        json={"password": "a new password", "current_password": "correct horse battery"},
        headers=me,
    )
    assert r.status_code == 200
    assert world.sign_in(email="ann@example.org", password="a new password").status_code == 201
    bad = c.post(f"{API}/players", json={"name": "Bob", "password": "bob"})
    assert (bad.status_code, assert_error_shape(bad)) == (422, "request/weak_password")
    bad = c.post(f"{API}/players", json={"name": "Cid", "password": "Cid"})
    assert bad.status_code == 422


# -- addresses -----------------------------------------------------------------------------------

MALFORMED = [
    "",
    "ann",
    "ann@",
    "@example.org",
    "ann@example",
    "ann example@example.org",
    "ann@exa mple.org",
    "ann..b@example.org",
    ".ann@example.org",
    "ann@-example.org",
    "ann@example..org",
    "ann@example.org\r\nBcc: eve@example.org",
    "ann@example.org\x00",
    '"ann"@example.org',
    "ann@[127.0.0.1]",
    "ann<script>@example.org",
    "a" * 65 + "@example.org",
    "ann@" + "a" * 250 + ".org",
    "ännä@example.org",
]


@pytest.mark.parametrize("address", MALFORMED)
def test_a_malformed_address_is_refused_with_its_code(address: str) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        normalise_email(address)
    assert refused.value.code == "request/invalid_email"


def test_addresses_are_kept_in_one_form() -> None:
    assert normalise_email(" Ann.Smith+games@Example.ORG ") == "ann.smith+games@example.org"
    assert normalise_email("ann@bücher.de") == "ann@xn--bcher-kva.de"
    assert normalise_email("o'neil@example.co.uk") == "o'neil@example.co.uk"


def test_malformed_addresses_change_nothing_wherever_they_are_given(world: World) -> None:
    c = world.client
    ann = world.sign_up("Ann")
    before = world.written()
    for address in MALFORMED[1:8] + MALFORMED[11:13]:
        for method, path, body, headers in [
            ("POST", "/players", {"name": "Eve", "email": address}, {}),
            ("POST", "/me/email", {"email": address}, bearer(ann["token"])),
            ("POST", "/players/recover", {"email": address}, {}),
            ("POST", "/sessions", {"email": address, "password": "whatever it is"}, {}),
        ]:
            r = c.request(method, API + path, json=body, headers=headers)
            assert r.status_code == 422 and assert_error_shape(r, f"{path} {address!r}").startswith(
                "request/"
            ), (
                path,
                address,
                r.text,
            )
    assert world.written() == before
    assert not world.smtp.inbox.messages and not world.mails_to("eve@example.org")


def test_an_address_belongs_to_one_player_and_moves_only_when_released(world: World) -> None:
    c = world.client
    world.accounts.settings = world.accounts.settings.model_copy(update={"account_mails_per_hour": 10})
    ann = world.confirmed("Ann", "shared@example.org")
    bob = world.sign_up("Bob")
    # asking for an address in use is answered as any other: no way to probe who has one
    r = c.post(f"{API}/me/email", json={"email": "shared@example.org"}, headers=bearer(bob["token"]))
    assert r.status_code == 202 and r.json()["pending_email"] == "shared@example.org"
    taken = c.post(
        f"{API}/players/confirm-email", json={"token": world.link("shared@example.org", "confirm")}
    )
    assert (taken.status_code, assert_error_shape(taken)) == (409, "email/taken")
    # Ann moves to another address: the old one is told, and released
    world.move_email(ann["token"], "ann@example.org")
    told = [m for m in world.mails_to("shared@example.org") if "has changed" in m["Subject"]]
    assert len(told) == 1 and "ann@example.org" in text_of(told[0])
    world.move_email(bob["token"], "shared@example.org")
    assert c.get(f"{API}/me", headers=bearer(bob["token"])).json()["email"] == "shared@example.org"
    # a recovery for the address now reaches Bob, not Ann
    assert c.post(f"{API}/players/recover", json={"email": "shared@example.org"}).status_code == 202
    signed = world.sign_in(link=world.link("shared@example.org", "recover")).json()
    assert signed["player_id"] == bob["player_id"]


def test_two_players_confirming_one_address_at_once_cannot_both_have_it(world: World) -> None:
    players = [world.sign_up(n)["player_id"] for n in ("Ann", "Bob", "Cid", "Dee")]
    results: list[str] = []
    start = threading.Barrier(len(players))

    def confirm(pid: str) -> None:
        start.wait()
        try:
            world.accounts.players.confirm_email(pid, "race@example.org")
            results.append("ok")
        except Exception as exc:  # the others: email/taken
            results.append(getattr(exc, "code", repr(exc)))

    threads = [threading.Thread(target=confirm, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["email/taken"] * 3 + ["ok"], results
    owners = [p for p in players if world.services.ledger.get_player(p).email == "race@example.org"]
    assert len(owners) == 1


def test_an_account_always_keeps_a_way_back_in(world: World) -> None:
    """The last token may go while a confirmed address remains (a mailed link gets the player
    back in), and the address may go while a token remains; not both."""
    c = world.client
    ann = world.confirmed("Ann", "ann@example.org")
    named = c.post(
        f"{API}/me/tokens", json={"name": "laptop", "scope": "account"}, headers=bearer(ann["token"])
    ).json()
    me = bearer(named["token"])
    assert c.delete(f"{API}/me/tokens/first", headers=me).status_code == 200
    r = c.delete(f"{API}/me/email", headers=me)
    assert r.status_code == 200 and (r.json()["email"], r.json()["tokens"]) == (None, 1)
    last = c.delete(f"{API}/me/tokens/{named['token_id']}", headers=me)
    assert (last.status_code, assert_error_shape(last)) == (409, "account/last_way_in")
    assert c.delete(f"{API}/me/email", headers=me).status_code == 200, "removing no address changes nothing"

    bob = world.confirmed("Bob", "bob@example.org")
    assert c.delete(f"{API}/me/tokens/first", headers=bearer(bob["token"])).status_code == 200, (
        "his address remains"
    )
    session = bearer(world.sign_in(email="bob@example.org", password="a good password").json()["token"])
    refused = c.delete(f"{API}/me/email", headers=session)
    assert (refused.status_code, assert_error_shape(refused)) == (409, "account/last_way_in")
    assert c.get(f"{API}/me", headers=session).json()["email"] == "bob@example.org"


# -- named tokens ----------------------------------------------------------------------------------


def test_named_tokens_are_listed_issued_and_revoked_and_the_first_token_is_one_of_them(world: World) -> None:
    c = world.client
    ann = world.sign_up("Ann")
    me = bearer(ann["token"])
    listed = c.get(f"{API}/me/tokens", headers=me).json()["tokens"]
    assert [(t["token_id"], t["current"]) for t in listed] == [("first", True)]
    last = c.delete(f"{API}/me/tokens/first", headers=me)
    assert (last.status_code, assert_error_shape(last)) == (409, "account/last_way_in")

    issued = c.post(f"{API}/me/tokens", json={"name": "<script>alert('x')</script>"}, headers=me)
    assert issued.status_code == 201, issued.text
    bot = issued.json()
    assert bot["token"].startswith("gl_") and bot["name"] == "<script>alert('x')</script>"
    assert c.get(f"{API}/me", headers=bearer(bot["token"])).json()["player_id"] == ann["player_id"]
    listed = c.get(f"{API}/me/tokens", headers=bearer(bot["token"])).json()["tokens"]
    assert [(t["token_id"], t["current"]) for t in listed] == [("first", False), (bot["token_id"], True)]
    assert bot["token"] not in str(listed) and ann["token"] not in str(listed)

    # the settings page shows the name as text
    c.cookies.set("gl_token", ann["token"])
    page = c.get("/settings").text
    c.cookies.clear()
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page and "<script>alert" not in page

    for body, code in [
        ({"name": ""}, "request/invalid"),
        ({"name": "a\x00b"}, "request/invalid_token_name"),
        ({}, "request/invalid"),
    ]:
        r = c.post(f"{API}/me/tokens", json=body, headers=me)
        assert (r.status_code, assert_error_shape(r)) == (422, code), body

    # a token for playing (the default) cannot revoke the first; one for the account can, and then
    # the first token stops working at once
    refused = c.delete(f"{API}/me/tokens/first", headers=bearer(bot["token"]))
    assert (refused.status_code, assert_error_shape(refused)) == (403, "auth/scope")
    laptop = c.post(f"{API}/me/tokens", json={"name": "laptop", "scope": "account"}, headers=me).json()
    assert c.delete(f"{API}/me/tokens/first", headers=bearer(laptop["token"])).status_code == 200
    gone = c.get(f"{API}/me", headers=me)
    assert (gone.status_code, assert_error_shape(gone)) == (401, "auth/invalid_token")
    # nobody revokes another player's token
    bob = world.sign_up("Bob")
    r = c.delete(f"{API}/me/tokens/{bot['token_id']}", headers=bearer(bob["token"]))
    assert (r.status_code, assert_error_shape(r)) == (404, "token/not_found")
    assert c.get(f"{API}/me", headers=bearer(bot["token"])).status_code == 200


def test_a_revoked_token_stops_working_on_another_server_process_soon(
    world: World, account_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second process on the same database verified the token before; after the revocation it
    asks the store again within AUTH_RECHECK_SECONDS."""
    from ledger.application import ledger as application

    monkeypatch.setattr(application, "AUTH_RECHECK_SECONDS", 0.3)
    ann = world.sign_up("Ann")
    bot = world.client.post(f"{API}/me/tokens", json={"name": "bot"}, headers=bearer(ann["token"])).json()
    other = Services.start(account_settings.model_copy(update={"init_db": False}))
    try:
        with TestClient(create_app(other.settings, other)) as elsewhere:
            assert elsewhere.get(f"{API}/me", headers=bearer(bot["token"])).status_code == 200
            assert (
                world.client.delete(
                    f"{API}/me/tokens/{bot['token_id']}", headers=bearer(ann["token"])
                ).status_code
                == 200
            )
            assert world.client.get(f"{API}/me", headers=bearer(bot["token"])).status_code == 401, (
                "here: at once"
            )
            time.sleep(0.4)
            assert elsewhere.get(f"{API}/me", headers=bearer(bot["token"])).status_code == 401, "there: soon"
    finally:
        other.close()


# -- sessions ------------------------------------------------------------------------------------


def test_sessions_are_listed_ended_one_by_one_and_expire_after_days_unused(world: World) -> None:
    c = world.client
    ann = world.confirmed("Ann", "ann@example.org")
    first = world.sign_in(email="ann@example.org", password="a good password").json()
    second = world.sign_in(token=ann["token"]).json()
    assert second["opened_with"] == "token"
    listed = c.get(f"{API}/me/sessions", headers=bearer(second["token"])).json()["sessions"]
    assert [(s["session_id"], s["current"]) for s in listed] == [
        (first["session_id"], False),
        (second["session_id"], True),
    ]
    assert all(s["user_agent"] == "testclient" and "token" not in s for s in listed)
    assert first["token"] not in str(listed) and second["token"] not in str(listed)

    ended = c.delete(f"{API}/me/sessions/{first['session_id']}", headers=bearer(second["token"]))
    assert ended.status_code == 200
    gone = c.get(f"{API}/me", headers=bearer(first["token"]))
    assert (gone.status_code, assert_error_shape(gone)) == (401, "auth/session_ended")
    again = c.delete(f"{API}/me/sessions/{first['session_id']}", headers=bearer(second["token"]))
    assert (again.status_code, assert_error_shape(again)) == (404, "session/not_found")
    none = c.delete(f"{API}/me/sessions/current", headers=bearer(ann["token"]))
    assert (none.status_code, assert_error_shape(none)) == (409, "session/none")

    later(world, days=29)
    assert c.get(f"{API}/me", headers=bearer(second["token"])).status_code == 200, (
        "used: the 30 days start again"
    )
    later(world, days=29)
    assert c.get(f"{API}/me", headers=bearer(second["token"])).status_code == 200
    later(world, days=31)
    expired = c.get(f"{API}/me", headers=bearer(second["token"]))
    assert (expired.status_code, assert_error_shape(expired)) == (401, "auth/session_ended")
    for forged in ("gls_" + "0" * 32 + "_x", second["token"][:-1] + "x", "gls_nothing"):
        r = c.get(f"{API}/me", headers=bearer(forged))
        assert r.status_code == 401 and assert_error_shape(r).startswith("auth/"), forged


def test_a_form_on_another_site_cannot_sign_a_browser_in(world: World) -> None:
    """Login forgery: a cross-site form can send a body only as a form or text/plain, never as
    JSON without the browser asking first (CORS, which this server does not allow): refused,
    and no cookie set."""
    ann = world.sign_up("Ann")
    body = json.dumps({"token": ann["token"]})
    for content_type in (
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ):
        r = world.client.post(f"{API}/sessions", content=body, headers={"Content-Type": content_type})
        assert r.status_code == 422 and "set-cookie" not in r.headers, (content_type, r.status_code)
    preflight = world.client.options(
        f"{API}/sessions", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
    )
    assert "access-control-allow-origin" not in preflight.headers
    world.client.cookies.clear()


def test_the_operator_signs_in_on_the_pages_until_the_operator_token_changes(
    world: World, account_settings: Settings
) -> None:
    admin = account_settings.admin_token
    signed = world.sign_in(token=admin)
    assert signed.status_code == 201 and signed.json()["opened_with"] == "operator"
    session = signed.json()["token"]
    assert world.client.get(f"{API}/me", headers=bearer(session)).json()["is_admin"] is True
    world.accounts.settings = account_settings.model_copy(
        update={"admin_token": "another-admin-token-0123456789"}
    )
    world.accounts._cache.clear()
    assert world.client.get(f"{API}/me", headers=bearer(session)).status_code == 401


def test_old_attempts_and_long_ended_sessions_and_links_are_forgotten(world: World) -> None:
    from api.accounts import PRUNE_EVERY

    ann = world.confirmed("Ann", "ann@example.org")
    live = world.sign_in(token=ann["token"]).json()
    ended = world.sign_in(token=ann["token"]).json()
    world.client.delete(f"{API}/me/sessions/{ended['session_id']}", headers=bearer(live["token"]))
    for i in range(3):
        world.sign_in(email=f"x{i}@example.org", password="wrong password")
    store = world.accounts.store

    def count(table: str) -> int:
        return int(store.rows(f"SELECT COUNT(*) AS n FROM {store.t(table)}")[0]["n"])

    assert (count("attempts"), count("sessions"), count("links")) == (
        3 * 3 + 1,  # each failed sign-in: its client, its account from there, its account from anywhere
        2,
        1,
    )  # and a mail
    later(world, days=29)
    world.accounts.prune()
    assert (count("attempts"), count("sessions"), count("links")) == (0, 2, 1), "a session in use stays"
    later(world, days=4)  # the link expired 48 hours after it was mailed: 30 days ago now
    for _ in range(PRUNE_EVERY):  # the store prunes itself as it is written to
        world.sign_in(token=ann["token"])
    assert count("links") == 0 and ended["session_id"] not in str(
        store.rows(f"SELECT session_id FROM {store.t('sessions')}")
    )
    assert world.client.get(f"{API}/me", headers=bearer(ann["token"])).status_code == 200


# -- secrets -------------------------------------------------------------------------------------


def test_account_secrets_are_in_no_read_answer_and_stored_only_as_hashes(
    world: World, database_url: str
) -> None:
    """Passwords, tokens (first, named, sessions') and link tokens: no read endpoint answers with
    any of them (nor with a hash of one), another player's address is nowhere in Bob's reads, and
    the store holds them only as SHA-256 or argon2id hashes."""
    import hashlib

    from tests.test_trust_auth import _decoded, all_routes

    c = world.client
    ann = world.confirmed("Ann", "ann@example.org", password="ann's secret password")
    table = Table(c, n=2)
    named = c.post(f"{API}/me/tokens", json={"name": "bot"}, headers=bearer(ann["token"])).json()
    session = world.sign_in(email="ann@example.org", password="ann's secret password").json()
    c.post(f"{API}/players/recover", json={"email": "ann@example.org"})
    recover_link = world.link("ann@example.org", "recover")
    c.post(f"{API}/me/email", json={"email": "ann.new@example.org"}, headers=bearer(ann["token"]))
    pending_link = world.link("ann.new@example.org", "confirm")
    password_hash = world.services.ledger.get_player(ann["player_id"]).password_hash
    secrets_ = {
        "password": "ann's secret password",
        "first token": ann["token"],
        "named token": named["token"],
        "session": session["token"],
        "recovery link": recover_link,
        "pending confirmation link": pending_link,
        "argon2 hash": password_hash.rsplit("$", 1)[1],
        "session hash": hashlib.sha256(session["token"].encode()).hexdigest(),
        "named token hash": hashlib.sha256(named["token"].encode()).hexdigest(),
    }

    # every GET route of the API, as Ann (token and session bearer) and as Bob
    league = c.post(f"{API}/leagues", json={"name": "Secrets"}, headers=bearer(ann["token"])).json()[
        "league_id"
    ]
    season = c.post(
        f"{API}/leagues/{league}/seasons", json={"title": "cotton-trade"}, headers=bearer(ann["token"])
    )
    assert season.status_code == 201, season.text  # season 1, for the season's route
    ids = {
        "{game_id}": table.game_id,
        "{player_id}": ann["player_id"],
        "{title}": "cotton-trade",
        "{league}": league,
        "{number}": "1",
    }
    opened = c.post(
        f"{API}/games/{table.game_id}/disputes", json={"versions": [1], "text": "x"}, headers=table.auth(1)
    )
    assert opened.status_code == 201, opened.text  # a dispute for the dispute's route: Bob's, not Ann's
    answers: list[tuple[str, str, str]] = []
    reads = sorted(p for m, p in all_routes(c.app) if m == "GET" and p.startswith(API))  # type: ignore[arg-type]
    for who, headers in (
        ("ann", bearer(ann["token"])),
        ("ann session", bearer(session["token"])),
        ("bob", table.auth(1)),
    ):
        for path in reads:
            url = path
            for k, v in ids.items():
                url = url.replace(k, v)
            params = {"max_seconds": 0.05, "interval": 0.1} if path.endswith("/stream") else None
            r = c.get(url, headers=headers, params=params)
            if path.endswith(("/messages", "/orders", "/replies")) and who != "bob":  # a seat's own
                assert (r.status_code, r.json()["code"]) == (403, "game/not_seated"), (who, url)
            elif path.endswith("/disputes/{number}") and who != "bob":  # for the game's parties
                assert (r.status_code, r.json()["code"]) == (403, "dispute/not_a_party"), (who, url)
            elif path.endswith("/invitations"):  # the creator's (neither Ann nor Bob made the game)
                assert (r.status_code, r.json()["code"]) == (403, "game/not_creator"), (who, url)
            else:
                assert r.status_code == 200, (who, url, r.status_code, r.text[:200])
            answers.append((who, path, r.text))
    assert len({p for _, p, _ in answers}) >= 25
    c.cookies.set("gl_session", session["token"])
    for page in ("/settings", "/lobby", f"/games/{table.game_id}"):
        answers.append(("ann page", page, c.get(page).text))
    c.cookies.clear()
    leaks = [(name, who, path) for who, path, text in answers for name, s in secrets_.items() if s in text]
    assert not leaks, leaks
    bob_saw = [(path) for who, path, text in answers if who == "bob" and "ann@example.org" in text]
    assert not bob_saw, f"Bob saw Ann's address in {bob_saw}"
    assert any("ann@example.org" in text for who, path, text in answers if who == "ann"), (
        "the search can find"
    )

    # the store, every table of every file
    from tests.test_trust_auth import _stored_text

    stored = _decoded(_stored_everywhere(database_url, _stored_text))
    assert secrets_["session hash"] in stored and password_hash in stored, "the search sees the store"
    for name in (
        "password",
        "first token",
        "named token",
        "session",
        "recovery link",
        "pending confirmation link",
    ):
        assert secrets_[name] not in stored, f"the {name} is stored in the clear"


def _stored_everywhere(database_url: str, stored_text: Any) -> str:
    """Every row of every table: on SQLite, of the ledger's file and each of its neighbours."""
    if not database_url.startswith("sqlite"):
        return str(stored_text(database_url))
    from pathlib import Path

    ledger = Path(database_url.removeprefix("sqlite:///"))
    files = sorted(ledger.parent.glob(ledger.stem + "*.sqlite3"))
    assert len(files) >= 3
    return "\n".join(stored_text(f"sqlite:///{f}") for f in files)

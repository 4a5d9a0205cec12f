"""Notifications by mail, Discord and Slack (issue 19, items 2 and 3), against SQLite and
PostgreSQL: a real SMTP server in the test process (aiosmtpd) receives the mails and the test
reads them (headers, links, the one-click unsubscribe); Discord and Slack messages go to a
local receiver and are checked against each service's documented payload shape; an SMTP
server that is down loses no mail and holds up no decision."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from api.channels import CHANNEL_KINDS, UNSUBSCRIBE_PREFIX, check_chat_url, game_name, mask_url
from api.services import Services
from api.settings import Settings
from ledger.errors import InvalidRequestError
from tests.api_helpers import API
from tests.fake_clock import FakeClock
from tests.mail_world import PUBLIC, MailWorld, mailing, served
from tests.mailkit import SmtpServer, free_port, link_in, smtp_server, text_of
from tests.trust_world import assert_error_shape, bearer

T0 = datetime(2030, 3, 4, 9, 0, tzinfo=UTC)


# -- a local Discord / Slack receiver -----------------------------------------------------------


@dataclass
class Receiver:
    url: str
    posts: list[tuple[str, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    status: list[int] = field(default_factory=list)  # answers to give, in order (then 204)

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [body for p, body, _ in self.posts if p == path]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    port = free_port()
    rec = Receiver(f"http://127.0.0.1:{port}")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers["Content-Length"]))
            rec.posts.append((self.path, json.loads(body), dict(self.headers)))
            code = rec.status.pop(0) if rec.status else 204
            self.send_response(code)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield rec
    server.shutdown()
    server.server_close()


# -- the world: services, an SMTP server, signed-up players with confirmed addresses -----------------


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with smtp_server() as server:
        yield server


@pytest.fixture
def world(settings: Settings, smtp: SmtpServer) -> Iterator[World]:
    s = mailing(settings, smtp, outbound_allow="127.0.0.1")  # the local Discord / Slack receiver
    clock = FakeClock(T0)

    def on_the_clock(services: Services) -> None:
        services.ledger.clock = clock
        assert services.channels is not None
        services.channels.now = clock

    with served(s, on_the_clock) as (services, client):
        yield World(client, services, smtp, clock)


@dataclass
class World(MailWorld):
    clock: FakeClock

    def deliver(self) -> None:
        """What the workers do: the projection, the channels' scan, the outbox's drain."""
        assert self.services.mail is not None and self.services.channels is not None
        self.services.refresh("notifications")
        self.services.channels.run_once()
        self.services.mail.run_once()

    def mails(self, address: str, kind: str = "") -> list[Any]:
        self.deliver()
        return [m for m in self.smtp.inbox.to(address) if kind in (m["Subject"] or "")]

    def player(self, name: str, email: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"name": name} | ({"email": email} if email else {})
        r = self.client.post(f"{API}/players", json=body)
        assert r.status_code == 201, r.text
        player = dict(r.json())
        self.client.cookies.clear()
        if email:
            message = next(m for m in self.mails_to(email) if "/account/confirm#" in text_of(m))
            r = self.client.post(f"{API}/players/confirm-email", json={"token": link_in(message)[2]})
            assert r.status_code == 200, r.text
            self.client.cookies.clear()
        return player

    def put(self, path: str, player: dict[str, Any], body: dict[str, Any]) -> Any:
        return self.client.put(f"{API}{path}", json=body, headers=bearer(player["token"]))

    def game(self, players: list[dict[str, Any]], **extra: Any) -> Any:
        ids = [p["player_id"] for p in players]
        return self.services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, **extra)

    def play(self, game: Any, moves: int, rnd: random.Random) -> Any:
        ledger = self.services.ledger
        for _ in range(moves):
            game = ledger.get_game(game.id)
            if game.status != "active":
                break
            seat = game.awaiting[0]
            legal = game.engine.legal_decisions(game.state, seat)
            ledger.decide(game.id, game.seats[seat], game.version, rnd.choice(legal).model_dump(mode="json"))
            self.clock.advance(minutes=1)
        return ledger.get_game(game.id)


def unsubscribe_url(message: Any) -> str:
    header = message["List-Unsubscribe"]
    assert header.startswith("<") and header.endswith(">"), header
    return str(header[1:-1])


# -- mail ------------------------------------------------------------------------------------------------


def test_mails_link_the_game_carry_a_one_click_unsubscribe_and_it_stops_them(world: World) -> None:
    ann = world.player("Ann", "ann@example.org")
    bob = world.player("Bob", "bob@example.org")
    game = world.game([ann, bob])
    started = world.mails("ann@example.org", "has started")
    assert len(started) == 1 and len(world.mails("bob@example.org", "has started")) == 1
    turn = [*world.mails("ann@example.org", "Your turn"), *world.mails("bob@example.org", "Your turn")]
    assert len(turn) == 1, "the first awaited seat is told it is their turn, once"
    message = turn[0]
    text = text_of(message)
    assert f"Open the game: {PUBLIC}/games/{game.id}#decide\n" in text, "at the decision"
    assert f"It is your turn in {game_name('cotton-trade', str(game.id))}." in text, "the game by its name"
    assert message["Subject"] == f"Your turn in {game_name('cotton-trade', str(game.id))}"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = unsubscribe_url(message)
    assert url.startswith(f"{PUBLIC}/unsubscribe/{UNSUBSCRIBE_PREFIX}") and url in text
    token = url.rsplit("/", 1)[1]
    assert len(token) >= 40, "32 random bytes: not guessable"
    other = unsubscribe_url(
        world.mails(
            "bob@example.org" if message["To"] == "ann@example.org" else "ann@example.org", "has started"
        )[0]
    )
    assert other != url, "each player has their own token"

    # the scan ran again and again: nothing was mailed twice
    before = len(world.smtp.inbox.messages)
    world.deliver()
    assert len(world.smtp.inbox.messages) == before

    # opening the link (a mail scanner does) changes nothing; the button, or the mail program's POST, does
    path = url.removeprefix(PUBLIC)
    page = world.client.get(path)
    assert page.status_code == 200 and 'id="unsubscribe"' in page.text
    assert (
        world.client.get(
            f"{API}/me/notifications/channels",
            headers=bearer(ann["token"] if message["To"] == "ann@example.org" else bob["token"]),
        ).json()["mail"]
        == "each"
    )
    for bad in ("glu_" + "A" * 43, "glu_", "nonsense", token[:-1]):
        r = world.client.post(f"/unsubscribe/{bad}", data={"List-Unsubscribe": "One-Click"})
        assert r.status_code == 404, bad
    r = world.client.post(path, data={"List-Unsubscribe": "One-Click"})
    assert r.status_code == 200 and "data-unsubscribed" in r.text
    assert world.client.post(path).status_code == 200, "a second click changes nothing and says so"

    who = message["To"]
    mine = ann if who == "ann@example.org" else bob
    theirs_address = "bob@example.org" if who == "ann@example.org" else "ann@example.org"
    count_mine, count_theirs = len(world.mails(who)), len(world.mails(theirs_address))
    world.play(game, 6, random.Random(1))
    assert len(world.mails(who)) == count_mine, "an unsubscribed player gets no more mails"
    assert len(world.mails(theirs_address)) > count_theirs, "the other player still does"
    settings = world.client.get(f"{API}/me/notifications/channels", headers=bearer(mine["token"])).json()
    assert settings["mail"] == "off"
    assert all(m["status"] == "delivered" for m in settings["mails"]), "the delivery log, without texts"
    assert "body" not in settings["mails"][0]


def test_a_digest_gathers_notifications_and_goes_at_most_every_n_hours(world: World) -> None:
    ann = world.player("Ann", "ann@example.org")
    bob = world.player("Bob")  # no address: no mails, and nothing fails
    r = world.put("/me/notifications/channels", ann, {"mail": "digest", "digest_hours": 6})
    assert r.status_code == 200 and r.json()["mail"] == "digest" and r.json()["digest_hours"] == 6
    game = world.game([ann, bob])
    first = world.mails("ann@example.org", "digest")
    assert len(first) == 1, "the first digest goes at once"
    assert "has started" in text_of(first[0]) and f"{PUBLIC}/games/{game.id}" in text_of(first[0])
    assert unsubscribe_url(first[0]).startswith(f"{PUBLIC}/unsubscribe/")
    world.play(game, 8, random.Random(2))
    assert len(world.mails("ann@example.org", "digest")) == 1, "within 6 hours: no second digest"
    world.clock.advance(hours=6)
    digests = world.mails("ann@example.org", "digest")
    assert len(digests) == 2
    assert text_of(digests[1]).count("It is your turn") >= 1
    assert len(world.mails("ann@example.org")) == 3, "the confirmation, then two digests: nothing one by one"


def test_choices_are_checked_and_kinds_filter_what_is_mailed(world: World) -> None:
    ann = world.player("Ann", "ann@example.org")
    bob = world.player("Bob", "bob@example.org")
    got = world.client.get(f"{API}/me/notifications/channels", headers=bearer(ann["token"])).json()
    assert got["mail"] == "each" and got["kinds"] is None and got["email"] == "ann@example.org"
    assert set(got["available_kinds"]) == set(CHANNEL_KINDS) >= {"clock_low", "dispute_resolved", "your_turn"}
    for body, code in (
        ({"mail": "sometimes"}, "request/invalid"),
        ({"digest_hours": 0}, "request/invalid"),
        ({"kinds": ["your_turn", "gossip"]}, "request/invalid_notification_kind"),
        ({"chat": None}, "request/invalid"),
        ({"unknown": 1}, "request/invalid"),
    ):
        r = world.put("/me/notifications/channels", ann, body)
        assert r.status_code == 422 and assert_error_shape(r).startswith(code), (body, r.text)
    assert world.client.get(
        f"{API}/me/notifications/channels", headers=bearer(ann["token"])
    ).json() == got | {"mails": got["mails"]}, "a refused change changes nothing"
    r = world.put("/me/notifications/channels", ann, {"kinds": ["game_finished"]})
    assert r.status_code == 200 and r.json()["kinds"] == ["game_finished"]
    world.game([ann, bob])
    assert world.mails("ann@example.org", "has started") == []
    assert len(world.mails("bob@example.org", "has started")) == 1
    admin = world.client.get(
        f"{API}/me/notifications/channels", headers=bearer(world.services.settings.admin_token)
    )
    assert admin.status_code == 403 and assert_error_shape(admin) == "auth/not_a_player"


def test_an_smtp_server_that_is_down_loses_no_mail_and_holds_up_no_decision(settings: Settings) -> None:
    port = free_port()  # nothing listens there yet
    s = settings.model_copy(
        update={"smtp_url": f"smtp://127.0.0.1:{port}", "public_url": PUBLIC, "smtp_timeout": 2}
    )
    services = Services.start(s)
    try:
        assert services.channels is not None and services.mail is not None
        ledger = services.ledger
        ids = [str(ledger.register_player(n)[0]) for n in ("Ann", "Bob")]
        for pid, address in zip(ids, ("ann@example.org", "bob@example.org"), strict=True):
            services.accounts.players.confirm_email(pid, address)  # type: ignore[union-attr]
        game = ledger.create_game(creator=ids[0], title="cotton-trade", players=ids)
        services.refresh("notifications")
        queued = services.channels.run_once()
        assert queued >= 3
        assert services.mail.run_once() == 0
        outbox = services.mail.outbox
        counts = outbox.counts()
        assert counts.get("pending") == queued and not counts.get("delivered")
        pending = outbox.rows(f"SELECT mail_id, reason FROM {outbox.t('outbox')}")
        assert all(
            "Connection" in (r["reason"] or "") or "refused" in (r["reason"] or "") for r in pending
        ), pending
        # a decision meanwhile: it writes its event and returns; the mails wait in the outbox
        g = ledger.get_game(game.id)
        seat = g.awaiting[0]
        legal = g.engine.legal_decisions(g.state, seat)
        ledger.decide(g.id, ids[seat], g.version, legal[0].model_dump(mode="json"))
        services.refresh("notifications")
        services.channels.run_once()
        # the server comes back: every mail goes, after its backoff
        with smtp_server(port=port) as server:
            services.mail.now = lambda: datetime.now(UTC) + timedelta(minutes=5)
            services.mail.run_once()
            services.mail.run_once()
            assert outbox.counts().get("pending", 0) == 0
            got = server.inbox.to("ann@example.org") + server.inbox.to("bob@example.org")
            assert len(got) == outbox.counts()["delivered"] >= queued + 1
            attempts = outbox.attempts(pending[0]["mail_id"])
            assert [a["result"] for a in attempts] == ["pending", "delivered"], (
                "the delivery log keeps each attempt"
            )
    finally:
        services.close()


def test_a_finished_game_is_mailed_with_its_standings_and_disputes_and_undo_requests_too(
    world: World,
) -> None:
    ann = world.player("Ann", "ann@example.org")
    bob = world.player("Bob", "bob@example.org")
    game = world.game([ann, bob])
    ledger = world.services.ledger
    g = world.play(game, 2, random.Random(3))
    ledger.open_dispute(g.id, ann["player_id"], [1], "that draw looks wrong")
    world.deliver()
    opened = world.mails("bob@example.org", "A dispute")
    assert len(opened) == 1 and "opened a dispute" in text_of(opened[0])
    number = next(iter(ledger.get_game(g.id).disputes))
    ledger.resolve_dispute(g.id, int(number), "no_change", "the draw follows the seed")
    resolved = world.mails("ann@example.org", "was resolved")
    assert len(resolved) == 1 and "no change" in text_of(resolved[0])
    g = ledger.get_game(g.id)
    asker = g.seats[g.awaiting[0]]
    ledger.request_undo(g.id, asker, g.version)
    other = bob if asker == ann["player_id"] else ann
    address = "bob@example.org" if other is bob else "ann@example.org"
    undo = world.mails(address, "take back a decision")
    assert len(undo) == 1 and "your consent is needed" in text_of(undo[0])
    ledger.answer_undo(g.id, other["player_id"], False)
    g = world.play(g, 2000, random.Random(4))
    assert g.status == "finished"
    over = world.mails("bob@example.org", "is over")
    assert len(over) == 1
    text = text_of(over[0])
    assert "Standings:" in text and "1. " in text and "Ann" in text and "Bob" in text


def test_a_clock_below_a_fifth_of_its_time_is_mailed_once_until_a_move_lifts_it(world: World) -> None:
    ann = world.player("Ann", "ann@example.org")
    bob = world.player("Bob", "bob@example.org")
    control = {"preset": "custom", "initial_hours": 10, "increment_hours": 3, "cap_hours": 20}
    game = world.game([ann, bob], time_control=control)
    channels = world.services.channels
    assert channels is not None
    world.deliver()
    seat = game.awaiting[0]
    address = ("ann@example.org", "bob@example.org")[seat]
    world.clock.advance(hours=7, minutes=59)  # 2 h 01 min left: above 20 %
    assert channels.check_clocks() == 0
    world.clock.advance(minutes=2)  # 1 h 59 min left
    assert channels.check_clocks() == 1
    assert channels.check_clocks() == 0, "once"
    low = world.mails(address, "running low")
    assert len(low) == 1 and "Time left: 1 h 59 min" in text_of(low[0])
    assert f"{PUBLIC}/games/{game.id}" in text_of(low[0])
    world.play(game, 1, random.Random(5))  # the move adds 3 h: above again
    g = world.services.ledger.get_game(game.id)
    if seat in g.awaiting:
        assert channels.check_clocks() == 0


# -- Discord and Slack -----------------------------------------------------------------------------------

DISCORD_KEYS = {
    "content",
    "username",
    "avatar_url",
    "tts",
    "embeds",
    "allowed_mentions",
    "components",
    "flags",
}
SLACK_KEYS = {"text", "blocks", "attachments", "mrkdwn", "thread_ts"}


def assert_discord(body: dict[str, Any]) -> str:
    """Discord's "Execute Webhook": JSON with ``content`` (at most 2,000 characters), optional
    ``username`` (at most 80), ``allowed_mentions.parse`` among roles, users, everyone."""
    assert set(body) <= DISCORD_KEYS and isinstance(body["content"], str), body
    assert 0 < len(body["content"]) <= 2000 and len(body.get("username", "")) <= 80
    assert set(body["allowed_mentions"]["parse"]) <= {"roles", "users", "everyone"}
    return str(body["content"])


def assert_slack(body: dict[str, Any]) -> str:
    """Slack's incoming webhook: JSON with ``text`` (mrkdwn: &, <, > escaped; links as <url|label>)."""
    assert set(body) <= SLACK_KEYS and isinstance(body["text"], str) and body["text"], body
    bare = body["text"]
    for start in range(len(bare)):
        if bare[start] == "<":
            end = bare.index(">", start)
            assert "|" in bare[start:end] and bare[start + 1 : end].startswith("http"), bare
    return str(body["text"])


def test_a_players_discord_and_a_tables_slack_get_each_services_format(
    world: World, receiver: Receiver
) -> None:
    ann = world.player("Ann <script>alert(1)</script> @everyone")
    bob = world.player("Bob & co")
    r = world.put(
        "/me/chat-webhook", ann, {"service": "discord", "url": f"{receiver.url}/api/webhooks/1/ann"}
    )
    assert r.status_code == 200 and r.json()["chat"]["service"] == "discord"
    assert "/ann" not in r.json()["chat"]["url"], "the hook's secret part is not shown again"
    game = world.game([ann, bob])
    hook = {"service": "slack", "url": f"{receiver.url}/services/T0/B0/table"}
    r = world.put(f"/games/{game.id}/chat-webhook", bob, hook)
    assert r.status_code == 403 and assert_error_shape(r) == "game/not_creator"
    r = world.put(f"/games/{game.id}/chat-webhook", ann, hook)
    assert r.status_code == 200 and r.json()["service"] == "slack"
    seen = world.client.get(f"{API}/games/{game.id}/chat-webhook", headers=bearer(bob["token"]))
    assert seen.status_code == 200 and seen.json() == {"game_id": str(game.id), "service": "slack"}, (
        "not where"
    )
    seen = world.client.get(f"{API}/games/{game.id}/chat-webhook", headers=bearer(ann["token"])).json()
    assert seen["url"].startswith(receiver.url) and "table" not in seen["url"], "the secret part hidden"
    world.deliver()
    world.play(game, 4, random.Random(6))
    world.deliver()
    world.deliver()
    discord = [assert_discord(b) for b in receiver.bodies("/api/webhooks/1/ann")]
    slack = [assert_slack(b) for b in receiver.bodies("/services/T0/B0/table")]
    assert discord and slack
    link = f"{PUBLIC}/games/{game.id}"
    assert any("has started" in t for t in discord) and all(link in t for t in discord)
    assert any(body["allowed_mentions"] == {"parse": []} for body in receiver.bodies("/api/webhooks/1/ann"))
    assert slack[0].startswith(f"<{link}|{game_name('cotton-trade', str(game.id))}> has started")
    turns = [t for t in slack if "turn" in t]
    assert turns and all(t.startswith(f"<{link}#decide|") for t in turns), (
        "the post opens the game at the decision"
    )
    assert turns and all(("Ann &lt;script&gt;" in t or "Bob &amp; co" in t) for t in turns), turns
    assert "<script>" not in "".join(slack)
    assert sum("has started" in t for t in slack) == 1, "a table is told once per event and kind"
    assert not any("has started" in t and "turn" in t for t in slack)
    assert all("\\@everyone" in t and "\\<script\\>" in t for t in discord), (
        "Discord markdown and mentions escaped"
    )
    assert any(t.startswith("Ann ") and f"]({link})" in t for t in discord), "a masked link to the game"
    assert all(h.get("Content-Type") == "application/json" for _, _, h in receiver.posts)
    log = world.services.mail.outbox.rows(  # type: ignore[union-attr]
        f"SELECT kind, recipient, status FROM {world.services.mail.outbox.t('outbox')} WHERE kind LIKE 'chat/%%'"  # type: ignore[union-attr]
    )
    assert log and all(
        r["status"] == "delivered" and "/ann" not in r["recipient"] and "/table" not in r["recipient"]
        for r in log
    )
    r = world.client.delete(f"{API}/games/{game.id}/chat-webhook", headers=bearer(ann["token"]))
    assert r.status_code == 200 and r.json()["service"] is None
    r = world.client.delete(f"{API}/me/chat-webhook", headers=bearer(ann["token"]))
    assert r.status_code == 200 and r.json()["chat"] is None


def test_chat_posts_are_retried_on_5xx_and_429_and_given_up_on_other_answers(
    world: World, receiver: Receiver
) -> None:
    ann = world.player("Ann")
    bob = world.player("Bob")
    world.put("/me/chat-webhook", ann, {"service": "slack", "url": f"{receiver.url}/services/A/B/C"})
    world.put("/me/chat-webhook", bob, {"service": "discord", "url": f"{receiver.url}/api/webhooks/9/gone"})
    receiver.status[:] = [503] * 20
    world.game([ann, bob])
    world.services.refresh("notifications")
    assert world.services.channels is not None and world.services.mail is not None
    world.services.channels.run_once()
    world.services.mail.run_once()
    outbox = world.services.mail.outbox
    rows = outbox.rows(f"SELECT * FROM {outbox.t('outbox')} WHERE kind LIKE 'chat/%%' ORDER BY recipient")
    assert {r["status"] for r in rows} == {"pending"}, "503: tried again later"
    assert all(r["reason"] == "ConnectionError: HTTP 503" for r in rows)
    receiver.status[:] = [404] * 20
    world.services.mail.now = lambda: datetime.now(UTC) + timedelta(minutes=1)
    world.services.mail.run_once()
    rows = outbox.rows(f"SELECT * FROM {outbox.t('outbox')} WHERE kind LIKE 'chat/%%'")
    assert {r["status"] for r in rows} == {"failed"} and all("HTTP 404" in r["reason"] for r in rows)


@pytest.mark.parametrize(
    ("service", "url"),
    [
        ("discord", "http://discord.com/api/webhooks/1/abc"),  # not https
        ("discord", "https://discord.com.evil.example/api/webhooks/1/abc"),
        ("discord", "https://discord.com/api/users/1"),
        ("discord", "https://discord.com/api/webhooks/"),
        ("discord", "https://user:pw@discord.com/api/webhooks/1/abc"),
        ("discord", "https://discord.com:8443/api/webhooks/1/abc"),
        ("slack", "https://hooks.slack.com.evil.example/services/T/B/x"),
        ("slack", "https://hooks.slack.com/other/T/B/x"),
        ("slack", "https://127.0.0.1/services/T/B/x"),
        ("slack", "https://hooks.slack.com/services/T/B/x y"),
        ("teams", "https://example.org/hook"),
        ("discord", "https://[discord.com/api/webhooks/1/abc"),
        ("discord", "https://discord.com:99999/api/webhooks/1/abc"),
    ],
)
def test_only_each_services_own_hook_addresses_are_taken(service: str, url: str) -> None:
    with pytest.raises(InvalidRequestError) as err:
        check_chat_url(service, url)
    assert err.value.code == "request/invalid_chat_webhook"


def test_the_services_real_hook_addresses_are_taken() -> None:
    assert check_chat_url("discord", "https://discord.com/api/webhooks/123/tok-en_1")
    assert check_chat_url("discord", "https://discordapp.com/api/webhooks/123/tok")
    assert check_chat_url("slack", "https://hooks.slack.com/services/T000/B000/XXXX")
    slack = "https://hooks.slack.com/services/T000/B000/abcdefghijklmnopqrstuvwx"
    assert mask_url(slack) == "https://hooks.slack.com/services/T000/B000/…"
    discord = "https://discord.com/api/webhooks/123456789012345678/" + "t" * 68
    assert mask_url(discord) == "https://discord.com/api/webhooks/123456789012345678/…"
    assert check_chat_url("slack", "http://127.0.0.1:9/services/x", lambda host: host == "127.0.0.1")


def test_hooks_keep_the_address_rules_when_saved_and_when_posted(world: World) -> None:
    """Same rules as the webhooks (api/outbound.py): a hook at an inside address is refused unless
    the operator allows it, and a service's name that resolves inside at delivery is never posted to."""
    from api.outbound import OutboundPolicy

    ann = world.player("Ann")
    bob = world.player("Bob")
    for url in (
        "http://10.0.0.5/services/T/B/x",
        "https://[::1]/services/T/B/x",
        "http://0x0a000005/services/x",
    ):
        r = world.put("/me/chat-webhook", ann, {"service": "slack", "url": url})
        assert r.status_code == 422 and assert_error_shape(r) == "request/invalid_chat_webhook", url
    r = world.put(
        "/me/chat-webhook", ann, {"service": "discord", "url": "https://discord.com/api/webhooks/1/x"}
    )
    assert r.status_code == 200, r.text
    # at delivery, discord.com resolves to a loopback address (DNS rebinding): refused, given up at once
    assert world.services.mail is not None
    world.services.mail.chat.policy = OutboundPolicy(resolver=lambda host, port: ["127.0.0.1"])
    world.game([ann, bob])
    world.deliver()
    outbox = world.services.mail.outbox
    rows = outbox.rows(f"SELECT status, reason, attempts FROM {outbox.t('outbox')} WHERE kind LIKE 'chat/%%'")
    assert rows and all(r["status"] == "failed" and r["attempts"] == 1 for r in rows), rows
    assert all(r["reason"].startswith("refused: discord.com resolves to 127.0.0.1") for r in rows), rows


def test_a_server_upgraded_to_mail_notifications_mails_none_from_before(
    world: World, database_url: str
) -> None:
    """Migration 4 starts the scan at the notifications already written: no flood of old news."""
    from api.migrations import MIGRATIONS
    from ledger.storage import parse_database_url

    ann = world.player("Ann", "ann@example.org")
    bob = world.player("Bob", "bob@example.org")
    world.game([ann, bob])
    world.services.refresh("notifications")
    channels = world.services.channels
    assert channels is not None
    store = channels.store
    with store.datastore.transaction(commit=True) as c:  # as before the upgrade: no cursor, no store
        store.execute(c, f"DELETE FROM {store.t('cursor')}")
    (channels_migration,) = [m for m in MIGRATIONS if m.version == 4]
    channels_migration.apply(parse_database_url(database_url))
    assert store.cursor("channels") > 0
    assert (
        world.mails("ann@example.org", "has started") == []
        and world.mails("bob@example.org", "Your turn") == []
    )
    world.game([bob, ann])
    assert len(world.mails("ann@example.org", "has started")) == 1, "what comes after is mailed"


def test_a_turn_mail_links_that_sign_in_for_a_player_who_chose_them_once_and_only_a_games_newest(
    world: World,
) -> None:
    ann = world.player("Ann", "ann@example.org")
    bob = world.player("Bob", "bob@example.org")
    r = world.put("/me/notifications/channels", ann, {"signin_links": True})
    assert r.status_code == 200 and r.json()["signin_links"] is True
    assert (
        world.client.get(f"{API}/me/notifications/channels", headers=bearer(bob["token"])).json()[
            "signin_links"
        ]
        is False
    ), "off unless chosen"
    game = world.game([ann, bob])
    rnd = random.Random(31)
    for _ in range(12):
        if len(world.mails("ann@example.org", "Your turn")) >= 2 and world.mails(
            "bob@example.org", "Your turn"
        ):
            break
        game = world.play(game, 1, rnd)
    turns = world.mails("ann@example.org", "Your turn")
    assert len(turns) >= 2
    assert all("#decide&signin=glk_" in text_of(m) for m in turns), "Ann's turn links sign in"
    assert all("signin=" not in text_of(m) for m in world.mails("bob@example.org", "Your turn")), (
        "Bob's do not"
    )
    older, newest = (text_of(m).split("signin=")[1].split()[0] for m in turns[-2:])
    world.client.cookies.clear()
    r = world.client.post(f"{API}/sessions", json={"link": older})
    assert r.status_code == 409 and r.json()["code"] == "link/used", (
        "a newer turn link of the game replaced it"
    )
    r = world.client.post(f"{API}/sessions", json={"link": newest})
    assert r.status_code == 201, r.text
    assert r.json()["player_id"] == ann["player_id"] and r.json()["opened_with"] == "mail_link", (
        "no recovery powers"
    )
    world.client.cookies.clear()
    r = world.client.post(f"{API}/sessions", json={"link": newest})
    assert r.status_code == 409 and r.json()["code"] == "link/used", "once"
    r = world.put("/me/notifications/channels", ann, {"signin_links": False})
    assert r.json()["signin_links"] is False

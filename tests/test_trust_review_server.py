"""Trust, second pass (issue 16), the server: webhooks that cannot reach inside the network,
snapshots checked against the recorded digests, one rate-limit bucket per player however the
header is spelt, and digests anyone can read (items 2, 4, 5 and 9)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from api.outbound import NOT_PUBLIC, OutboundPolicy, OutboundRefused
from api.services import Services
from api.settings import Settings, explain
from tests.api_helpers import API

ADMIN = "test-admin-token-0123456789"


# -- item 2: webhooks do not reach inside the network --------------------------------------


class Receiver:
    """An HTTP server on 127.0.0.1 answering every POST with ``answer`` (status, headers, body)."""

    def __init__(self, status: int = 200, headers: dict[str, str] | None = None, body: bytes = b"") -> None:
        self.answer = (status, headers or {}, body)
        self.received: list[dict[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                outer.received.append(dict(self.headers))
                status, headers, body = outer.answer
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def player(client: TestClient) -> dict[str, str]:
    made = client.post(f"{API}/players", json={"name": "Hooked"}).json()
    return {"Authorization": f"Bearer {made['token']}", "player_id": made["player_id"]}


def save_hook(client: TestClient, who: dict[str, str], url: str) -> Any:
    headers = {"Authorization": who["Authorization"]}
    return client.put(f"{API}/me/notifications/settings", json={"webhook_url": url}, headers=headers)


def notify(services: Services, player_id: str) -> list[dict[str, Any]]:
    """Start a game for the player (a game_started notification), run the webhooks, return the log."""
    other = str(services.ledger.register_player("Other")[0])
    services.ledger.create_game(creator=player_id, title="cotton-trade", players=[player_id, other])
    services.refresh("notifications")
    services.webhooks.run_once()
    return list(services.view("notifications").attempts(player_id))


INSIDE = [
    "http://127.0.0.1:1/x",
    "http://localhost:8000/api/v1/admin/audit",
    "http://2130706433/",  # 127.0.0.1 in decimal
    "http://0177.0.0.1/",  # octal
    "http://0x7f.0.0.1/",  # hex
    "http://127.1/",  # the short form
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped
    "http://[::ffff:7f00:1]/",
    "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
    "http://[2002:c0a8:101::1]/",  # 6to4 of 192.168.1.1
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",  # the cloud's metadata service
    "http://[fe80::1]/",
    "http://100.64.0.1/",  # carrier-grade NAT
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://0.0.0.0/",
    "http://0/",
    "http://[::]/",
    "http://240.0.0.1/",  # reserved
    "https://user@127.0.0.1:443/",
]


@pytest.mark.parametrize("url", INSIDE)
def test_a_policy_refuses_every_spelling_of_an_inside_address(url: str) -> None:
    with pytest.raises(OutboundRefused) as refused:
        OutboundPolicy().vet(url)
    assert refused.value.code == NOT_PUBLIC
    assert OutboundPolicy().vet("http://93.184.216.34/x").addresses == ("93.184.216.34",)


def test_saving_an_inside_webhook_is_refused_with_a_stable_code_and_changes_nothing(
    client: TestClient,
) -> None:
    who = player(client)
    for url in INSIDE:
        r = save_hook(client, who, url)
        assert r.status_code == 422 and r.json()["code"] == NOT_PUBLIC, (url, r.text)
    r = save_hook(client, who, "ftp://example.org/")
    assert r.status_code == 422, r.text
    settings = client.get(f"{API}/me/notifications/settings", headers={"Authorization": who["Authorization"]})
    assert settings.json()["webhook_url"] is None
    assert save_hook(client, who, "https://hooks.example.test/mine").status_code == 200, (
        "a public name is kept"
    )


def test_a_webhook_stored_before_the_check_is_refused_when_sent(
    services: Services, receiver: Receiver
) -> None:
    pid = str(services.ledger.register_player("Old")[0])
    services.ledger.set_notifications(pid, ["game_started"], receiver.url)  # as a store from before may hold
    attempts = notify(services, pid)
    assert receiver.received == [], "nothing was posted to the loopback address"
    assert [a["status"] for a in attempts] == [None]
    assert attempts[0]["error"].startswith("refused: ") and "loopback" in attempts[0]["error"]
    hook = next(
        n["webhook"] for n in services.view("notifications").recent(pid) if n["kind"] == "game_started"
    )
    assert hook["status"] == "failed", "a refused address is not retried"


class Rebinding:
    """A name that resolves to a public address when saved and to ``later`` afterwards."""

    def __init__(self, later: list[str]) -> None:
        self.later = later
        self.calls: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        return ["93.184.216.34"] if len(self.calls) == 1 else self.later


@pytest.mark.parametrize("later", [["127.0.0.1"], ["93.184.216.34", "10.0.0.7"], ["::ffff:169.254.169.254"]])
def test_dns_rebinding_is_caught_when_sent_every_address_vetted(
    client: TestClient, services: Services, receiver: Receiver, later: list[str]
) -> None:
    services.outbound = services.webhooks.policy = OutboundPolicy(resolver=Rebinding(later))
    services.webhooks.sender = services.webhooks.policy.post
    who = player(client)
    assert save_hook(client, who, f"http://rebind.example.test:{receiver.port}/hook").status_code == 200
    attempts = notify(services, who["player_id"])
    assert receiver.received == []
    assert attempts[0]["error"].startswith("refused: ")
    shown = client.get(f"{API}/me/notifications", headers={"Authorization": who["Authorization"]}).json()
    assert shown["webhook_attempts"][0]["error"].startswith("refused: rebind.example.test resolves to ")


def test_the_post_goes_to_the_vetted_address_without_resolving_again(
    services: Services, receiver: Receiver
) -> None:
    calls: list[str] = []
    services.webhooks.policy = OutboundPolicy(
        allow_networks=OutboundPolicy.from_settings(Settings(outbound_allow="127.0.0.1")).allow_networks,
        resolver=lambda host, port: calls.append(host) or ["127.0.0.1"],
    )
    services.webhooks.sender = services.webhooks.policy.post
    pid = str(services.ledger.register_player("Pinned")[0])
    services.ledger.set_notifications(
        pid, ["game_started"], f"http://pinned.example.test:{receiver.port}/hook"
    )
    attempts = notify(services, pid)
    assert [a["status"] for a in attempts] == [200]
    assert calls == ["pinned.example.test"], "resolved once, by the check; the connection used its answer"
    assert receiver.received[0]["Host"] == f"pinned.example.test:{receiver.port}"


@pytest.fixture
def allowed(database_url: str) -> Iterator[Services]:
    svc = Services.start(Settings(database_url=database_url, admin_token=ADMIN, outbound_allow="127.0.0.1"))
    yield svc
    svc.close()


def test_the_operators_allow_list_lets_the_local_receiver_in_and_redirects_are_not_followed(
    allowed: Services, receiver: Receiver
) -> None:
    elsewhere = Receiver()
    try:
        receiver.answer = (302, {"Location": elsewhere.url}, b"")
        pid = str(allowed.ledger.register_player("Allowed")[0])
        allowed.ledger.set_notifications(pid, ["game_started"], receiver.url)
        attempts = notify(allowed, pid)
        assert len(receiver.received) == 1 and elsewhere.received == [], "the redirect was not followed"
        assert attempts[0]["status"] == 302 and attempts[0]["error"] == "HTTP 302"
    finally:
        elsewhere.close()


def test_the_delivery_log_keeps_a_reason_never_the_targets_answer(
    allowed: Services, receiver: Receiver
) -> None:
    receiver.answer = (500, {"Content-Type": "text/plain"}, b"db password: hunter2 (internal page)")
    pid = str(allowed.ledger.register_player("Logged")[0])
    allowed.ledger.set_notifications(pid, ["game_started"], receiver.url)
    attempts = notify(allowed, pid)
    assert attempts[0]["error"] == "HTTP 500" and "hunter2" not in repr(attempts)
    closed = Receiver()
    closed.close()  # nothing listens at its port any more
    allowed.ledger.set_notifications(pid, ["game_started"], closed.url)
    attempts = notify(allowed, pid)
    assert attempts[0]["error"] == "connection refused"


def test_the_allow_list_setting_is_checked_at_start() -> None:
    assert Settings(outbound_allow="hooks.internal, 10.1.0.0/16 ::1").outbound_allow
    with pytest.raises(ValidationError) as bad:
        Settings(outbound_allow="10.0.0.0/8, not a host!")
    assert "GAMELEDGER_OUTBOUND_ALLOW" in explain(bad.value)
    policy = OutboundPolicy.from_settings(Settings(outbound_allow="Hooks.Internal"))
    assert policy.vet("http://hooks.internal/x", unresolved_ok=True).host == "hooks.internal"

"""Trust, second pass (issue 16), the server: webhooks that cannot reach inside the network,
snapshots checked against the recorded digests, one rate-limit bucket per player however the
header is spelt, and digests anyone can read (items 2, 4, 5 and 9)."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from uuid import UUID

import psycopg
import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from pydantic import ValidationError

from api.app import create_app
from api.outbound import NOT_PUBLIC, OutboundPolicy, OutboundRefused
from api.services import Services
from api.settings import Settings, explain
from ledger.audit import audit_game
from tests.api_helpers import API
from tests.test_audit import uid

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
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.received.append({"method": self.command, **self.headers})
                status, headers, body = outer.answer
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # a followed redirect may arrive as a GET
                self.do_POST()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}/hook"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

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


# -- item 4: a changed snapshot is thrown away -----------------------------------------------


def snapshot_sql(services: Services, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Run ``sql`` on the snapshot table behind the ledger's back, as an intruder would."""
    db = services.db
    sql = sql.format(table=services.ledger.snapshots.recorder.events_table_name)  # type: ignore[union-attr]
    if db.kind == "sqlite":
        with sqlite3.connect(db.sqlite_path) as conn:
            return conn.execute(sql, params).fetchall()
    with psycopg.connect(db.conninfo(), autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{db.schema}"')
        cur = conn.execute(sql.replace("?", "%s"), params)
        return cur.fetchall() if cur.description else []


def change_latest_snapshot(services: Services, gid: str, change: Callable[[dict[str, Any]], None]) -> int:
    version, state = snapshot_sql(
        services,
        "SELECT originator_version, state FROM {table} WHERE originator_id = ? ORDER BY originator_version DESC",
        (uid(services, gid),),
    )[0]
    doc = json.loads(bytes(state))
    before = json.dumps(doc, sort_keys=True)
    change(doc["state"])
    assert json.dumps(doc, sort_keys=True) != before, "the change changes the snapshot"
    snapshot_sql(
        services,
        "UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
        (json.dumps(doc).encode(), uid(services, gid), version),
    )
    return int(version)


def water_frame_past_a_snapshot(services: Services) -> tuple[str, list[str]]:
    """An active Water Frame game a few decisions past its second snapshot (every 20 events)."""
    ledger = services.ledger
    ids = [str(ledger.register_player(f"P{i}")[0]) for i in range(3)]
    game = ledger.create_game(creator=ids[0], title="water-frame", players=ids)
    rnd = random.Random(3)
    while game.version < 45:
        seat = game.awaiting[0]
        legal = game.engine.legal_decisions(game.state, seat)
        ledger.decide(game.id, ids[seat], game.version, rnd.choice(legal).model_dump(mode="json"))
        game = ledger.get_game(game.id)
    assert game.status == "active"
    return str(game.id), ids


def swap_two_hidden_cards(state: dict[str, Any]) -> None:
    deck = state["state"]["events"]  # the face-down event deck
    deck[0], deck[1] = deck[1], deck[0]


def change_coins(state: dict[str, Any]) -> None:
    state["state"]["players"][1]["cash"] += 25


def await_another_seat(state: dict[str, Any]) -> None:
    state["awaiting"] = [(state["awaiting"][0] + 1) % 3]


def discarded() -> float:
    return REGISTRY.get_sample_value("gameledger_snapshots_discarded_total") or 0.0


@pytest.mark.parametrize("change", [swap_two_hidden_cards, change_coins, await_another_seat])
def test_a_changed_snapshot_is_thrown_away_and_the_true_position_served(
    settings: Settings, services: Services, change: Callable[[dict[str, Any]], None]
) -> None:
    gid, ids = water_frame_past_a_snapshot(services)
    truth = services.ledger.get_game(gid)
    true_state = truth.engine.state_adapter.dump_python(truth.state, mode="json")
    at = change_latest_snapshot(services, gid, change)
    assert at % 20 == 0 and at < truth.version
    before = discarded()
    fresh = Services.start(settings)
    try:
        with TestClient(create_app(settings, fresh)) as client:
            health = client.get("/health").json()  # the sample finds it before any load
            assert health["status"] == "tampered"
            assert any(f"snapshot at version {at} disagrees" in r and gid in r for r in health["reasons"])
            game = fresh.ledger.get_game(gid)
            assert game.engine.state_adapter.dump_python(game.state, mode="json") == true_state
            assert game.awaiting == truth.awaiting and game.version == truth.version
            assert discarded() == before + 1
            for _ in range(2):  # loaded again from the store: the snapshot is passed over, not recounted
                again = fresh.ledger.repository.get(UUID(gid), version=truth.version)
                assert again.engine.state_adapter.dump_python(again.state, mode="json") == true_state
            assert discarded() == before + 1
            health = client.get("/health").json()
            assert any("snapshot discarded at load" in r and gid in r for r in health["reasons"]), health
            audit = audit_game(fresh.ledger, gid, None, full_view=True)
            check = next(c for c in audit["checks"] if c["name"] == "every snapshot agrees with the record")
            assert not check["ok"] and f"version {at}" in check["detail"] and not audit["ok"]
            seat = game.awaiting[0]
            legal = game.engine.legal_decisions(game.state, seat)
            move = legal[0].model_dump(mode="json")
            fresh.ledger.decide(gid, ids[seat], game.version, move)  # the rightful player may move
    finally:
        fresh.close()


def test_a_snapshot_that_no_longer_decodes_is_thrown_away_too(settings: Settings, services: Services) -> None:
    gid, _ = water_frame_past_a_snapshot(services)
    truth = services.ledger.get_game(gid)
    snapshot_sql(
        services,
        "UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
        (b"{not json", uid(services, gid), 40),
    )
    fresh = Services.start(settings)
    try:
        game = fresh.ledger.get_game(gid)
        assert (game.version, game.head_hash, game.awaiting) == (
            truth.version,
            truth.head_hash,
            truth.awaiting,
        )
        integrity = fresh.integrity()
        assert not integrity["ok"] and all("does not decode" in p["problem"] for p in integrity["problems"])
        assert len(integrity["problems"]) == 2, "found by the sample, and discarded at load"
    finally:
        fresh.close()


def test_an_untouched_snapshot_is_used_and_the_audit_and_health_pass(
    settings: Settings, services: Services
) -> None:
    gid, _ = water_frame_past_a_snapshot(services)
    before = discarded()
    fresh = Services.start(settings)
    try:
        assert fresh.ledger.get_game(gid).version >= 45 and discarded() == before
        assert audit_game(fresh.ledger, gid, None, full_view=True)["ok"]
        integrity = fresh.integrity()
        assert integrity["ok"] and integrity["checked_games"] == 1
    finally:
        fresh.close()


def test_the_health_sample_covers_the_private_parts(settings: Settings, services: Services) -> None:
    from tests.test_audit import row, tamper

    gid, _ = water_frame_past_a_snapshot(services)
    game = services.ledger.get_game(gid)
    version = next(
        e.originator_version
        for e in services.ledger.events.get(game.id)  # type: ignore[attr-defined]
        if e.private.get("server") and e.originator_version > 1
    )
    stored = json.loads(row(services, gid, version))
    stored["private"]["server"]["changed"] = True  # the hash chain does not cover it; its commitment does
    tamper(
        services,
        "UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
        (json.dumps(stored).encode(), uid(services, gid), version),
    )
    with TestClient(create_app(settings, services)) as client:
        health = client.get("/health").json()
    assert health["status"] == "tampered"
    assert [p["version"] for p in health["ledger_integrity"]["problems"]] == [version]
    assert "private parts: 0 missing, 1 not as committed" in health["reasons"][0]


# -- item 5: one rate-limit bucket per player ------------------------------------------------


def test_the_decision_limit_is_one_bucket_per_player_however_the_header_is_spelt(
    settings: Settings, services: Services
) -> None:
    limited = settings.model_copy(update={"decision_rate": 0.5, "decision_burst": 4})
    with TestClient(create_app(limited, services)) as client:
        creator, flooder, other = (client.post(f"{API}/players", json={"name": n}).json() for n in "ABC")
        game = client.post(
            f"{API}/games",
            json={"title": "cotton-trade", "seats": 2},
            headers={"Authorization": f"Bearer {creator['token']}"},
        ).json()
        url = f"{API}/games/{game['game_id']}/decisions"
        body = {"expected_version": 1, "decision": {}}
        token = flooder["token"]
        spellings = [f"Bearer {token}", f"bearer {token}", f"BEARER {token}", f"Bearer  {token}"]
        answers = [client.post(url, json=body, headers={"Authorization": a}).status_code for a in spellings]
        assert answers == [403, 403, 403, 403], "each spelling authenticates (not seated: refused, counted)"
        for spelling in spellings:
            r = client.post(url, json=body, headers={"Authorization": spelling})
            assert r.status_code == 429 and r.json()["code"] == "request/rate_limited", spelling
            assert 1 <= int(r.headers["retry-after"]) <= 2, (
                "rounded up; less once the bucket refilled under load"
            )
        second = client.post(
            f"{API}/me/tokens", json={"name": "another device"}, headers={"Authorization": f"Bearer {token}"}
        ).json()["token"]
        r = client.post(url, json=body, headers={"Authorization": f"Bearer {second}"})
        assert r.status_code == 429, "another token of the same player shares the bucket"
        r = client.post(url, json=body, headers={"Authorization": f"Bearer {other['token']}"})
        assert r.status_code == 403, "another player has a bucket of their own"


# -- item 9: the published digests need no token ---------------------------------------------


def test_the_digests_are_public_read_only_and_rate_limited_per_client(
    settings: Settings, services: Services
) -> None:
    from ledger.conformance import ledger_playout

    finished = ledger_playout(services.ledger, "cotton-trade", 2, seed=5)
    limited = settings.model_copy(update={"public_read_rate": 0.5, "public_read_burst": 3})
    with TestClient(create_app(limited, services)) as client:
        digest = client.get(f"{API}/ledger/digest", params={"game": finished.game_id})
        assert digest.status_code == 200, digest.text
        assert digest.json()["proof"]["leaf"]["game"] == finished.game_id
        listed = client.get(f"{API}/ledger/digests")
        assert listed.status_code == 200 and listed.json()["digests"][0]["root"] == digest.json()["root"]
        key = client.get(f"{API}/ledger/public-key")
        assert key.status_code == 200 and key.json()["public_key"] == digest.json()["public_key"]
        for method in ("POST", "PUT", "DELETE"):
            assert client.request(method, f"{API}/ledger/digest").status_code == 405, "read-only"
        refused = client.get(f"{API}/ledger/digests")
        assert refused.status_code == 429 and refused.json()["code"] == "request/rate_limited"
        assert 1 <= int(refused.headers["retry-after"]) <= 2, (
            "rounded up; less once the bucket refilled under load"
        )
        assert client.get(f"{API}/ledger/public-key").status_code == 429, "one bucket for the three routes"
        assert client.get("/health").status_code == 200, "other reads are not counted"

"""Authentication and authorisation (issue 10): every endpoint of the application, enumerated
from its routes, called as {no token, a wrong token, another seat, a spectator, the operator}.

Every route must be classified below (a new endpoint fails the test until it is): who may call
it, and what each kind of caller must get. Nobody acts for another seat (refused, and nothing is
written to the store), nobody sees another seat's private state (each read is exactly the
caller's own view), operator-only operations are operator-only, nobody revokes another player's
token or session, and a cookie without the page's anti-forgery proof never authorises a write.
Tokens are stored only as hashes and compared in constant time."""

from __future__ import annotations

import contextlib
import inspect
import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psycopg
from fastapi import FastAPI
from fastapi.testclient import TestClient

from ledger.storage import parse_database_url
from tests.api_helpers import API, AtTable, Table
from tests.trust_world import ADMIN_TOKEN, assert_error_shape, bearer

ROLES = ("none", "wrong_token", "other_seat", "spectator", "admin")

# Who may call what. "public": anyone; "player": any valid token, public information or the
# caller's own doing; "view": any valid token, answered with exactly the caller's own view of a
# game; "self": the caller's own account; "seated": a player holding a seat of the game;
# "act": only the awaited seat; "organiser": the league's organiser (or the operator);
# "admin": the operator only; "page": a web page, signed in by cookie; "own": one of the caller's
# own tokens or sessions by its id (called with another player's id: not found, nothing ends);
# "talk": a game's table talk, read by its seats and the operator only (no spectators unless the
# creator allows them); "creator": the game's creator (or the operator); "adjudicator": who rules
# on the game's disputes, the organiser of its league (or the operator), never a player of it;
# "party", "party_page": a dispute, for its game's players, whoever rules on it and the operator
# (tests/test_dispute_pages.py walks a league's roles: its organiser, another league's).
POLICY: dict[tuple[str, str], str] = {
    ("GET", "/openapi.json"): "public",
    ("GET", "/docs"): "public",
    ("GET", "/static"): "public",
    ("GET", "/docs-static"): "public",
    ("GET", "/health"): "public",
    ("GET", "/api/v1/health"): "public",
    ("GET", "/live"): "public",  # probes and metrics: keep them off the public proxy (deploy/README.md)
    ("GET", "/ready"): "public",
    ("GET", "/metrics"): "public",
    ("POST", "/api/v1/players"): "public",
    ("POST", "/api/v1/sessions"): "public",
    ("POST", "/api/v1/players/recover"): "public",
    ("POST", "/api/v1/players/confirm-email"): "public",
    ("GET", "/account/confirm"): "public",
    ("GET", "/account/recover"): "public",
    ("GET", "/api/v1/ledger/public-key"): "public",
    ("GET", "/api/v1/ledger/digest"): "public",  # published so that anyone can check a record
    ("GET", "/api/v1/ledger/digests"): "public",
    ("GET", "/"): "public",
    ("GET", "/signup"): "public",
    ("GET", "/api/v1/me"): "self",
    ("GET", "/api/v1/me/turns"): "self",
    ("GET", "/api/v1/me/waiting"): "self",
    ("GET", "/api/v1/me/vacation"): "self",
    ("POST", "/api/v1/me/vacation"): "self",
    ("DELETE", "/api/v1/me/vacation"): "self",
    ("GET", "/api/v1/me/notifications/settings"): "self",
    ("PUT", "/api/v1/me/notifications/settings"): "self",
    ("GET", "/api/v1/me/notifications"): "self",
    ("GET", "/api/v1/me/notifications/channels"): "self",
    ("PUT", "/api/v1/me/notifications/channels"): "self",
    ("PUT", "/api/v1/me/chat-webhook"): "self",
    ("DELETE", "/api/v1/me/chat-webhook"): "self",
    ("GET", "/api/v1/games/{game_id}/chat-webhook"): "player",  # where it posts: the creator's to see
    ("PUT", "/api/v1/games/{game_id}/chat-webhook"): "creator",
    ("DELETE", "/api/v1/games/{game_id}/chat-webhook"): "creator",
    ("GET", "/unsubscribe/{token}"): "public",  # the token is the authority (signed by the player's secret)
    ("POST", "/unsubscribe/{token}"): "public",
    ("GET", "/api/v1/me/stream"): "self",
    ("GET", "/api/v1/me/sessions"): "self",
    ("POST", "/api/v1/me/email"): "self",
    ("DELETE", "/api/v1/me/email"): "self",
    ("PUT", "/api/v1/me/password"): "self",
    ("GET", "/api/v1/me/tokens"): "self",
    ("POST", "/api/v1/me/tokens"): "self",
    ("DELETE", "/api/v1/me/tokens/{token_id}"): "own",
    ("DELETE", "/api/v1/me/sessions/{session_id}"): "own",
    ("GET", "/api/v1/titles"): "player",
    ("POST", "/api/v1/games"): "player",
    ("GET", "/api/v1/games"): "player",
    ("POST", "/api/v1/games/{game_id}/join"): "player",
    ("POST", "/api/v1/games/{game_id}/invitations"): "creator",  # called on a waiting game of the creator's
    ("GET", "/api/v1/games/{game_id}/invitations"): "creator",
    ("DELETE", "/api/v1/games/{game_id}/invitations/{number}"): "creator",
    ("POST", "/api/v1/games/{game_id}/seats/{seat}/open"): "creator",
    # the caller's own invitation, or a link's
    ("POST", "/api/v1/games/{game_id}/invitations/accept"): "player",
    ("GET", "/invitation/{game_id}"): "public",  # the link's page: signs up or in, then takes the seat
    ("GET", "/api/v1/games/{game_id}/scoreboard"): "player",
    ("GET", "/api/v1/games/{game_id}/share-values"): "player",
    ("GET", "/api/v1/games/{game_id}/share-values.svg"): "player",
    ("GET", "/api/v1/games/{game_id}/disputes"): "player",
    ("GET", "/api/v1/games/{game_id}/disputes/{number}"): "party",
    ("GET", "/api/v1/disputes"): "player",  # the caller's own queue
    ("POST", "/api/v1/games/{game_id}/forks"): "player",
    ("POST", "/api/v1/leagues"): "player",
    ("GET", "/api/v1/leagues"): "player",
    ("GET", "/api/v1/leagues/{league}"): "player",
    ("GET", "/api/v1/players/{player_id}/stats"): "player",
    ("GET", "/api/v1/titles/{title}/stats"): "player",
    ("GET", "/api/v1/games/{game_id}"): "view",
    ("GET", "/api/v1/games/{game_id}/events"): "view",
    ("GET", "/api/v1/games/{game_id}/state"): "view",
    ("GET", "/api/v1/games/{game_id}/export"): "view",
    ("GET", "/api/v1/games/{game_id}/audit"): "view",
    ("GET", "/api/v1/games/{game_id}/stream"): "view",
    ("POST", "/api/v1/games/{game_id}/disputes"): "seated",
    ("POST", "/api/v1/games/{game_id}/messages"): "seated",
    ("GET", "/api/v1/games/{game_id}/messages"): "talk",
    ("PUT", "/api/v1/games/{game_id}/messages/settings"): "creator",
    ("POST", "/api/v1/games/{game_id}/messages/{number}/hide"): "admin",
    ("GET", "/api/v1/games/{game_id}/orders"): "seated",  # the caller's own seat's, private
    ("PUT", "/api/v1/games/{game_id}/orders"): "seated",
    ("DELETE", "/api/v1/games/{game_id}/orders"): "seated",
    ("GET", "/api/v1/games/{game_id}/replies"): "seated",
    ("PUT", "/api/v1/games/{game_id}/replies"): "seated",
    ("DELETE", "/api/v1/games/{game_id}/replies"): "seated",
    ("POST", "/api/v1/games/{game_id}/return"): "act",  # only a seat the stand-in plays
    ("POST", "/api/v1/games/{game_id}/decisions"): "act",
    ("POST", "/api/v1/games/{game_id}/decisions/preview"): "act",  # the decision's own checks
    ("POST", "/api/v1/games/{game_id}/undo"): "act",
    ("POST", "/api/v1/games/{game_id}/undo/request"): "act",
    ("POST", "/api/v1/games/{game_id}/undo/answer"): "act",
    ("POST", "/api/v1/leagues/{league}/games"): "organiser",
    ("POST", "/api/v1/leagues/{league}/close"): "organiser",
    ("POST", "/api/v1/leagues/{league}/admission"): "organiser",
    ("POST", "/api/v1/leagues/{league}/members"): "organiser",
    ("DELETE", "/api/v1/leagues/{league}/members/{player_id}"): "organiser",
    ("POST", "/api/v1/leagues/{league}/seasons"): "organiser",
    ("GET", "/api/v1/leagues/{league}/seasons"): "player",
    ("GET", "/api/v1/leagues/{league}/seasons/{number}"): "player",
    ("POST", "/api/v1/leagues/{league}/seasons/{number}/signup"): "player",  # the caller signs up
    ("POST", "/api/v1/leagues/{league}/seasons/{number}/players"): "organiser",
    ("POST", "/api/v1/leagues/{league}/seasons/{number}/rounds"): "organiser",
    ("GET", "/api/v1/leagues/{league}/export"): "player",  # the league's public record
    ("POST", "/api/v1/games/{game_id}/abandon"): "admin",
    ("POST", "/api/v1/games/{game_id}/disputes/{number}/resolve"): "adjudicator",
    ("POST", "/api/v1/admin/clocks/tick"): "admin",
    ("POST", "/api/v1/admin/webhooks/run"): "admin",
    ("POST", "/api/v1/admin/resimulate"): "admin",
    ("POST", "/api/v1/admin/games/{game_id}/migrate"): "admin",
    ("GET", "/lobby"): "page",
    ("GET", "/games/new"): "page",
    ("GET", "/games/{game_id}"): "page",
    ("GET", "/games/{game_id}/forms"): "page",
    ("GET", "/games/{game_id}/replay"): "page",
    ("GET", "/games/{game_id}/audit"): "page",
    ("GET", "/games/{game_id}/disputes/{number}"): "party_page",
    ("GET", "/disputes"): "page",
    ("GET", "/settings"): "page",
    ("GET", "/leagues"): "page",
    ("GET", "/leagues/{league}"): "page",
    ("GET", "/players/{player_id}"): "page",
    ("GET", "/players/{player_id}/{name}.csv"): "page",
    ("GET", "/leagues/{league}/{name}.csv"): "page",
    ("GET", "/titles/{title}"): "page",
    ("GET", "/titles/{title}/{name}.csv"): "page",
}


def all_routes(app: FastAPI) -> set[tuple[str, str]]:
    """(method, path) of every route the application serves, however routers were included."""
    out: set[tuple[str, str]] = set()

    def walk(routes: Any, prefix: str) -> None:
        for route in routes:
            if hasattr(route, "original_router") and hasattr(route, "include_context"):
                walk(route.original_router.routes, prefix + route.include_context.prefix)
            elif hasattr(route, "methods") and hasattr(route, "path"):
                out.update((m, prefix + route.path) for m in route.methods or () if m != "HEAD")
            elif hasattr(route, "path"):  # a mounted sub-application (the static files)
                out.add(("GET", prefix + route.path))

    walk(app.routes, "")
    return out


@dataclass
class Matrix(AtTable):
    spectator: dict[str, Any]
    league: dict[str, Any]
    waiting: str
    dispute: int
    throwaway: str
    said: str = "the table's first message"
    inviting: str = ""  # a waiting game of the creator's, for the invitation routes
    others: dict[str, str] = field(default_factory=dict)  # another player's token id and session
    tally: Counter[str] = field(default_factory=Counter)

    def awaited(self) -> int:
        return int(self.services.ledger.get_game(self.game_id).awaiting[0])

    def other_seat(self) -> int:
        game = self.services.ledger.get_game(self.game_id)
        return next(s for s in range(game.seat_count) if s not in game.awaiting)

    def token(self, role: str) -> str | None:
        if role == "none":
            return None
        if role == "wrong_token":  # a real player's id with a made-up secret
            return f"gl_{self.table.players[self.awaited()]['player_id'].replace('-', '')}_not-the-secret"
        if role == "other_seat":
            return str(self.table.players[self.other_seat()]["token"])
        if role == "owner":
            return str(self.table.players[self.awaited()]["token"])
        if role == "organiser":
            return str(self.league["organiser_token"])
        if role == "spectator":
            return str(self.spectator["token"])
        return ADMIN_TOKEN

    def seats_of(self, role: str) -> list[int]:
        if role == "other_seat":
            return [self.other_seat()]
        if role == "owner":
            return [self.awaited()]
        return []

    def written(self) -> int:
        return int(self.services.ledger.recorder.max_notification_id() or 0)

    def fresh_link(self) -> str:
        """A new link confirming an address for the organiser (as mailed: the outbox holds its text)."""
        import re as re_

        accounts = self.services.accounts
        organiser = accounts.ledger.get_player(self.league["created_by"])
        accounts.send_confirmation(organiser, f"organiser-{self.tally['links']}@example.org", _client())
        self.tally["links"] += 1
        outbox = self.services.mail.outbox
        body = outbox.rows(f"SELECT body FROM {outbox.t('outbox')} ORDER BY created_at DESC LIMIT 1")[0][
            "body"
        ]
        return re_.search(r"#token=(\S+)", body).group(1)  # type: ignore[union-attr]


@dataclass
class Call:
    path: str
    body: Any = None
    query: dict[str, Any] | None = None


def _call_for(m: Matrix, method: str, template: str, role: str) -> Call:
    """The request each endpoint gets: real ids, a body that would succeed for the right caller."""
    game = m.game_id
    if template.endswith("/abandon") and role == "admin":
        game = m.throwaway  # the operator's abandon succeeds: on a game of its own
    if template.endswith("/join"):
        game = m.waiting
    number, seat = "1", "1"
    if "/invitation" in template or "/seats/" in template:
        game = m.inviting
        waiting = m.services.ledger.get_game(game)
        pending = [n for n, inv in waiting.invitations.items() if inv["status"] == "pending"]
        if template.endswith("/{number}"):
            if not pending and role == "admin":  # the creator withdrew the last one: one to withdraw
                from datetime import UTC, datetime, timedelta

                m.services.ledger.invite(
                    game,
                    "admin",
                    kind="link",
                    link="0" * 32,
                    expires_at=datetime.now(UTC) + timedelta(days=1),
                )
                waiting = m.services.ledger.get_game(game)
                pending = [n for n, inv in waiting.invitations.items() if inv["status"] == "pending"]
            number = max(pending, key=int) if pending else "1"
        free = [i for i, p in enumerate(waiting.seats) if p is None and i not in waiting.opened]
        seat = str(free[0]) if free else "1"
    path = (
        template.replace("{game_id}", game)
        .replace("{league}", m.league["league_id"])
        .replace("{player_id}", m.table.players[0]["player_id"])
        .replace("{title}", "cotton-trade")
        .replace("{name}", "first-player" if template.startswith("/titles/") else "ratings")
        .replace("{number}", number if "/invitations/" in template else str(m.dispute))
        .replace("{seat}", seat)
        .replace("{token_id}", m.others.get("token_id", "x"))
        .replace("{session_id}", m.others.get("session_id", "x"))
        .replace("{token}", _unsubscribe_token(m.services.channels, m.table.players[0]["player_id"]))
    )
    version = m.services.ledger.get_game(m.game_id).version
    decides = template.endswith(("/decisions", "/decisions/preview"))
    legal = m.table.game(m.awaited())["legal_decisions"] if decides else [{}]
    bodies: dict[str, Any] = {
        "/api/v1/players": {"name": "Newcomer"},
        "/api/v1/games": {"title": "cotton-trade", "seats": 3},
        "/api/v1/games/{game_id}/decisions": {
            "expected_version": version,
            "decision": legal[0],
        },
        "/api/v1/games/{game_id}/decisions/preview": {
            "expected_version": version,
            "decision": legal[0],
        },
        "/api/v1/games/{game_id}/undo": {"expected_version": version},
        "/api/v1/games/{game_id}/undo/request": {"expected_version": version},
        "/api/v1/games/{game_id}/undo/answer": {"accept": True},
        "/api/v1/games/{game_id}/abandon": {"reason": "matrix"},
        "/api/v1/games/{game_id}/orders": {"rules": []},
        "/api/v1/games/{game_id}/replies": {"replies": []},
        "/api/v1/games/{game_id}/disputes": {"versions": [1], "text": "matrix check"},
        "/api/v1/games/{game_id}/messages": {"text": f"matrix <script>alert('{role}')</script>"},
        "/api/v1/games/{game_id}/messages/settings": {"spectators": False},
        "/api/v1/games/{game_id}/messages/{number}/hide": {"reason": "matrix"},
        "/api/v1/games/{game_id}/disputes/{number}/resolve": {"outcome": "no_change", "note": "ok"},
        "/api/v1/games/{game_id}/forks": {"version": 1},
        "/api/v1/leagues": {"name": f"League of {role}"},
        "/api/v1/leagues/{league}/games": {"game_id": m.game_id},
        "/api/v1/leagues/{league}/admission": {"members_only": False},
        "/api/v1/leagues/{league}/members": {"player_id": m.table.players[1]["player_id"]},
        "/api/v1/leagues/{league}/seasons": {"title": "cotton-trade", "table_min": 2, "table_max": 3},
        "/api/v1/leagues/{league}/seasons/{number}/players": {"player_id": m.table.players[1]["player_id"]},
        "/api/v1/me/vacation": {"days": 1},
        "/api/v1/me/notifications/settings": {"kinds": None},
        "/api/v1/sessions": {"token": m.spectator["token"]},
        "/api/v1/players/recover": {"email": "nobody@example.org"},
        "/api/v1/me/email": {"email": f"matrix-{role}@example.org"},
        "/api/v1/me/password": {"password": "a matrix password"},
        "/api/v1/me/tokens": {"name": "matrix"},
        "/api/v1/me/notifications/channels": {"mail": "digest", "digest_hours": 4},
        "/api/v1/me/chat-webhook": {"service": "discord", "url": "https://discord.com/api/webhooks/1/matrix"},
        "/api/v1/games/{game_id}/invitations": {"link": True},
        "/api/v1/games/{game_id}/invitations/accept": {},
        "/api/v1/games/{game_id}/chat-webhook": {
            "service": "slack",
            "url": "https://hooks.slack.com/services/T/B/m",
        },
    }
    if template == "/api/v1/players/confirm-email" and method == "POST":
        bodies[template] = {"token": m.fresh_link()}
    query = None
    if template.endswith("/stream"):
        query = {"max_seconds": 0.05, "interval": 0.1}
    if template == "/static":
        path = "/static/" + _a_static_file()
    if template == "/docs-static":
        path = "/docs-static/swagger-ui.css"
    return Call(path, bodies.get(template) if method in ("POST", "PUT") else None, query)


def _a_static_file() -> str:
    from api.web.pages import STATIC_DIR

    return sorted(p.name for p in STATIC_DIR.iterdir() if p.is_file())[0]


def _send(m: Matrix, method: str, call: Call, token: str | None) -> Any:
    headers = bearer(token) if token else {}
    m.client.cookies.clear()  # the bearer alone (a sign-in answered with a cookie before)
    try:
        return m.client.request(method, call.path, json=call.body, params=call.query, headers=headers)
    finally:
        m.client.cookies.clear()


def _send_page(m: Matrix, call: Call, token: str | None) -> Any:
    m.client.cookies.clear()
    if token:
        m.client.cookies.set("gl_token", token)
    try:
        return m.client.get(call.path, params=call.query, follow_redirects=False)
    finally:
        m.client.cookies.clear()


# -- what a caller may see of a game ---------------------------------------------------------


def _expected_view(m: Matrix, role: str) -> dict[str, Any]:
    game = m.services.ledger.get_game(m.game_id)
    seats = m.seats_of(role)
    return game.engine.view(game.state, seats[0] if seats else None)  # type: ignore[no-any-return]


def _audiences(role_seats: list[int]) -> set[str]:
    return {f"seat:{s}" for s in role_seats}


def check_view(m: Matrix, template: str, role: str, response: Any) -> None:
    """The answer is exactly the caller's own view: no other seat's private part."""
    assert response.status_code == 200, (template, role, response.text[:300])
    allowed = _audiences(m.seats_of(role))
    if template == "/api/v1/games/{game_id}":
        body = response.json()
        view = _expected_view(m, role)
        private = view.pop("private", None)
        assert body["my_seats"] == m.seats_of(role), (role, body["my_seats"])
        assert body["state"] == view and body["private"] == private, role
        if role != "owner":
            assert body["legal_decisions"] == [], role
    elif template == "/api/v1/games/{game_id}/state":
        assert response.json()["state"] == _expected_view(m, role), role
    elif template == "/api/v1/games/{game_id}/events":
        for e in response.json()["events"]:
            assert set(e.get("private", {})) <= allowed and set(e.get("salts", {})) <= allowed, (role, e)
    elif template == "/api/v1/games/{game_id}/export":
        lines = [json.loads(x) for x in response.text.splitlines()]
        expected = ",".join(sorted(allowed)) or "spectator"
        assert lines[0]["audience"] == expected, (role, lines[0])
        for e in lines[1:]:
            assert set(e.get("private", {})) <= allowed, (role, e)
    elif template == "/api/v1/games/{game_id}/audit":
        text = response.text
        if role != "admin":  # the operator's audit is the full one
            for aud in re.findall(r'"(seat:\d+|server)"\s*:\s*\{', text):
                assert aud in allowed, (role, aud)
    elif template == "/api/v1/games/{game_id}/stream":
        for line in response.text.splitlines():
            if line.startswith("data: "):
                data = json.loads(line[6:])
                if "number" in data:  # a table-talk message: for the seats and the operator only
                    assert role in ("other_seat", "owner", "admin"), (role, data)
                    continue
                assert set(data) == {"game_id", "version", "status", "awaiting", "prompt"}, data


# -- the matrix -------------------------------------------------------------------------------


def expect(m: Matrix, method: str, template: str, policy: str, role: str) -> None:
    call = _call_for(m, method, template, role)
    before = m.written()
    where = f"{method} {template} as {role}"
    if policy in ("page", "party_page"):
        r = _send_page(m, call, m.token(role))
        if role in ("none", "wrong_token"):
            assert r.status_code == 303 and r.headers["location"].startswith("/signup"), where
        elif policy == "party_page" and role == "spectator":  # nothing of the dispute
            assert r.status_code == 403 and "the first draw" not in r.text, (where, r.status_code)
        else:
            assert r.status_code == 200, (where, r.status_code)
            name = "admin" if role == "admin" else _name_of(m, role)
            if template.endswith(".csv"):  # a page's table as CSV: no page around it, signed in all the same
                assert r.headers["content-type"].startswith("text/csv"), where
            elif template == "/games/{game_id}/forms":  # a piece of the game page: the caller's own forms
                assert r.headers["content-type"].startswith("text/html") and "<html" not in r.text, where
            else:
                assert name in r.text, where
        m.tally["checked"] += 1
        return
    if role == "wrong_token" and policy != "public":
        # also a token that is no gameledger token at all, and a scheme that is not Bearer
        for headers in ({"Authorization": "Bearer nonsense"}, {"Authorization": f"Basic {ADMIN_TOKEN}"}):
            r = m.client.request(method, call.path, json=call.body, params=call.query, headers=headers)
            assert r.status_code == 401 and assert_error_shape(r, where).startswith("auth/"), where
    r = _send(m, method, call, m.token(role))
    m.tally["checked"] += 1
    if policy == "public":
        assert r.status_code < 400, (where, r.status_code, r.text[:200])
        return
    if role in ("none", "wrong_token"):
        assert r.status_code == 401, (where, r.status_code, r.text[:200])
        assert assert_error_shape(r, where).startswith("auth/")
        assert r.headers.get("www-authenticate") == "Bearer", where
        assert m.written() == before, f"{where} wrote to the store"
        return
    if policy == "player":
        assert r.status_code < 500 and r.status_code != 401, (where, r.status_code, r.text[:200])
        if r.status_code >= 400:
            assert_error_shape(r, where)
            assert m.written() == before, f"{where} was refused but wrote"
    elif policy == "self":
        if role == "admin" and r.status_code == 403:
            assert assert_error_shape(r, where) == "auth/not_a_player", where
        else:
            assert 200 <= r.status_code < 300, (where, r.status_code, r.text[:200])
            if template == "/api/v1/me":
                assert r.json()["player_id"] == _id_of(m, role), where
    elif policy == "view":
        check_view(m, template, role, r)
    elif policy == "talk":
        if role in ("other_seat", "admin"):
            assert r.status_code == 200, (where, r.status_code, r.text[:200])
            assert [x["text"] for x in r.json()["messages"]][:1] == [m.said], where
        else:
            assert (r.status_code, assert_error_shape(r, where)) == (403, "game/not_seated"), where
            assert m.said not in r.text, where
    elif policy == "seated":
        if role == "other_seat":
            assert r.status_code < 300, (where, r.status_code, r.text[:200])
        else:
            assert (r.status_code, assert_error_shape(r, where)) == (403, "game/not_seated"), where
            assert m.written() == before, f"{where} wrote"
    elif policy == "act":
        assert 400 <= r.status_code < 500, (where, r.status_code, r.text[:200])
        assert_error_shape(r, where)
        assert m.written() == before, f"{where} wrote to the store"
        if template.endswith(("/decisions", "/decisions/preview")):
            code = assert_error_shape(r, where)
            assert code == ("game/not_your_turn" if role == "other_seat" else "game/not_seated"), where
    elif policy == "own":
        # another player's token or session, named by its id: not found for anyone else
        code = assert_error_shape(r, where)
        if role == "admin" and r.status_code == 403:
            assert code == "auth/not_a_player", where
        else:
            assert (r.status_code, code) in ((404, "token/not_found"), (404, "session/not_found")), where
        assert m.written() == before, f"{where} wrote to the store"
        assert _others_still_work(m), f"{where} ended another player's token or session"
    elif policy == "creator":
        creator = m.services.ledger.get_game(m.game_id).created_by
        if role == "admin" or (m.seats_of(role) and _id_of(m, role) == creator):
            assert 200 <= r.status_code < 300, (where, r.status_code, r.text[:200])
        else:
            assert (r.status_code, assert_error_shape(r, where)) == (403, "game/not_creator"), where
            assert m.written() == before, f"{where} wrote to the store"
    elif policy == "party":
        if role in ("other_seat", "admin"):
            assert r.status_code == 200 and r.json()["dispute"]["text"] == "the first draw", (
                where,
                r.text[:200],
            )
        else:
            assert (r.status_code, assert_error_shape(r, where)) == (403, "dispute/not_a_party"), where
            assert "the first draw" not in r.text, where
    elif policy == "adjudicator":  # the matrix's game is in no league: the operator rules
        if role == "admin":
            assert r.status_code not in (401, 403), (where, r.status_code, r.text[:200])
        else:
            code = "dispute/plays_in_game" if m.seats_of(role) else "dispute/not_adjudicator"
            assert (r.status_code, assert_error_shape(r, where)) == (403, code), (where, r.text[:200])
            assert m.written() == before, f"{where} wrote to the store"
    elif policy in ("admin", "organiser"):
        if role == "admin":
            assert r.status_code not in (401, 403), (where, r.status_code, r.text[:200])
        else:
            code = "auth/admin_only" if policy == "admin" else "league/not_organiser"
            assert (r.status_code, assert_error_shape(r, where)) == (403, code), (where, r.text[:200])
            assert m.written() == before, f"{where} wrote to the store"
    else:
        raise AssertionError(f"unknown policy {policy}")


def _id_of(m: Matrix, role: str) -> str:
    if role == "admin":
        return "admin"
    if role == "spectator":
        return str(m.spectator["player_id"])
    return str(m.table.players[m.seats_of(role)[0]]["player_id"])


def _name_of(m: Matrix, role: str) -> str:
    if role == "spectator":
        return str(m.spectator["name"])
    return str(m.table.players[m.seats_of(role)[0]]["name"])


def _client() -> Any:
    from api.accounts import Client

    return Client(address="matrix")


def _others_still_work(m: Matrix) -> bool:
    """The organiser's named token and session, whose ids the "own" routes were called with."""
    token = m.client.get(f"{API}/me", headers=bearer(m.others["token"]))
    session = m.client.get(f"{API}/me", headers=bearer(m.others["session"]))
    return token.status_code == 200 and session.status_code == 200


def build_matrix(client: TestClient) -> Matrix:
    table = Table(client)
    spectator = client.post(f"{API}/players", json={"name": "Watcher"}).json()
    organiser = client.post(f"{API}/players", json={"name": "Organiser"}).json()
    league = client.post(
        f"{API}/leagues", json={"name": "Matrix league"}, headers=bearer(organiser["token"])
    ).json()
    league["organiser_token"] = organiser["token"]
    league["created_by"] = organiser["player_id"]
    waiting = client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 4}, headers=table.auth(0))
    throwaway = client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 3}, headers=table.auth(1))
    m = Matrix(client, table, spectator, league, waiting.json()["game_id"], 0, throwaway.json()["game_id"])
    inviting = client.post(f"{API}/games", json={"title": "cotton-trade", "seats": 6}, headers=table.auth(0))
    m.inviting = inviting.json()["game_id"]
    held = client.post(f"{API}/games/{m.inviting}/invitations", json={"link": True}, headers=table.auth(0))
    assert held.status_code == 201, held.text  # one pending invitation for the routes that take one
    opened = client.post(
        f"{API}/games/{table.game_id}/disputes",
        json={"versions": [1], "text": "the first draw"},
        headers=table.auth(m.awaited()),
    )
    assert opened.status_code == 201, opened.text
    m.dispute = opened.json()["dispute"]
    said = client.post(
        f"{API}/games/{table.game_id}/messages", json={"text": m.said}, headers=table.auth(m.awaited())
    )
    assert said.status_code == 201, said.text
    named = client.post(
        f"{API}/me/tokens", json={"name": "organiser's bot"}, headers=bearer(organiser["token"])
    )
    session = client.post(f"{API}/sessions", json={"token": organiser["token"]})
    client.cookies.clear()
    assert named.status_code == 201 and session.status_code == 201, (named.text, session.text)
    m.others = {
        "token_id": named.json()["token_id"],
        "token": named.json()["token"],
        "session_id": session.json()["session_id"],
        "session": session.json()["token"],
    }
    return m


def test_every_endpoint_is_classified(client: TestClient) -> None:
    routes = all_routes(client.app)  # type: ignore[arg-type]
    unclassified = routes - POLICY.keys()
    assert not unclassified, f"classify these endpoints in POLICY: {sorted(unclassified)}"
    assert not POLICY.keys() - routes, f"no longer served: {sorted(POLICY.keys() - routes)}"
    assert len(routes) >= 55


def test_the_authorisation_matrix(client: TestClient) -> None:
    m = build_matrix(client)
    order = {"GET": 0, "POST": 1, "PUT": 2, "DELETE": 3}
    routes = sorted(
        all_routes(client.app),  # type: ignore[arg-type]
        key=lambda r: (POLICY[r] == "organiser", r[1], order[r[0]]),
    )
    assert routes and not set(routes) - POLICY.keys()
    for method, template in routes:
        for role in ROLES:
            expect(m, method, template, POLICY[(method, template)], role)
    checked = m.tally["checked"]
    print(f"endpoints x roles checked: {len(routes)} x {len(ROLES)} = {checked}")
    assert checked == len(routes) * len(ROLES)

    # the positive controls: the same calls succeed for the right caller
    owner = m.awaited()
    decision = m.table.game(owner)["legal_decisions"][0]
    version = m.services.ledger.get_game(m.game_id).version
    seen = client.post(
        f"{API}/games/{m.game_id}/decisions/preview",
        json={"expected_version": version, "decision": decision},
        headers=m.table.auth(owner),
    )
    assert seen.status_code == 200 and seen.json()["version"] == version, seen.text
    assert m.table.decide(owner, decision, version).status_code == 200
    org = bearer(str(m.token("organiser")))
    seated = [p for p in m.services.ledger.get_game(m.game_id).seats if p]  # members: he may add it
    body = {"name": "Second", "members": seated}
    league = client.post(f"{API}/leagues", json=body, headers=org).json()["league_id"]
    added = client.post(f"{API}/leagues/{league}/games", json={"game_id": m.game_id}, headers=org)
    assert added.status_code == 200 and m.game_id in added.json()["games"]
    closed = client.post(f"{API}/leagues/{league}/close", headers=org)
    assert closed.status_code == 200 and closed.json()["closed"]


def _account_rows(m: Matrix) -> list[Any]:
    """Everything the accounts store and the mail outbox hold (a refused write changes none of it)."""
    out: list[Any] = []
    for store, tables in (
        (m.services.accounts.store, ("sessions", "links")),
        (m.services.mail.outbox, ("outbox",)),
    ):
        for t in tables:
            out += sorted(map(repr, store.rows(f"SELECT * FROM {store.t(t)}")))
    return out


def test_a_cookie_without_the_anti_forgery_proof_never_authorises_a_write(client: TestClient) -> None:
    """The web pages' session cookie goes with every request to the site, a forged cross-site one
    too: a write needs the page's proof as well (X-CSRF-Token, an HMAC of the session's secret that
    another site can neither read nor compute). Every write endpoint with only the cookie of the
    awaited player, or with another session's proof: 403, nothing written anywhere; with the
    proof, the same cookie decides. The older pages' token cookie never authorises a write."""
    m = build_matrix(client)
    writes = sorted(r for r in all_routes(client.app) if r[0] != "GET" and POLICY[r] != "public")  # type: ignore[arg-type]
    assert len(writes) >= 25
    owner = str(m.table.players[m.awaited()]["token"])
    owner_id = m.table.players[m.awaited()]["player_id"]
    signed_in = client.post(f"{API}/sessions", json={"token": owner})
    assert signed_in.status_code == 201 and "httponly" in signed_in.headers["set-cookie"].lower()
    assert "samesite=lax" in signed_in.headers["set-cookie"].lower()
    proof = signed_in.json()["csrf_token"]
    assert client.cookies.get("gl_session") == signed_in.json()["token"]
    from api.accounts import csrf_proof

    wrong_proof = csrf_proof(m.others["session"])  # another session's proof (the organiser's)
    try:
        for method, template in writes:
            for headers in ({}, {"X-CSRF-Token": wrong_proof}, {"X-CSRF-Token": ""}):
                before, rows = m.written(), _account_rows(m)
                call = _call_for(m, method, template, "owner")
                r = client.request(method, call.path, json=call.body, params=call.query, headers=headers)
                assert r.status_code == 403, (method, template, headers, r.status_code, r.text[:200])
                assert assert_error_shape(r) == "auth/csrf_failed" and m.written() == before
                assert _account_rows(m) == rows, (method, template, "changed the accounts store")
        # a read with the same cookie is the player's own
        me = client.get(f"{API}/me").json()
        assert me["player_id"] == owner_id and me["signed_in_with"] == "session"
        # with the page's proof, the same cookie decides
        version = m.services.ledger.get_game(m.game_id).version
        decision = m.table.game(m.awaited())["legal_decisions"][0]
        r = client.post(
            f"{API}/games/{m.game_id}/decisions",
            json={"expected_version": version, "decision": decision},
            headers={"X-CSRF-Token": proof},
        )
        assert r.status_code == 200, r.text
        # signing out ends the session: the cookie is cleared and, sent again, opens nothing
        cookie = client.cookies.get("gl_session")
        out = client.delete(f"{API}/me/sessions/current", headers={"X-CSRF-Token": proof})
        assert out.status_code == 200 and "gl_session=" in out.headers["set-cookie"]
        client.cookies.set("gl_session", str(cookie))
        r = client.get(f"{API}/me")
        assert (r.status_code, assert_error_shape(r)) == (401, "auth/session_ended")
    finally:
        client.cookies.clear()
    # the older pages' token cookie: reads only
    client.cookies.set("gl_token", owner)
    try:
        for method, template in writes:
            before = m.written()
            call = _call_for(m, method, template, "owner")
            r = client.request(method, call.path, json=call.body, params=call.query)
            assert r.status_code == 401, (method, template, r.status_code, r.text[:200])
            assert assert_error_shape(r) == "auth/required" and m.written() == before
        assert client.get(f"{API}/me").json()["player_id"] == owner_id
    finally:
        client.cookies.clear()


def test_only_the_operator_seats_a_full_table(client: TestClient) -> None:
    players = [client.post(f"{API}/players", json={"name": f"Seat{i}"}).json() for i in range(3)]
    body = {"title": "cotton-trade", "players": [p["player_id"] for p in players[1:]]}
    r = client.post(f"{API}/games", json=body, headers=bearer(players[0]["token"]))
    assert (r.status_code, assert_error_shape(r)) == (403, "auth/admin_only")
    r = client.post(f"{API}/games", json=body, headers=bearer(ADMIN_TOKEN))
    assert r.status_code == 201 and r.json()["status"] == "active"


# -- tokens at rest and their comparison -------------------------------------------------------


def _stored_text(database_url: str) -> str:
    """Every row of every table of the store, as text."""
    chunks: list[str] = []
    if database_url.startswith("sqlite"):
        import sqlite3

        path = database_url.removeprefix("sqlite:///")
        with sqlite3.connect(path) as conn:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for t in tables:
                for row in conn.execute(f'SELECT * FROM "{t}"'):  # noqa: S608 - names from the catalogue
                    chunks.append(repr(row))
        return "\n".join(chunks)
    db = parse_database_url(database_url)
    with psycopg.connect(db.conninfo()) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (db.schema,)
            )
        ]
        assert tables
        for t in tables:
            for row in conn.execute(f'SELECT * FROM "{db.schema}"."{t}"'):  # noqa: S608
                chunks.append(repr(row))
    return "\n".join(chunks)


def _decoded(text: str) -> str:
    """Stored event states are bytes (JSON, maybe compressed); make them searchable."""
    import zlib

    out = [text]
    for literal in re.findall(r"b'((?:[^'\\]|\\.)*)'", text):
        raw = literal.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
        with contextlib.suppress(zlib.error):
            raw = zlib.decompress(raw)
        out.append(raw.decode("utf-8", "replace"))
    return "\n".join(out)


def test_tokens_are_stored_only_as_hashes(client: TestClient, database_url: str) -> None:
    import hashlib

    table = Table(client)
    rnd = random.Random(3)
    for _ in range(3):
        table.step(rnd)
    tokens = [p["token"] for p in table.players]
    stored = _decoded(_stored_text(database_url))
    assert table.players[0]["player_id"].replace("-", "") in stored.replace("-", ""), (
        "the search sees the store"
    )
    hashes = [hashlib.sha256(t.encode()).hexdigest() for t in tokens]
    assert any(h in stored for h in hashes), "the hash is what is kept"
    for token in tokens:
        secret = token.split("_", 2)[2]  # gl_<player id>_<secret>, and the secret may hold "_"
        assert len(secret) >= 20
        assert token not in stored and secret not in stored, "a bearer token is stored in the clear"
    assert ADMIN_TOKEN not in stored


def test_token_comparison_is_constant_time() -> None:
    """Look-up by the id embedded in the token (a player's, a session's, a link's), then
    hmac.compare_digest of SHA-256 hashes; the operator's token and a page's anti-forgery proof
    by hmac.compare_digest too. No == on secrets."""
    from api import accounts, deps
    from ledger import accounts as ledger_accounts
    from ledger import application

    auth_src = inspect.getsource(application.Ledger.verify_token)
    assert "digest = _token_hash(token)" in auth_src
    assert "matching_token(player, digest)" in auth_src
    match_src = inspect.getsource(ledger_accounts.matching_token)
    assert 'hmac.compare_digest(token["hash"], digest)' in match_src
    assert "return" not in match_src.split("for token_id")[1].split("return found")[0], "no early return"
    # a token verified once is found again by its SHA-256 (a dictionary look-up by the hash:
    # timing there tells nothing about the token, whose hash cannot be guessed byte by byte)
    assert "self._authenticated.get(digest)" in auth_src
    assert "repository.get(UUID(hex=parts[1]))" in auth_src  # found by id, not by comparing secrets
    session_src = inspect.getsource(accounts.AccountService.session)
    assert 'hmac.compare_digest(row["secret_hash"], digest)' in session_src
    link_src = inspect.getsource(accounts.AccountService._redeem)
    assert 'hmac.compare_digest(link["secret_hash"], digest)' in link_src
    caller_src = inspect.getsource(deps.get_caller) + inspect.getsource(deps.caller_for_token)
    assert "hmac.compare_digest(token.encode(), admin.encode())" in caller_src
    assert "hmac.compare_digest(proof.encode(), session.csrf.encode())" in caller_src
    for src in (auth_src, match_src, session_src, link_src, caller_src):
        assert not re.search(
            r"(token|hash|admin|proof|csrf|secret)\w*\s*==|==\s*\w*(token|hash|admin|proof|csrf|secret)", src
        ), src


def test_a_wrong_secret_for_a_real_player_is_refused(client: TestClient) -> None:
    table = Table(client)
    pid = table.players[0]["player_id"].replace("-", "")
    token = table.players[0]["token"]
    near_misses = [
        token[:-1] + ("A" if token[-1] != "A" else "B"),
        token + "x",
        token[:-4],
        f"gl_{pid}_",
        token.upper(),
        token.replace("gl_", "GL_"),
        f"gl_{pid}",
    ]
    for candidate in near_misses:
        r = client.get(f"{API}/me", headers=bearer(candidate))
        assert r.status_code == 401 and assert_error_shape(r).startswith("auth/"), candidate
    assert client.get(f"{API}/me", headers=bearer(token)).status_code == 200


# -- rate limits -------------------------------------------------------------------------------


def test_sign_up_and_decisions_are_rate_limited(settings: Any, services: Any) -> None:
    from api.app import create_app

    limited = settings.model_copy(
        update={"signup_rate": 60.0, "signup_burst": 3, "decision_rate": 0.5, "decision_burst": 2}
    )
    with TestClient(create_app(limited, services)) as client:
        signups = [client.post(f"{API}/players", json={"name": f"R{i}"}) for i in range(4)]
        assert [r.status_code for r in signups] == [201, 201, 201, 429]
        refused = signups[-1]
        assert assert_error_shape(refused) == "request/rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        players = [r.json() for r in signups[:3]]
        before = services.ledger.recorder.max_notification_id()
        assert client.post(f"{API}/players", json={"name": "R9"}).status_code == 429
        assert services.ledger.recorder.max_notification_id() == before, "a refused sign-up wrote"

        # decisions: per token, so one player's flood does not hold up another
        game = client.post(
            f"{API}/games", json={"title": "cotton-trade", "seats": 2}, headers=bearer(players[0]["token"])
        )
        gid = game.json()["game_id"]
        assert client.post(f"{API}/games/{gid}/join", headers=bearer(players[1]["token"])).status_code == 200
        url = f"{API}/games/{gid}/decisions"
        flood = bearer(players[2]["token"])  # not even seated: refused, but counted
        answers = [
            client.post(url, json={"expected_version": 1, "decision": {}}, headers=flood) for _ in range(3)
        ]
        assert [r.status_code for r in answers] == [403, 403, 429]
        assert assert_error_shape(answers[-1]) == "request/rate_limited"
        assert int(answers[-1].headers["retry-after"]) == 2  # half a decision per second
        g = client.get(f"{API}/games/{gid}", headers=bearer(players[0]["token"])).json()
        seat = g["awaiting"][0]["seat"]
        mine = client.get(f"{API}/games/{gid}", headers=bearer(players[seat]["token"])).json()
        ok = client.post(
            url,
            json={"expected_version": mine["version"], "decision": mine["legal_decisions"][0]},
            headers=bearer(players[seat]["token"]),
        )
        assert ok.status_code == 200, ok.text
        # reads are never limited
        assert all(client.get(f"{API}/me", headers=flood).status_code == 200 for _ in range(5))


def test_the_token_bucket_refills_at_its_rate() -> None:
    from api.ratelimit import TokenBucket

    now = [100.0]
    bucket = TokenBucket(rate=2.0, burst=3, clock=lambda: now[0])
    assert [bucket.take("a") for _ in range(3)] == [0, 0, 0]
    assert bucket.take("a") == 0.5 and bucket.take("b") == 0
    now[0] += 0.5
    assert bucket.take("a") == 0 and bucket.take("a") > 0
    now[0] += 10
    assert [bucket.take("a") for _ in range(4)][:3] == [0, 0, 0]  # refilled, never above the burst
    assert bucket.take("a") > 0


def test_rate_limits_are_configured_from_the_environment(monkeypatch: Any) -> None:
    from api.settings import Settings

    monkeypatch.setenv("GAMELEDGER_SIGNUP_RATE", "0")
    monkeypatch.setenv("GAMELEDGER_DECISION_RATE", "7.5")
    monkeypatch.setenv("GAMELEDGER_DECISION_BURST", "9")
    s = Settings.from_env()
    assert (s.signup_rate, s.decision_rate, s.decision_burst) == (0, 7.5, 9)
    assert Settings().signup_rate > 0 and Settings().decision_rate > 0  # on by default


def _unsubscribe_token(channels: Any, player_id: str) -> str:
    """The token a mail to the player would carry today."""
    return str(channels.unsubscribe_token(player_id, channels.prefs(player_id)["unsubscribe"]))

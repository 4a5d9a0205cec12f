"""Numbers in words on the pages and in the terminal: counts agree with their nouns ("1 game"),
debts carry their sign as people write it ("−£5 2s 1d"), and who made a seat's decisions reads
as words ("42 own moves"), orders and the stand-in only when they made some."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient

from api.web.table.cotton_trade_words import money
from api.words import MINUS, decisions, plural, pounds, signed
from api.words import money as coins
from tests.api_helpers import Table


@pytest.mark.parametrize(
    ("n", "noun", "said"),
    [
        (0, "game", "0 games"),
        (1, "game", "1 game"),
        (2, "game", "2 games"),
        (1, "finished game", "1 finished game"),
        (3, "finished game", "3 finished games"),
        (2, "match", "2 matches"),
        (1, "own move", "1 own move"),
        (42, "own move", "42 own moves"),
        (2, "person", "2 people"),
    ],
)
def test_a_count_agrees_in_number_with_its_noun(n: int, noun: str, said: str) -> None:
    assert plural(n, noun) == said


def test_a_debt_is_written_with_the_minus_before_the_pound_sign() -> None:
    assert signed("£-5 2s 1d") == f"{MINUS}£5 2s 1d"
    assert signed("£5 2s 1d") == "£5 2s 1d"
    assert signed("Ann paid £3; cash £-12.") == f"Ann paid £3; cash {MINUS}£12."
    assert pounds(-7) == f"{MINUS}£7" and pounds(7) == "£7"
    assert money(-7, "pence") == f"{MINUS}7d" and money(-2, "pounds") == f"{MINUS}£2"
    assert coins(8) == "£8" and coins(-5) == f"{MINUS}£5" and coins(7, "pence") == "7d"
    assert coins(3, "shillings") == "3s" and coins(None) == "\u2013"


def test_decisions_read_as_own_moves_with_orders_and_the_stand_in_only_when_non_zero() -> None:
    assert decisions({"person": 42, "order": 0, "reply": 0, "bot": 0}) == "42 own moves"
    assert decisions({"person": 1}) == "1 own move"
    assert decisions({"person": 5, "order": 2, "reply": 1, "bot": 1}) == (
        "5 own moves, 3 moves by standing orders, 1 move by the stand-in"
    )
    assert decisions(None) == "0 own moves"


def test_the_pages_say_one_game_and_the_scoreboard_its_decisions_in_words(client: TestClient) -> None:
    t = Table(client, 2)
    ledger, rnd = client.app.state.services.ledger, random.Random(4)  # type: ignore[attr-defined]
    for _ in range(5_000):  # played through the ledger (faster than over HTTP): random legal moves
        game = ledger.get_game(t.game_id)
        if game.status == "finished":
            break
        seat = rnd.choice(game.awaiting)
        legal = game.engine.legal_decisions(game.state, seat)
        decision = rnd.choice(legal).model_dump(mode="json")
        ledger.decide(t.game_id, game.seats[seat], game.version, decision, seat=seat)
    client.cookies.set("gl_token", t.players[0]["token"])
    try:
        player = client.get(f"/players/{t.players[0]['player_id']}")
        assert player.status_code == 200, player.text
        assert "1 game finished" in player.text and "1 games" not in player.text
        client.app.state.services.wait_for("scoreboard", None)  # type: ignore[attr-defined]
        page = client.get(f"/games/{t.game_id}")
        assert page.status_code == 200
        assert "own moves" in page.text and "Decisions: own / orders / stand-in" not in page.text
        assert " / 0 / 0" not in page.text and "£-" not in page.text
        assert "by standing orders" not in page.text and "by the stand-in" not in page.text
    finally:
        client.cookies.clear()


def test_the_terminal_player_prints_a_debt_with_its_sign(capsys: pytest.CaptureFixture[str]) -> None:
    """``gameledger play`` against a server whose finished game has a seat in debt: the standing
    reads "−£5 2s 1d" (not "£-5 2s 1d"), and the count agrees with its noun."""
    import argparse
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from api.cli import cmd_play

    finished = {
        "status": "finished",
        "version": 9,
        "seats": [{"name": "Ann"}, {"name": "Bob"}],
        "standings": [
            {"seat": 0, "rank": 1, "summary": "£3 0s 0d"},
            {"seat": 1, "rank": 2, "summary": "£-5 2s 1d"},
        ],
    }

    class Finished(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = json.dumps(finished).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Finished)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        args = argparse.Namespace(
            url=f"http://127.0.0.1:{server.server_address[1]}", game="g", token=["t"], seed=1, verbose=False
        )
        assert cmd_play(args) == 0
    finally:
        server.shutdown()
    said = capsys.readouterr().out
    assert f"rank 2: Bob ({MINUS}£5 2s 1d)" in said and "£-" not in said, said
    assert "0 decisions played" in said, said


def test_cotton_trades_preview_says_the_scoreboard_in_the_stages_coins(client: TestClient) -> None:
    """In the shillings stage the preview's scoreboard afterwards counts each seat's money in
    shillings (the page writes 16s), its own money, not a pound figure of 0 for everyone."""
    t = Table(client, 3)
    rnd = random.Random(3)
    services = client.app.state.services  # type: ignore[attr-defined]
    for _ in range(80):
        services.wait_for("scoreboard", None)
        board = client.get(f"/api/v1/games/{t.game_id}/scoreboard", headers=t.auth(0)).json()
        if board["currency"] == "shillings":
            break
        for _ in range(5):  # the shillings stage lasts many decisions: look every fifth
            t.step(rnd)
    else:
        raise AssertionError("the game did not reach its shillings stage")
    seat, mine = t.awaited()
    seen = client.post(
        f"/api/v1/games/{t.game_id}/decisions/preview",
        json={"expected_version": mine["version"], "decision": mine["legal_decisions"][0]},
        headers=t.auth(seat),
    ).json()
    assert seen["currency"] == "shillings"
    rows = seen["scoreboard"]
    assert all(r["money"] == r["coins"]["shillings"] for r in rows), rows
    assert any(r["money"] for r in rows), "somebody has shillings in the shillings stage"
    assert [coins(r["money"], seen["currency"]) for r in rows] == [f"{r['money']}s" for r in rows]

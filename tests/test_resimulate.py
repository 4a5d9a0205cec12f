"""Rules versions: re-simulation of every stored game under the current rules, and the
migration of a game to them as a recorded event."""

from __future__ import annotations

import dataclasses
import random

import pytest

from api.cli import main as cli
from api.services import Services
from ledger import registry
from ledger.audit import audit_game
from ledger.conformance import ledger_playout
from ledger.errors import ConflictError
from ledger.games.cotton_trade import cotton as ct


def no_oversize_discount(card, capacity: int) -> int:  # type: ignore[no-untyped-def]
    """A deliberate rules change: a contract bigger than the ship no longer costs one less."""
    return card.price  # type: ignore[no-any-return]


def test_resimulation_finds_the_games_a_rules_change_touches(
    services: Services, monkeypatch: pytest.MonkeyPatch, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    league = services.ledger.create_league(creator="admin", name="Resim", for_bots=True)
    for seed in range(4):
        ledger_playout(services.ledger, "cotton-trade", 3, seed=seed, league=str(league.id))
    report = services.resimulate()
    assert report["summary"] == {"identical": 4} and report["leagues"] == []

    monkeypatch.setattr(ct, "contract_cost", no_oversize_discount)
    report = services.resimulate("cotton-trade")
    touched = [g for g in report["games"] if g["outcome"] != "identical"]
    assert touched, "some game bought an oversized contract"
    for g in touched:
        assert g["at"] > 3 and g["difference"] is not None
        if g["outcome"] == "diverged":
            assert g["difference"]["recorded"] != g["difference"]["now"]
    changed = [g for g in report["games"] if g.get("standings", {}).get("changed")]
    if changed:
        assert report["leagues"] and report["leagues"][0]["ratings"]
    assert cli(["resimulate", "--database-url", database_url]) == 0
    out = capsys.readouterr().out
    assert "summary:" in out and ("diverged" in out or "illegal" in out)


def test_a_game_waits_for_migration_when_the_rules_version_changes(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [str(services.ledger.register_player(f"M{i}")[0]) for i in range(2)]
    game = services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids)
    rnd = random.Random(2)
    for _ in range(5):
        seat = game.awaiting[0]
        d = rnd.choice(game.engine.legal_decisions(game.state, seat))
        services.ledger.decide(game.id, ids[seat], game.version, d.model_dump(mode="json"))
        game = services.ledger.get_game(game.id)
    newer = dataclasses.replace(registry.TITLES["cotton-trade"], rules_version="cotton-trade/99")
    monkeypatch.setitem(registry.TITLES, "cotton-trade", newer)
    seat = game.awaiting[0]
    legal = game.engine.legal_decisions(game.state, seat)[0].model_dump(mode="json")
    with pytest.raises(ConflictError) as err:
        services.ledger.decide(game.id, ids[seat], game.version, legal)
    assert err.value.code == "game/rules_version"
    result = services.ledger.migrate(game.id)
    assert result["outcome"] == "identical"
    game = services.ledger.get_game(game.id)
    assert game.rules_version == "cotton-trade/99"
    last = list(services.ledger.events.get(game.id))[-1]
    assert last.public["from"] != last.public["to"] == "cotton-trade/99"
    services.ledger.decide(game.id, ids[seat], game.version, legal)
    with pytest.raises(ConflictError) as err:
        services.ledger.migrate(game.id)
    assert err.value.code == "migrate/current"
    assert audit_game(services.ledger, game.id, None, full_view=True)["ok"]

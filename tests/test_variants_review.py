"""Issue 21: the variants held against the rulebooks once more.

1. Water Frame 2014, who starts: the table names the start player (the creator's seat names
   it as the game's first decision); the 2016 draw is unchanged and "random" stays available.
2. Water Frame 2014, when the school closes a row: during the sale, until a good of that row
   is sold; the owner is asked only where closing still changes something.
3. Cotton Trade: a ship with cotton cargo never stays, whatever led to the position.

Stored games recorded before these options replay as they were played: an option left unset
(absent from the stored options) plays as those games did (tests/test_golden_games.py holds
their bytes)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.web.table.options import OPTION_WORDS
from ledger.bots import strong
from ledger.conformance import random_playout
from ledger.games.cotton_trade.components import Region
from ledger.games.cotton_trade.decisions import ReturnShip, StayInRegion
from ledger.games.cotton_trade.state import Phase as CtPhase
from ledger.games.cotton_trade.state import War
from ledger.games.water_frame import bot
from ledger.games.water_frame.decisions import (
    ChooseStartPlayer,
    CloseLastRow,
    FoundFactory,
    SellFromWarehouse,
    StopSelling,
)
from ledger.games.water_frame.meta import WaterFrameOptions
from ledger.games.water_frame.state import Phase, State
from tests import ct_positions as ct
from tests.api_helpers import API, Table
from tests.wf_positions import (
    CUTLERY,
    C,
    E,
    factory,
    full_rows,
    jm_empty_for,
    new_1770,
    of_kind,
    one,
    play,
    produce,
    rejected,
    settle_draws,
    wage_at,
    with_factory,
    with_stock,
    with_tiles,
    without_factories,
)

R14_START = (
    "The players determine the start player in a manner that suits them and this player receives "
    "the start player marker."
)  # seed 000, 4.1 II; the German 2014 rulebook: "Der Startspieler wird beliebig ermittelt"
R16_START = "Randomly determine the start player."  # seed 001, 4.1 II
R14_SCHOOL = (
    "A player owning a school may close his last occupied production row. As long as he has not "
    "sold any goods produced in this production row he may decide that the goods in this row will "
    "not be produced and no wages and operational costs for machines will be paid."
)  # seed 000, III.1; the German: "Solange er noch keine in dieser Produktionsstraße produzierte
# Ware verkauft hat, kann er jederzeit entscheiden"; its example: "He notices that he will only
# sell 3 goods during the sale. Therefore he states that he will close the third row"
CT_CARGO = "If the ship has cotton cargo, return action is mandatory."  # seed 004, 7. Sell cotton


def new_game_options(**given: Any) -> WaterFrameOptions:
    """The options a game created through the API gets: unset switches take the edition's."""
    return WaterFrameOptions.model_validate(WaterFrameOptions.for_new_game(given))


# --- 1. who starts ---------------------------------------------------------------------------------


def test_2014_the_table_names_the_start_player_as_the_first_decision() -> None:
    """R14 4.1 II: "The players determine the start player in a manner that suits them and this
    player receives the start player marker." (R14_START)"""
    opts = new_game_options(edition="2014")
    assert opts.start_player == "chosen"
    s = E.new_game(opts, 3)
    assert "start_player" not in [d.key for d in s.draws]  # nothing drawn: the table chooses
    s, _ = settle_draws(s)
    assert (s.phase, s.awaiting) == (Phase.FIRST_START_PLAYER, (0,))  # the creator's seat
    assert E.pending(s).prompt == "name the start player of the game (the table's choice)"
    assert E.legal_decisions(s, 0) == tuple(ChooseStartPlayer(seat=i) for i in range(3))
    rejected(s, 1, ChooseStartPlayer(seat=1), "not_your_turn")
    rejected(s, 0, ChooseStartPlayer(seat=3), "no_such_seat")
    rejected(s, 0, FoundFactory(good="FOOD", price=5), "wrong_decision")
    after, fx = play(s, 0, ChooseStartPlayer(seat=2))
    assert [e.payload() for e in fx] == [
        {"kind": "start_player_changed", "seat": 2, "reason": "named_at_setup"}
    ]
    assert E.describe(fx[0].payload(), {2: "Cid"}) == "Cid is the start player."
    # the preparation round begins with the start player named: seat 2 founds first
    assert (after.start_player, after.phase, after.awaiting) == (2, Phase.FOUNDATION_1, (2,))
    assert E.view(after, None)["start_player"] == 2


def test_2016_draws_the_start_player_and_random_stays_available_in_2014() -> None:
    """R16 4.1 II: "Randomly determine the start player." (R16_START)"""
    for opts in (
        new_game_options(),
        new_game_options(edition="2016"),
        new_game_options(edition="2014", start_player="random"),
        WaterFrameOptions(edition="2014"),  # a game recorded before the option: drawn, as recorded
    ):
        s = E.new_game(opts, 4)
        assert s.draws[0].key == "start_player" and s.draws[0].kind == "pick"
        s, fx = settle_draws(s, first=3)
        assert (s.start_player, s.phase, s.awaiting) == (3, Phase.FOUNDATION_1, (3,))
        assert one(fx, "start_player_drawn").seat == 3
    # the predetermined set-up names blue (seat 0) itself, chosen or not
    s = E.new_game(new_game_options(edition="2014", predetermined_setup=True), 3)
    s, _ = settle_draws(s)
    assert s.start_player == 0 and s.phase != Phase.FIRST_START_PLAYER


def test_options_left_unset_are_not_stored_so_recorded_games_keep_their_bytes() -> None:
    recorded = WaterFrameOptions(edition="2014")
    assert recorded.model_dump(mode="json") == {
        "edition": "2014",
        "predetermined_setup": False,
        "predetermined_events_shuffled": False,
        "patron_variant": False,
        "importer_top_up": True,
        "emergency_digit_mode": "leading",
    }
    assert (recorded.chosen_start_player, recorded.school_during_sale) == (False, False)
    assert new_game_options(edition="2014").model_dump(mode="json")["school_timing"] == "during_sale"
    assert new_game_options().model_dump(mode="json")["start_player"] == "random"
    assert new_game_options(edition="2014", school_timing=None).school_timing == "during_sale"
    # the state (its digest) of a game without the options holds exactly what it held
    dumped = E.state_adapter.dump_python(E.new_game(recorded, 2), mode="json")
    assert "start_player" not in dumped["options"] and "school_timing" not in dumped["options"]


# --- 2. the school --------------------------------------------------------------------------------

PRICE_1 = C.base_quality(CUTLERY, 2) - 6  # seat 1: appeal 6
WORKERS_3_ROWS = sum(C.slots(CUTLERY, r) for r in range(3))  # 2 + 3 + 3 = 8
WORKERS_2_ROWS = sum(C.slots(CUTLERY, r) for r in range(2))  # 2 + 3 = 5


def school_scene(demand: int, timing: str | None = "during_sale") -> State:
    """1770, cutlery produced. Seat 0: a cutlery factory without workers, appeal 7, 2 cutlery in
    store. Seat 1 (the school): level II, rows 1-3 full (1 + 2 + 2 = 5 goods), appeal 6, 1 cutlery
    in store. Seat 2: level II, rows 1-3 full (5 goods), appeal 4. The importer sells none."""
    options: dict[str, Any] = {"edition": "2014", "start_player": "random"}
    if timing is not None:
        options["school_timing"] = timing
    s = without_factories(new_1770(3, **options))
    s = replace(s, importers=(0, 0, 0, 0), jm_empty=jm_empty_for(CUTLERY, demand=demand))
    level2 = C.base_quality(CUTLERY, 2)
    s = with_stock(
        with_factory(s, 0, CUTLERY, factory(CUTLERY, level=2, rows=[], price=level2 - 7)), 0, CUTLERY, 2
    )
    s = with_factory(s, 1, CUTLERY, factory(CUTLERY, level=2, rows=full_rows(CUTLERY, 3), price=PRICE_1))
    s = with_tiles(with_stock(s, 1, CUTLERY, 1), 1, "SCHOOL")
    s = with_factory(s, 2, CUTLERY, factory(CUTLERY, level=2, rows=full_rows(CUTLERY, 3), price=level2 - 4))
    assert [C.row_output[1][r] for r in range(3)] == [1, 2, 2]
    return s


def run_sale(s: State, answers: dict[int, list[Any]]) -> tuple[State, list[Any]]:
    """Play the production phase on: each seat asked answers from its list in order (seat 0
    stops selling at once unless told), until the shipment."""
    out: list[Any] = []
    for _ in range(50):
        if s.phase not in (Phase.SCHOOL, Phase.SALE, Phase.SCHOOL_AFTER_SALE, Phase.PATRON):
            return s, out
        seat = s.awaiting[0]
        d = answers[seat].pop(0) if answers.get(seat) else StopSelling()
        s, fx = play(s, seat, d)
        out.extend(fx)
    raise AssertionError("the sale did not end")


def sold(fx: list[Any], seat: int) -> tuple[int, int]:
    g = one(fx, "goods_sold", seat=seat)
    return g.from_production, g.from_stock


def steps(fx: list[Any], seat: int) -> int:
    """Spaces the share value rose for the sale (III.2)."""
    return sum(
        e.space_to - e.space_from for e in of_kind(fx, "share_price_changed", company=seat, cause="sales")
    )


def test_2014_the_school_closes_the_row_during_the_sale_and_the_sale_goes_on_without_its_goods() -> None:
    """R14 III.1 (R14_SCHOOL): "As long as he has not sold any goods produced in this production
    row he may decide that the goods in this row will not be produced" (D14: "jederzeit"). Demand 9. Seat 0 stops at once (its
    choice is seen). Seat 1 sells one good at appeals 6, 5, 4 (its rows 1-2 make 3); at appeal 3
    the next good would be the first of row 3: only there is it asked."""
    s = school_scene(demand=9)
    w = wage_at(s.jm_empty)
    s, fx = produce(s, CUTLERY)
    assert s.phase == Phase.SALE  # no question before the sale under during_sale
    s, fx = play(s, 0, StopSelling())
    # appeal 6: seat 1 (1); 5: seat 1 (2); 4: seat 1 (3), seat 2 (1); at 3 the question
    assert (s.phase, s.awaiting) == (Phase.SALE, (1,))
    assert (s.sale.sold_prod, s.sale.tokens, s.sale.level) == ((0, 3, 1), 5, 3)  # type: ignore[union-attr]
    assert E.legal_decisions(s, 1) == (CloseLastRow(close=True), CloseLastRow(close=False))
    assert E.pending(s).prompt.startswith("school: your next good sold comes from your last row")
    rejected(s, 1, SellFromWarehouse(warehouse="large"), "school_question")

    # closed: row 3 is not produced (3 goods, not 5); seat 1 may still sell its stored good
    closed, fx_closed = play(s, 1, CloseLastRow(close=True))
    assert one(fx_closed, "row_closed_by_school", seat=1).row == 3
    assert closed.sale.produced[1] == 3 and closed.awaiting == (1,)  # type: ignore[union-attr]
    assert E.legal_decisions(closed, 1) == (SellFromWarehouse(warehouse="large"), StopSelling())
    closed, fx_closed = run_sale(closed, {1: [StopSelling()]})
    # seat 2 sells on at appeals 3, 2, 1: 4 in all; 2 of the 9 tokens are left
    assert sold(fx_closed, 1) == (3, 0) and sold(fx_closed, 2) == (4, 0)
    assert one(fx_closed, "wages_paid", seat=1).workers == WORKERS_2_ROWS
    assert one(fx_closed, "wages_paid", seat=1).amount == WORKERS_2_ROWS * w
    assert one(fx_closed, "goods_sold", seat=1).income == 3 * PRICE_1
    # share values: 3 sold = 2 steps; seat 2 sold most (4) and takes the bonus step
    assert (steps(fx_closed, 1), steps(fx_closed, 2)) == (2, 3)
    assert not of_kind(fx_closed, "goods_stored", seat=1)  # nothing of row 3 to store

    # kept: the good sold at appeal 3 is row 3's; from then on the school can no longer close it
    kept, fx_kept = play(s, 1, CloseLastRow(close=False))
    assert not of_kind(fx_kept, "row_closed_by_school")
    while kept.awaiting != (1,):
        kept, more = play(kept, kept.awaiting[0], StopSelling())
        fx_kept = [*fx_kept, *more]
    # appeal 1 reached: seat 1's production (5) is sold, it is called for its stored good
    assert (kept.phase, kept.awaiting, kept.sale.sold_prod[1]) == (Phase.SALE, (1,), 5)  # type: ignore[union-attr]
    rejected(kept, 1, CloseLastRow(close=True), "school_too_late")
    rejected(kept, 1, CloseLastRow(close=False), "school_too_late")
    assert CloseLastRow(close=True) not in E.legal_decisions(kept, 1)
    kept, more = run_sale(kept, {1: [SellFromWarehouse(warehouse="large")]})
    fx_kept = [*fx_kept, *more]
    assert sold(fx_kept, 1) == (5, 1) and sold(fx_kept, 2) == (3, 0)
    assert one(fx_kept, "wages_paid", seat=1).workers == WORKERS_3_ROWS
    assert one(fx_kept, "wages_paid", seat=1).amount == WORKERS_3_ROWS * w
    assert one(fx_kept, "goods_sold", seat=1).income == 6 * PRICE_1
    assert (steps(fx_kept, 1), steps(fx_kept, 2)) == (3, 2)  # seat 1 sold most (6)


def test_2014_the_school_is_asked_at_the_end_when_no_good_of_the_row_was_sold() -> None:
    """R14's example: "He notices that he will only sell 3 goods during the sale. Therefore he
    states that he will close the third row". Demand 3: seat 1 sells 3 (rows 1-2's goods) and
    the demand is gone; row 3's goods would go to the warehouses and cost their wages: the owner
    is asked once, at the end."""
    s = school_scene(demand=3)
    w = wage_at(s.jm_empty)
    s, _ = produce(s, CUTLERY)
    s, _ = play(s, 0, StopSelling())
    assert (s.phase, s.awaiting) == (Phase.SCHOOL_AFTER_SALE, (1,))
    assert s.sale.sold_prod == (0, 3, 0)  # type: ignore[union-attr]
    assert E.pending(s).prompt.startswith("school: none of your last row's goods were sold")
    closed, fx = run_sale(s, {1: [CloseLastRow(close=True)]})
    assert one(fx, "row_closed_by_school", seat=1).row == 3
    assert one(fx, "wages_paid", seat=1).amount == WORKERS_2_ROWS * w
    assert not of_kind(fx, "goods_stored", seat=1)
    kept, fx = run_sale(s, {1: [CloseLastRow(close=False)]})
    assert one(fx, "wages_paid", seat=1).amount == WORKERS_3_ROWS * w
    assert one(fx, "goods_stored", seat=1).stored + one(fx, "goods_stored", seat=1).lost == 2


def test_2014_an_owner_whose_row_is_not_reached_is_asked_nothing_in_the_sale() -> None:
    """Without the school, or with the row's goods sold by the time he could be asked, nobody
    waits: the sale runs as it always did."""
    s = school_scene(demand=9)
    s = with_tiles(s, 1)  # no school
    s, _ = produce(s, CUTLERY)
    s, fx = run_sale(s, {})
    assert not of_kind(fx, "row_closed_by_school")
    assert sold(fx, 1) == (5, 0)


@pytest.mark.parametrize("timing", [None, "before_sale"], ids=["recorded-without-the-option", "2016"])
def test_the_2016_reading_asks_once_before_the_sale_as_before(timing: str | None) -> None:
    s = school_scene(demand=9, timing=timing)
    assert new_game_options(edition="2016").school_timing == "before_sale"
    s, _ = produce(s, CUTLERY)
    assert (s.phase, s.awaiting) == (Phase.SCHOOL, (1,))
    s, fx = play(s, 1, CloseLastRow(close=False))
    assert s.phase == Phase.SALE and not of_kind(fx, "row_closed_by_school")
    s, fx = run_sale(s, {})
    assert sold(fx, 1) == (5, 0)  # never asked again: row 3's goods sold at appeals 3 and 2
    s = school_scene(demand=9, timing=timing)
    s, _ = produce(s, CUTLERY)
    s, _ = play(s, 1, CloseLastRow(close=False))
    for _ in range(10):
        if s.awaiting == (1,):
            break
        s, _ = play(s, s.awaiting[0], StopSelling())
    rejected(s, 1, CloseLastRow(close=True), "school_before_sale")


def test_the_bots_play_games_with_the_new_options() -> None:
    for seed, greedy in ((1, True), (2, False), (3, True)):
        options = WaterFrameOptions.for_new_game({"edition": "2014"})
        result = random_playout("water-frame", 3, seed, options, greedy=greedy)
        assert result.winners
    s, _ = settle_draws(E.new_game(new_game_options(edition="2014"), 3))
    assert isinstance(bot.choose(s, 0), ChooseStartPlayer)
    d = strong.choose("water-frame", s, 0, seed=1, budget_ms=5, wall_clock=False)
    assert d in E.legal_decisions(s, 0)
    s = school_scene(demand=9)
    s, _ = produce(s, CUTLERY)
    s, _ = play(s, 0, StopSelling())
    assert bot.choose(s, 1) in (CloseLastRow(close=True), CloseLastRow(close=False))
    d = strong.choose("water-frame", s, 1, seed=1, budget_ms=5, wall_clock=False)
    assert d in E.legal_decisions(s, 1)


# --- 3. Cotton Trade: a loaded ship returns ------------------------------------------------------

NA = Region.NORTH_AMERICA


def _awaited_sell(war: bool) -> Any:
    s = ct.cleared_board(ct.new(3, reputation=True))
    s = ct.with_player(s, 0, ships=[ct.ship("S12", location=NA.value)], reputation=(0, 3, 0, 0))
    s = ct.with_track(s, NA, [(0, 3)])
    s = s if not war else replace(s, war=War(region=NA, side="WAR"))
    s, _ = ct.at_phase(s, CtPhase.SELL)
    assert s.awaiting == (0,)
    # by hand: cotton on board where the engine only ever asks about empty ships
    return ct.with_player(s, 0, ships=[ct.ship("S12", location=NA.value, cargo=2)])


@pytest.mark.parametrize("war", [False, True], ids=["peace", "war"])
def test_cotton_trade_refuses_a_stay_with_cotton_cargo_whatever_led_there(war: bool) -> None:
    """Rulebook, 7. Sell cotton: "If the ship has cotton cargo, return action is mandatory." """
    from ledger.errors import RuleViolationError

    s = _awaited_sell(war)
    for decision in (StayInRegion(), StayInRegion(despite_war=True)):
        with pytest.raises(RuleViolationError) as err:
            ct.play(s, 0, decision)
        assert err.value.code == "rule/cotton-trade/cargo_forces_return"
        assert str(err.value.args[0] if err.value.args else err.value).find("return action is mandatory") >= 0
    assert ct.rules.legal_decisions(s, 0) == (ReturnShip(),)
    after, fx = ct.play(s, 0, ReturnShip())
    assert one(fx, "cotton_sold", seat=0).tokens == 2
    assert after.players[0].ships[0].cargo == 0


# --- the options in players' words ---------------------------------------------------------------


def test_the_options_appear_in_titles_and_on_the_new_game_page_and_a_2014_game_gets_its_defaults(
    client: TestClient,
) -> None:
    table = Table(client, n=2, title="water-frame", options={"edition": "2014"})
    titles = {t["id"]: t for t in client.get(f"{API}/titles", headers=table.auth(0)).json()}
    props = titles["water-frame"]["options"]["properties"]
    for name, values in (
        ("start_player", {"random", "chosen"}),
        ("school_timing", {"before_sale", "during_sale"}),
    ):
        assert props[name]["description"].endswith(".") and ". " not in props[name]["description"]
        assert {v for branch in props[name]["anyOf"] for v in branch.get("enum", ())} == values
        label, sentence, section, words = OPTION_WORDS["water-frame"][name]
        assert sentence.count(". ") == 0 and sentence.endswith(".")  # one sentence
        assert set(words) == {"null", *values}
    g = table.game(0)
    assert g["options"]["start_player"] == "chosen" and g["options"]["school_timing"] == "during_sale"
    assert [a["seat"] for a in g["awaiting"]] == [0]
    assert {d["type"] for d in g["legal_decisions"]} == {"choose_start_player"}
    r = table.decide(0, {"type": "choose_start_player", "seat": 1}, g["version"])
    assert r.status_code == 200, r.text
    assert [a["seat"] for a in table.game(0)["awaiting"]] == [1]
    # a 2016 game drawn as ever; stated options are kept
    t16 = Table(client, n=2, title="water-frame", options={"school_timing": "during_sale"})
    assert t16.game(0)["options"]["start_player"] == "random"
    assert t16.game(0)["options"]["school_timing"] == "during_sale"
    client.cookies.set("gl_token", table.players[0]["token"])
    page = client.get("/games/new?title=water-frame")
    client.cookies.clear()
    assert page.status_code == 200
    for name in ("start_player", "school_timing"):
        assert f'data-field="{name}"' in page.text
    for words in ("Who starts", "chosen by the creator", "When the school closes a row", "during the sale"):
        assert words in page.text


def test_the_first_decision_stands_on_the_table_page_in_words(client: TestClient) -> None:
    """Each start player the creator may name is offered exactly once, said in words."""
    from tests.table_helpers import TablePage, legal, offered

    table = Table(client, n=3, title="water-frame", options={"edition": "2014"})
    mine = table.game(0)
    client.cookies.set("gl_token", table.players[0]["token"])
    try:
        html = client.get(f"/games/{table.game_id}").text
    finally:
        client.cookies.clear()
    assert offered(html) == legal(mine["legal_decisions"])
    assert len(mine["legal_decisions"]) == 3
    words = " ".join(text for _, text in TablePage(html).words)
    assert "starts the game" in words and "set-up: the start player" in words


def test_2014_an_owner_is_asked_at_most_once_a_sale_so_the_table_is_not_stalled() -> None:
    """Over whole games (the greedy bot, with random choices mixed in): each school owner meets
    the school's question at most once in a production phase, never at every call."""
    from ledger.bots.play import draw_values
    from ledger.engine import DrawOutcome

    questions = 0
    for seed in range(3):
        rng = random.Random(seed)
        s = E.new_game(new_game_options(edition="2014"), 3)
        asked: set[tuple[int, int, int]] = set()
        while not E.pending(s).finished:
            p = E.pending(s)
            if p.draw is not None:
                s, _ = E.apply_draw(s, DrawOutcome(p.draw.key, draw_values(p.draw, rng)))
                continue
            seat = p.seats[0]
            legal = E.legal_decisions(s, seat)
            if CloseLastRow(close=False) in legal:
                assert (s.decade, s.cycle, seat) not in asked
                asked.add((s.decade, s.cycle, seat))
            d = bot.choose(s, seat) if rng.random() < 0.7 else rng.choice(legal)
            s, _ = play(s, seat, d)
            assert not E.conservation(s)
        questions += len(asked)
    assert questions > 0


# -- the rules versions: water-frame/4 and cotton-trade/3 ---------------------------------------


@pytest.mark.parametrize(
    ("title", "previous", "options"),
    [
        ("water-frame", "water-frame/3", {"edition": "2014"}),
        ("water-frame", "water-frame/3", {"edition": "2016"}),
        ("cotton-trade", "cotton-trade/2", {}),
    ],
)
def test_games_recorded_under_the_previous_rules_move_to_these_unchanged(
    services: Any, monkeypatch: pytest.MonkeyPatch, title: str, previous: str, options: dict[str, Any]
) -> None:
    """The variants changed the rules versions; a game recorded before them, which could not use
    the new choices, re-simulates identically under the current rules and moves to them."""
    import dataclasses

    from ledger import registry

    current = registry.TITLES[title]
    assert current.rules_version != previous
    monkeypatch.setitem(registry.TITLES, title, dataclasses.replace(current, rules_version=previous))
    ids = [str(services.ledger.register_player(f"V{i}")[0]) for i in range(3)]
    game = services.ledger.create_game(creator=ids[0], title=title, players=ids, options=options)
    rnd = random.Random(7)
    for _ in range(40):
        if not game.awaiting:
            break
        seat = game.awaiting[0]
        d = rnd.choice(game.engine.legal_decisions(game.state, seat))
        services.ledger.decide(game.id, ids[seat], game.version, d.model_dump(mode="json"))
        game = services.ledger.get_game(game.id)
    monkeypatch.setitem(registry.TITLES, title, current)

    report = services.resimulate(title)
    assert [g["outcome"] for g in report["games"]] == ["identical"]
    assert services.ledger.migrate(game.id)["outcome"] == "identical"
    assert services.ledger.get_game(game.id).rules_version == current.rules_version

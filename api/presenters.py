"""Turning ledger objects into what a caller may see."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import orjson
from fastapi.responses import Response

from api.deps import Caller
from api.services import Services
from api.words import signed
from ledger.domain import BOT, Game
from ledger.errors import NotFoundError
from ledger.export import event_record, redact, visible_effects
from ledger.preview import Preview
from projections.titles import reducer


class Answer(Response):
    """A route's JSON answer written by orjson, as it is: for the hottest routes (a game, a
    decision), whose dicts are exactly what their response model would give back (a test holds
    them to it), so that FastAPI need not validate and serialise them again through pydantic."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


_NAMES: dict[str, str] = {}  # a player's name never changes: kept once read, per process
_NAMES_MAX = 100_000


def names_for(services: Services, game: Game) -> dict[str, str]:
    ids = [p for p in game.seats if p and p != BOT]
    names = {p: _NAMES[p] for p in ids if p in _NAMES}
    unknown = [p for p in ids if p not in names]
    if unknown:
        names |= services.game_index.view.player_names(unknown)
        for pid in [p for p in unknown if p not in names]:  # the index may lag: ask the ledger
            try:
                names[pid] = services.ledger.get_player(pid).name
            except NotFoundError:  # an imported game's players need not exist here
                names[pid] = f"player {pid[:8]}"
        if len(_NAMES) > _NAMES_MAX:
            _NAMES.clear()
        _NAMES.update((p, names[p]) for p in unknown)
    names[BOT] = "Bot"
    return names


def seat_names(game: Game, names: dict[str, str]) -> dict[int, str]:
    return {i: names.get(p or "", f"Seat {i}") for i, p in enumerate(game.seats)}


def describer(services: Services, game: Game) -> Callable[[Mapping[str, Any]], str]:
    """An effect in words: the title's own sentence, any code left in it said in the table's
    words ("the food column", not "col:FOOD")."""
    from api.web.table import renderer_for  # lazily: the web pages import this module

    words = renderer_for(game.title).words
    who = seat_names(game, names_for(services, game))
    describe = game.engine.describe
    return lambda effect: signed(words.text(describe(effect, who)))


def game_out(services: Services, game: Game, caller: Caller) -> dict[str, Any]:
    names = names_for(services, game)
    my_seats = game.seats_of(caller.player_id)
    eng = game.engine
    state = private = None
    legal: list[dict[str, Any]] = []
    prompt = "waiting for players to join" if game.state is None else ""
    if game.state is not None:
        viewer = next((s for s in my_seats if s in game.awaiting), my_seats[0] if my_seats else None)
        state = eng.view(game.state, viewer)
        private = state.pop("private", None)
        pending = eng.pending(game.state)
        prompt = pending.prompt
        for mine in my_seats:
            if mine in game.awaiting:
                legal.extend(d.model_dump(mode="json") for d in eng.legal_decisions(game.state, mine))

    def seat(i: int) -> dict[str, Any]:
        pid = game.seats[i]
        return {"seat": i, "player_id": pid, "name": names.get(pid) if pid else None}

    return {
        "game_id": str(game.id),
        "title": game.title,
        "title_name": eng.meta.name,
        "status": game.status,
        "version": game.version,
        "rules_version": game.rules_version,
        "options": game.options,
        "created_by": game.created_by,
        "seed_commitment": game.seed_commitment,
        "head_hash": game.head_hash,
        "seats": [seat(i) for i in range(game.seat_count)],
        "my_seats": my_seats,
        "awaiting": [seat(i) for i in game.awaiting],
        "prompt": prompt,
        "state": state,
        "private": private,
        "legal_decisions": legal,
        "standings": game.standings or None,
        "time_control": game.time_control,
        "clocks": clocks_out(game, services.ledger.clock()),
        "undo_request": game.undo_request,
        "disputes": sorted(game.disputes.values(), key=lambda d: d["dispute"]),
        "sandbox": game.sandbox,
        "origin": game.origin,
    }


def clocks_out(game: Game, now: datetime) -> list[dict[str, Any]] | None:
    """Per seat: seconds left now, whether it is running, when it would run out, a vacation."""
    c = game.clocks
    if not c.timed or game.status not in ("active", "finished", "abandoned") or not c.bank:
        return None
    running = game.awaiting if game.status == "active" else []
    out = []
    for seat in range(game.seat_count):
        left = c.remaining(seat, running, now)
        deadline = c.deadline(seat, running, now)
        pause = c.paused.get(seat)
        paused_until = None
        if pause and datetime.fromisoformat(pause[0]) <= now < datetime.fromisoformat(pause[1]):
            paused_until = pause[1]
        out.append(
            {
                "seat": seat,
                "remaining_seconds": None if left is None else round(left),
                "running": seat in running and seat not in game.forfeited and paused_until is None,
                "deadline": deadline.isoformat() if deadline else None,
                "paused_until": paused_until,
                "forfeited": seat in game.forfeited,
                "stand_in": seat in game.stand_in,  # the strong bot plays it until its player returns
            }
        )
    return out


def events_out(
    services: Services, game: Game, caller: Caller, after: int, limit: int
) -> list[dict[str, Any]]:
    my_seats = game.seats_of(caller.player_id)
    finished = game.over
    say = describer(services, game)
    out = []
    for event in services.ledger.events.get(game.id, gt=after, limit=limit):
        record = event_record(event)
        shown = redact(record, my_seats, finished, game.seed_bytes)
        shown["log"] = [say(e) for e in visible_effects(record, my_seats, finished)]
        out.append(shown)
    return out


def scoreboard_out(
    services: Services, game: Game, after: list[dict[str, Any]] | None = None
) -> dict[str, Any] | None:
    """The game's scoreboard (public facts only), with each seat's name, best rank first;
    ``after``: public effects not yet stored (a preview) reduced onto it the projection's way."""
    view = services.view("scoreboard")
    board: dict[str, Any] | None = view.board(str(game.id))
    if after is not None and (board is None or board["version"] < game.version):
        services.wait_for("scoreboard", None)  # a preview reads from the position it applies to
        board = view.board(str(game.id))
    if board is None:
        return None
    title = reducer(game.title)
    if after and title is not None:
        for effect in after:
            title.apply(board, effect)
        title.finish(board)
    names = names_for(services, game)
    decided_by = board.pop("decided_by", {})
    for seat in board["seats"]:
        pid = game.seats[seat["seat"]]
        seat["player_id"], seat["name"] = pid, names.get(pid or "")
        made = decided_by.get(str(seat["seat"]), {})  # by the person, their orders, the stand-in
        seat["decisions_by"] = {k: made.get(k, 0) for k in ("person", "order", "reply", "bot")}
    board["seats"].sort(key=lambda s: (s["rank"], s["seat"]))
    for key in ("_version", "_at"):
        board.pop(key, None)
    return board


def draw_text(kind: str, label: str, hidden: bool) -> str:
    if kind == "shuffle":
        secret = " (the order stays hidden)" if hidden else ""
        return f"Then the {label} will be shuffled{secret}: the preview stops before that draw."
    return f"Then the {label} will be drawn at random: the preview stops before that draw."


def reveal_text(items: int) -> str:
    what = "something hidden" if items == 1 else f"{items} hidden things"
    return (
        f"This decision turns up {what} (a card or a marker you cannot see now): the preview "
        "stops before it, as before a draw, and shows none of its effects."
    )


def preview_out(services: Services, game: Game, preview: Preview) -> dict[str, Any]:
    """A preview as the caller sees it: the cost, the effects in words, the draw it stops
    before, and the share values and scoreboard after it."""
    from api.web.table import renderer_for  # lazily, as in describer

    say = describer(services, game)
    words = renderer_for(game.title).words
    money = [e for e in preview.effects if e.get("kind") == "money_changed" and e.get("seat") == preview.seat]
    change = sum(int(e.get("amount", 0)) for e in money)
    before = scoreboard_out(services, game) or {"seats": []}
    after = scoreboard_out(services, game, preview.public_effects) or {"seats": []}
    values_before = {s["seat"]: s.get("share_value") for s in before["seats"]}
    draw = None
    if preview.draw is not None:
        d = preview.draw
        draw = {
            "kind": d.kind,
            "label": d.label,
            "size": d.size,
            "hidden": d.hidden,
            "text": words.text(draw_text(d.kind, d.label, d.hidden)),
        }
    view = game.engine.view(preview.state, preview.seat)
    return {
        "game_id": preview.game_id,
        "version": preview.version,
        "seat": preview.seat,
        "decision": preview.decision,
        "cost": {
            "change": change,
            "paid": max(0, -change),
            "received": max(0, change),
            "balance": int(money[-1]["balance"]) if money else None,
            "currency": money[-1].get("currency") if money else None,
        },
        "effects": preview.effects,
        "log": [say(e) for e in preview.effects],
        "draw": draw,
        "reveal": reveal_text(preview.reveal.items) if preview.reveal else None,
        "awaiting": preview.awaiting,
        "prompt": words.prompt(preview.prompt, seat_names(game, names_for(services, game))),
        "finished": preview.finished,
        "share_values": [
            {
                "seat": s["seat"],
                "name": s.get("name"),
                "before": values_before.get(s["seat"]),
                "after": s.get("share_value"),
                "currency": s.get("share_currency"),  # Cotton Trade's stage coins; else pounds
            }
            for s in sorted(after["seats"], key=lambda s: s["seat"])
        ],
        "scoreboard": after["seats"],
        "currency": after.get("currency"),  # the scoreboard's money: Cotton Trade's stage coins
        "state": view,
    }

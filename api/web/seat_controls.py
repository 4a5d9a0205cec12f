"""What the game page offers a seat beyond its decisions, in words: the stand-in playing it (and
taking it back), its standing orders and conditional replies (listed, cancelled), and the table's
Discord or Slack channel (set by the game's creator)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.channels import mask_url
from api.services import Services
from api.web import table as tables
from api.web.forms import human
from ledger.domain import Game

PICKS = {"lowest": "the lowest {field}", "highest": "the highest {field}", "greedy": "the bot's best guess"}


def _kinds(kinds: Any) -> str:
    return " or ".join(human(k).lower() for k in kinds)


def _fields(words: tables.base.Words, values: Mapping[str, Any], how: str = "") -> list[str]:
    return [
        f"{human(k).lower()}{how} {words.name(v) if isinstance(v, str) else human(v) if v is None else v}"
        for k, v in values.items()
    ]


def order_words(rule: Mapping[str, Any], words: tables.base.Words) -> str:
    """One rule of a standing order as a sentence: what it decides, how it chooses, when it ends."""
    parts = [f"{human(rule['kinds'][0])}{' or ' + _kinds(rule['kinds'][1:]) if rule['kinds'][1:] else ''}"]
    details = _fields(words, rule.get("where", {}))
    details += _fields(words, rule.get("at_most", {}), " at most")
    details += _fields(words, rule.get("at_least", {}), " at least")
    if details:
        parts.append("with " + ", ".join(details))
    if rule.get("only_when"):
        parts.append(f"only when the choices are all {_kinds(rule['only_when'])}")
    pick = PICKS.get(str(rule.get("pick")))
    if pick:
        parts.append("choosing " + pick.format(field=human(rule.get("field")).lower()))
    if rule.get("until_version"):
        parts.append(f"until move {rule['until_version']}")
    if rule.get("until_round") is not None:
        parts.append(f"until {rule['until_round']} rounds are played")
    if rule.get("uses"):
        parts.append(f"at most {rule['uses']} time{'s' if rule['uses'] != 1 else ''}")
    if rule.get("cancel_on_own_decision"):
        parts.append("until you decide yourself")
    sentence = ", ".join(parts) + "."
    return f"{sentence} ({rule['note']})" if rule.get("note") else sentence


def reply_words(reply: Mapping[str, Any], table: tables.base.Table) -> str:
    """A conditional reply as a sentence: if that seat decides this, reply that."""
    words = table.words
    if reply.get("decision"):
        awaited = words.label(reply["decision"], table).lower()
    else:
        awaited = human(reply.get("kind")).lower()
        details = _fields(words, reply.get("where", {}))
        awaited += f" ({', '.join(details)})" if details else ""
    return f"If {table.who(reply.get('seat'))} decides {awaited}: reply {words.label(reply['reply'], table).lower()}."


def seat_controls(
    services: Services, game: Game, caller_id: str, names: dict[int, str], view: dict[str, Any] | None
) -> dict[str, Any]:
    """For the page: ``away`` (my seats the stand-in plays), ``orders`` and ``replies`` of my seat
    (sentences), ``armed`` (a reply due at my next turn), and ``chat`` (the table's channel)."""
    mine = game.seats_of(caller_id)
    out: dict[str, Any] = {"away": [], "orders": [], "replies": [], "armed": None, "chat": None}
    out["hooks"] = services.channels is not None  # the server posts to Discord and Slack
    if mine and game.status == "active":
        seat = mine[0]
        words = tables.renderer_for(game.title).words
        table = tables.base.Table(
            title=game.title, view=view or {}, names=names, me=seat, awaiting=(), words=words, pool=[]
        )
        out["away"] = [s for s in mine if s in game.stand_in]
        out["orders"] = [order_words(r, words) for r in game.orders.get(str(seat), ())]
        held = game.replies.get(str(seat), {})
        out["replies"] = [reply_words(r, table) for r in held.get("pending", ())]
        if held.get("armed"):
            out["armed"] = words.label(held["armed"]["reply"], table).lower()
    if services.channels is not None:
        hook = services.channels.store.table_hook(str(game.id))
        if hook is not None and hook.get("service"):
            out["chat"] = {"service": str(hook["service"]).capitalize()}
            if game.created_by == caller_id:  # where, without its secret part: the creator's only
                out["chat"]["url"] = mask_url(hook["url"])
    return out

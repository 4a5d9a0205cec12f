"""Notifications: what each player is told, derived from the public parts of game events.

The projection writes an outbox row per player and notification ("your turn",
"game started", "game finished", "you were timed out", "dispute opened", "dispute resolved"); the
server streams a player's rows as server-sent events and a delivery worker posts
them to the player's webhook (``api.notify``), each filtered by the player's
settings. The delivery log lives beside the outbox.

A dispute is told to the game's other seats, to the organiser of the game's league (who rules on
it, unless they play in it) and to the operator (the rows of ``admin``, which the channels mail to
the operator's address); its ruling, with its note, to every seat, the organiser and the
operator. The projection follows the leagues' creation and their games for that (a game created
in a league names it; one added later, the league's ``game_added``).

A seat is told "your turn" when it becomes awaited, unless its own standing orders or
conditional replies decide for it at once (in the events the ledger records along with the
one that awaited it): then the player has nothing to do, and the row is not written (or
taken back, when a batch ended between the two).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from ledger.domain import ADMIN, League
from projections.base import BatchProjection, DocTable, Fact, SqlView
from projections.topics import (
    ABANDONED,
    ANNULLED,
    CREATED,
    DECISION,
    DISPUTE_OPENED,
    DISPUTE_RESOLVED,
    DRAW,
    ENDED,
    FINISHED,
    PLAYER_RETURNED,
    SEAT_CLAIMED,
    STARTED,
    TIMED_OUT,
    UNDO_REQUESTED,
    UNDONE,
)

# the outbox's columns, declared once: its DDL, and the order the projection writes them in
OUTBOX_TABLE = (
    "position BIGINT NOT NULL, player_id TEXT NOT NULL, kind TEXT NOT NULL, game_id TEXT NOT NULL,"
    " version INTEGER NOT NULL, payload TEXT NOT NULL, created_at TEXT NOT NULL"
)
OUTBOX_COLUMNS = tuple(column.split()[0] for column in OUTBOX_TABLE.split(","))


class NotificationsView(SqlView):
    view_name = "notifications"
    TABLE_NAMES = ("outbox", "context", "deliveries", "attempts", "cursor")
    TABLES = (
        "CREATE TABLE IF NOT EXISTS {outbox} ("
        + OUTBOX_TABLE
        + ", PRIMARY KEY (game_id, version, player_id, kind))",
        "CREATE INDEX IF NOT EXISTS notifications_outbox_player ON {outbox} (player_id, position)",
        "CREATE INDEX IF NOT EXISTS notifications_outbox_position ON {outbox} (position)",
        "CREATE TABLE IF NOT EXISTS {context} (game_id TEXT PRIMARY KEY, doc TEXT NOT NULL)",
        # one row per notification that goes to a webhook, with its latest attempt
        "CREATE TABLE IF NOT EXISTS {deliveries} ("
        " game_id TEXT NOT NULL, version INTEGER NOT NULL, player_id TEXT NOT NULL, kind TEXT NOT NULL,"
        " position BIGINT NOT NULL, url TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,"
        " next_at TEXT NOT NULL, last_status INTEGER, last_error TEXT, updated_at TEXT NOT NULL,"
        " PRIMARY KEY (game_id, version, player_id, kind))",
        "CREATE INDEX IF NOT EXISTS notifications_deliveries_due ON {deliveries} (status, next_at)",
        "CREATE TABLE IF NOT EXISTS {attempts} ("
        " game_id TEXT NOT NULL, version INTEGER NOT NULL, player_id TEXT NOT NULL, kind TEXT NOT NULL,"
        " attempt INTEGER NOT NULL, at TEXT NOT NULL, url TEXT NOT NULL, status INTEGER, error TEXT,"
        " duration_ms INTEGER, PRIMARY KEY (game_id, version, player_id, kind, attempt))",
        "CREATE TABLE IF NOT EXISTS {cursor} (name TEXT PRIMARY KEY, position BIGINT NOT NULL)",
    )

    def outbox(
        self, player_id: str, *, after: int = 0, limit: int = 100, kinds: list[str] | None = None
    ) -> list[dict[str, Any]]:
        sql = f"SELECT * FROM {self.t('outbox')} WHERE player_id = %s AND position > %s"
        params: list[Any] = [player_id, after]
        if kinds is not None:
            if not kinds:
                return []
            sql += f" AND kind IN ({', '.join(['%s'] * len(kinds))})"
            params += kinds
        rows = self.rows(sql + " ORDER BY position, game_id, version, kind LIMIT %s", [*params, limit])
        return [self._row(r) for r in rows]

    def recent(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        rows = self.rows(
            f"SELECT o.*, d.status AS delivery, d.attempts, d.last_status, d.last_error"
            f" FROM {self.t('outbox')} o LEFT JOIN {self.t('deliveries')} d ON d.game_id = o.game_id"
            " AND d.version = o.version AND d.player_id = o.player_id AND d.kind = o.kind"
            " WHERE o.player_id = %s ORDER BY o.position DESC LIMIT %s",
            [player_id, limit],
        )
        out = []
        for r in rows:
            item = self._row(r)
            item["webhook"] = (
                None
                if r["delivery"] is None
                else {
                    "status": r["delivery"],
                    "attempts": r["attempts"],
                    "last_status": r["last_status"],
                    "last_error": r["last_error"],
                }
            )
            out.append(item)
        return out

    def latest_position(self, player_id: str) -> int:
        rows = self.rows(
            f"SELECT MAX(position) AS p FROM {self.t('outbox')} WHERE player_id = %s", [player_id]
        )
        return int(rows[0]["p"] or 0) if rows else 0

    def attempts(self, player_id: str, limit: int = 100) -> list[dict[str, Any]]:
        return self.rows(
            f"SELECT * FROM {self.t('attempts')} WHERE player_id = %s ORDER BY at DESC LIMIT %s",
            [player_id, limit],
        )

    # -- webhook deliveries (api.notify) ------------------------------------------------

    def webhook_cursor(self) -> int:
        rows = self.rows(f"SELECT position FROM {self.t('cursor')} WHERE name = %s", ["webhooks"])
        return int(rows[0]["position"]) if rows else 0

    def outbox_after(self, position: int, limit: int) -> list[dict[str, Any]]:
        return self.rows(
            f"SELECT * FROM {self.t('outbox')} WHERE position > %s ORDER BY position LIMIT %s",
            [position, limit],
        )

    def add_deliveries(self, rows: list[list[Any]], cursor: int) -> None:
        """New deliveries (game_id, version, player_id, kind, position, url, status, attempts,
        next_at, updated_at) and the outbox position scanned up to, in one transaction."""
        with self.datastore.transaction(commit=True) as c:
            self.executemany(
                c,
                f"INSERT INTO {self.t('deliveries')} (game_id, version, player_id, kind, position, url, status,"
                " attempts, next_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                rows,
            )
            self.execute(
                c,
                f"INSERT INTO {self.t('cursor')} (name, position) VALUES (%s, %s)"
                " ON CONFLICT (name) DO UPDATE SET position = excluded.position",
                ["webhooks", cursor],
            )

    def due_deliveries(self, now: str, stuck_before: str, limit: int) -> list[dict[str, Any]]:
        return self.rows(
            f"SELECT d.*, o.payload, o.position AS pos FROM {self.t('deliveries')} d JOIN {self.t('outbox')} o"
            " ON o.game_id = d.game_id AND o.version = d.version AND o.player_id = d.player_id AND o.kind = d.kind"
            " WHERE (d.status = 'pending' AND d.next_at <= %s) OR (d.status = 'sending' AND d.updated_at <= %s)"
            " ORDER BY d.next_at LIMIT %s",
            [now, stuck_before, limit],
        )

    def claim(self, d: dict[str, Any], now: str, token: str) -> bool:
        """Take a delivery for sending unless another process changed it first (compare and set:
        the row is updated only if it is as we read it, then read back in the same transaction)."""
        key = [d["game_id"], d["version"], d["player_id"], d["kind"]]
        where = " WHERE game_id = %s AND version = %s AND player_id = %s AND kind = %s"
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"UPDATE {self.t('deliveries')} SET status = 'sending', updated_at = %s"
                + where
                + " AND status = %s AND updated_at = %s",
                [f"{now}#{token}", *key, d["status"], d["updated_at"]],
            )
            rows = self.fetch(c, f"SELECT updated_at FROM {self.t('deliveries')}" + where, key)
            return bool(rows) and rows[0]["updated_at"] == f"{now}#{token}"

    def record_attempt(self, d: dict[str, Any], attempt: dict[str, Any], next_at: str) -> None:
        key = [d["game_id"], d["version"], d["player_id"], d["kind"]]
        with self.datastore.transaction(commit=True) as c:
            self.execute(
                c,
                f"UPDATE {self.t('deliveries')} SET status = %s, attempts = %s, next_at = %s, last_status = %s,"
                " last_error = %s, updated_at = %s WHERE game_id = %s AND version = %s AND player_id = %s"
                " AND kind = %s",
                [
                    attempt["result"],
                    attempt["attempt"],
                    next_at,
                    attempt["status"],
                    attempt["error"],
                    attempt["at"],
                    *key,
                ],
            )
            self.execute(
                c,
                f"INSERT INTO {self.t('attempts')} (game_id, version, player_id, kind, attempt, at, url, status,"
                " error, duration_ms) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                [
                    *key,
                    attempt["attempt"],
                    attempt["at"],
                    attempt["url"],
                    attempt["status"],
                    attempt["error"],
                    attempt["duration_ms"],
                ],
            )

    @staticmethod
    def _row(r: dict[str, Any]) -> dict[str, Any]:
        return {
            **json.loads(r["payload"]),
            "id": f"{r['position']}:{r['game_id']}:{r['version']}:{r['kind']}",
        }


def _text(kind: str, title: str, extra: dict[str, Any]) -> str:
    if kind == "your_turn":  # by far the most frequent
        return f"It is your turn in {title}."
    if kind == "game_started":
        return f"Your {title} game has started."
    if kind == "game_finished":
        how = " (abandoned)." if extra.get("abandoned") else " (annulled)." if extra.get("annulled") else "."
        return f"Your {title} game is over{how}"
    if kind == "timed_out":
        return (
            f"Your clock ran out in {title}; the game went on as its settings say"
            f" ({extra.get('consequence', '')})."
        )
    if kind == "dispute_opened":
        if extra.get("dispute") == "undo":
            return f"A player of your {title} game asks to take back a decision: your consent is needed."
        events = _events(extra.get("versions") or [])
        if extra.get("rules"):
            return f"A player opened a dispute about {events} of a {title} game: you rule on it."
        where = "your" if extra.get("seated", True) else "a"
        return (
            f"A player opened a dispute about {events} of {where} {title} game; {_ruler(extra)} rules on it."
        )
    if kind == "dispute_resolved":
        outcome = str(extra.get("outcome", "")).replace("_", " ")
        where = "your" if extra.get("seated", True) else "a"
        said = f" {_ruler(extra).capitalize()}'s note: {extra['note']}" if extra.get("note") else ""
        return f"The dispute in {where} {title} game was resolved: {outcome}.{said}"
    raise KeyError(kind)


def _events(versions: list[int]) -> str:
    shown = ", ".join(str(v) for v in versions[:5]) + (" …" if len(versions) > 5 else "")
    return f"event {shown}" if len(versions) == 1 else f"events {shown}"


def _ruler(extra: dict[str, Any]) -> str:
    return "the operator" if extra.get("ruler") == ADMIN else "the league's organiser"


def _json(payload: dict[str, Any]) -> str:
    return orjson.dumps(payload).decode()


L_CREATED, L_GAME = League.Created.TOPIC, League.GameAdded.TOPIC
LEAGUE_KEY = "league:"  # a league's organiser, kept in the context table beside the games'

OWN_RULES = ("order", "reply")  # a decision the seat's standing orders or conditional replies made


def _automatic(e: Fact) -> bool:
    """Whether the ledger recorded ``e`` on its own, following what a player did (a draw, the end,
    a decision made by orders, replies, the stand-in or a forfeit): a seat told of its turn
    before such an event had nothing to do if its own rules then decided for it."""
    if e.topic == DECISION:
        return bool(e.public.get("forced")) or e.public.get("by") in ("bot", *OWN_RULES)
    return e.topic in (DRAW, FINISHED)


class Notifications(BatchProjection[NotificationsView]):
    name = "notifications"
    topics = (
        *(CREATED, SEAT_CLAIMED, STARTED, DRAW, DECISION, *ENDED),  # seats, turns, ends
        *(TIMED_OUT, PLAYER_RETURNED, UNDO_REQUESTED, UNDONE, DISPUTE_OPENED, DISPUTE_RESOLVED),  # the rest
        *(L_CREATED, L_GAME),  # who organises a game's league: told of its disputes
    )

    def process_batch(self, c: Any, events: list[Fact]) -> None:
        table = DocTable(self.view, "context")
        games = {e.originator_id for e in events if e.topic not in (L_CREATED, L_GAME)}
        games |= {str(e.data["game_id"]) for e in events if e.topic == L_GAME}
        contexts = table.load(c, games)
        leagues = {LEAGUE_KEY + str(ctx["league"]) for ctx in contexts.values() if ctx.get("league")}
        leagues |= {LEAGUE_KEY + e.originator_id for e in events if e.topic == L_GAME}
        leagues |= {
            LEAGUE_KEY + str(e.public["league"])
            for e in events
            if e.topic == CREATED and e.public.get("league")
        }
        contexts |= table.load(c, leagues)
        rows: dict[tuple[str, int, str, str], list[Any]] = {}  # by key: position, ..., payload, at
        # "your turn" rows of earlier batches to take a seat out of: game, version, player, seat
        taken_back: list[tuple[str, int, str, int]] = []

        def take_back(gid: str, version: int, player: str, seat: int) -> None:
            """The seat's "your turn" of ``version``: its own rules answered it at once."""
            row = rows.get((gid, version, player, "your_turn"))
            if row is None:
                taken_back.append((gid, version, player, seat))
                return
            row[5]["seats"] = [s for s in row[5]["seats"] if s != seat]
            if not row[5]["seats"]:
                del rows[(gid, version, player, "your_turn")]

        for e in events:
            gid = e.originator_id
            p = e.public
            if e.topic == L_CREATED:
                contexts[LEAGUE_KEY + gid] = {"organiser": e.data["created_by"]}
                continue
            if e.topic == L_GAME:
                added = contexts.get(str(e.data["game_id"]))
                if added is not None:
                    added["league"] = gid
                continue
            if e.topic == CREATED:
                contexts[gid] = {
                    "title": p["title"],
                    "seats": list(p["seats"]),
                    "awaiting": [],
                    "forfeited": [],
                    "told": {},
                    "league": p.get("league"),
                }
                continue
            ctx = contexts.get(gid)
            if ctx is None:
                continue

            def tell(
                seats: list[int], kind: str, ctx: dict[str, Any] = ctx, e: Fact = e, **extra: Any
            ) -> None:
                for player in {ctx["seats"][s] for s in seats if ctx["seats"][s]}:
                    payload = {
                        "kind": kind,
                        "game_id": e.originator_id,
                        "title": ctx["title"],
                        "version": e.version,
                        "seats": [s for s in seats if ctx["seats"][s] == player],
                        "text": _text(kind, ctx["title"], extra),
                        "url": f"/games/{e.originator_id}",
                        "at": e.at,
                        **extra,
                    }
                    key = (e.originator_id, e.version, player, kind)
                    row = [e.position, player, kind, e.originator_id, e.version, payload, e.at]
                    rows.setdefault(key, row)

            def tell_apart(
                player: str, kind: str, ctx: dict[str, Any] = ctx, e: Fact = e, **extra: Any
            ) -> None:
                """The league's organiser or the operator, who hold no seat of the game."""
                payload = {
                    "kind": kind,
                    "game_id": e.originator_id,
                    "title": ctx["title"],
                    "version": e.version,
                    "seats": [],
                    "text": _text(kind, ctx["title"], extra | {"seated": False}),
                    "url": extra.get("url") or f"/games/{e.originator_id}",
                    "at": e.at,
                    **extra,
                }
                row = [e.position, player, kind, e.originator_id, e.version, payload, e.at]
                rows.setdefault((e.originator_id, e.version, player, kind), row)

            everyone = list(range(len(ctx["seats"])))
            # the seats told of their turn with nothing but automatic events since (by seat)
            told: dict[str, int] = ctx.setdefault("told", {})
            if not _automatic(e):
                told.clear()
            elif e.topic == DECISION and str(p["seat"]) in told:
                version = told.pop(str(p["seat"]))
                if p.get("by") in OWN_RULES:  # no turn for the player after all; still awaited: told now
                    take_back(gid, version, ctx["seats"][p["seat"]], p["seat"])
                    ctx["awaiting"] = [s for s in ctx["awaiting"] if s != p["seat"]]
            if e.topic == SEAT_CLAIMED:
                ctx["seats"][p["seat"]] = p["player"]
            elif e.topic == STARTED:
                tell(everyone, "game_started")
            elif e.topic in ENDED:
                tell(
                    everyone,
                    "game_finished",
                    abandoned=e.topic == ABANDONED,
                    annulled=e.topic == ANNULLED,
                )
                ctx["awaiting"] = []
            elif e.topic in (DISPUTE_OPENED, DISPUTE_RESOLVED):
                organiser = contexts.get(LEAGUE_KEY + str(ctx.get("league")), {}).get("organiser")
                apart = (
                    organiser if organiser and organiser != ADMIN and organiser not in ctx["seats"] else None
                )
                ruler = apart or ADMIN  # who rules on the game's disputes
                url = f"/games/{gid}/disputes/{p['dispute']}"
                if e.topic == DISPUTE_OPENED:
                    told_of = {
                        "dispute": "dispute",
                        "number": p["dispute"],
                        "versions": p["versions"],
                        "url": url,
                    }
                    others = [s for s in everyone if ctx["seats"][s] != p["player"]]
                    tell(others, "dispute_opened", ruler=ruler, **told_of)
                    for who in (apart, ADMIN):
                        if who:
                            tell_apart(who, "dispute_opened", ruler=ruler, rules=who == ruler, **told_of)
                else:
                    ruling = {
                        "number": p["dispute"],
                        "outcome": p["outcome"],
                        "note": p.get("note") or "",
                        "url": url,
                    }
                    by = p.get("by") or ADMIN
                    tell(everyone, "dispute_resolved", ruler=by, **ruling)
                    for who in (apart, ADMIN):  # whoever ruled is told too: the ruling as recorded
                        if who:
                            tell_apart(who, "dispute_resolved", ruler=by, **ruling)
            elif e.topic == TIMED_OUT:
                tell([p["seat"]], "timed_out", consequence=p["consequence"])
                if p["consequence"] in ("forfeit", "bot"):  # played for from now on: no "your turn"
                    ctx["forfeited"].append(p["seat"])
            elif e.topic == PLAYER_RETURNED:  # back from the stand-in
                ctx["forfeited"] = [s for s in ctx["forfeited"] if s != p["seat"]]
            elif e.topic == UNDO_REQUESTED:
                others = [s for s in everyone if ctx["seats"][s] != p["player"]]
                tell(others, "dispute_opened", dispute="undo", target_version=p["target_version"])
            if "awaiting" in p:
                new = [s for s in p["awaiting"] if s not in ctx["awaiting"] and s not in ctx["forfeited"]]
                if new and e.topic not in ENDED:
                    tell(new, "your_turn")
                    told.update({str(s): e.version for s in new if ctx["seats"][s]})
                ctx["awaiting"] = list(p["awaiting"])
        self._take_back(c, taken_back)
        self.view.executemany(
            c,
            f"INSERT INTO {self.view.t('outbox')} ({', '.join(OUTBOX_COLUMNS)}) "
            f"VALUES ({', '.join(['%s'] * len(OUTBOX_COLUMNS))}) ON CONFLICT DO NOTHING",
            [[*row[:5], _json(row[5]), row[6]] for row in rows.values()],
        )
        table.save(c, contexts)

    def _take_back(self, c: Any, turns: list[tuple[str, int, str, int]]) -> None:
        """Take a seat out of "your turn" rows an earlier batch wrote (the row goes with its last seat)."""
        outbox = self.view.t("outbox")
        where = "WHERE game_id = %s AND version = %s AND player_id = %s AND kind = 'your_turn'"
        for gid, version, player, seat in turns:
            for row in self.view.fetch(c, f"SELECT payload FROM {outbox} {where}", [gid, version, player]):
                payload = orjson.loads(row["payload"])
                payload["seats"] = [s for s in payload["seats"] if s != seat]
                if payload["seats"]:
                    update = f"UPDATE {outbox} SET payload = %s {where}"
                    self.view.execute(c, update, [_json(payload), gid, version, player])
                else:
                    self.view.execute(c, f"DELETE FROM {outbox} {where}", [gid, version, player])

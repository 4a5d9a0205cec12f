"""What a seat (or a spectator) may see: every card placed, money, shares and the market are
public; the development deck (the expert random supply) is not."""

from __future__ import annotations

from typing import Any

from ledger.games.arkwright_card_game.components import DEV_CARDS, RESERVE, TRACKS
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    card_type,
    half_machine_cards,
    held,
    lifted,
    quality_cap,
    track_allows,
    turn_order,
    values,
    year,
)
from ledger.games.arkwright_card_game.state import Card, Player, State


def _card_view(c: Card) -> dict[str, Any]:
    return {"card": c.id, "value": c.value, "mode": "APPEAL" if c.appeal else "PRICE"}


def _factory_view(p: Player, g: int) -> dict[str, Any] | None:
    f = p.factories[g]
    if f is None:
        return None
    v = values(p, g)
    foreman = held(p, "FOREMAN")
    return {
        "good": GOODS[g],
        "side": f.side,
        "token_spot": f.spot,
        "office": "APPEAL" if f.office_appeal else "PRICE",
        "price": v.price,
        "appeal": v.appeal,
        "goods": v.goods,
        "workers": v.workers,
        "machines": v.machines,
        "fixed_cost": v.fixed,
        "ship_price": v.ship_price,
        "worker_cards": [{"position": w.position, "side": w.side, "machines": w.machines} for w in f.workers],
        "quality": [_card_view(c) for c in p.quality if c.good == g],
        "distribution": [{"card": c.id, "value": c.value} for c in p.distribution if c.good == g],
        "storehouses": [{"storehouse": st.id, "goods": st.goods} for st in p.storehouses if st.good == g],
        "foreman": foreman is not None and foreman.good == g,
        "appeal_marker": p.appeal[g],
    }


def _player_view(s: State, p: Player) -> dict[str, Any]:
    return {
        "seat": p.seat,
        "money": p.money,
        "shares": p.shares,
        "share_value": p.share_value,
        "portfolio": p.share_value * p.shares,
        "loans": p.loans,
        "shipping_tokens": p.shipping_tokens,
        "ships": p.ships,
        "developments": {TRACKS[i]: p.levels[i] for i in range(len(TRACKS))},
        "restrictions_lifted": [TRACKS[i] for i in range(len(TRACKS)) if lifted(p, i)]
        if s.options.decade_restrictions
        else [],
        "card_limit": track_allows(p, DEV_CARDS),
        "engineer_token_max6": p.engineer_token,
        "quality_cap": quality_cap(p),
        "factories": [_factory_view(p, g) for g in range(len(GOODS))],
        "reserve": {
            "factories": [GOODS[g] for g in range(len(GOODS)) if p.factories[g] is None],
            "quality": [c.id for c in p.quality if c.good == RESERVE],
            "distribution": [c.id for c in p.distribution if c.good == RESERVE],
            "storehouses": [st.id for st in p.storehouses if st.good == RESERVE],
        },
        "development_cards": [
            {
                "card": card_type(h),
                "instance": h.card,
                "rotated": h.rotated,
                "good": None if h.good == RESERVE else GOODS[h.good],
            }
            for h in p.cards
        ],
        "machine_token_on": [{"good": GOODS[g], "position": pos} for g, pos in half_machine_cards(p)],
        "eliminated": p.eliminated,
    }


def view(s: State, seat: int | None) -> dict[str, Any]:
    """Everything is public except the order and faces of the cards never drawn for the expert
    supply (they lie face down in the box)."""
    t = s.turn
    pr = s.production
    return {
        "decade": year(s),
        "decade_number": s.decade,
        "round": s.round,
        "active_good": GOODS[s.good],
        "phase": s.phase.value,
        "start_player": s.start_player,
        "turn_order": list(turn_order(s)),
        "awaiting": list(s.awaiting),
        "market": {
            "wage_position": s.wage,
            "wage": C.wage(s.wage),
            "demand": {GOODS[g]: s.demand[g] for g in range(len(GOODS))},
            "appeal": {
                GOODS[g]: {str(p.seat): p.appeal[g] for p in s.players if p.appeal[g] is not None}
                for g in range(len(GOODS))
            },
            "neutral_appeal": {GOODS[g]: s.neutral[g] for g in range(len(GOODS))} if s.neutral else None,
        },
        "development_supply": [{"card": C.card_type(c), "instance": c} for c in s.supply],
        "box": {"seen": list(s.box), "face_down": len(s.unseen)},
        "players": [_player_view(s, p) for p in s.players],
        "turn": None
        if t is None
        else {
            "seat": t.seat,
            "step": t.step,
            "action": t.action or None,
            "steps": t.steps,
            "machines_added": t.machines,
            "upgraded": [GOODS[g] for g in t.upgraded],
            "goods_to_store": {"good": GOODS[t.loose_good], "count": t.loose} if t.loose else None,
            "discarded": list(t.discarded),
            "engineer_replacement": {"good": GOODS[t.engineer_good], "value_left": t.engineer_budget}
            if t.step == "engineer"
            else None,
        },
        "production": None
        if pr is None
        else {
            "good": GOODS[pr.good],
            "producers": list(pr.order),
            "current": pr.order[pr.cursor] if pr.cursor < len(pr.order) else None,
            "stage": pr.stage,
            "produced": list(pr.produced),
            "sold": list(pr.sold),
            "leftover": list(pr.leftover),
            "shipped": list(pr.shipped),
        },
        "scores": list(s.scores) if s.scores else None,
    }

"""What a seat (or a spectator) may see: everything in Water Frame is public except the economy
and event markers not yet revealed."""

from __future__ import annotations

from typing import Any

from ledger.games.water_frame import actions, special
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.economy import (
    C,
    appeal,
    base_quality,
    demand,
    has,
    large_cap,
    level_now,
    output,
    portfolio,
    quality,
    turn_order,
    wage,
)
from ledger.games.water_frame.production import surplus_of
from ledger.games.water_frame.state import Factory, State


def _factory_view(g: int, f: Factory | None) -> dict[str, Any] | None:
    if f is None:
        return None
    return {
        "good": GOODS[g],
        "level": f.level,
        "price": f.price,
        "base_quality": base_quality(g, f),
        "quality_marker": f.quality,
        "quality": quality(g, f),
        "distribution": f.distribution,
        "appeal": appeal(g, f),
        "output": output(g, f),
        "rows": [
            {
                "workers": r.workers,
                "machines": r.machines,
                "slots": C.slots(g, i),
                "flexible": C.row_slots[g][i][1],
                "complete": r.workers + r.machines == C.slots(g, i),
            }
            for i, r in enumerate(f.rows)
        ],
        "obsolete_workers": f.obsolete_workers,
        "obsolete": f.obsolete,
        "worker_on_marker": f.marker_worker,
    }


def view(s: State, seat: int | None) -> dict[str, Any]:
    """Everything in Water Frame is public except the face-down economy and event markers."""
    economy = []
    for i in range(s.economy_revealed):
        a, w = C.economy_marker(s.economy[i])
        economy.append({"decade": C.decades[i // 4], "good": GOODS[i % 4], "advance": a, "workers": w})
    events = [{"decade": C.decades[i], "event": s.events[i]} for i in range(s.events_revealed)]
    t = s.turn
    sale = s.sale
    return {
        "edition": s.options.edition,
        "decade": s.decade,
        "level": level_now(s),
        "cycle": s.cycle + 1 if s.cycle >= 0 else None,
        "active_good": GOODS[s.cycle] if s.cycle >= 0 else None,
        "phase": s.phase.value,
        "start_player": s.start_player,
        "turn_order": list(turn_order(s)),
        "awaiting": list(s.awaiting),
        "job_market": {
            "empty_cells": s.jm_empty,
            "cells": C.jm_cells,
            "wage": wage(s),
            "demand": {GOODS[g]: demand(s, g) for g in range(4)},
        },
        "fired_workers": s.fired,
        "boxed_workers": s.boxed,
        "importers": {GOODS[g]: s.importers[g] for g in range(4)},
        "economy_markers_revealed": economy,
        "events_revealed": events,
        "bureaucracy": s.bureaucracy,
        "goods_done_this_decade": [GOODS[g] for g in s.goods_done],
        "special_markers_mat": {
            "open_rows": special.mat_level(s) if s.decade >= 1760 else 1,
            "rows": [
                {
                    "row": i + 1,
                    "markers": list(s.mat[i]),
                    "ships": [
                        {"ship": x, "capacity": C.ship(x).capacity, "crew": C.ship(x).crew}
                        for x in s.mat_ships[i]
                    ],
                }
                for i in range(4)
            ],
        },
        "development_tiles_on_display": list(s.display),
        "players": [
            {
                "seat": p.seat,
                "cash": p.cash,
                "shares": p.shares,
                "bank_shares": p.bank_shares,
                "loans": p.loans,
                "share_space": p.share_space,
                "share_value": C.share_value(p.share_space),
                "portfolio": portfolio(p),
                "factories": [_factory_view(g, p.factories[g]) for g in range(4)],
                "administration": [{"cost": C.admin_spaces[i], "marker": m} for i, m in enumerate(p.admin)],
                "warehouse": {
                    "columns": [GOODS[g] for g in range(4) if p.wh_cols[g]],
                    "rows": [r + 1 for r in range(C.warehouse_rows) if p.wh_rows[r]],
                    "stock": {GOODS[g]: p.stock[g] for g in range(4)},
                    "capacity": {GOODS[g]: large_cap(p, g) for g in range(4)},
                    "small_warehouse": {GOODS[g]: p.small_stock[g] for g in range(4)}
                    if has(p, "SMALL_WAREHOUSE")
                    else None,
                },
                "grey_markers": list(p.grey),
                "development_tiles": [
                    {"tile": t, "assigned": next((GOODS[g] for a, g in p.assigned if a == t), None)}
                    for t in p.tiles
                ],
                "ships": [
                    {"ship": x, "capacity": C.ship(x).capacity, "crew": C.ship(x).crew} for x in p.ships
                ],
                "contracts": {GOODS[g]: p.contracts[g] for g in range(4) if p.contracts[g]},
            }
            for p in s.players
        ],
        "turn": None
        if t is None
        else {
            "seat": t.seat,
            "action": t.action,
            "space": C.admin_spaces[t.space],
            "paid": t.paid,
            "budget": t.budget,
            "spent": t.spent,
            "stage": t.stage,
            "main_costs": t.main_costs,
            "main_action_possible": actions.main_possible(s),
            "affected": [GOODS[g] for g in t.affected],
            "adjusted": [GOODS[g] for g in t.adjusted],
            "storage_choice": None
            if t.storing is None
            else {"good": GOODS[t.storing[0]], "rows": t.storing[1], "produced": t.storing[2]},
        },
        "sale": None
        if sale is None
        else {
            "good": GOODS[sale.good],
            "tokens_left": sale.tokens,
            "level": sale.level,
            "produced": list(sale.produced),
            "sold_from_production": list(sale.sold_prod),
            "sold_from_stock": list(sale.sold_stock),
            "importer_sold": sale.importer_sold,
            "surplus": [max(0, surplus_of(sale, i)) for i in range(s.players_count)],
        },
        "scores": list(s.scores) if s.scores else None,
        "eliminated": list(s.eliminated),
    }

"""Ships: 3. Rent ships (with reputation's top ship card and peeks at face-down contracts),
5. Sail ships (overtaking, bonus coins, passengers and reputation's created passengers and
war entry), 8. Pay maintenance cost."""

from __future__ import annotations

from typing import Literal

from ledger.engine import Decision
from ledger.errors import RuleViolationError
from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade import effects as fx
from ledger.games.cotton_trade.board import turn_up
from ledger.games.cotton_trade.common import (
    C,
    Effects,
    currency,
    gain,
    region_index,
    region_open,
    replace_ship,
    ship_of,
    ships_in_uk,
    violation,
    war_locked,
)
from ledger.games.cotton_trade.components import REGIONS, Region
from ledger.games.cotton_trade.decisions import (
    DiscardRevealedShip,
    PassRenting,
    PeekContract,
    RentShip,
    RevealTopShip,
    SailShip,
    TakeRevealedShip,
)
from ledger.games.cotton_trade.payments import can_pay, charge
from ledger.games.cotton_trade.state import UK, Maintenance, Phase, Ship, ShipRental, State
from ledger.games.shared import replace, set_at

# --- 3. Rent ships ------------------------------------------------------------------------


def rent(s: State, out: Effects) -> State:
    """3. Rent ships, in turn order, until all players pass or the row is empty."""
    n = s.players_count
    if s.revealed:  # a ship card turned up by reputation waits to be rented or discarded
        seat = s.turn_order[s.cursor]
        if s.revealed == "?":
            s = turn_up(s, seat, None, out)
        return replace(s, awaiting=(seat,))
    while s.ship_row and len(s.rent_passed) < n:
        for k in range(n):
            idx = (s.cursor + k) % n
            seat = s.turn_order[idx]
            if seat in s.rent_passed:
                continue
            if (
                any(rentable(s, seat, c) is None for c in s.ship_row)
                or may_reveal_ship(s, seat)
                or peekable(s, seat)
            ):
                return replace(s, cursor=idx, awaiting=(seat,))
            # No legal rental: the only choice is to pass, so the engine passes for them.
            out.append(fx.RentingPassed(seat=seat, automatic=True))
            s = replace(s, rent_passed=(*s.rent_passed, seat), cursor=(idx + 1) % n)
            break
    return replace(s, phase=Phase.REVEAL, cursor=0, rent_passed=())


def rentable(s: State, seat: int, card: str, *, revealed: bool = False) -> RuleViolationError | None:
    ship = C.ships.get(card)
    if ship is None or (card != s.revealed if revealed else card not in s.ship_row):
        return violation(
            "ship_not_in_row",
            f"Ship card {card} is not {'the card turned up' if revealed else 'in the ship card row'}.",
            "3. Rent ships",
        )
    if any(sh.capacity == ship.capacity for sh in s.players[seat].ships):
        return violation(
            "capacity_held",
            f"You already have a ship of capacity {ship.capacity}; you cannot rent another of that capacity.",
            "3. Rent ships",
        )
    if not can_pay(s, seat, ship.value):
        return violation(
            "cannot_afford",
            f"The rental fee is {ship.value} {currency(s)}; your money and shares do not cover it.",
            "3. Rent ships; Selling shares",
        )
    return None


def peekable(s: State, seat: int) -> list[tuple[Region, int]]:
    """Reputation use 4: face-down contracts the seat has not seen, where it has reputation."""
    if not s.options.reputation:
        return []
    p = s.players[seat]
    cost = C.reputation_cost["peek_contract"]
    seen = {card for who, card in s.peeks if who == seat}
    return [
        (region, i + 1)
        for r, region in enumerate(REGIONS)
        if p.reputation[r] >= cost
        for i, slot in enumerate(s.contract_row[r])
        if not slot.face_up and slot.card not in seen
    ]


def may_reveal_ship(s: State, seat: int) -> bool:
    """Reputation use 1: a passenger token for the top ship card (a deck to draw from)."""
    return (
        s.options.reputation
        and s.players[seat].uk_reputation >= C.reputation_cost["reveal_top_ship"]
        and bool(s.ship_deck or s.ship_discard)
    )


def rent_options(s: State, seat: int) -> tuple[Decision, ...]:
    if s.revealed:
        take = [TakeRevealedShip()] if rentable(s, seat, s.revealed, revealed=True) is None else []
        return (*take, DiscardRevealedShip())
    options: list[Decision] = [RentShip(card=c) for c in s.ship_row if rentable(s, seat, c) is None]
    if may_reveal_ship(s, seat):
        options.append(RevealTopShip())
    options += [PeekContract(region=region, slot=slot) for region, slot in peekable(s, seat)]
    return (*options, PassRenting())


def rent_ship(s: State, seat: int, d: RentShip, out: Effects) -> State:
    err = rentable(s, seat, d.card)
    if err:
        raise err
    return charge(s, seat, C.ships[d.card].value, ShipRental(d.card), out)


def pass_renting(s: State, seat: int, d: PassRenting, out: Effects) -> State:
    out.append(fx.RentingPassed(seat=seat, automatic=False))
    return replace(s, rent_passed=(*s.rent_passed, seat), cursor=(s.cursor + 1) % s.players_count)


def reveal_top_ship(s: State, seat: int, d: RevealTopShip, out: Effects) -> State:
    adv.check_reputation(s, seat, adv.UK_REP, "reveal_top_ship")
    if not (s.ship_deck or s.ship_discard):
        raise violation("deck_empty", "No ship card is left to turn up.", "Advanced game, reputation 1")
    s = adv.spend_reputation(s, seat, adv.UK_REP, "reveal_top_ship", out)
    return turn_up(s, seat, None, out)


def take_revealed_ship(s: State, seat: int, d: TakeRevealedShip, out: Effects) -> State:
    err = rentable(s, seat, s.revealed, revealed=True)
    if err:
        raise err
    return charge(s, seat, C.ships[s.revealed].value, ShipRental(s.revealed), out)


def discard_revealed_ship(s: State, seat: int, d: DiscardRevealedShip, out: Effects) -> State:
    out.append(fx.RevealedCardDiscarded(seat=seat, card=s.revealed, region=None))
    return replace(s, ship_discard=(*s.ship_discard, s.revealed), revealed="")


def peek_contract(s: State, seat: int, d: PeekContract, out: Effects) -> State:
    adv.check_reputation(s, seat, d.region.value, "peek_contract")
    if (d.region, d.slot) not in peekable(s, seat):
        raise violation(
            "not_peekable",
            "Peek at a face-down contract of that region's row that you have not seen yet.",
            "Advanced game, reputation 4",
        )
    r = region_index(d.region)
    card = s.contract_row[r][d.slot - 1].card
    s = adv.spend_reputation(s, seat, d.region.value, "peek_contract", out)
    out.append(
        fx.ContractPeeked(seat=seat, region=d.region.value, slot=d.slot, card=card, visible_to=(seat,))
    )
    return replace(s, peeks=(*s.peeks, (seat, card)))


# --- 5. Sail ships ------------------------------------------------------------------------


def sail(s: State, out: Effects) -> State:
    """5. Sail ships: in turn order, one ship per turn, until no ship is left in the UK."""
    n = s.players_count
    for k in range(n):
        idx = (s.cursor + k) % n
        seat = s.turn_order[idx]
        if ships_in_uk(s, seat):
            return replace(s, cursor=idx, awaiting=(seat,))
    return replace(s, phase=Phase.BUY, cursor=0, cursor_region=0)


def sail_options(s: State, seat: int) -> tuple[Decision, ...]:
    created: list[tuple[Literal["REGULAR", "VIP"], ...]] = [()]
    if s.options.reputation:
        created += [("REGULAR",), ("REGULAR", "REGULAR"), ("VIP",)]
    out: list[Decision] = []
    for ship in ships_in_uk(s, seat):
        for region in REGIONS:
            war_entry = war_locked(s, region) and s.options.reputation
            for overtake in (False, True):
                for extra in created:
                    d = SailShip(
                        capacity=ship.capacity,
                        region=region,
                        overtake=overtake,
                        war_entry=war_entry,
                        created=extra,
                    )
                    try:
                        check_sail(s, seat, d)
                    except RuleViolationError:
                        continue
                    out.append(d)
    return tuple(out)


def sail_ship(s: State, seat: int, d: SailShip, out: Effects) -> State:
    check_sail(s, seat, d)
    s = do_sail(s, seat, d, out)
    return replace(s, cursor=(s.cursor + 1) % s.players_count)


def check_sail(s: State, seat: int, d: SailShip) -> None:
    ship = next((sh for sh in s.players[seat].ships if sh.capacity == d.capacity), None)
    if ship is None or ship.location != UK:
        raise violation(
            "ship_not_in_uk",
            f"You have no ship of capacity {d.capacity} in the United Kingdom.",
            "5. Sail ships",
        )
    if not region_open(s, d.region):
        raise violation("region_closed", "Egypt is not used during stage I.", "2. Draw cards; A-06")
    r = region_index(d.region)
    if d.war_entry:
        if not war_locked(s, d.region):
            raise violation(
                "no_war", f"{d.region.value} is not locked by war.", "Advanced game, reputation 5"
            )
        adv.check_reputation(s, seat, d.region.value, "enter_war")
    elif war_locked(s, d.region):
        raise violation(
            "region_at_war",
            f"{d.region.value} is locked by war; ships cannot enter the harbour"
            + (" (unless you spend 3 reputation there: war_entry)." if s.options.reputation else "."),
            "5. Sail ships",
        )
    if d.created:
        vip = d.created.count("VIP")
        if vip and d.region not in C.created_vip_regions:
            raise violation(
                "vip_destination",
                "A created VIP passenger travels to North America or British India only.",
                "Advanced game, reputation 3",
            )
        if not s.options.reputation:
            adv.check_reputation(s, seat, adv.UK_REP, "create_passenger")  # raises module_off
        cost = (
            vip * C.reputation_cost["create_vip"]
            + (len(d.created) - vip) * C.reputation_cost["create_passenger"]
        )
        if cost > s.players[seat].uk_reputation:
            raise violation(
                "reputation_too_low",
                f"Creating these passengers costs {cost} passenger tokens; you hold {s.players[seat].uk_reputation}.",
                "Advanced game, reputation 2-3",
            )
        if len(d.created) > free_cabins(s, ship, r):
            raise violation(
                "no_free_cabin",
                "Created passengers need cabins still free after the waiting passengers board (A-07).",
                "Advanced game, reputation 2-3",
            )
    if d.overtake:
        track = s.tracks[region_index(d.region)]
        if not C.ship(ship.card).fast:
            raise violation(
                "not_fast", "Only a fast ship (red arrow) may overtake.", "5. Sail ships, Fast ships"
            )
        if not track:
            raise violation(
                "nothing_to_overtake",
                "There is no ship on that track to overtake.",
                "5. Sail ships, Fast ships",
            )
        last_seat, last_cap = track[-1]
        last = ship_of(s, last_seat, last_cap)
        if C.ship(last.card).fast or last.stayed:
            raise violation(
                "overtake_blocked",
                "The last ship is fast or opted to stay last round; it cannot be overtaken.",
                "5. Sail ships, Fast ships",
            )


def do_sail(s: State, seat: int, d: SailShip, out: Effects) -> State:
    """5. Sail ships: first empty space (or the overtaken spot), bonus coins, passengers."""
    r = region_index(d.region)
    if d.war_entry:
        s = adv.spend_reputation(s, seat, d.region.value, "enter_war", out)
    track = s.tracks[r]
    ref = (seat, d.capacity)
    track = (*track[:-1], ref, track[-1]) if d.overtake else (*track, ref)
    pos = track.index(ref) + 1
    s = replace(s, tracks=set_at(s.tracks, r, track))
    s = replace_ship(s, seat, d.capacity, location=d.region.value, stayed=False, cargo=0)
    out.append(
        fx.ShipSailed(
            seat=seat,
            capacity=d.capacity,
            region=d.region.value,
            position=pos,
            overtook=d.overtake,
            war_entry=d.war_entry,
        )
    )
    h = s.harbours[r]
    bonus = min(C.bonus_first if pos == 1 else C.bonus_other, h.coins)
    if bonus:
        h = replace(h, coins=h.coins - bonus)
        s = replace(s, supply_coins=s.supply_coins + bonus)
        out.append(fx.BonusCoinsTaken(seat=seat, region=d.region.value, coins=bonus))
        s = gain(s, seat, bonus, "bonus_coins", out)
    s = replace(s, harbours=set_at(s.harbours, r, h))
    vip, regular = boarding(s, ship_of(s, seat, d.capacity), r)
    if vip or regular:
        income = vip * C.vip_ticket.get(d.region, 0) + regular * C.ticket[d.region]
        h = replace(h, vip=h.vip - vip, passengers=h.passengers - regular)
        s = replace(
            s,
            harbours=set_at(s.harbours, r, h),
            supply_vip=s.supply_vip + vip,
            supply_passengers=s.supply_passengers + regular,
        )
        out.append(
            fx.PassengersCarried(seat=seat, region=d.region.value, vip=vip, regular=regular, income=income)
        )
        s = gain(s, seat, income, "tickets", out)
    if d.created:  # paid from the tokens held before this arrival
        new_vip = d.created.count("VIP")
        new_regular = len(d.created) - new_vip
        for _ in range(new_vip):
            s = adv.spend_reputation(s, seat, adv.UK_REP, "create_vip", out)
        for _ in range(new_regular):
            s = adv.spend_reputation(s, seat, adv.UK_REP, "create_passenger", out)
        income = new_vip * C.vip_ticket.get(d.region, 0) + new_regular * C.ticket[d.region]
        out.append(
            fx.PassengersCreated(
                seat=seat, region=d.region.value, regular=new_regular, vip=new_vip, income=income
            )
        )
        s = gain(s, seat, income, "tickets", out)
    return adv.gain_reputation(s, seat, adv.UK_REP, vip + regular, "passengers_carried", out)


def boarding(s: State, ship: Ship, r: int) -> tuple[int, int]:
    """VIP passengers board first (A-07), then regular ones, as cabins allow."""
    h = s.harbours[r]
    cabins = C.ship(ship.card).cabins
    vip = min(cabins, h.vip) if REGIONS[r] in C.vip_ticket else 0
    return vip, min(cabins - vip, h.passengers)


def free_cabins(s: State, ship: Ship, r: int) -> int:
    return C.ship(ship.card).cabins - sum(boarding(s, ship, r))


# --- 8. Pay maintenance cost --------------------------------------------------------------


def maintenance(s: State, out: Effects) -> State:
    """8. Pay maintenance cost for each ship; shares are sold on a shortfall; ships cannot be discarded."""
    while s.cursor < s.players_count:
        seat = s.turn_order[s.cursor]
        total = sum(C.ship(sh.card).maintenance for sh in s.players[seat].ships)
        if not total:
            s = replace(s, cursor=s.cursor + 1)
            continue
        s = charge(s, seat, total, Maintenance(), out)
        if s.phase != Phase.MAINTENANCE:
            return s  # shares trade: shares are being auctioned to cover it
    return replace(s, phase=Phase.CLEAR_UP, cursor=0)

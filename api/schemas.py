"""Request and response bodies of the API (requests refuse unknown fields)."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

from ledger.clocks import TimeControl

# The largest version, position, offset or count a request may name: far beyond any real game,
# and inside every store's integer column (SQLite refuses Python ints over 2**63 with a crash).
MAX_INDEX = 2**31 - 1


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorOut(BaseModel):
    code: str = Field(examples=["rule/cotton-trade/capacity_held"])
    message: str
    details: Any = None


class PlayerIn(Request):
    name: str = Field(min_length=1, max_length=40, examples=["Ada"])
    email: str | None = Field(
        None,
        max_length=254,
        description="An address to confirm: a one-time link is mailed to it",
        examples=["ada@example.org"],
    )
    password: str | None = Field(
        None, max_length=200, description="8 to 200 characters: sign in with the address once it is confirmed"
    )


class PlayerCreated(BaseModel):
    player_id: UUID
    name: str
    token: str = Field(description="Shown once; send it as Authorization: Bearer <token>.")
    pending_email: str | None = Field(None, description="The address a confirmation link was mailed to")
    confirmation_expires_at: str | None = None


class PlayerOut(BaseModel):
    player_id: str
    name: str
    is_admin: bool = False
    bot: bool = Field(
        default=False, description="A simulated player (gameledger simulate), played by a program."
    )
    email: str | None = Field(None, description="Your confirmed address (sign-in, recovery)")
    email_confirmed_at: str | None = None
    pending_email: str | None = Field(None, description="An address waiting for its confirmation link")
    password_set: bool = False
    password_set_at: str | None = None
    tokens: int = Field(0, description="How many bearer tokens you hold (GET /me/tokens lists them)")
    signed_in_with: Literal["token", "session"] = Field(
        "token", description="How this request was authenticated: a bearer token, or a session (sign-in)"
    )


class TitleOut(BaseModel):
    id: str
    name: str
    min_players: int
    max_players: int
    description: str
    rules_version: str
    options: dict[str, Any] = Field(description="JSON schema of the title's options")


class GameIn(Request):
    title: str = Field(examples=["cotton-trade"])
    seats: StrictInt | None = Field(None, ge=1, le=8, description="Open a game with this many seats")
    players: list[UUID] | None = Field(None, max_length=8, description="Or seat these players in this order")
    options: dict[str, Any] = Field(default_factory=dict)
    join: StrictBool = Field(True, description="With seats: the creator takes seat 0")
    league: str | None = Field(None, max_length=80, description="Count the game in this league (id or name)")
    time_control: TimeControl | None = Field(None, description="A clock per seat (default: none)")
    private: StrictBool = Field(
        False, description="A private table: listed to nobody else, joined by invitation only"
    )
    invite: list[Annotated[str, Field(min_length=1, max_length=254)]] = Field(
        default_factory=list,
        max_length=5,
        description="Players (id or name) and email addresses to invite, a seat held for each",
    )


class AbandonIn(Request):
    reason: str = Field(min_length=1, max_length=500)


class LeagueIn(Request):
    name: str = Field(min_length=1, max_length=80, examples=["Autumn 1800"])
    title: str | None = Field(None, description="Only games of this title may join")
    members_only: StrictBool = Field(
        False,
        description="Only the organiser and the members open games in the league and take seats in them",
    )
    members: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=500, description="Player ids of the first members"
    )
    for_bots: bool = Field(
        False,
        description="Count players registered as bots in the standings and ratings (left out otherwise)",
    )


class LeagueMemberIn(Request):
    player_id: str = Field(min_length=1, max_length=64)


class LeagueAdmissionIn(Request):
    members_only: StrictBool


class LeagueGameIn(Request):
    game_id: str = Field(min_length=1, max_length=64)


class SeatOut(BaseModel):
    seat: int
    player_id: str | None
    name: str | None = None


class GameOut(BaseModel):
    game_id: str
    title: str
    title_name: str
    status: Literal["waiting", "active", "finished", "abandoned", "annulled"]
    version: int
    rules_version: str
    options: dict[str, Any]
    created_by: str
    seed_commitment: str
    head_hash: str
    seats: list[SeatOut]
    my_seats: list[int]
    awaiting: list[SeatOut]
    prompt: str
    state: dict[str, Any] | None = Field(description="The position as the caller may see it")
    private: dict[str, Any] | None = Field(None, description="The caller's private information")
    legal_decisions: list[dict[str, Any]] = Field(description="Ready to send as 'decision'")
    standings: list[dict[str, Any]] | None = None
    time_control: dict[str, Any] = Field(default_factory=lambda: {"kind": "none"})
    clocks: list[dict[str, Any]] | None = Field(None, description="Per seat: seconds left, running, deadline")
    undo_request: dict[str, Any] | None = Field(None, description="An open request to take back a decision")
    disputes: list[dict[str, Any]] = Field(
        default_factory=list, description="Disputes and their adjudication"
    )
    sandbox: bool = Field(False, description="A what-if fork: never counted in leagues or ratings")
    origin: dict[str, Any] | None = Field(None, description="A fork's origin: game, version and head hash")
    replayed: bool | None = Field(
        None, description="The answer to a write: true when an Idempotency-Key replayed the first answer"
    )


class GameListOut(BaseModel):
    games: list[dict[str, Any]]


class DecisionIn(Request):
    expected_version: StrictInt = Field(
        ge=0, le=MAX_INDEX, description="The game version the decision was made on"
    )
    decision: dict[str, Any] = Field(description="One of legal_decisions, or an equivalent object")
    seat: StrictInt | None = Field(None, ge=0, le=64, description="Only for a player holding several seats")


class DecisionOut(BaseModel):
    game_id: str
    version: int
    first_version: int
    effects: list[dict[str, Any]]
    log: list[str]
    replayed: bool = Field(description="True when an Idempotency-Key replayed the first answer")
    position: int | None = Field(
        None, description="Ledger position: pass it to read models to read your write"
    )


class DrawOut(BaseModel):
    kind: Literal["shuffle", "pick"]
    label: str = Field(description="What will be drawn, in words")
    size: int = Field(description="How many items the draw is made from")
    hidden: bool = Field(description="Whether the outcome stays secret from every player")
    text: str = Field(description="The draw in a sentence")


class ShareValueOut(BaseModel):
    seat: int
    name: str | None = None
    before: int | None
    after: int | None
    currency: str | None = Field(None, description="Cotton Trade: the coins it is counted in; else pounds")


class CostOut(BaseModel):
    change: int = Field(description="The deciding seat's money change (negative: paid)")
    paid: int
    received: int
    balance: int | None = Field(description="Money afterwards, when the decision moves money")
    currency: str | None = None


class PreviewOut(BaseModel):
    game_id: str
    version: int = Field(description="The version previewed; nothing is stored, it stays so")
    seat: int
    decision: dict[str, Any]
    cost: CostOut
    effects: list[dict[str, Any]] = Field(description="As the decision's own answer would show them to you")
    log: list[str] = Field(description="The effects in words")
    draw: DrawOut | None = Field(
        None, description="The random draw the decision leads to: the preview stops before it"
    )
    reveal: str | None = Field(
        None,
        description="Set when the decision would turn up something hidden from you: the preview "
        "stops before it and shows none of its effects",
    )
    awaiting: list[int] = Field(description="Whose decision the game would wait for next")
    prompt: str
    finished: bool
    share_values: list[ShareValueOut] = Field(description="Every company's share value before and after")
    scoreboard: list[dict[str, Any]] = Field(description="The scoreboard after the decision")
    currency: str | None = Field(
        None,
        description="Cotton Trade: the coins the scoreboard's money is counted in (the stage's); else pounds",
    )
    state: dict[str, Any] = Field(description="The position afterwards, as you would see it")


class EventsOut(BaseModel):
    game_id: str
    version: int
    events: list[dict[str, Any]]


class StateOut(BaseModel):
    game_id: str
    version: int
    status: str
    state: dict[str, Any] | None


class VersionIn(Request):
    expected_version: StrictInt = Field(ge=0, le=MAX_INDEX, description="The game version you saw")


class UndoAnswerIn(Request):
    accept: StrictBool


class VacationIn(Request):
    days: StrictInt = Field(ge=1, le=366)


class NotificationSettingsIn(Request):
    kinds: list[str] | None = Field(None, description="Which notifications; null: all of them")
    webhook_url: str | None = Field(
        None, max_length=500, description="POST notifications here (http or https)"
    )
    new_secret: StrictBool = Field(False, description="Issue a new signing secret")


class DisputeIn(Request):
    versions: list[Annotated[StrictInt, Field(ge=0, le=MAX_INDEX)]] = Field(
        min_length=1, max_length=50, description="The disputed events, by version"
    )
    text: str = Field(min_length=1, max_length=2000, description="What is wrong")
    messages: list[Annotated[int, Field(ge=1, le=MAX_INDEX)]] = Field(
        default_factory=list, max_length=50, description="Table-talk messages the dispute cites, by number"
    )


class ResolveIn(Request):
    outcome: Literal["no_change", "correction", "annulment"]
    note: str = Field("", max_length=2000)
    rewind_to: StrictInt | None = Field(
        None, ge=1, le=MAX_INDEX, description="correction: the first event to set aside"
    )


class ForkIn(Request):
    version: StrictInt = Field(ge=1, le=MAX_INDEX, description="Fork after this event")
    bots: list[Annotated[StrictInt, Field(ge=0, le=64)]] = Field(
        default_factory=list, max_length=8, description="Seats the title's bot plays"
    )


# -- accounts: sign-in, sessions, recovery, addresses, passwords, named tokens ----------------------


class SessionIn(Request):
    """Sign in with one of: ``email`` and ``password``; a bearer ``token``; a recovery ``link``."""

    email: str | None = Field(None, max_length=254, examples=["ada@example.org"])
    password: str | None = Field(None, max_length=200)
    token: str | None = Field(None, max_length=200, description="A bearer token (yours, or the operator's)")
    link: str | None = Field(None, max_length=200, description="The token of a mailed recovery link")

    @model_validator(mode="after")
    def _one_way(self) -> SessionIn:
        ways = [
            self.email is not None or self.password is not None,
            self.token is not None,
            self.link is not None,
        ]
        if sum(ways) != 1 or (ways[0] and (self.email is None or self.password is None)):
            raise ValueError("sign in with email and password, or with a token, or with a recovery link")
        return self


class SessionOut(BaseModel):
    session_id: str
    player_id: str
    name: str
    opened_with: str = Field(description="password, token, recovery or operator")
    token: str = Field(
        description="The session's bearer (shown once): Authorization: Bearer <token> until it expires or you "
        "sign out; the pages keep it in an HttpOnly cookie instead"
    )
    csrf_token: str = Field(description="For pages: send it as X-CSRF-Token with every change made by cookie")
    expires_after_days: int = Field(description="The session ends after this many days without use")


class RecoverIn(Request):
    email: str = Field(max_length=254, examples=["ada@example.org"])


class LinkIn(Request):
    token: str = Field(min_length=1, max_length=200, description="The token of a mailed link (after #token=)")


class EmailIn(Request):
    email: str = Field(max_length=254, examples=["ada@example.org"])


class PasswordIn(Request):
    password: str = Field(max_length=200, description="8 to 200 characters")
    current_password: str | None = Field(
        None,
        max_length=200,
        description="Needed to change a password (not within an hour of a sign-in by a recovery link)",
    )


class TokenIn(Request):
    name: str = Field(min_length=1, max_length=60, examples=["my bot on the home server"])
    scope: Literal["play", "account"] = Field(
        "play",
        description="play: games, orders, table talk and reading (for a bot or a script); account: also "
        "the account's address, password, tokens, sessions and notification channels",
    )


class TokenOut(BaseModel):
    token_id: str
    name: str
    created_at: str
    scope: str = Field("account", description="play, or account (see POST /me/tokens)")
    current: bool = Field(False, description="The token this request was made with")


class TokenCreated(TokenOut):
    token: str = Field(description="Shown once; send it as Authorization: Bearer <token>.")


class MessageIn(Request):
    # longer than a message may be, so that an oversized one gets the table talk's own code
    text: str = Field(min_length=1, max_length=4000, description="1 to 1,000 characters, shown as plain text")


class TalkSettingsIn(Request):
    spectators: bool = Field(description="Whether spectators read and write the table talk")


class HideMessageIn(Request):
    reason: str = Field(min_length=1, max_length=500, description="Why the operator hides it (recorded)")


class InvitationIn(Request):
    player: str | None = Field(None, min_length=1, max_length=64, description="A player's id or name")
    email: str | None = Field(None, min_length=3, max_length=254, description="An address to mail a link to")
    link: StrictBool = Field(False, description="A link to share (its address is answered this once)")
    seat: StrictInt | None = Field(None, ge=0, le=7, description="The seat to hold (default: the first free)")


class InvitationOut(BaseModel):
    game_id: str
    invitation: int = Field(description="The invitation's number in its game")
    seat: int
    kind: str = Field(description="player, email or link")
    player_id: str | None = None
    email: str | None = Field(None, description="The address mailed (only in the creator's answers)")
    expires_at: str
    url: str | None = Field(None, description="A link to share: its address, shown this once")


class InvitationListItem(BaseModel):
    invitation: int
    seat: int
    kind: str
    player_id: str | None = None
    email: str | None = None
    status: str = Field(description="pending, accepted or withdrawn")
    expires_at: str


class InvitationListOut(BaseModel):
    game_id: str
    private: bool
    invitations: list[InvitationListItem]


class InvitationAcceptIn(Request):
    token: str | None = Field(
        None, min_length=10, max_length=200, description="The invitation link's token (after #token=)"
    )

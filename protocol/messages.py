"""Every message on the wire, in both directions: pydantic models tagged by ``type``.

Client messages carry an optional ``id``; the answer (``ack``, ``error``, ``legal_moves``,
``hint``, ``text``, ``pong``) echoes it. Server messages carry ``seq``, which grows by one per
recipient and is set when the message is sent.

>>> msg = parse_client_message(b'{"type": "move", "id": 7, "move": "FRf@FR1s"}')
>>> msg.move, msg.id
('FRf@FR1s', 7)
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from protocol import options
from protocol.errors import ERROR_CODES, ProtocolError
from protocol.i18n import LANGUAGES, Msg, Words, _, lazy
from protocol.names import FIELD_MAX
from protocol.sanitize import VISIBLE, sanitize_line
from protocol.validation import field_problem, refusal_text, refused

PROTOCOL_VERSION = 1
MAX_CHAT = 500
MAX_NAME = 16
MAX_ROOM = 24
#: a Swiss's most rounds, and an arena's shortest and longest minutes
TOURNAMENT_ROUNDS = 20
TOURNAMENT_MINUTES = (5, 720)

ClientId = int | str | None
#: the players at a table: an integer (strict: ``2.0`` is no size), 2 to 4
TableSize = Annotated[int, Field(ge=2, le=4)]
Strategy = Literal["random", "greedy", "strong"]
#: the values of the room option ``absent``: who takes a seat whose player's resume window passed


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- client to server ------------------------------------------------------------------------


class _ClientMessage(_Message):
    # strict: in JSON a number is a number and a boolean a boolean ("7" is no seed, "on" no switch)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: ClientId = Field(default=None, description="echoed by the answer")


def _language(lang: str | None) -> str | None:
    if lang is not None and lang not in LANGUAGES:
        raise refused("bad_language", _("The language is one of: {known}.", known=", ".join(LANGUAGES)))
    return lang


class Hello(_ClientMessage):
    """The first message: who you are; ``token`` reclaims a name and seat after a reconnect."""

    type: Literal["hello"] = "hello"
    name: str = Field(max_length=FIELD_MAX)
    token: str | None = Field(default=None, max_length=FIELD_MAX)
    kind: Literal["person", "bot"] = "person"
    password: str | None = Field(default=None, max_length=200, description="a registered name's password")
    lang: Annotated[str | None, AfterValidator(_language)] = Field(
        default=None,
        description="the language of the texts for people: en (the default) or de",
        json_schema_extra={"enum": [*LANGUAGES, None]},
    )


class Register(_ClientMessage):
    """Register your current name as an account with this password (at least 8 characters)."""

    type: Literal["register"] = "register"
    password: str = Field(max_length=200)


class ChangePassword(_ClientMessage):
    """Change your account's password; the old one is required."""

    type: Literal["password"] = "password"
    old: str = Field(max_length=200)
    new: str = Field(max_length=200)


class Unregister(_ClientMessage):
    """Delete your account and its rating (your games stay, under the name)."""

    type: Literal["unregister"] = "unregister"
    password: str = Field(max_length=200)


def _chat_text(text: str) -> str:
    text = sanitize_line(text)
    if not text:
        raise refused("empty_message", _("Nothing is left to say once control characters are removed."))
    return text


#: what a person writes for others to read: one line, no control characters (``sanitize_line``)
ChatText = Annotated[
    str,
    # the pattern tells other clients what the validator checks: something is left once sanitized
    Field(min_length=1, max_length=MAX_CHAT, json_schema_extra={"pattern": VISIBLE}),
    AfterValidator(_chat_text),
]


class Say(_ClientMessage):
    """Chat to the room you are in (or the lobby); the text is sanitized to one line without
    control characters before anyone reads it."""

    type: Literal["say"] = "say"
    text: ChatText


class Command(_ClientMessage):
    """A chat line as a person types it (``/join cafe``, ``/play FRf@FR1s`` or plain text)."""

    type: Literal["command"] = "command"
    text: str = Field(max_length=2000)


class EnterRoom(_ClientMessage):
    """Enter a room as a spectator (created on first entry)."""

    type: Literal["enter_room"] = "enter_room"
    room: str = Field(max_length=FIELD_MAX)


class LeaveRoom(_ClientMessage):
    """Leave the room for the lobby (giving up a seat in a game that has not started)."""

    type: Literal["leave_room"] = "leave_room"


class ListRooms(_ClientMessage):
    type: Literal["list_rooms"] = "list_rooms"


class Who(_ClientMessage):
    type: Literal["who"] = "who"


class Join(_ClientMessage):
    """Take a seat; with ``room``, enter that room first. With ``seat``, in the room you are in
    while its game runs: ask to take over seat ``seat`` (from 1) of a player who is gone, which the
    seated players answer in a vote (your own seat you take back at once); ``room`` with ``seat``
    must be the room you are in."""

    type: Literal["join"] = "join"
    room: str | None = Field(default=None, max_length=FIELD_MAX)
    seat: int | None = Field(default=None, ge=1, le=4)


class LeaveGame(_ClientMessage):
    """Give up your seat (before the start) and stay as a spectator; during a game, only in a room
    whose option ``absent`` is ``drop``: leave the game and watch it."""

    type: Literal["leave_game"] = "leave_game"


class Start(_ClientMessage):
    type: Literal["start"] = "start"


def _values_by_key(schema: dict[str, Any]) -> None:
    """The value each key takes, in the schema too: a frame the schema lets through is one the
    server takes (``seed`` a whole number or null, a switch true or false, ...)."""
    rules = []
    for key in options.KEYS:
        value, needed = options.value_schema(key)
        then: dict[str, Any] = {"properties": {"value": value}}
        if needed:
            then["required"] = ["value"]
        rules.append({"if": {"properties": {"key": {"const": key}}, "required": ["key"]}, "then": then})
    schema["allOf"] = rules


class SetOption(_ClientMessage):
    """Set a room option before the start: ``seed`` (integer or null for random),
    ``stammtisch`` (bool), ``clock`` (seconds per turn, or null/0 for off), ``absent`` (what
    happens to a player whose resume window passes: ``"bot"`` plays the seat, ``"drop"`` takes
    the player out of the game)."""

    model_config = ConfigDict(json_schema_extra=_values_by_key)

    type: Literal["option"] = "option"
    key: options.OptionKey
    value: bool | int | float | options.Absent | None = None

    @model_validator(mode="before")
    @classmethod
    def _value_fits_key(cls, data: Any) -> Any:
        """Each key's value has its one JSON type; the words of ``absent`` match in any case."""
        if not isinstance(data, dict):
            return data
        key, value = data.get("key"), data.get("value")
        if key in options.KEYS:
            try:
                data = {**data, "value": options.check_json(key, value)}
            except options.OptionError as e:
                raise refused("bad_option", e.text) from None
        return data


class PlayMove(_ClientMessage):
    """A move in the notation of docs/rules.md section 11."""

    type: Literal["move"] = "move"
    move: str = Field(max_length=200)


class GetLegalMoves(_ClientMessage):
    type: Literal["legal_moves"] = "legal_moves"


class GetHint(_ClientMessage):
    type: Literal["hint"] = "hint"


class AddBot(_ClientMessage):
    type: Literal["add_bot"] = "add_bot"
    strategy: Strategy = "greedy"


class RemoveBot(_ClientMessage):
    type: Literal["remove_bot"] = "remove_bot"
    name: str = Field(max_length=FIELD_MAX)


class Watch(_ClientMessage):
    """Enter a room to watch it (the same as ``enter_room``)."""

    type: Literal["watch"] = "watch"
    room: str = Field(max_length=FIELD_MAX)


class Resync(_ClientMessage):
    """Ask for a fresh snapshot of the room."""

    type: Literal["resync"] = "resync"


class Ping(_ClientMessage):
    type: Literal["ping"] = "ping"


class SetLang(_ClientMessage):
    """Read the texts for people in this language from now on (``/lang de``)."""

    type: Literal["lang"] = "lang"
    lang: Annotated[str, AfterValidator(_language)] = Field(json_schema_extra={"enum": list(LANGUAGES)})


class Nick(_ClientMessage):
    """Change your name (not while seated in a running game)."""

    type: Literal["nick"] = "nick"
    name: str = Field(max_length=FIELD_MAX)


class Tell(_ClientMessage):
    """Say something to one person, wherever they are; sanitized like chat."""

    type: Literal["tell"] = "tell"
    name: str = Field(max_length=FIELD_MAX)
    text: ChatText


class TellReply(_ClientMessage):
    """Answer the last person who told you something."""

    type: Literal["reply"] = "reply"
    text: ChatText


class WhereIs(_ClientMessage):
    """Where a person is: answered with a ``who`` list of that one person."""

    type: Literal["whereis"] = "whereis"
    name: str = Field(max_length=FIELD_MAX)


class ListEdit(_ClientMessage):
    """Change one of your personal lists: ``mute`` (their chat and tells never reach you),
    ``unmute``, ``friend`` (a notice when they connect or start a game), ``unfriend``."""

    type: Literal["list"] = "list"
    action: Literal["mute", "unmute", "friend", "unfriend"]
    name: str = Field(max_length=FIELD_MAX)


class GetFriends(_ClientMessage):
    """Your friends and where they are now; answered with ``friends``."""

    type: Literal["friends"] = "friends"


class Invite(_ClientMessage):
    """Invite a person to the room you are in: they get an ``invited`` message."""

    type: Literal["invite"] = "invite"
    name: str = Field(max_length=FIELD_MAX)


class Reset(_ClientMessage):
    """After a game ended: a fresh board with the same seats."""

    type: Literal["reset"] = "reset"


class VoteRemove(_ClientMessage):
    """Ask the other seated players to take ``name`` out of the game (gone, or not moving for
    a minute with the turn)."""

    type: Literal["remove"] = "remove"
    name: str = Field(max_length=FIELD_MAX)


class VoteAnswer(_ClientMessage):
    """Answer the vote running in your room: ``yes`` (``/accept``) or no (``/refuse``)."""

    type: Literal["answer"] = "answer"
    yes: bool


class Seek(_ClientMessage):
    """Quick pairing: wait for a table of ``size`` players (``null``: 2, 3 or 4), ``rated``
    (``null``: rated if you are registered), with a turn clock of ``clock`` seconds (``null``:
    the server's); with ``bots``, a game with the server's bots is offered after a while.
    Answered with ``seeking``; a second seek replaces the first."""

    type: Literal["seek"] = "seek"
    size: TableSize | None = None
    rated: bool | None = None
    #: (below ``--clock-min``, a negative number too, the server answers ``bad_option``)
    clock: int | None = Field(default=None, le=3600)
    bots: bool = False


class Unseek(_ClientMessage):
    """Stop waiting for a table; answered with ``ack``."""

    type: Literal["unseek"] = "unseek"


class Analyse(_ClientMessage):
    """Ask for the analysis of the finished game ``game``: answered with ``analysis`` (``queued``,
    or ``ready`` when it was done before), and once more with ``analysis`` when it is ready."""

    type: Literal["analyse"] = "analyse"
    #: (a game's id is hex: nothing else is written back in an answer)
    game: str = Field(min_length=1, max_length=64, pattern=r"^[0-9A-Za-z_-]+$")


class TournamentRequest(_ClientMessage):
    """A tournament's action (``/tournament ...``): ``new`` makes one (a registered person;
    ``kind``, with ``rounds`` for a Swiss or ``minutes`` for an arena; ``size``, ``clock`` and
    ``start`` optional), ``join`` and ``leave`` it, ``close`` it (its creator or staff),
    ``show`` it. ``new`` and ``show`` are answered with ``tournament``, the others with a
    ``notice`` and ``ack``."""

    type: Literal["tournament"] = "tournament"
    action: Literal["new", "join", "leave", "close", "show"] = "show"
    name: str = Field(max_length=FIELD_MAX)
    kind: Literal["swiss", "arena"] | None = None
    rounds: int | None = Field(default=None, ge=1, le=TOURNAMENT_ROUNDS)
    minutes: int | None = Field(default=None, ge=TOURNAMENT_MINUTES[0], le=TOURNAMENT_MINUTES[1])
    size: TableSize = 4
    clock: int | None = Field(default=None, ge=0, le=3600, description="seconds a turn; null: 60")
    start: str | None = Field(
        default=None,
        pattern=r"^(\+([0-9]{1,3}|1[0-3][0-9]{2}|14[0-3][0-9]|1440)m|([01]?[0-9]|2[0-3]):[0-5][0-9])$",
        description='"+10m" (minutes from now, at most +1440m) or "HH:MM" (UTC, the next time it'
        " comes); null: +5m",
    )


class ListTournaments(_ClientMessage):
    """The tournaments upcoming, running and recently over: answered with ``tournaments``."""

    type: Literal["tournaments"] = "tournaments"


# --- moderation (staff commands: PROTOCOL.md, "Moderation") ----------------------------------

#: how long a sanction lasts: minutes, hours or days (``30m``, ``2h``, ``7d``), or ``perm``
DURATION_PATTERN = r"^([1-9][0-9]{0,3}[mhd]|perm)$"
#: the longest reason or note a staff member or a reporter gives
MAX_REASON = 200
#: an announcement's longest text
MAX_ANNOUNCEMENT = 500

#: why, in a line others read (sanitized like chat; may be empty)
ReasonText = Annotated[str, Field(max_length=MAX_REASON), AfterValidator(sanitize_line)]
#: what ``bad_duration`` says
DURATION_RULE = _("A duration is minutes, hours or days (30m, 2h, 7d), or perm.")


def _duration(text: str | None) -> str | None:
    if text is not None and re.fullmatch(DURATION_PATTERN, text) is None:
        raise refused("bad_duration", DURATION_RULE)
    return text


class ReportPlayer(_ClientMessage):
    """Report ``name`` to the staff for ``reason`` (anyone named; rate-limited). The report keeps
    the last public chat lines both saw; ``name`` is not told. Answered with a ``notice`` and
    ``ack``."""

    type: Literal["report"] = "report"
    name: str = Field(max_length=FIELD_MAX)
    reason: Annotated[
        str,
        Field(min_length=1, max_length=MAX_REASON, json_schema_extra={"pattern": VISIBLE}),
        AfterValidator(_chat_text),
    ]


class ListReports(_ClientMessage):
    """Staff: the open reports (``all``: resolved ones too), newest first: answered with ``reports``."""

    type: Literal["reports"] = "reports"
    all: bool = False


class ResolveReport(_ClientMessage):
    """Staff: close the report ``report`` with ``note``: answered with a ``notice`` and ``ack``."""

    type: Literal["resolve"] = "resolve"
    report: int = Field(ge=1, le=2**63 - 1, description="the id of an open report")
    note: ReasonText = ""


class Moderate(_ClientMessage):
    """Staff: ``kick`` (connections closed, back in 10 minutes), ``silence`` (no chat, tells or
    invitations for ``duration``), ``ban`` (no login for ``duration``), ``unban``, ``unsilence``
    ``name``, for ``reason``. ``silence`` and ``ban`` need a ``duration``; the others take none.
    Answered with a ``notice`` and ``ack``."""

    type: Literal["moderate"] = "moderate"
    action: Literal["kick", "silence", "ban", "unban", "unsilence"]
    name: str = Field(max_length=FIELD_MAX)
    duration: Annotated[str | None, AfterValidator(_duration)] = Field(
        default=None,
        max_length=16,
        json_schema_extra={"pattern": DURATION_PATTERN},
        description="30m, 2h, 7d or perm",
    )
    reason: ReasonText = ""


class CloseRoom(_ClientMessage):
    """Staff: end the room ``room``: everyone in it goes to the lobby, told why; a running game
    ends unrated. Answered with a ``notice`` and ``ack``."""

    type: Literal["close"] = "close"
    room: str = Field(max_length=FIELD_MAX)
    reason: ReasonText = ""


class Announce(_ClientMessage):
    """Admin: a ``notice`` to everyone connected, on every node; answered with ``ack``."""

    type: Literal["announce"] = "announce"
    text: Annotated[
        str,
        Field(min_length=1, max_length=MAX_ANNOUNCEMENT, json_schema_extra={"pattern": VISIBLE}),
        AfterValidator(_chat_text),
    ]


class SetRole(_ClientMessage):
    """Admin: make the registered ``name`` a moderator, or take the role (``none``); answered with
    a ``notice`` and ``ack``."""

    type: Literal["role"] = "role"
    name: str = Field(max_length=FIELD_MAX)
    role: Literal["moderator", "none"]


class GetModLog(_ClientMessage):
    """Staff: the moderation log, newest first (only ``name``'s, acting or acted on): answered
    with ``modlog``."""

    type: Literal["modlog"] = "modlog"
    name: str | None = Field(default=None, max_length=FIELD_MAX)


ClientMessage = Annotated[
    Hello
    | Say
    | Command
    | EnterRoom
    | LeaveRoom
    | ListRooms
    | Who
    | Join
    | LeaveGame
    | Start
    | SetOption
    | PlayMove
    | GetLegalMoves
    | GetHint
    | AddBot
    | RemoveBot
    | Watch
    | Resync
    | Ping
    | SetLang
    | Nick
    | Register
    | ChangePassword
    | Unregister
    | Tell
    | TellReply
    | WhereIs
    | ListEdit
    | GetFriends
    | Invite
    | Reset
    | VoteRemove
    | VoteAnswer
    | TournamentRequest
    | ListTournaments
    | Analyse
    | Seek
    | Unseek
    | ReportPlayer
    | ListReports
    | ResolveReport
    | Moderate
    | CloseRoom
    | Announce
    | SetRole
    | GetModLog,
    Field(discriminator="type"),
]
CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# --- server to client ------------------------------------------------------------------------


class _ServerMessage(_Message):
    seq: int = Field(default=0, description="grows by one per recipient")


class _Answer(_ServerMessage):
    id: ClientId = Field(default=None, description="the id of the client message answered")


class Welcome(_Answer):
    type: Literal["welcome"] = "welcome"
    name: str
    registered: bool = Field(default=False, description="the name is your registered account")
    token: str = Field(description="resume token: send it in hello to reclaim name and seat")
    protocol: int = PROTOCOL_VERSION
    server: str = "cafe-international"
    resumed: bool = False


class Error(_Answer):
    type: Literal["error"] = "error"
    code: str
    message: Words


class Ack(_Answer):
    type: Literal["ack"] = "ack"


class SeatSummary(_Message):
    name: str
    kind: Literal["person", "bot"]
    connected: bool = True
    guest: bool = Field(default=False, description="a person playing without an account")


class RoomSummary(_Message):
    name: str
    state: Literal["waiting", "playing", "over"]
    seats: list[SeatSummary]
    spectators: int
    options: dict[str, Any]


class Rooms(_Answer):
    type: Literal["rooms"] = "rooms"
    rooms: list[RoomSummary]


class Person(_Message):
    name: str
    kind: Literal["person", "bot"]
    room: str | None
    guest: bool = Field(default=False, description="a person playing without an account")
    rating: str | None = Field(
        default=None, description='a registered person\'s shown rating ("1234", "1000?" while provisional)'
    )
    private: bool = Field(
        default=False,
        description="in a private room: room names it only to people in the same room, else it is null",
    )
    role: Literal["admin", "moderator"] | None = Field(
        default=None, description="staff: clients show @ before the name"
    )
    seeking: bool = Field(default=False, description="waiting for a table (/seek)")


class ReportEntry(_Message):
    """One report, as staff read it."""

    id: int
    reporter: str
    name: str = Field(description="the name reported")
    reason: str
    excerpt: list[str] = Field(description="the last public chat lines both saw, oldest first")
    made: float = Field(description="Unix time")
    resolved: float | None = None
    resolved_by: str | None = None
    note: str | None = Field(None, description="the note resolve gave; null while open or without one")


class ReportList(_Answer):
    """The answer to ``reports``: newest first."""

    type: Literal["reports"] = "reports"
    reports: list[ReportEntry]


class LogEntry(_Message):
    """One line of the moderation log."""

    id: int
    when: float = Field(description="Unix time")
    by: str = Field(description="who acted: a staff member's name, or (operator)")
    action: str = Field(description="role:admin, role:moderator, role:none, ban, unban, silence, ...")
    target: str = Field(description="whom (a name) or what (a room) it was done to")
    reason: str = ""
    duration: str = Field(default="", description="30m, 2h, 7d, perm, or empty")


class ModLog(_Answer):
    """The answer to ``modlog``: newest first."""

    type: Literal["modlog"] = "modlog"
    entries: list[LogEntry]


class WhoList(_Answer):
    type: Literal["who"] = "who"
    people: list[Person]


#: the ``detail`` of ``replaced_by_bot`` for a player whose clock ran out three turns in a row:
#: they may still be here, and take their seat back with ``join`` ``seat``
RAN_OUT_THRICE = _("ran out of time three times in a row")


class Presence(_ServerMessage):
    type: Literal["presence"] = "presence"
    room: str | None
    name: str
    event: Literal["entered", "left", "joined", "unseated", "back", "away", "replaced_by_bot"]
    detail: Words | None = None


class Chat(_ServerMessage):
    type: Literal["chat"] = "chat"
    room: str | None
    name: str
    text: str


class Snapshot(_ServerMessage):
    """The whole view of the room for this recipient; later patches apply to it."""

    type: Literal["snapshot"] = "snapshot"
    #: after ``type``, unlike an answer's: a snapshot is not the one answer a forwarded message
    #: waits for (``server.cluster.relay`` tells answers by how their text begins)
    id: ClientId = Field(default=None, description="the id of the resync it answers; null for any other")
    room: str
    view: dict[str, Any]


class Patch(_ServerMessage):
    """RFC 6902 operations that turn the previous view into the current one."""

    type: Literal["patch"] = "patch"
    room: str
    ops: list[dict[str, Any]]


class GameStarted(_ServerMessage):
    type: Literal["game_started"] = "game_started"
    room: str
    game: str = Field(description="the game's id: /analyse and GET /api/games/ID take it once it ends")
    players: list[str]
    start_player: str
    seed_hash: str | None = Field(
        description="sha256 of the seed, revealed in game_over; null in a practice game whose seed "
        "the room chose (the fingerprint of a typed number would give it away)"
    )
    practice: bool = Field(False, description="the seed was chosen: a practice game, not rated")
    seed_drawn: bool = Field(False, description="the server drew the seed of a table it made (practice)")


class Played(_ServerMessage):
    """A move was played: the canonical move, its points, and the public events."""

    type: Literal["played"] = "played"
    room: str
    player: str
    move: str
    points: int
    events: list[dict[str, Any]]
    auto: bool = Field(default=False, description="played by the server for an absent player")
    clock: bool = Field(default=False, description="played by the server because the turn clock ran out")


class Eliminated(_ServerMessage):
    type: Literal["eliminated"] = "eliminated"
    room: str
    player: str
    place: int


class RatingShift(_Message):
    """A player's shown rating before and after a rated game (see PROTOCOL.md for the formula)."""

    before: int
    after: int
    provisional: bool = Field(description="the rating is still uncertain (shown with ?)")


class GameOver(_ServerMessage):
    type: Literal["game_over"] = "game_over"
    room: str
    game: str = Field(description="the game's id, as game_started said")
    reason: str
    final_scores: dict[str, int]
    penalties: dict[str, int]
    ranking: list[str]
    places: dict[str, int]
    seed: int | None = Field(default=None, description="the shuffle's seed, to check seed_hash")
    ratings: dict[str, RatingShift] | None = Field(
        default=None, description="a rated game: each rated player's shown rating before and after"
    )


class LegalMoves(_Answer):
    type: Literal["legal_moves"] = "legal_moves"
    moves: list[str]


class Hint(_Answer):
    type: Literal["hint"] = "hint"
    move: str
    points: int


class Text(_Answer):
    """Text for people: the board picture, the hand, scores, help."""

    type: Literal["text"] = "text"
    kind: Literal["board", "hand", "score", "help", "info", "history", "rating", "top", "finger"]
    text: Words


class Notice(_ServerMessage):
    """Something the server says to people: e.g. a clock timeout, a bot taking a seat."""

    type: Literal["notice"] = "notice"
    room: str | None = None
    text: Words


class TellMessage(_Answer):
    """A tell: to its recipient, and to its sender as the answer (with the sender's ``id``)."""

    type: Literal["tell"] = "tell"
    name: str = Field(description="who wrote it")
    to: str = Field(description="to whom")
    text: str


class Friend(_Message):
    name: str
    online: bool
    room: str | None
    private: bool = Field(
        default=False,
        description="in a private room: room names it only to people in the same room, else it is null",
    )


class Friends(_Answer):
    type: Literal["friends"] = "friends"
    friends: list[Friend]
    muted: list[str] = Field(
        default_factory=list,
        description="the names on your mute list, in lower case and in order",
    )


class Invited(_ServerMessage):
    """``name`` invites you to ``room``."""

    type: Literal["invited"] = "invited"
    room: str
    name: str


class Vote(_ServerMessage):
    """A vote in the room on a seat: ``remove`` a player, or ``join``: ``by`` takes over the seat
    of ``name``, who is gone; ``state`` is ``open`` while it runs, then ``passed``, ``failed`` or
    ``expired``, or ``cancelled`` (the asker left, or the seat's player came back)."""

    type: Literal["vote"] = "vote"
    room: str
    kind: Literal["remove", "join"]
    by: str
    name: str = Field(description="the player to remove, or whose seat is taken over")
    seat: int = Field(description="the seat, from 1")
    yes: list[str]
    no: list[str]
    voters: list[str] = Field(description="who may answer")
    state: Literal["open", "passed", "failed", "expired", "cancelled"]
    expires: float = Field(description="Unix time the vote ends unanswered")


class Seeking(_Answer):
    """You wait for a table as this says (the answer to ``seek``; ``size`` ``null``: any)."""

    type: Literal["seeking"] = "seeking"
    size: TableSize | None
    rated: bool
    clock: int
    bots: bool
    bots_after: int = Field(description="seconds after which a game with bots is offered (with bots)")


class RoomClosed(_ServerMessage):
    """The staff closed the room you were in (``close``): you are in the lobby now. It follows the
    ``notice`` that says who closed it and why."""

    type: Literal["room_closed"] = "room_closed"
    room: str


class Seated(_ServerMessage):
    """The server made you a table: the game in ``room`` has started, your seat waits there (you
    are in the room already)."""

    type: Literal["seated"] = "seated"
    room: str
    game: str
    players: list[str]


class AnalysisFigures(_Message):
    moves: int = Field(description="the player's moves judged (forced ones are not)")
    total_cost: float = Field(description="points of expected final margin lost, over those moves")
    mean_cost: float
    accuracy: float = Field(description="0 to 100: the mean of 100 * exp(-cost / 6) over the moves")


class Analysis(_Answer):
    """The analysis of game ``game``: ``queued`` (``ahead``: how many analyses this node runs
    before it), or ``ready`` (``players``: each player's figures; the whole analysis is
    ``GET /api/games/ID/analysis``)."""

    type: Literal["analysis"] = "analysis"
    game: str
    state: Literal["queued", "ready"]
    ahead: int | None
    players: dict[str, AnalysisFigures] | None


class TournamentSummary(_Message):
    """A tournament in a list."""

    id: int
    name: str
    kind: Literal["swiss", "arena"]
    status: Literal["upcoming", "running", "finished", "cancelled", "closed"]
    size: int = Field(description="players a table")
    clock: int = Field(description="seconds a turn")
    rounds: int | None = Field(description="a Swiss's rounds")
    minutes: int | None = Field(description="an arena's length")
    round: int = Field(description="a Swiss's round being played (0 before the first)")
    starts: float = Field(description="Unix time")
    ends: float | None = Field(description="an arena's end (Unix time), once it started")
    creator: str
    players: int = Field(description="how many joined and are still in")
    leader: str | None = Field(description="first in the standings, once a game ended")
    closed_by: str | None = Field(None, description="who closed it (its creator or staff), once closed")
    entered: bool = Field(False, description="in the `tournaments` list: the asker joined it and is in")


class TournamentLine(_Message):
    """A line of the standings."""

    rank: int
    name: str
    points: float = Field(description="placing points")
    game_points: int = Field(description="the sum of the player's final scores")
    opponents: float = Field(description="the points of every opponent met, once a game")
    rating: int = Field(description="the rating the player joined with")
    games: int
    active: bool = Field(description="false once the player left")


class TournamentTable(_Message):
    """A table of the tournament."""

    number: int
    round: int = Field(description="a Swiss's round (0 in an arena)")
    players: list[str]
    room: str | None = Field(description="null for a bye, or until the room is made")
    game: str | None = Field(description="the game's id (/games/ID), once it started")
    places: dict[str, int] | None = Field(description="once the game ended; a bye: its player 1")
    scores: dict[str, int] | None


class TournamentInfo(_Answer):
    """One tournament: what it is, its standings and its tables (the current round's, or an
    arena's running ones, first; then the latest 20 finished, latest first: ``table_count`` says
    how many it made in all)."""

    type: Literal["tournament"] = "tournament"
    tournament: TournamentSummary
    standings: list[TournamentLine]
    tables: list[TournamentTable]
    table_count: int = Field(
        0, description="how many tables it made in all (`tables`: the running ones, the latest 20 finished)"
    )


class TournamentList(_Answer):
    type: Literal["tournaments"] = "tournaments"
    upcoming: list[TournamentSummary]
    running: list[TournamentSummary]
    recent: list[TournamentSummary]


class Pong(_Answer):
    type: Literal["pong"] = "pong"


class Bye(_ServerMessage):
    type: Literal["bye"] = "bye"
    reason: Words


ServerMessage = Annotated[
    Welcome
    | Error
    | Ack
    | Rooms
    | WhoList
    | Presence
    | Chat
    | Snapshot
    | Patch
    | GameStarted
    | Played
    | Eliminated
    | GameOver
    | LegalMoves
    | Hint
    | Text
    | Notice
    | Pong
    | Bye
    | TellMessage
    | Friends
    | Invited
    | Vote
    | TournamentInfo
    | TournamentList
    | Analysis
    | Seeking
    | Seated
    | RoomClosed
    | ReportList
    | ModLog,
    Field(discriminator="type"),
]
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def _client_id(raw: str | bytes) -> ClientId:
    """The ``id`` of a frame that failed validation, if it can be read."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # deeply nested arrays exhaust json's recursion
        return None
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, int | str) and not isinstance(value, bool):
            return value
    return None


def parse_client_message(raw: str | bytes) -> ClientMessage:
    """Parse one frame; raises ``ProtocolError`` (``bad_json``, ``unknown_type``, ``bad_field``)
    whose message says what was expected."""
    try:
        return CLIENT_ADAPTER.validate_json(raw)
    except ValidationError as e:
        error = e.errors()[0]
        kind = error["type"]
        msg_id = _client_id(raw)
        if kind == "json_invalid":
            raise ProtocolError("bad_json", _not_json(error["msg"])) from None
        if kind in ("model_attributes_type", "dict_type"):
            raise ProtocolError("bad_json", _("A message is a JSON object with a 'type' field.")) from None
        if kind in ("union_tag_not_found", "union_tag_invalid"):
            known = ", ".join(sorted(_CLIENT_TYPES))
            raise ProtocolError(
                "unknown_type", _("Expected a 'type' field, one of: {known}.", known=known), msg_id
            ) from None
        if kind in ERROR_CODES:  # a validator's own refusal carries its code
            raise ProtocolError(kind, refusal_text(error), msg_id) from None
        if error["loc"][1:2] == ("id",):
            raise ProtocolError("bad_field", _("Field 'id': an integer or a string, or null.")) from None
        where = ".".join(str(p) for p in error["loc"][1:]) or "message"
        raise ProtocolError(
            "bad_field",
            _("Field {field}: {problem}.", field=repr(where), problem=field_problem(error)),
            msg_id,
        ) from None


def _not_json(detail: str) -> Msg:
    """``bad_json``'s sentence: with the JSON parser's own (English) words in English."""
    english = f"The frame is not valid JSON: {detail}."
    return lazy(lambda say: english if say.english else say(_("The frame is not valid JSON.")))


def dump_server_message(message: _ServerMessage) -> str:
    """Compact JSON text of a server message."""
    return message.model_dump_json()


def parse_server_message(raw: str | bytes) -> ServerMessage:
    """Parse a server frame (for clients, bots and tests)."""
    return SERVER_ADAPTER.validate_json(raw)


#: every client message type, read from the union itself so that the list cannot drift from it
_CLIENT_TYPES = {cls.model_fields["type"].default for cls in get_args(get_args(ClientMessage)[0])}

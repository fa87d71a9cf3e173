"""The wire messages: every type survives JSON both ways; every malformed frame gets a stable error code."""

from __future__ import annotations

import doctest
import json
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import protocol.messages
import protocol.outgoing
from protocol.errors import ERROR_CODES, PROTOCOL_ERROR_CODES, ProtocolError
from protocol.messages import (
    CLIENT_ADAPTER,
    PROTOCOL_VERSION,
    SERVER_ADAPTER,
    Ack,
    AddBot,
    Analyse,
    Analysis,
    AnalysisFigures,
    Bye,
    ChangePassword,
    Chat,
    ClientMessage,
    Command,
    Eliminated,
    EnterRoom,
    Error,
    Friend,
    Friends,
    GameOver,
    GameStarted,
    GetFriends,
    GetHint,
    GetLegalMoves,
    Hello,
    Hint,
    Invite,
    Invited,
    Join,
    LeaveGame,
    LeaveRoom,
    LegalMoves,
    ListEdit,
    ListRooms,
    Nick,
    Notice,
    Patch,
    Person,
    Ping,
    Played,
    PlayMove,
    Pong,
    Presence,
    Register,
    RemoveBot,
    Reset,
    Resync,
    RoomClosed,
    Rooms,
    RoomSummary,
    Say,
    Seated,
    SeatSummary,
    Seek,
    Seeking,
    ServerMessage,
    SetLang,
    SetOption,
    Snapshot,
    Start,
    Tell,
    TellMessage,
    TellReply,
    Text,
    Unregister,
    Unseek,
    Vote,
    VoteAnswer,
    VoteRemove,
    Watch,
    Welcome,
    WhereIs,
    Who,
    WhoList,
    dump_server_message,
    parse_client_message,
    parse_server_message,
)

# A sample of every client message, with its optional fields set where it has any.
CLIENT_SAMPLES: list[ClientMessage] = [
    protocol.messages.ReportPlayer(id=30, name="troll", reason="insults"),
    protocol.messages.ListReports(id=31, all=True),
    protocol.messages.ResolveReport(id=32, report=7, note="warned"),
    protocol.messages.Moderate(id=33, action="ban", name="troll", duration="7d", reason="insults"),
    protocol.messages.Moderate(action="kick", name="troll"),
    protocol.messages.CloseRoom(id=34, room="cafe", reason="spam"),
    protocol.messages.Announce(id=35, text="Restart at 22:00 UTC."),
    protocol.messages.SetRole(id=36, name="ann", role="moderator"),
    protocol.messages.GetModLog(id=37, name="troll"),
    Hello(id=1, name="ann", token="r3sume", kind="bot"),
    Hello(name="ann"),
    Hello(name="ann", lang="de"),
    SetLang(id=4, lang="en"),
    Say(id="c1", text="hello, all"),
    Command(id=2, text="/join cafe"),
    EnterRoom(room="cafe"),
    LeaveRoom(id=3),
    ListRooms(),
    Who(),
    Join(room="cafe"),
    Join(),
    Join(seat=3),
    LeaveGame(),
    Start(id=4),
    SetOption(key="seed", value=42),
    SetOption(key="stammtisch", value=True),
    SetOption(key="clock", value=None),
    SetOption(key="absent", value="drop"),
    PlayMove(id=5, move="FRf@FR1s ESm@ES1e"),
    GetLegalMoves(),
    GetHint(),
    AddBot(strategy="strong"),
    RemoveBot(name="greedy-1"),
    Watch(room="cafe"),
    Resync(),
    Ping(id="p"),
    Nick(name="bob"),
    Register(id=8, password="correct horse"),
    ChangePassword(id=9, old="correct horse", new="battery staple"),
    Unregister(id=10, password="battery staple"),
    Tell(id=9, name="bob", text="psst"),
    TellReply(text="yes?"),
    WhereIs(name="bob"),
    ListEdit(action="mute", name="bob"),
    GetFriends(),
    Invite(name="bob"),
    Reset(),
    VoteRemove(name="bob"),
    VoteAnswer(yes=False),
    Seek(id=12, size=3, rated=False, clock=30, bots=True),
    Unseek(id=13),
    Analyse(id=11, game="0123456789abcdef"),
    protocol.messages.TournamentRequest(
        id=14, action="new", name="Friday", kind="swiss", rounds=5, size=4, clock=60, start="+10m"
    ),
    protocol.messages.ListTournaments(id=15),
    SetOption(key="start", value=2),
    SetOption(key="host", value=False),
]

_VIEW: dict[str, Any] = {
    "room": "cafe",
    "state": "playing",
    "seats": [{"name": "ann", "kind": "person", "connected": True}],
    "spectators": [],
    "options": {"seed": "set", "stammtisch": False, "clock": 60, "absent": "bot", "host": True,
                "private": False, "drawseat": False, "start": None},
    "rated": False,
    "you": "ann",
    "seat": 0,
    "game": {
        "players": [{"name": "ann", "hand_size": 1, "score": 4, "hand_limit": 5, "eliminated": False}],
        "hand": ["FRf"], "to_move": "ann", "start_player": "ann", "chairs": {"FR1s": "Jf=FR"}, "bar": [],
        "deck_size": 60, "move_number": 1, "last_move": {"player": "ann", "move": "Jf=FR@FR1s", "points": 4},
        "history": [{"player": "ann", "move": "Jf=FR@FR1s", "points": 4, "auto": "clock"}],
        "deadline": 1767225600.5, "over": None, "practice": True, "result": None,
    },
}  # fmt: skip

_TOURNAMENT = protocol.messages.TournamentSummary(
    id=1,
    name="Friday",
    kind="swiss",
    status="running",
    size=4,
    clock=60,
    rounds=5,
    minutes=None,
    round=1,
    starts=1700000000.0,
    ends=None,
    creator="ann",
    players=8,
    leader="ann",
)

# A sample of every server message, every field set.
SERVER_SAMPLES: list[ServerMessage] = [
    protocol.messages.ReportList(
        seq=3,
        id=31,
        reports=[
            protocol.messages.ReportEntry(
                id=7, reporter="bob", name="troll", reason="rude", excerpt=["12:00 [cafe] <bob> hi"], made=1
            )
        ],
    ),
    protocol.messages.ModLog(
        seq=4,
        id=37,
        entries=[
            protocol.messages.LogEntry(id=1, when=1.5, by="ann", action="ban", target="troll", duration="7d")
        ],
    ),
    Welcome(
        seq=1,
        id=1,
        name="ann",
        token="t0k3n",
        protocol=PROTOCOL_VERSION,
        server="cafe-international",
        resumed=True,
    ),
    Error(seq=2, id=5, code="chair_taken", message="The chair FR1s is occupied."),
    Ack(seq=3, id=4),
    Rooms(
        seq=4,
        rooms=[
            RoomSummary(
                name="cafe",
                state="waiting",
                seats=[
                    SeatSummary(name="ann", kind="person"),
                    SeatSummary(name="greedy-1", kind="bot", connected=False),
                ],
                spectators=2,
                options={"seed": 42, "stammtisch": False},
            )
        ],
    ),
    WhoList(
        seq=5,
        people=[Person(name="ann", kind="person", room="cafe"), Person(name="zoe", kind="person", room=None)],
    ),
    Presence(seq=6, room="cafe", name="bob", event="replaced_by_bot", detail="greedy"),
    Chat(seq=7, room=None, name="ann", text="hi"),
    Snapshot(seq=8, room="cafe", view=_VIEW),
    Patch(seq=9, room="cafe", ops=[{"op": "replace", "path": "/game/deck_size", "value": 59}]),
    GameStarted(
        seq=10,
        room="cafe",
        game="5d41c0a8e2b1f3d7",
        players=["ann", "bob"],
        start_player="bob",
        seed_hash="ab" * 32,
    ),
    Played(
        seq=11,
        room="cafe",
        player="ann",
        move="FRf@FR1s",
        points=4,
        events=[
            {
                "type": "seat",
                "player": "ann",
                "card": "FRf",
                "chair": "FR1s",
                "points": 4,
                "tables": {"FR1": 4},
            },
            {"type": "draw", "player": "ann", "count": 1},
        ],
        auto=True,
    ),
    Eliminated(seq=12, room="cafe", player="bob", place=2),
    GameOver(
        seq=13,
        room="cafe",
        game="5d41c0a8e2b1f3d7",
        reason="deck",
        final_scores={"ann": 30, "bob": -5},
        penalties={"ann": 5, "bob": 10},
        ranking=["ann", "bob"],
        places={"ann": 1, "bob": 2},
        seed=42,
    ),
    LegalMoves(seq=14, id=6, moves=["FRf@FR1s", "FRf@bar"]),
    Hint(seq=15, id=7, move="FRf@FR1s", points=4),
    Text(seq=16, id=8, kind="help", text="/join [ROOM]  take a seat"),
    Notice(seq=17, room="cafe", text="ann's time ran out; a move was played for ann."),
    Pong(seq=18, id="p"),
    Bye(seq=19, reason="the server is stopping"),
    TellMessage(seq=20, id=3, name="ann", to="bob", text="psst"),
    Friends(seq=21, id=4, friends=[Friend(name="bob", online=True, room="cafe")]),
    Invited(seq=22, room="cafe", name="ann"),
    Vote(
        seq=23,
        room="cafe",
        kind="remove",
        by="ann",
        name="bob",
        seat=2,
        yes=["ann"],
        no=[],
        voters=["cid"],
        state="open",
        expires=1700000000.0,
    ),
    Seeking(seq=25, id=12, size=None, rated=True, clock=60, bots=False, bots_after=30),
    Seated(seq=26, room="seek-0a1b2c", game="0123456789abcdef", players=["bob", "ann"]),
    RoomClosed(seq=27, room="cafe"),
    Analysis(
        seq=24,
        id=None,
        game="0123456789abcdef",
        state="ready",
        ahead=None,
        players={"ann": AnalysisFigures(moves=20, total_cost=31.5, mean_cost=1.58, accuracy=81.2)},
    ),
    protocol.messages.TournamentInfo(
        seq=27,
        id=14,
        tournament=_TOURNAMENT,
        standings=[
            protocol.messages.TournamentLine(
                rank=1,
                name="ann",
                points=3.0,
                game_points=88,
                opponents=4.5,
                rating=1040,
                games=2,
                active=True,
            )
        ],
        tables=[
            protocol.messages.TournamentTable(
                number=1,
                round=1,
                players=["ann", "bob"],
                room="t1-1",
                game="0123456789abcdef",
                places={"ann": 1, "bob": 2},
                scores={"ann": 44, "bob": 30},
            )
        ],
    ),
    protocol.messages.TournamentList(seq=28, id=15, upcoming=[], running=[_TOURNAMENT], recent=[]),
]


def _members(union: Any) -> set[type[BaseModel]]:
    """The message classes of an annotated discriminated union."""
    return set(get_args(get_args(union)[0]))


def test_every_client_message_type_has_a_sample() -> None:
    """The samples cover every client message type (a new type needs a sample)."""
    assert {type(m) for m in CLIENT_SAMPLES} == _members(ClientMessage)


def test_every_server_message_type_has_a_sample() -> None:
    """The samples cover every server message type (a new type needs a sample)."""
    assert {type(m) for m in SERVER_SAMPLES} == _members(ServerMessage)


@pytest.mark.parametrize("message", CLIENT_SAMPLES, ids=lambda m: m.type)
def test_client_message_round_trip(message: ClientMessage) -> None:
    """A client message written as JSON parses back to the same message, as text or as bytes."""
    text = message.model_dump_json()
    assert json.loads(text)["type"] == message.type
    assert parse_client_message(text) == message
    assert parse_client_message(text.encode()) == message
    assert parse_client_message(CLIENT_ADAPTER.dump_json(message)) == message


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: m.type)
def test_server_message_round_trip(message: ServerMessage) -> None:
    """A server message sent as JSON parses back to the same message."""
    text = dump_server_message(message)
    assert parse_server_message(text) == message
    assert SERVER_ADAPTER.validate_json(SERVER_ADAPTER.dump_json(message)) == message


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: m.type)
def test_server_message_starts_with_seq(message: ServerMessage) -> None:
    """In every server frame "seq" is the first key, so a client can read it first; "type" is present."""
    data = json.loads(dump_server_message(message))
    assert next(iter(data)) == "seq"
    assert data["seq"] == message.seq
    assert data["type"] == message.type


def test_server_frames_are_compact_and_carry_every_field() -> None:
    """A frame is one line of compact JSON and carries the fields left at their defaults."""
    text = dump_server_message(Ack())
    assert "\n" not in text and ": " not in text
    assert json.loads(text) == {"seq": 0, "id": None, "type": "ack"}


def test_type_is_written_even_when_left_default() -> None:
    """A message built without naming its type still writes it, so the other side can read it."""
    assert json.loads(Ping().model_dump_json()) == {"id": None, "type": "ping"}


def test_option_value_keeps_booleans_apart_from_integers() -> None:
    """true stays a boolean and 1 an integer: the option's meaning depends on it."""
    on = parse_client_message('{"type": "option", "key": "stammtisch", "value": true}')
    seed = parse_client_message('{"type": "option", "key": "seed", "value": 1}')
    assert isinstance(on, SetOption) and on.value is True
    assert isinstance(seed, SetOption) and type(seed.value) is int


def test_option_value_absent_is_bot_or_drop() -> None:
    """The option absent takes the words bot and drop as they are."""
    drop = parse_client_message('{"type": "option", "key": "absent", "value": "drop"}')
    assert isinstance(drop, SetOption) and (drop.key, drop.value) == ("absent", "drop")


def test_messages_are_frozen() -> None:
    """A message cannot be changed after it is built (messages are shared between recipients)."""
    message = Say(text="hi")
    with pytest.raises(ValueError, match="frozen"):
        message.text = "bye"


# --- protocol errors ------------------------------------------------------------------------------


def _refused(raw: str | bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(raw)
    assert caught.value.code in PROTOCOL_ERROR_CODES
    return caught.value


BAD_JSON = [
    pytest.param(b"", id="empty"),
    pytest.param(b"{", id="unclosed"),
    pytest.param(b"\xff\xfe", id="not-utf8"),
    pytest.param("{'type': 'ping'}", id="single-quotes"),
    pytest.param('{"type": "ping"} trailing', id="trailing"),
    pytest.param('{"type": "ping",}', id="trailing-comma"),
    pytest.param("[" * 100_000 + "]" * 100_000, id="deep"),
    pytest.param('{"type": "say", "id": 1, "text": ' + "[" * 5000 + "]" * 5000 + "}", id="deep-in-a-field"),
]


@pytest.mark.parametrize("raw", BAD_JSON)
def test_bad_json(raw: str | bytes) -> None:
    """A frame that is not JSON is refused with bad_json, saying so; no id can be read from it."""
    error = _refused(raw)
    assert error.code == "bad_json"
    assert "not valid JSON" in error.message
    assert error.id is None


@pytest.mark.parametrize("raw", ["[]", '[{"type": "ping"}]', "3", '"ping"', "null", "true"])
def test_not_an_object(raw: str) -> None:
    """JSON that is not an object is refused with bad_json, saying a message is an object with a type."""
    error = _refused(raw)
    assert error.code == "bad_json"
    assert "JSON object" in error.message and "'type'" in error.message


@pytest.mark.parametrize(
    ("raw", "id"),
    [('{"type": "dance", "id": 4}', 4), ('{"id": "m5", "text": "hi"}', "m5"), ('{"type": 7}', None),
     ('{"type": null, "id": 6}', 6), ('{"type": "PING"}', None), ("{}", None)],
)  # fmt: skip
def test_unknown_or_missing_type(raw: str, id: int | str | None) -> None:
    """A missing, mistyped or unknown type is refused with unknown_type, listing the known types."""
    error = _refused(raw)
    assert error.code == "unknown_type"
    assert all(t in error.message for t in ("hello", "move", "say", "ping"))
    assert error.id == id


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ('{"type": "say", "id": 6, "text": 5}', "text"),
        ('{"type": "say", "id": 6}', "text"),
        ('{"type": "say", "id": 6, "text": ""}', "text"),
        ('{"type": "move", "id": 6, "move": "' + "x" * 201 + '"}', "move"),
        ('{"type": "option", "id": 6, "key": "colour", "value": 1}', "key"),
        ('{"type": "add_bot", "id": 6, "strategy": "clever"}', "strategy"),
        ('{"type": "hello", "id": 6, "name": "ann", "kind": "robot"}', "kind"),
        ('{"type": "join", "id": 6, "seat": 5}', "seat"),
    ],
)
def test_bad_field(raw: str, field: str) -> None:
    """A field missing, of the wrong type or out of range is refused with bad_field, naming the field."""
    error = _refused(raw)
    assert error.code == "bad_field"
    assert f"'{field}" in error.message
    assert error.id == 6


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ('{"type": "option", "id": 6, "key": "seed", "value": "soon"}', ["whole number", "null"]),
        ('{"type": "option", "id": 6, "key": "seed", "value": "7"}', ["whole number", "null"]),
        ('{"type": "option", "id": 6, "key": "seed", "value": true}', ["whole number", "null"]),
        ('{"type": "option", "id": 6, "key": "seed", "value": 7.5}', ["whole number", "null"]),
        ('{"type": "option", "id": 6, "key": "stammtisch", "value": "on"}', ["true", "false"]),
        ('{"type": "option", "id": 6, "key": "stammtisch", "value": 1}', ["true", "false"]),
        ('{"type": "option", "id": 6, "key": "clock", "value": "60"}', ["seconds", "null"]),
        ('{"type": "option", "id": 6, "key": "clock", "value": true}', ["seconds", "null"]),
        ('{"type": "option", "id": 6, "key": "absent", "value": "maybe"}', ["'bot'", "'drop'"]),
        ('{"type": "option", "id": 6, "key": "absent", "value": 1}', ["'bot'", "'drop'"]),
    ],
)
def test_option_value_of_the_wrong_type_or_word(raw: str, words: list[str]) -> None:
    """An option value of another JSON type than its key's is refused with bad_option, naming the
    values allowed (a string is no number, a number no boolean)."""
    error = _refused(raw)
    assert error.code == "bad_option"
    assert all(word in error.message for word in words), error.message
    assert error.id == 6


def test_option_absent_matches_without_regard_to_case() -> None:
    """absent "DROP" and "Bot" are the words drop and bot."""
    drop = parse_client_message('{"type": "option", "key": "absent", "value": "DROP"}')
    bot = parse_client_message('{"type": "option", "key": "absent", "value": "Bot"}')
    assert isinstance(drop, SetOption) and drop.value == "drop"
    assert isinstance(bot, SetOption) and bot.value == "bot"


@pytest.mark.parametrize(
    "raw", ['{"type": "ping", "id": true}', '{"type": "ping", "id": 1.5}', '{"type": "ping", "id": []}']
)
def test_id_is_an_integer_or_a_string(raw: str) -> None:
    """An id that is a boolean, a fraction or a list is refused with bad_field naming 'id'."""
    error = _refused(raw)
    assert error.code == "bad_field"
    assert "'id'" in error.message


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        (r'{"type": "say", "text": "A\u001b[2JB"}', "A[2JB"),
        (r'{"type": "say", "text": "G\nH* The game starts"}', "G H* The game starts"),
        (r'{"type": "say", "text": "x\u202ey\u2028z"}', "xy z"),
    ],
)
def test_say_text_is_sanitized(raw: str, kept: str) -> None:
    """Chat text arrives as one line without control or reordering characters."""
    say = parse_client_message(raw)
    assert isinstance(say, Say) and say.text == kept


@pytest.mark.parametrize("text", [r"\u0007", r"\r\n", r"\u001b\u202e \u0000"])
def test_say_with_nothing_left_is_refused(text: str) -> None:
    """Chat that is empty once controls are removed is refused with empty_message."""
    error = _refused('{"type": "say", "id": 4, "text": "' + text + '"}')
    assert (error.code, error.id) == ("empty_message", 4)


@pytest.mark.parametrize(
    "raw", ['{"type": "ping", "id": 8, "extra": 1}', '{"type": "say", "id": 8, "text": "hi", "extra": null}']
)
def test_extra_field(raw: str) -> None:
    """A field the message does not have is refused with bad_field, naming it."""
    error = _refused(raw)
    assert error.code == "bad_field"
    assert "'extra'" in error.message and "not permitted" in error.message
    assert error.id == 8


@pytest.mark.parametrize(
    ("id_json", "echoed"),
    [
        ("12", 12),
        ('"abc"', "abc"),
        ("-3", -3),
        ("true", None),
        ("1.5", None),
        ("[1]", None),
        ('{"a": 1}', None),
    ],
)
def test_id_is_echoed_only_when_readable(id_json: str, echoed: int | str | None) -> None:
    """An error carries the frame's id when it is an integer or a string, and no id otherwise."""
    error = _refused('{"type": "say", "id": ' + id_json + ', "text": 5}')
    assert error.id == echoed


def test_every_error_code_has_a_description() -> None:
    """Every code a client can receive is described, and protocol codes are part of the catalogue."""
    assert all(ERROR_CODES.values())
    assert PROTOCOL_ERROR_CODES.keys() <= ERROR_CODES.keys()


def test_an_unknown_code_cannot_be_raised() -> None:
    """A ProtocolError only carries codes of the catalogue."""
    with pytest.raises(AssertionError):
        ProtocolError("no_such_code", "never")


def test_doctests() -> None:
    """The examples in the module's docstring hold."""
    assert doctest.testmod(protocol.messages).failed == 0


# --- fuzz -----------------------------------------------------------------------------------------

_CLIENT_TYPES = sorted(cls.model_fields["type"].default for cls in _members(ClientMessage))
_FIELDS = ["id", "name", "token", "kind", "text", "room", "key", "value", "move", "strategy", "type", "x"]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _parse_or_refuse(raw: str | bytes) -> ClientMessage | ProtocolError:
    try:
        return parse_client_message(raw)
    except ProtocolError as e:
        assert e.code in ("bad_json", "unknown_type", "bad_field")
        assert e.message
        return e


@given(st.binary(max_size=200))
def test_any_bytes_parse_or_raise_protocol_error(raw: bytes) -> None:
    """Arbitrary bytes are a message or a ProtocolError, never another exception."""
    _parse_or_refuse(raw)


@given(st.text(max_size=200))
def test_any_text_parses_or_raises_protocol_error(raw: str) -> None:
    """Arbitrary text is a message or a ProtocolError, never another exception."""
    _parse_or_refuse(raw)


@given(
    st.sampled_from([*_CLIENT_TYPES, "dance"]),
    st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=4),
)
def test_any_object_parses_or_raises_protocol_error_with_its_id(type_: str, fields: dict[str, Any]) -> None:
    """A JSON object with a known or unknown type and arbitrary fields is a message or a ProtocolError
    that echoes its id whenever the id is an integer or a string."""
    frame = {"type": type_, **{k: v for k, v in fields.items() if k != "type"}}
    result = _parse_or_refuse(json.dumps(frame))
    if isinstance(result, ProtocolError):
        raw_id = frame.get("id")
        readable = isinstance(raw_id, int | str) and not isinstance(raw_id, bool)
        assert result.id == (raw_id if readable else None)
    else:
        assert result.type == type_


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_ops = st.lists(st.dictionaries(st.sampled_from(["op", "path", "value", "from"]), _json_values), max_size=4)


@settings(max_examples=200, deadline=None)
@given(room=st.text(), ops=_ops)
def test_a_patch_made_directly_is_the_text_of_the_message(room: str, ops: list[dict[str, Any]]) -> None:
    """patch_json gives exactly the text dump_server_message gives for the Patch (quotes, escapes,
    any Unicode, big numbers), so both parse back to the same message."""
    text = protocol.outgoing.patch_json(room, ops)
    assert text == protocol.messages.dump_server_message(protocol.messages.Patch(room=room, ops=ops))
    assert protocol.messages.parse_server_message(text) == protocol.messages.Patch(room=room, ops=ops)


@settings(max_examples=200, deadline=None)
@given(room=st.text(), parts=st.lists(_ops.filter(bool), max_size=4))
def test_a_patch_of_operations_in_parts_is_the_text_of_the_whole(
    room: str, parts: list[list[dict[str, Any]]]
) -> None:
    """The texts of lists of operations (``ops_json``), joined with commas, make the patch of all
    of them in a row: what a room's members share is serialised once and joined to their own."""
    ops = [op for part in parts for op in part]
    text = protocol.outgoing.patch_json(room, ops, ",".join(map(protocol.outgoing.ops_json, parts)))
    assert text == protocol.outgoing.patch_json(room, ops)
    assert protocol.messages.parse_server_message(text) == protocol.messages.Patch(room=room, ops=ops)


@settings(max_examples=200, deadline=None)
@given(
    room=st.text(),
    player=st.text(),
    move=st.text(),
    points=st.integers(-100, 100),
    events=st.lists(st.dictionaries(st.text(max_size=8), _json_values, max_size=4), max_size=3),
    auto=st.booleans(),
)
def test_a_played_message_made_directly_is_the_text_of_the_message(
    room: str, player: str, move: str, points: int, events: list[dict[str, Any]], auto: bool
) -> None:
    """played_json gives exactly the text of the Played message with the same fields."""
    message = protocol.messages.Played(
        room=room, player=player, move=move, points=points, events=events, auto=auto
    )
    assert protocol.outgoing.played_json(
        room, player, move, points, events, auto
    ) == protocol.messages.dump_server_message(message)


@given(msg_id=st.none() | st.integers(-(2**63), 2**63 - 1) | st.text())
def test_an_ack_made_directly_is_the_text_of_the_message(msg_id: int | str | None) -> None:
    """ack_json gives exactly the text of Ack with that id (a number, a string or none)."""
    assert protocol.outgoing.ack_json(msg_id) == protocol.messages.dump_server_message(
        protocol.messages.Ack(id=msg_id)
    )


def test_hello_with_an_unknown_language_is_bad_language() -> None:
    """A hello whose lang the server does not speak is refused with bad_language."""
    with pytest.raises(ProtocolError) as e:
        parse_client_message('{"type": "hello", "name": "ann", "lang": "fr"}')
    assert (e.value.code, e.value.message) == ("bad_language", "The language is one of: en, de.")

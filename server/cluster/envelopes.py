"""What nodes send each other over Redis pub/sub (channel ``cafe:to:NODE``): envelopes, each one
JSON object on a line of its own (a message holds what waited for that node when it was sent, one
envelope or several, in order), told apart by ``op``:

============  ================================================================================
``enter``     a member on the sending node enters the room (``join``: and takes a seat;
              ``admitted``: it is on the room's guest list, which a private room asks for;
              ``asked``: the member asked, and is answered with ``ack``)
``leave``     the member leaves (``disconnected``: its connection was lost)
``returned``  the member came back with a resume token
``reread``    the member now reads another language, or plain ASCII (or no longer)
``show``      ``/board``, ``/hand`` or ``/score`` (``what``; ``topic`` for help)
``msg``       any other client message, as its JSON text (``msg``)
``out``       the other way: a server message for the member ``sid`` (``json``: the message itself,
              as the owner wrote its JSON; or that text as a JSON string). Written and read as
              text, the message unparsed: ``{"op":"out","sid":SID,"json":MESSAGE}``
``away``      the other way: the room (a private one) refused to let the connection ``sid`` in
``tell``      a tell from ``name`` (connection ``sid`` on node ``from``) to ``to``, connected to
              the receiving node
``seat``      a table was made for ``to``, connected to the receiving node: to their seat in ``room``
``notice``    a notice of the server's for ``to``, connected to the receiving node (``text``, with its
              ``msgid`` and ``params``)
``news``      to every node (channel ``cafe:news``): ``text`` for the friends of ``name`` (its
              message id and params with it, so each reader gets it in their own language)
``moderation``  to every node (channel ``cafe:news``): a staff action (``kind``: kick, ban,
              silence, unsilence, announce, close, report) for the connections it concerns
``rooms``     to every node (channel ``cafe:news``): a room of node ``from`` changed its line in
              the room list (at most one every half second a node)
============  ================================================================================

Every message to a room names its sender: the node (``from``), the connection (``sid``), the
name and kind of the member, and the room, with what the owner needs to know of the member as it
is now (``identity``, ``ascii``, ``lang``: any may change while the member is in the room). A message
that is not one of these is logged and dropped; nothing else is disturbed.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from protocol.commands import ShowWhat
from protocol.i18n import DEFAULT, LANGUAGES, Msg
from protocol.messages import ChatText, ClientId


def _known_language(code: str) -> str:
    if code not in LANGUAGES:
        raise ValueError(f"no language {code!r}")
    return code


class _Envelope(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class _ToRoom(_Envelope):
    node: str = Field(alias="from", max_length=200)
    sid: str = Field(max_length=64)
    name: str = Field(max_length=64)
    kind: Literal["person", "bot"]
    room: str = Field(max_length=64)
    identity: str | None = Field(default=None, max_length=64)
    #: the member reads plain ASCII only (a line client's ``/ascii on``)
    ascii: bool = False
    #: the language the member reads: the owner writes its messages' words in it
    lang: Annotated[str, AfterValidator(_known_language)] = DEFAULT


class EnterRoom(_ToRoom):
    op: Literal["enter"] = "enter"
    join: bool = False
    id: ClientId = None
    admitted: bool = False
    asked: bool = True


class LeaveRoom(_ToRoom):
    op: Literal["leave"] = "leave"
    disconnected: bool = False
    id: ClientId = None
    asked: bool = True
    gone: bool = False
    replaced: bool = False
    closed: bool = False


class Returned(_ToRoom):
    op: Literal["returned"] = "returned"


class Reread(_ToRoom):
    """The member reads differently now (``/lang``, ``/ascii``); nothing is posted to the room."""

    op: Literal["reread"] = "reread"


class Show(_ToRoom):
    op: Literal["show"] = "show"
    what: ShowWhat
    topic: str | None = Field(default=None, max_length=64)
    id: ClientId = None


class Message(_ToRoom):
    op: Literal["msg"] = "msg"
    msg: str


#: the longest connection id an envelope names
_SID = 64


class ToMember(_Envelope):
    """A message for a member (what :func:`member_text` reads; this model reads the form whose
    message is a JSON string)."""

    op: Literal["out"] = "out"
    sid: str = Field(max_length=_SID)
    json_text: str = Field(alias="json")


class TurnedAway(_Envelope):
    """The room ``room`` turned the connection ``sid`` away: it is in no room now."""

    op: Literal["away"] = "away"
    sid: str = Field(max_length=64)
    room: str = Field(max_length=64)


class TellTo(_Envelope):
    """A tell to a person connected to the receiving node (the text passes the chat sanitizer
    again there: a node repeats nothing unchecked to its terminals)."""

    op: Literal["tell"] = "tell"
    node: str = Field(alias="from", max_length=200)
    sid: str = Field(max_length=64)
    name: str = Field(max_length=64)
    to: str = Field(max_length=64)
    text: ChatText


class InviteTo(_Envelope):
    """An invitation to room ``room`` from ``name`` for a person connected to the receiving node."""

    op: Literal["invite"] = "invite"
    node: str = Field(alias="from", max_length=200)
    sid: str = Field(max_length=64)
    name: str = Field(max_length=64)
    to: str = Field(max_length=64)
    room: str = Field(max_length=64)


class SeatAt(_Envelope):
    """A table was made for ``to``, connected to the receiving node: take them to their seat in
    ``room``, whose game ``game`` has started with ``players``."""

    op: Literal["seat"] = "seat"
    to: str = Field(max_length=64)
    room: str = Field(max_length=64)
    game: str = Field(max_length=64)
    players: list[Annotated[str, Field(max_length=64)]] = Field(max_length=4)
    #: the seat's player (``Session.identity``): only a connection of theirs is moved
    identity: str | None = Field(default=None, max_length=128)


class _Worded(_Envelope):
    """An envelope with words for people (``news``, ``notice``): in English, and the message id
    they were made from with its placeholders' values, so that each reader gets them in their
    own language."""

    #: the words in English (what a node that knows no ``msgid`` shows)
    text: str = Field(max_length=300)
    #: the English message id the words were made from, and its placeholders' values
    msgid: str | None = Field(default=None, max_length=300)
    params: dict[str, Annotated[str, Field(max_length=200)]] = Field(default_factory=dict, max_length=8)

    @model_validator(mode="after")
    def _fills(self) -> Self:
        if self.msgid is not None:
            try:
                self.msgid.format_map(self.params)
            except (KeyError, ValueError, IndexError, AttributeError) as e:
                raise ValueError(f"the params do not fill the message id: {e}") from e
        return self

    def words(self) -> str:
        """The words as a text each reader gets in their language (``text`` when no id came)."""
        return Msg(self.msgid, dict(self.params)) if self.msgid is not None else self.text


def _worded(text: str) -> dict[str, object]:
    """The fields of ``text`` (a ``Msg`` carries its id and params along) in a ``_Worded``."""
    fields: dict[str, object] = {"text": text}
    if isinstance(text, Msg) and text.plural is None:
        fields["msgid"] = text.msgid
        fields["params"] = {k: str(v) for k, v in text.params.items()}
    return fields


class NoticeTo(_Worded):
    """A notice from the server for ``to`` (a connection of ``identity``'s, when given), connected
    to the receiving node: a tournament's word to its players, say."""

    op: Literal["notice"] = "notice"
    to: str = Field(max_length=64)
    identity: str | None = Field(default=None, max_length=128)

    @classmethod
    def of(cls, to: str, identity: str | None, text: str) -> NoticeTo:
        """The notice ``text`` (a ``Msg`` carries its id and params along) for ``to``."""
        return cls.model_validate({"to": to, "identity": identity, **_worded(text)})


class Moderation(_Envelope):
    """To every node (channel ``cafe:news``): a staff action for the connections it concerns
    (``server.lobby.sanctions.Action``); each node makes its people's texts itself."""

    op: Literal["moderation"] = "moderation"
    node: str = Field(alias="from", max_length=200)
    kind: Literal["kick", "ban", "silence", "unsilence", "announce", "close", "report", "role"]
    name: str = Field(default="", max_length=64)
    address: str | None = Field(default=None, max_length=64)
    until: float | None = None
    reason: str = Field(default="", max_length=300)
    by: str = Field(default="", max_length=64)
    text: str = Field(default="", max_length=800)
    room: str = Field(default="", max_length=64)


class News(_Worded):
    """Something the friends of ``name`` are told, wherever they are connected."""

    op: Literal["news"] = "news"
    node: str = Field(alias="from", max_length=200)
    name: str = Field(max_length=64)
    #: friends not to tell, though they are (the players of the game the news is of)
    skip: list[Annotated[str, Field(max_length=64)]] = Field(default_factory=list, max_length=4)

    @classmethod
    def of(cls, node: str, name: str, text: str, skip: tuple[str, ...] = ()) -> News:
        """The news ``text`` (a ``Msg`` carries its id and params along) from ``name`` on ``node``,
        for the friends of ``name`` but those in ``skip``."""
        return cls.model_validate({"from": node, "name": name, "skip": list(skip), **_worded(text)})


class LobbyChat(_Envelope):
    """To every node (channel ``cafe:news``): what ``name``, in the lobby of node ``from``, said
    there (checked and cleaned by that node), for everyone in the lobby of the others."""

    op: Literal["lobby"] = "lobby"
    node: str = Field(alias="from", max_length=200)
    name: str = Field(max_length=64)
    text: str = Field(max_length=2000)


class RoomsChanged(_Envelope):
    """To every node (channel ``cafe:news``): a room of node ``from`` changed its line in the
    room list, which the nodes' lobbies watching it read anew."""

    op: Literal["rooms"] = "rooms"
    node: str = Field(alias="from", max_length=200)

class Replaced(_Envelope):
    """To every node (channel ``cafe:news``): ``name`` came back through node ``from`` (a resume
    token, a login): a connection of that name on another node is the old one, and goes."""

    op: Literal["replaced"] = "replaced"
    node: str = Field(alias="from", max_length=200)
    name: str = Field(max_length=64)


ToRoom = EnterRoom | LeaveRoom | Returned | Reread | Show | Message
ToPerson = TellTo | InviteTo | News | SeatAt | NoticeTo | Moderation | LobbyChat | Replaced
AnyEnvelope = ToRoom | ToMember | TurnedAway | ToPerson | RoomsChanged
Envelope = Annotated[AnyEnvelope, Field(discriminator="op")]
ENVELOPE: TypeAdapter[AnyEnvelope] = TypeAdapter(Envelope)


def parse(data: str | bytes) -> AnyEnvelope:
    """An envelope from its text; raises ``pydantic.ValidationError`` when it is not one."""
    return ENVELOPE.validate_json(data)


def dump(envelope: ToRoom | TurnedAway | ToPerson | RoomsChanged) -> str:
    return envelope.model_dump_json(by_alias=True)


#: how an ``out`` envelope's text begins, and what stands between its member and its message
_OUT = '{"op":"out","sid":'
_MESSAGE = ',"json":'
_DECODER = json.JSONDecoder()


def to_member(sid: str, json_text: str) -> str:
    """The text of an ``out`` envelope, made directly (one goes out per remote member per move):
    the message's JSON as it is, neither escaped here nor parsed where it arrives."""
    if "\n" in json_text:  # (never in JSON as the server writes it; one envelope a line all the same)
        return f"{_OUT}{json.dumps(sid)}{_MESSAGE}{json.dumps(json_text)}}}"
    return f"{_OUT}{json.dumps(sid)}{_MESSAGE}{json_text}}}"


def member_text(data: str) -> tuple[str, str] | None:
    """The member and the message's JSON text of an ``out`` envelope as :func:`to_member` writes
    it (the message as a JSON string too), read without parsing the message; ``None`` when
    ``data`` is not one."""
    if not data.startswith(_OUT) or not data.endswith("}") or data[len(_OUT) : len(_OUT) + 1] != '"':
        return None  # (the member is a JSON string: nothing nested to read)
    try:
        sid, end = _DECODER.raw_decode(data, len(_OUT))
    except ValueError:
        return None
    if not isinstance(sid, str) or len(sid) > _SID or not data.startswith(_MESSAGE, end):
        return None
    text = data[end + len(_MESSAGE) : -1]
    if text.startswith('"'):
        try:
            text = json.loads(text)
        except ValueError:
            return None
    return (sid, text) if isinstance(text, str) and text.startswith("{") else None


__all__ = [
    "EnterRoom",
    "InviteTo",
    "LeaveRoom",
    "Message",
    "Moderation",
    "News",
    "NoticeTo",
    "Replaced",
    "Returned",
    "RoomsChanged",
    "SeatAt",
    "Show",
    "TellTo",
    "ToMember",
    "ToPerson",
    "ToRoom",
    "TurnedAway",
    "dump",
    "member_text",
    "parse",
    "to_member",
]

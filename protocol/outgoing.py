"""A server message with its JSON text, made once however many recipients it gets.

Rooms build one ``Outgoing`` per message and hand the same object to every recipient; a
transport writes ``json`` (with the recipient's sequence number) and parses nothing, and a line
client renders ``message``, which is built only when asked for. A patch made in this process
carries the room's views it leads to, so that a line client takes its view from them instead of
applying the patch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pydantic_core

from protocol.i18n import Lang, Msg
from protocol.messages import (
    Ack,
    ClientId,
    Patch,
    Played,
    _ServerMessage,
    dump_server_message,
    parse_server_message,
)
from protocol.view import RoomViews

__all__ = ["ANSWER_START", "Outgoing", "ack_json", "answer_start", "ops_json", "patch_json", "played_json"]

#: how the text of every answer to a client message (ack, error, and the like) begins
ANSWER_START = '{"seq":0,"id":'

#: the fields of server messages that hold words for people (``Words``)
_TEXT_FIELDS = ("message", "text", "reason", "detail")


class Outgoing:
    """A server message with its JSON text, serialised once however many recipients it has."""

    __slots__ = ("_args", "_build", "_langs", "_message", "_tail", "json", "views")

    def __init__(
        self,
        message: _ServerMessage | None,
        json: str | None = None,
        build: Callable[..., _ServerMessage] | None = None,
        args: tuple[Any, ...] = (),
    ) -> None:
        # (``json``, ``build`` and ``args``: a message whose text was made directly, see ``_direct``)
        self._message: _ServerMessage | None = message
        #: how the message is made when asked for, and from what: a function and its arguments,
        #: not a closure (its function, cells and their tuple), as every move makes a few of them
        self._build: Callable[..., _ServerMessage] | None = build
        self._args: tuple[Any, ...] = args
        self._langs: dict[str, Outgoing] | None = None
        if json is None:
            assert message is not None
            json = dump_server_message(message)
        self.json = json
        #: a patch's room views after it (``None``: not a patch, or made by another node)
        self.views: RoomViews | None = None
        self._tail: bytes | None = None

    @classmethod
    def _direct(cls, json: str, build: Callable[..., _ServerMessage], *args: Any) -> Outgoing:
        # the text made directly; the message object only if asked for (line clients render it)
        return cls(None, json, build, args)

    @classmethod
    def from_json(cls, json: str) -> Outgoing:
        """A server message's text as another node made it; parsed only if asked for."""
        return cls._direct(json, parse_server_message, json)

    @classmethod
    def patch(
        cls,
        room: str,
        ops: list[dict[str, Any]],
        views: RoomViews | None = None,
        ops_text: str | None = None,
    ) -> Outgoing:
        """``Outgoing(Patch(room=room, ops=ops))``, made faster: one goes out after every move.
        ``views``: the room's views the patch leads to (each recipient's view is
        ``views.view(name)``); ``ops_text``: the operations' text without its brackets, if made
        already (``ops_json``, or several of them joined with commas)."""
        out = cls._direct(patch_json(room, ops, ops_text), _patch, room, ops)
        out.views = views
        return out

    @classmethod
    def played(
        cls,
        room: str,
        player: str,
        move: str,
        points: int,
        events: list[dict[str, Any]],
        auto: bool,
        clock: bool = False,
    ) -> Outgoing:
        """``Outgoing(Played(...))``, made faster: one goes out after every move."""
        return cls._direct(
            played_json(room, player, move, points, events, auto, clock),
            _played,
            room,
            player,
            move,
            points,
            events,
            auto,
            clock,
        )

    @classmethod
    def ack(cls, msg_id: ClientId) -> Outgoing:
        """``Outgoing(Ack(id=msg_id))``, made faster: the mover gets one after every move."""
        return cls._direct(ack_json(msg_id), _ack, msg_id)

    @property
    def message(self) -> _ServerMessage:
        if self._message is None:
            assert self._build is not None
            self._message = self._build(*self._args)
        return self._message

    def localized(self, lang: Lang) -> Outgoing:
        """This message with its words for people in ``lang``: made once per language however many
        readers speak it; itself when nothing in it is translated."""
        message = self._message
        if lang.english or message is None:  # made directly: patches, moves, acks hold no words
            return self
        if self._langs is None:
            self._langs = {}
        elif lang.code in self._langs:
            return self._langs[lang.code]
        words = {
            name: lang(value)
            for name in _TEXT_FIELDS
            if isinstance(value := getattr(message, name, None), Msg)
        }
        out = Outgoing(message.model_copy(update=words)) if words else self
        self._langs[lang.code] = out
        return out

    def with_seq(self, seq: int) -> str:
        # ``seq`` is the first field of every server message, dumped as 0
        return '{"seq":%d,%s' % (seq, self.json[9:])  # noqa: UP031 - the fastest form here

    def encoded(self, seq: int) -> tuple[bytes, bytes]:
        """``with_seq(seq)`` in UTF-8, in two parts: the sequence number's, and the rest, encoded
        once however many recipients the message has (a transport writes the two in a row)."""
        tail = self._tail
        if tail is None:
            tail = self._tail = self.json[9:].encode()
        return b'{"seq":%d,' % seq, tail


def _patch(room: str, ops: list[dict[str, Any]]) -> Patch:
    return Patch(room=room, ops=ops)


def _played(
    room: str, player: str, move: str, points: int, events: list[dict[str, Any]], auto: bool, clock: bool
) -> Played:
    return Played(room=room, player=player, move=move, points=points, events=events, auto=auto, clock=clock)


def _ack(msg_id: ClientId) -> Ack:
    return Ack(id=msg_id)


# After every move each member of the room gets a patch and the ``played`` message, and the mover
# an ``ack``. Their text is made here directly, without building and validating a message object
# first: the same text as ``dump_server_message`` gives (the tests compare them), in about a third
# of the time.


def _json(value: Any) -> str:
    return pydantic_core.to_json(value).decode()


def patch_json(room: str, ops: list[dict[str, Any]], ops_text: str | None = None) -> str:
    """The text of ``Patch(room=room, ops=ops)``; ``ops_text``, when given, is ``ops``' own
    (``ops_json``) or theirs joined with commas when they are several lists in a row."""
    if ops_text is None:
        ops_text = ops_json(ops)
    return f'{{"seq":0,"type":"patch","room":{_json(room)},"ops":[{ops_text}]}}'


def ops_json(ops: list[dict[str, Any]]) -> str:
    """The text of a list of patch operations without its brackets: the texts of lists in a row,
    joined with commas, are the text of all their operations."""
    return _json(ops)[1:-1]


def played_json(
    room: str,
    player: str,
    move: str,
    points: int,
    events: list[dict[str, Any]],
    auto: bool,
    clock: bool = False,
) -> str:
    """The text of ``Played(room=room, player=player, move=move, points=points, events=events,
    auto=auto, clock=clock)``."""
    return (
        f'{{"seq":0,"type":"played","room":{_json(room)},"player":{_json(player)},"move":{_json(move)},'
        f'"points":{int(points)},"events":{_json(events)},"auto":{"true" if auto else "false"},'
        f'"clock":{"true" if clock else "false"}}}'
    )


def ack_json(msg_id: ClientId) -> str:
    """The text of ``Ack(id=msg_id)``."""
    return f'{answer_start(msg_id)}"type":"ack"}}'


def answer_start(msg_id: ClientId) -> str:
    """How the text of the answer to the client message ``msg_id`` begins (its type follows)."""
    return f"{ANSWER_START}{_json(msg_id)},"

"""What each member of a room was last sent, and the patches that bring it up to date."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol import messages as m
from protocol.diff import diff
from protocol.outgoing import Outgoing, ops_json
from protocol.view import RoomViews

if TYPE_CHECKING:
    from server.room.world import Member


class Patches:
    """The patches of one publishing of a room's views, made once however many members get each:
    a patch by the parts it is made of, and each part's text (``RoomViews.change_parts``).

    The parts are held here with what was made of them: their ids are the keys, which no other
    list may take while they last."""

    __slots__ = ("made", "texts")

    def __init__(self) -> None:
        self.made: dict[tuple[int, ...], tuple[list[list[dict[str, Any]]], Outgoing]] = {}
        self.texts: dict[int, tuple[list[dict[str, Any]], str]] = {}

    def text(self, part: list[dict[str, Any]]) -> str:
        """The text of ``part``'s operations (``protocol.outgoing.ops_json``), made once."""
        known = self.texts.get(id(part))
        if known is not None:
            return known[1]
        text = ops_json(part)
        self.texts[id(part)] = (part, text)
        return text


class Publisher:
    """Per member: the room's views it was last sent, and its name then.

    A member not known here gets a snapshot; a known one a patch of what changed in its own view
    (none when nothing did). What members see alike is diffed once, a patch several members get
    (the same operation objects) is made once, and the text of what every member's patch shares
    is serialised once (``Patches``).
    """

    __slots__ = ("_names", "_room", "_sent")

    def __init__(self, room: str) -> None:
        self._room = room
        self._sent: dict[Member, RoomViews] = {}
        #: each member's name when it was last sent its views (apart: a tuple of both would be a
        #: new object for every member at every move)
        self._names: dict[Member, str | None] = {}

    def forget(self, member: Member) -> None:
        """The member's next message is a snapshot (it entered, came back or asked to resync)."""
        self._sent.pop(member, None)
        self._names.pop(member, None)

    def update(
        self, member: Member, views: RoomViews, patches: Patches | None = None, answering: m.ClientId = None
    ) -> Outgoing | None:
        """What ``member`` needs to see ``views`` (``None``: nothing changed for it). Members
        whose patch is the same get the same ``Outgoing``, kept in ``patches``; a snapshot carries
        ``answering``, the id of the ``resync`` it answers."""
        name = member.name
        before = self._sent.get(member)
        self._sent[member] = views
        if before is None:
            self._names[member] = name
            return Outgoing(m.Snapshot(id=answering, room=self._room, view=views.view(name)))
        before_name = self._names[member]
        if before_name == name:
            parts = views.change_parts(before, name)
        else:  # renamed: "you" changed too
            self._names[member] = name
            whole = diff(before.view(before_name), views.view(name))
            parts = [whole] if whole else []
        if not parts:
            return None
        if patches is None:
            patches = Patches()
        key = tuple([id(part) for part in parts])  # (compiled, a map() goes through its iterator)
        known = patches.made.get(key)
        if known is not None:
            return known[1]
        ops = parts[0] if len(parts) == 1 else [op for part in parts for op in part]
        text = ",".join([patches.text(part) for part in parts])
        patch = Outgoing.patch(self._room, ops, views, text)
        patches.made[key] = (parts, patch)
        return patch

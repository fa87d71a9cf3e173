"""What each member of a room was last sent, and the patches that bring it up to date."""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import messages as m
from protocol.diff import diff
from protocol.outgoing import Outgoing
from protocol.view import RoomViews

if TYPE_CHECKING:
    from server.room.world import Member


class Publisher:
    """Per member: the room's views it was last sent, and its name then.

    A member not known here gets a snapshot; a known one a patch of what changed in its own view
    (none when nothing did). What members see alike is diffed once, and a patch several members
    get (the same operation objects) is serialised once.
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
        self,
        member: Member,
        views: RoomViews,
        patches: dict[tuple[int, ...], Outgoing] | None = None,
    ) -> Outgoing | None:
        """What ``member`` needs to see ``views`` (``None``: nothing changed for it). Members
        whose patch is the same get the same ``Outgoing``, kept in ``patches``."""
        name = member.name
        before = self._sent.get(member)
        self._sent[member] = views
        if before is None:
            self._names[member] = name
            return Outgoing(m.Snapshot(room=self._room, view=views.view(name)))
        before_name = self._names[member]
        if before_name == name:
            ops = views.changes(before, name)
        else:  # renamed: "you" changed too
            self._names[member] = name
            ops = diff(before.view(before_name), views.view(name))
        if not ops:
            return None
        if patches is None:
            return Outgoing.patch(self._room, ops, views)
        key = tuple(map(id, ops))
        patch = patches.get(key)
        if patch is None:
            patch = patches[key] = Outgoing.patch(self._room, ops, views)
        return patch

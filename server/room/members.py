"""Who is in a room, what each member was last sent, and the effects gathered for them.

A part of the room core (:mod:`server.room.core`) that the other parts tell through: while the
core handles one item, ``now`` is its time and ``out`` holds the effects it makes, in order, which
the core hands to its actor. Nothing here sends: a :class:`~server.room.effects.Send` names the
recipients.

>>> from protocol import messages as m
>>> members = Members("cafe")
>>> members.broadcast(m.Notice(room="cafe", text="hello"))  # nobody here: nothing to send
>>> members.out
[]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from protocol import messages as m
from protocol.errors import UNAVAILABLE
from protocol.outgoing import Outgoing
from protocol.view import RoomViews
from server.room.effects import Effect, Note, Reply, Send
from server.room.publish import Patches, Publisher
from server.room.world import Member


class Members:
    """The members of room ``room`` (spectators and players, in the order they came) and the
    effects gathered for them while an item is handled."""

    def __init__(self, room: str) -> None:
        self.room = room
        #: the members, in the order they entered (a dict: ordered, and a member found at once)
        self.present: dict[Member, None] = {}
        #: the time of the item being handled (the core's clock), and the effects it makes (the
        #: core gives each item a new list)
        self.now = 0.0
        self.out: list[Effect] = []
        self._publisher = Publisher(room)
        #: when the last member left (the item's time), while nobody is here; ``None`` while
        #: someone is, and in a room that nobody entered since it stood
        self.empty_since: float | None = None

    def __contains__(self, member: Member) -> bool:
        return member in self.present

    def __iter__(self) -> Iterator[Member]:
        return iter(self.present)

    def __len__(self) -> int:
        return len(self.present)

    def __bool__(self) -> bool:
        return bool(self.present)

    def add(self, member: Member) -> None:
        """``member`` is in the room (still where it was if it was already)."""
        self.present.setdefault(member)
        self.empty_since = None

    def remove(self, member: Member) -> None:
        """``member`` left: it is sent nothing more."""
        del self.present[member]
        if not self.present:
            self.empty_since = self.now
        self.forget(member)  # pragma: no mutate - memory only: nobody gone is published to

    def forget(self, member: Member) -> None:
        """``member``'s next view is a snapshot (it entered, came back or asked to resync)."""
        self._publisher.forget(member)

    # --- telling -----------------------------------------------------------------------------

    def broadcast(self, message: m._ServerMessage | Outgoing, exclude: Member | None = None) -> None:
        """``message`` to every member (but ``exclude``)."""
        out = message if isinstance(message, Outgoing) else Outgoing(message)
        members = self.present
        recipients = (
            tuple(members)  # pragma: no mutate - a shortcut: with nobody left out, the filter keeps all
            if exclude is None
            else tuple(s for s in members if s is not exclude)
        )
        if recipients:
            self.out.append(Send(recipients, out))

    def send(self, member: Member, message: m._ServerMessage) -> None:
        """``message`` to ``member`` alone."""
        self.out.append(Send((member,), Outgoing(message)))

    def ack(self, member: Member, msg_id: m.ClientId) -> None:
        """Tell ``member`` its message ``msg_id`` was done."""
        self.out.append(Send((member,), Outgoing.ack(msg_id)))

    def refuse(self, member: Member, code: str, text: str, msg_id: m.ClientId) -> None:
        """Tell ``member`` alone why its message ``msg_id`` changed nothing."""
        self.out.append(Reply(member, code, text, msg_id))

    def unavailable(self, member: Member, msg_id: m.ClientId) -> Callable[[], None]:
        """What follows when the log refuses what ``member`` asked for: ``unavailable``."""

        def refused() -> None:
            self.refuse(member, "unavailable", UNAVAILABLE, msg_id)

        return refused

    def note(self, event: str, **fields: Any) -> None:
        """A line of the room's log (for operators: nobody is sent it)."""
        self.out.append(Note(event, fields))

    # --- views -------------------------------------------------------------------------------

    def publish(self, views: RoomViews) -> None:
        """Send every member what changed in its own view of ``views``."""
        patches = Patches()
        update = self._publisher.update
        # one effect for each patch, however many members get it (each member gets one message)
        recipients: dict[Outgoing, list[Member]] = {}
        for member in self.present:
            out = update(member, views, patches)
            if out is not None:
                same = recipients.get(out)
                if same is None:
                    recipients[out] = [member]
                else:
                    same.append(member)
        self.out.extend([Send(tuple(members), out) for out, members in recipients.items()])

    def publish_to(self, member: Member, views: RoomViews, answering: m.ClientId = None) -> None:
        """Send ``member`` alone what changed in its view of ``views`` (a snapshot when new, with
        ``answering`` as its ``id``)."""
        out = self._publisher.update(member, views, answering=answering)
        if out is not None:
            self.out.append(Send((member,), out))


__all__ = ["Members"]

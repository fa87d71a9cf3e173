"""The guest lists of this process's private rooms: who may enter a private room besides the players
of its game (the identities invited, or in it when it became private), until the room closes."""

from __future__ import annotations

from server.room import Room


class GuestLists:
    """Each room's guest list, by casefolded room name."""

    def __init__(self) -> None:
        self._guests: dict[str, set[str]] = {}

    def invite(self, room: str, identity: str) -> None:
        """The player ``identity`` is on ``room``'s guest list."""
        self._guests.setdefault(room.casefold(), set()).add(identity)

    def is_guest(self, room: str, identity: str | None) -> bool:
        """Whether ``identity`` is on ``room``'s guest list."""
        return identity is not None and identity in self._guests.get(room.casefold(), ())

    def follow(self, old: str, new: str) -> None:
        """The player ``old`` is ``new`` from now on: their invitations go with them."""
        for guests in self._guests.values():
            if old in guests:
                guests.discard(old)
                guests.add(new)

    def became_private(self, room: Room) -> None:
        """Everyone in ``room`` when it became private is its guest from now on."""
        guests = self._guests.setdefault(room.name.casefold(), set())
        guests.update(member.identity for member in room.members if member.identity is not None)

    def closed(self, room: Room) -> None:
        """``room`` went: its invitations end with it."""
        self._guests.pop(room.name.casefold(), None)

"""What a private room keeps to itself, decided in one place.

* Who may enter it (the directory asks): its guests (invited by someone in it, or in it when it
  became private) and its game's players; anyone else is refused with ``not_invited``.
* Its name: ``/who``, ``/whereis``, ``/friends`` and profiles show its members as "in a private
  room" (``"room": null, "private": true``) to everyone outside it (:func:`seen_from`).
* Its games: the record and replay of a game whose room was private at any moment while it ran
  are readable by the game's players alone (``StoredGame.readable_by``); to anyone else it does
  not exist.

Over HTTP the reader is whoever the resume token in ``Authorization: Bearer TOKEN`` names
(:func:`reader`); without one, nobody in particular.

>>> from protocol.messages import Person
>>> anna = Person(name="anna", kind="person", room="geheim", private=True)
>>> [p.room for p in seen_from([anna], "lobby-or-elsewhere")], [p.room for p in seen_from([anna], "GEHEIM")]
([None], ['geheim'])
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from protocol import messages as m
from server.log.contract import GameLog
from server.session import Session

#: how a room's door answers someone: on its guest list (or a player), a room open to all, or shut
Admission = Literal["guest", "open", "closed"]


def here(session: Session) -> str | None:
    """The name of the room ``session`` is in (``None`` in the lobby)."""
    return None if session.room is None else session.room.name


def seen_from(people: list[m.Person], room: str | None) -> list[m.Person]:
    """``people`` as someone in ``room`` (``None``: in the lobby, or not connected) may see them:
    the name of a private room only for its own members."""
    from_room = None if room is None else room.casefold()
    return [
        p.model_copy(update={"room": None}) if p.private and (p.room or "").casefold() != from_room else p
        for p in people
    ]


@dataclass(frozen=True, slots=True)
class Reader:
    """Who asks over HTTP: the name and the player a valid resume token names."""

    name: str
    identity: str


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header.

    >>> bearer("Bearer 0123abcd"), bearer("bearer  x "), bearer("Basic abc"), bearer(None)
    ('0123abcd', 'x', None, None)
    """
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


async def reader(store: GameLog, authorization: str | None) -> Reader | None:
    """The reader a request's resume token names, while the token holds (its connection is open,
    or its resume window has not passed); ``None`` for no token, or one that does not hold."""
    token = bearer(authorization)
    if token is None or len(token) > 64:
        return None
    info = await store.token(token)
    if info is None or (info.expires is not None and info.expires < time.time()):
        return None
    return Reader(info.name, info.identity)


__all__ = ["Admission", "Reader", "bearer", "here", "reader", "seen_from"]

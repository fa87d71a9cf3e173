"""Private rooms across the nodes: which rooms are private and their guest lists, in Redis for
every node; who may enter a room wherever it lives; a refusal taken back to the refused one's node.

The rules are :mod:`server.directory.privacy`'s; this is where a cluster keeps what they read. The owner of a
room writes its privacy and its guests (in the background, in order with the room's line: see
:meth:`SharedPrivacy.write`); every node reads them. Redis' errors reach the caller as they are
(the directory says they mean the shared data is unavailable).
"""

from __future__ import annotations

from collections.abc import Callable

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

from server.cluster import envelopes as env
from server.cluster.relay import Relay, RemoteSession
from server.directory.privacy import Admission
from server.directory.rooms import LocalRooms
from server.log.redis.keys import PREFIX
from server.log.redis.store import RedisStore
from server.room import Room
from server.room.world import Member
from server.session import RoomRef, Session

PRIVATE = PREFIX + "private"  # the rooms that are private, by casefolded name
#: seconds a room's guest list outlives its last change, should its owner never close it
GUESTS_TTL = 7 * 24 * 3600

#: what the owner of a room writes when its privacy changes: room (casefolded), private, guests
Change = tuple[str, bool, list[str]]


#: ``old`` on the guest list at KEYS[1] is ``new`` from now on, at once: a list closed meanwhile is
#: not made again (without its expiry)
_FOLLOW = """
if redis.call('SREM', KEYS[1], ARGV[1]) == 1 then redis.call('SADD', KEYS[1], ARGV[2]) end
return 0
"""


def guests_key(room: str) -> str:
    """A room's guest list: the identities invited, or in it when it became private."""
    return f"{PREFIX}guests:{room.casefold()}"


class SharedPrivacy:
    """A node's part in private rooms: its own rooms say whether they are private and who sits in
    them; of the rooms of other nodes it reads what their owners wrote."""

    def __init__(
        self,
        redis: aioredis.Redis,
        store: RedisStore,
        local: LocalRooms,
        relay: Relay,
        moved: Callable[[Session], None],
    ) -> None:
        self.redis = redis
        self.store = store
        self.local = local
        self.relay = relay
        #: tell the cluster where a session of this node is now
        self.moved = moved

    async def invite(self, room: str, identity: str) -> None:
        """The player ``identity`` is on ``room``'s guest list, on every node."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.sadd(guests_key(room), identity)
            pipe.expire(guests_key(room), GUESTS_TTL)
            await pipe.execute()

    async def follow(self, old: str, new: str) -> None:
        """The player ``old`` is ``new`` from now on: their invitations go with them, on every
        node (a rare change: every guest list is looked at)."""
        async for key in self.redis.scan_iter(match=guests_key("*"), count=500):
            await self.redis.eval(_FOLLOW, 1, key, old, new)

    async def admission(self, room: RoomRef, session: Session) -> Admission:
        """Whether ``session`` may enter ``room``, owned here or elsewhere."""
        if await self._is_guest(room.name, session.identity) or await self._holds_seat(room, session.name):
            return "guest"
        return "closed" if await self._is_private(room) else "open"

    async def _is_guest(self, room: str, identity: str | None) -> bool:
        if identity is None:
            return False
        return bool(await self.redis.sismember(guests_key(room), identity))

    async def _holds_seat(self, room: RoomRef, name: str | None) -> bool:
        if name is None:
            return False
        if isinstance(room, Room):
            return self.local.holds_seat(room, name)
        return await self.store.seat_room(name) == room.name.casefold()

    async def _is_private(self, room: RoomRef) -> bool:
        if isinstance(room, Room):
            return room.options.private  # owned here: the room itself says
        return bool(await self.redis.sismember(PRIVATE, room.name.casefold()))

    async def private_rooms(self) -> set[str]:
        """The private rooms of every node, by casefolded name."""
        listed = set(map(str, await self.redis.smembers(PRIVATE)))
        here = self.local.private()  # the rooms of this node say it themselves
        return {key for key in listed if key not in self.local.rooms} | here

    @staticmethod
    def change(room: Room, private: bool) -> Change:
        """What to write for ``room``, owned here, that became private (its members are its guests
        from now on) or public again."""
        members = room.members if private else ()
        guests = [member.identity for member in members if member.identity is not None]
        return room.name.casefold(), private, guests

    async def write(self, change: Change) -> None:
        """Write a :meth:`change` for every node."""
        key, private, guests = change
        async with self.redis.pipeline(transaction=True) as pipe:
            if private:
                pipe.sadd(PRIVATE, key)
            else:
                pipe.srem(PRIVATE, key)
            if guests:
                pipe.sadd(guests_key(key), *guests)
                pipe.expire(guests_key(key), GUESTS_TTL)
            await pipe.execute()

    @staticmethod
    def forget(pipe: Pipeline, key: str) -> None:
        """In ``pipe`` (a Redis pipeline): the room ``key`` (casefolded) is not private and has no
        guests, as a room that closed or a new one of the same name."""
        pipe.srem(PRIVATE, key)
        pipe.delete(guests_key(key))

    def refused_entry(self, room: Room, member: Member) -> None:
        """``room``, owned here, refused ``member``: it is in no room, on the node it is connected to."""
        if not isinstance(member, RemoteSession):
            if isinstance(member, Session) and member.room is room:  # (connected here)
                member.room = None
                self.moved(member)
            return
        self.relay.remote.pop((member.node, member.sid), None)
        member.room = None
        self.relay.publish(member.node, env.dump(env.TurnedAway(sid=member.sid, room=room.name)))

    def turned_away_here(self, sid: str, room: str) -> None:
        """This node's connection ``sid`` was refused by ``room``, owned elsewhere: it is in no room."""
        session = self.relay.local.get(sid)
        current = None if session is None else session.room
        if session is not None and current is not None and current.name.casefold() == room.casefold():
            session.room = None
            self.moved(session)

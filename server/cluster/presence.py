"""This node's people and names in Redis: who is connected here (the node's online list), the
names it holds (its connections, names held for the resume window, its running games' seats),
claiming a name against every living node, and the heartbeat that keeps all of it and the node
itself alive."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import redis.asyncio as aioredis

from protocol import messages as m
from protocol.names import alike
from server.cluster.leases import RELEASE
from server.cluster.timings import ClusterTimings
from server.directory.names import Held, Names, NameTable, own_alike, strongest
from server.directory.rooms import LocalRooms
from server.log.redis.keys import PREFIX, SEATS
from server.log.redis.store import RedisStore
from server.peers import address_key
from server.ratings import is_guest
from server.session import Session

NODES = PREFIX + "nodes"  # every node that ever listed people (its online hash says if it lives)
#: heartbeats from one writing of a node's whole lists (its people, the names it holds, the names'
#: keys) to the next, when nothing asks for one sooner: one person's line is written when it
#: changes, so the heartbeats between only say that the node and its lists live. The names' keys
#: last ``name_ttl``, 30 heartbeats
WHOLE_EVERY = 10


def node_key(node: str) -> str:
    """The key that says ``node`` lives: set at its every heartbeat, it expires with the node."""
    return f"{PREFIX}node:{node}"


def name_key(name: str) -> str:
    """Who holds ``name`` or a name like it (its look-alike form): the node it is connected to, or
    whose running game holds a seat for it. The node's list of people says which name it is."""
    return f"{PREFIX}name:{alike(name)}"


def _token_key(token: str) -> str:
    """The key of a resume token in Redis (as :class:`~server.log.redis.store.RedisStore` keeps it)."""
    return f"{PREFIX}token:{token}"


def online_key(node: str) -> str:
    """A node's people: name (casefolded) -> {"name","kind","room"}; it expires with the node."""
    return f"{PREFIX}online:{node}"


def held_key(node: str) -> str:
    """Every name a node holds, by look-alike form: form -> name, for its connections, the names
    it holds for the resume window and its running games' seats; it expires with the node."""
    return f"{PREFIX}held:{node}"


def entry(session: Session) -> dict[str, Any]:
    """What the cluster knows of a session connected to this node: its line in the online list."""
    room = session.room.name if session.room is not None else None
    return {
        "name": session.name,
        "kind": session.kind,
        "room": room,
        "guest": is_guest(session.kind, session.identity),
        # (a guest's ban or kick by the staff holds for its address: the staff's node asks)
        "address": address_key(session.peer) if not session.registered else None,
        "seeking": session.seeking,
    }


def people_of(entries: list[dict[str, Any]], private: set[str]) -> list[m.Person]:
    """The people of the nodes' online lists, by name; ``private`` names the private rooms."""
    return sorted(
        (
            m.Person(
                name=e["name"],
                kind=e["kind"],
                room=e["room"],
                guest=e.get("guest", True),
                private=e["room"] is not None and e["room"].casefold() in private,
                seeking=e.get("seeking", False),
            )
            for e in entries
        ),
        key=lambda p: p.name.casefold(),
    )


#: the names' keys at a heartbeat: the first ``ARGV[3]`` keys (this node's connections) are this
#: node's (``ARGV[1]``) for ``ARGV[2]`` ms more; each later one, a name a seat here holds, is taken
#: when nobody holds it, kept when this node does (its player is connected to no node), and left
#: to the node its player is connected to
_KEEP = """
local connected = tonumber(ARGV[3])
for i, key in ipairs(KEYS) do
    if i <= connected then
        redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    else
        local holder = redis.call('GET', key)
        if not holder then redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
        elseif holder == ARGV[1] then redis.call('PEXPIRE', key, ARGV[2]) end
    end
end
return #KEYS
"""


#: seconds a claim of a name here waits for its connection to be named by it: a second claim of
#: the form meanwhile is refused (a welcome that never comes lets it go after them)
CLAIM_WITHIN = 10.0


class Presence:
    """This node's people and names as the cluster sees them.

    It shares the node's :class:`~server.directory.names.Names` (its connections and the names held
    for the resume window) and :class:`~server.directory.rooms.LocalRooms` (whose seats hold names).
    """

    def __init__(
        self,
        redis: aioredis.Redis,
        node: str,
        timings: ClusterTimings,
        store: RedisStore,
        names: Names,
        local: LocalRooms,
    ) -> None:
        self.redis = redis
        self.node = node
        self.timings = timings
        self.store = store
        self.names = names
        self.local = local
        self._release = redis.register_script(RELEASE)
        self._keep = redis.register_script(_KEEP)
        #: the names this node kept for its seats at its last heartbeat (or since), by casefolded name
        self._holding: dict[str, str] = {}
        self._last_ok: float | None = None  # loop time of the last heartbeat Redis took
        #: heartbeats until the whole lists are written again (0: at the next one)
        self._whole_in = 0
        self._reached_since = 0.0  # loop time since which every heartbeat was taken
        #: held by a heartbeat from its reading of this node's people until Redis took its lists,
        #: and by each write of one person's line: neither undoes what the other wrote after it
        #: read (a seek, a departure written while a heartbeat was on its way stays written)
        self._writing = asyncio.Lock()
        #: the names this node let a connection claim that is not named yet (its welcome is on
        #: its way), by look-alike form: the casefolded name and when (loop time). A second claim
        #: of the form here meanwhile is refused, as one through another node is by Redis
        self._claimed: dict[str, tuple[str, float]] = {}

    def reaching(self) -> bool:
        """This node's last heartbeat is recent: it reaches Redis."""
        if self._last_ok is None:
            return False
        return asyncio.get_running_loop().time() - self._last_ok < self.timings.ready_within

    def judges_deaths(self) -> bool:
        """Whether this node has reached Redis long enough to tell a dead node from one whose
        heartbeat lapsed while Redis was away (its first one since may still be on its way)."""
        if self._last_ok is None:
            return False
        return self._last_ok - self._reached_since > self.timings.node_ttl + self.timings.renew_every

    # --- names --------------------------------------------------------------------------------------

    def name_in_use(self, name: str) -> bool:
        """Someone here holds ``name`` or one like it: a connection, a name held for the window,
        a bot, or a held seat."""
        return self.name_held(name) is not None

    def name_held(self, name: str, own: str | None = None) -> Held | None:
        """Whether someone on this node holds ``name`` or a look-alike (see
        :meth:`server.directory.local.LocalDirectory.name_held`)."""
        own = own_alike(name, own)
        return strongest((self.names.held(name, own), self.local.name_held(name, own)))

    async def claim_name(self, name: str, own: str | None = None) -> Held | None:
        """Claim ``name`` for a session of this node, unless it or a look-alike belongs to
        someone else anywhere: what each living node holds (by form), a seat of a running game,
        and one key for all the names of a look-alike form, taken atomically by a new name. A
        look-alike proved to be the claimant's (``own``) takes the key from whoever kept it."""
        own = own_alike(name, own)
        await self._end_holds_let_go(name)
        held = self.name_held(name, own) or self._claiming(name, own)
        if held is not None:
            return held
        if own is not None:  # (a name shown to be the claimant's: nobody else's claim waits on it)
            return await self._claim(name, own)
        form, loop = alike(name), asyncio.get_running_loop()
        self._claimed[form] = (name.casefold(), loop.time())  # (until bound, or given up)
        try:
            held = await self._claim(name, own)
        except BaseException:
            self._claimed.pop(form, None)
            raise
        if held is not None:
            self._claimed.pop(form, None)
        return held

    def _claiming(self, name: str, own: str | None) -> Held | None:
        """Whether a claim of ``name``'s form here is on its way to a welcome (``own``, a name
        proved to be the claimant's, aside)."""
        form = alike(name)
        found = self._claimed.get(form)
        if found is None:
            return None
        claimed, since = found
        if asyncio.get_running_loop().time() - since > CLAIM_WITHIN:
            del self._claimed[form]  # (a welcome that never came: the claim lapses)
            return None
        if own is not None and alike(own) == form:
            return None
        return "taken" if claimed == name.casefold() else "alike"

    def claimed(self, name: str) -> None:
        """The claim of ``name`` here is done: a connection is named by it now, or the hello that
        claimed it came to nothing."""
        found = self._claimed.get(alike(name))
        if found is not None and found[0] == name.casefold():
            del self._claimed[alike(name)]

    async def _claim(self, name: str, own: str | None) -> Held | None:
        ttl = self.timings.name_ttl_ms
        held = await self._held_elsewhere(name, own)
        if held is not None:
            return held
        if own is not None or await self.redis.set(name_key(name), self.node, nx=True, px=ttl):
            await self._take(name)
            return None
        found = await self.redis.get(name_key(name))
        if found is None or str(found) == self.node:  # (nothing here holds it: name_held said so)
            await self._take(name)
            return None
        return "alike"  # claimed through another node a moment ago, or kept by a node just gone

    async def _take(self, name: str) -> None:
        """Hold ``name``'s form for this node, and say so in this node's held names at once (not at
        the next write of the online list), so that no other node lets a look-alike in meanwhile."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(name_key(name), self.node, px=self.timings.name_ttl_ms)
            pipe.hset(held_key(self.node), alike(name), name)
            pipe.pexpire(held_key(self.node), self.timings.node_ttl_ms)
            await pipe.execute()

    async def _end_holds_let_go(self, name: str) -> None:
        """The holds here of ``name`` and its look-alikes whose token no longer holds end now:
        their holder came back through another node (or gave the token up there)."""
        for hold in self.names.holds_alike(name):
            if await self.store.token(hold.token) is None:
                self.names.end_hold(hold)

    async def _held_elsewhere(self, name: str, own: str | None) -> Held | None:
        """What the other nodes hold of ``name``'s form (``own`` aside), and the seats of running
        games: ``taken`` for the very name, ``alike`` for a look-alike."""
        nodes = [n for n in sorted(map(str, await self.redis.smembers(NODES))) if n != self.node]
        key, mine = name.casefold(), None if own is None else own.casefold()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hexists(SEATS, key)
            for n in nodes:
                pipe.hget(held_key(n), alike(name))
            seated, *names = await pipe.execute()
        others = [str(n).casefold() for n in names if n is not None and str(n).casefold() != mine]
        if (seated and key != mine) or key in others:
            return "taken"
        return "alike" if others else None

    # --- who is online --------------------------------------------------------------------------------

    async def write_online(self, name: str, line: dict[str, Any] | None) -> None:
        """Write where ``name`` is now in this node's online list (``None``: gone from this node),
        and the names it holds with it (never while a heartbeat is on its way: see ``_writing``)."""
        async with self._writing:
            try:
                await self._write_online(name, line)
            except BaseException:
                self._whole_in = 0  # (the next heartbeat writes the whole lists, this line in them)
                raise

    async def _write_online(self, name: str, line: dict[str, Any] | None) -> None:
        """Write where ``name`` is now in this node's online list (``None``: gone from this node),
        and the names it holds with it."""
        if line is None:
            in_use = self.name_in_use(name)  # (held for the window, or by a seat here)
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hdel(online_key(self.node), name.casefold())
                if not in_use:
                    pipe.hdel(held_key(self.node), alike(name))
                await pipe.execute()
            if self.name_in_use(name):  # (a seat here, or a name like it, holds it still)
                self._holding[name.casefold()] = name  # (let go at a heartbeat once free)
            else:
                await self._release(keys=[name_key(name)], args=[self.node])
        else:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hset(online_key(self.node), name.casefold(), json.dumps(line))
                pipe.pexpire(online_key(self.node), self.timings.node_ttl_ms)  # gone with this node
                pipe.hset(held_key(self.node), alike(name), name)
                pipe.pexpire(held_key(self.node), self.timings.node_ttl_ms)
                await pipe.execute()

    async def online(self) -> list[dict[str, Any]]:
        """The online lists of every living node (each expires with its node's heartbeat)."""
        entries: list[dict[str, Any]] = []
        for node in sorted(map(str, await self.redis.smembers(NODES))):
            entries.extend(json.loads(v) for v in (await self.redis.hgetall(online_key(node))).values())
        return entries

    # --- the heartbeat ----------------------------------------------------------------------------------

    def _seats_held(self) -> list[str]:
        """The names of the players not connected here whose seats this node's running games hold:
        kept from look-alikes on every node (the log's seats keep the very names)."""
        return self.local.seated(lambda name: name.casefold() in self.names.sessions)

    async def _write_whole(self, pipe: Any, sessions: NameTable[Session], held: dict[str, str]) -> None:
        """Write this node's whole lists anew in ``pipe``: its people's lines, the forms of the
        names it holds (its people's and ``held``), and those names' keys."""
        timings = self.timings
        listed = {key: json.dumps(entry(s)) for key, s in list(sessions.items())}
        pipe.delete(online_key(self.node))
        if listed:
            pipe.hset(online_key(self.node), mapping=listed)
            pipe.pexpire(online_key(self.node), timings.node_ttl_ms)
        pipe.delete(held_key(self.node))
        names = [s.name for s in sessions.values() if s.name is not None]
        forms = {alike(name): name for name in [*names, *held.values()]}
        if forms:
            pipe.hset(held_key(self.node), mapping=forms)
        pipe.pexpire(held_key(self.node), timings.node_ttl_ms)
        if names or held:  # (the names' keys in one call of a script)
            keys = [*map(name_key, names), *map(name_key, held.values())]
            args: list[str | int] = [self.node, timings.name_ttl_ms, len(names)]
            await self._keep(keys=keys, args=args, client=pipe)

    def _late(self, now: float) -> bool:
        """Whether a heartbeat at ``now`` comes after a gap (one or more missed or failed)."""
        return self._last_ok is None or now - self._last_ok > 2 * self.timings.renew_every

    async def heartbeat(self) -> None:
        """Say this node lives, every third of a lease: its key, and its lists' time to live. Its
        lists are written anew (what changed while Redis was away, a departure among them, is
        healed) at the first heartbeat, after one that failed or came late, after a line that could
        not be written, when the names its seats hold changed, at once when Redis lost the node's
        key or its list does not count its people, and otherwise every :data:`WHOLE_EVERY`
        heartbeats: the people's lines are written as they change (:meth:`write_online`), and
        writing them all costs a node in proportion to them."""
        loop = asyncio.get_running_loop()
        timings = self.timings
        self._whole_in = 0  # (a heartbeat that failed starts again here)
        while True:
            async with self._writing:  # (what is read here is what Redis takes)
                sessions = self.names.sessions
                people = len(sessions)
                holds = self.names.holds()
                held = {name.casefold(): name for name in [*self._seats_held(), *(h.name for h in holds)]}
                # (the first heartbeat writes the whole lists already: _whole_in is 0)
                whole = self._whole_in <= 0 or self._late(loop.time()) or held != self._holding
                async with self.redis.pipeline(transaction=True) as pipe:
                    # a few commands whatever the number of people: each list in one, the names' keys
                    # in one call of a script (the client's work per command is what a node pays)
                    pipe.set(node_key(self.node), "1", px=timings.node_ttl_ms, get=True)
                    pipe.sadd(NODES, self.node)
                    if whole:
                        await self._write_whole(pipe, sessions, held)
                    else:
                        pipe.pexpire(online_key(self.node), timings.node_ttl_ms)
                        pipe.pexpire(held_key(self.node), timings.node_ttl_ms)
                        pipe.hlen(online_key(self.node))
                    for hold in holds:  # (whether each token still holds: last, read below)
                        pipe.exists(_token_key(hold.token))
                    results = await pipe.execute()
                # the node's key was gone (Redis lost it, or it ran out), or its list does not count
                # its people (a line Redis lost): the whole lists at once
                lost = not whole and (results[0] is None or results[4] != people)
                self._whole_in = WHOLE_EVERY - 1 if whole else 0 if lost else self._whole_in - 1
            # a name held for the window whose token no longer holds: its holder came back through
            # another node, or gave the token up there; the hold ends
            for hold, kept in zip(holds, results[len(results) - len(holds) :], strict=True):
                if not kept:
                    self.names.end_hold(hold)
            # a name kept for a seat that holds it no more (its game ended, its player left it)
            # is free at once, not when its key runs out
            kept, self._holding = self._holding, dict(held)
            for key, name in kept.items():
                if key not in held and not self.name_in_use(name):
                    await self._release(keys=[name_key(name)], args=[self.node])
            now = loop.time()
            if self._late(now):
                self._reached_since = now
            self._last_ok = now
            if not lost:
                await asyncio.sleep(timings.renew_every)

"""This node's part of the cluster: the directory of names and rooms kept in Redis, and taking
over the rooms of a node that died. Its room leases are kept by :mod:`server.cluster.leases`; its
people and names in Redis, and the heartbeat that keeps them, by :mod:`server.cluster.presence`."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from engine.errors import EngineError
from protocol import messages as m
from protocol.errors import UNAVAILABLE
from protocol.outgoing import Outgoing
from server.botpool import BotPool
from server.cluster import envelopes as env
from server.cluster.leases import Leases
from server.cluster.presence import NODES, Presence, entry, held_key, node_key, online_key, people_of
from server.cluster.privacy import SharedPrivacy
from server.cluster.relay import NEWS, Relay, RemoteRoom, RemoteSession
from server.cluster.timings import ClusterTimings
from server.config import Config
from server.directory.names import Held, Names, NameTable
from server.directory.privacy import Admission
from server.directory.roomlist import RoomListWatchers
from server.directory.rooms import LocalRooms
from server.log.contract import StoredGame, StoreUnavailable
from server.log.postgres.records import Records
from server.log.postgres.store import PostgresStore
from server.log.redis.batch import batched
from server.log.redis.keys import PREFIX, RUNNING, lease_key
from server.log.redis.store import RedisStore
from server.metrics import Metrics
from server.room import Enter, Expired, Leave, Returned, Room
from server.room.world import Member
from server.session import RoomRef, Session
from server.tasks import OneAtATime, cancel_and_wait

log = structlog.get_logger("cafe.cluster")

ROOMS = PREFIX + "rooms"  # room (casefolded) -> summary JSON
#: rooms whose game waited with nobody in them and left memory: no node takes them over by itself
IDLE = PREFIX + "idle"


@contextlib.contextmanager
def _reaching_redis() -> Iterator[None]:
    """Redis out of reach, as the lobby hears it: the shared data is unavailable."""
    try:
        yield
    except (RedisError, OSError, TimeoutError) as e:
        raise StoreUnavailable(str(e) or type(e).__name__) from e


#: connections to Redis a node opens at most; a command waits for one when all are busy
REDIS_CONNECTIONS = 256


#: seconds ``start`` waits for this node to listen on its channel
SUBSCRIBE_WITHIN = 10.0

#: seconds a welcome or a who waits at most for this node's writes of who is where to reach Redis
PUBLISHED_WITHIN = 2.0


def connect(url: str) -> aioredis.Redis:
    """A node's client of Redis."""
    # a command on a connection Redis dropped (a restart) is sent again on a fresh one; when
    # every connection of the pool is busy, a command waits for one (redis-py's default pool
    # refuses it with "Too many connections" past 100, which a busy node reached)
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=5,
        decode_responses=True,
        socket_timeout=5,
        socket_connect_timeout=2,
        health_check_interval=5,
        # (only a connection's failure: a command whose answer did not come in time may have been
        # carried out, and Redis that hangs would make each one wait through every retry)
        retry=Retry(ExponentialBackoff(cap=1.0, base=0.1), 3, supported_errors=(RedisConnectionError,)),
        retry_on_error=[RedisConnectionError],
    )
    return aioredis.Redis.from_pool(pool)


class ClusterDirectory:
    """The directory of a node among several sharing one Redis.

    * A room is owned by exactly one node at a time: a lease key holding ``node:epoch`` with a
      short expiry, renewed by the owner; every write to the room's log is fenced by that token.
    * A client may connect to any node. Commands for a room owned elsewhere travel to the owner
      (:class:`~server.cluster.relay.Relay`); the owner's messages, already filtered for their
      recipient, travel back the same way.
    * When an owner dies its leases expire; another node takes the lease, replays the room from
      the log in Redis and carries on. Names, the room list and who is online live in Redis.

    It is made of the parts a single process's directory has (the names held here, the rooms of
    this node, whose owner it is, and the people watching the room list), and Redis around them:
    its :class:`~server.cluster.presence.Presence` (who is here, the names it holds, its heartbeat),
    the :class:`~server.cluster.relay.Relay` and the shared privacy of rooms.
    """

    def __init__(self, config: Config, metrics: Metrics, url: str, node: str) -> None:
        self.redis = connect(url)
        #: what the node sends Redis goes in round trips at most once a window (``--redis-window``)
        batched(self.redis).window = config.redis_window / 1000
        self.node = node
        #: how long this node's leases, heartbeat and names last in Redis (``--lease``)
        self.timings = ClusterTimings.for_lease(config.lease)
        #: the rooms this node owns, and their fencing tokens
        self.leases = Leases(self.redis, node, self.timings)
        self.fences = self.leases.fences
        fence = self.leases.fence
        self.store: RedisStore
        #: the records in PostgreSQL (``--database``), or ``None``: in Redis with the rest
        self.records: PostgresStore | None = None
        if config.database:
            self.store = self.records = PostgresStore(
                self.redis, fence, Records(config.database), config.redis_durability
            )
        else:
            self.store = RedisStore(self.redis, fence, config.redis_durability)
        self.names = Names()
        self.local = LocalRooms(
            config, self.store, metrics, owner=self, taken=self.name_in_use, keeps_unloaded=False
        )
        self.watchers = RoomListWatchers(self.room_list)
        self.relay = Relay(self.redis, node, self.rooms)
        self.relay.on_rooms_changed = self.watchers.reread
        #: private rooms: which are, their guests, and refusals taken to the refused one's node
        self.privacy = SharedPrivacy(self.redis, self.store, self.local, self.relay, self.moved)
        self.relay.on_turned_away = self.privacy.turned_away_here
        self.relay.on_stayed = self.moved
        #: who is here and the names this node holds, in Redis, and its heartbeat
        self.presence = Presence(self.redis, node, self.timings, self.store, self.names, self.local)
        self._writes: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        #: set once this node listens on its channel (``start`` waits for it)
        self._subscribed = asyncio.Event()
        self._resolving = OneAtATime()
        #: the rooms whose game no longer replays, by casefolded name: left idle (``_unrestorable``)
        self.unrestorable: set[str] = set()
        #: when the games of the idle rooms began, once ``expire`` read them
        self._idle_started: dict[str, float] = {}
        self._listed: dict[str, tuple[Any, ...]] = {}  # room (casefolded) -> its line last listed
        self.stopping = False

    @property
    def log(self) -> RedisStore:
        """The game log, in Redis."""
        return self.store

    @property
    def rooms(self) -> dict[str, Room]:
        """The room actors of this node, by casefolded name."""
        return self.local.rooms

    @property
    def bots(self) -> BotPool:
        """Where the server's bots think."""
        return self.local.bots

    @property
    def sessions(self) -> NameTable[Session]:
        """This node's connections, by casefolded name."""
        return self.names.sessions

    @property
    def on_game_start(self) -> Callable[[str | None, list[str]], None]:
        """Called with a room's name (``None`` for a private room) and players when its game starts."""
        return self.local.on_game_start

    @on_game_start.setter
    def on_game_start(self, call: Callable[[str | None, list[str]], None]) -> None:
        self.local.on_game_start = call

    async def restore(self, games: list[StoredGame]) -> None:
        """Bring back unfinished games (a node takes them up as their leases say: see ``start``)."""
        await self.local.restore(games)

    @property
    def ready(self) -> bool:
        """This node reaches Redis (its last heartbeat is recent) and is not stopping."""
        return not self.stopping and self.presence.reaching()

    # --- life ------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Join the cluster; raises ``NotDurable`` when Redis cannot keep the durability asked for."""
        await self.store.check()
        if self.records is not None:
            log.info("records_opening", node=self.node, database=self.records.records.where)
            await self.records.open()
        else:
            log.warning(
                "records_in_redis",
                node=self.node,
                cost="without --database, accounts, ratings, lists and every finished game stay in"
                " Redis' memory for ever (about 4 KB a game), and a Redis machine lost between two"
                " appendfsync syncs loses the latest of them",
            )
        await self.store.index_forms()
        await self.redis.set(node_key(self.node), "1", px=self.timings.node_ttl_ms)
        loop = asyncio.get_running_loop()
        jobs: tuple[Callable[[], Coroutine[Any, Any, None]], ...] = (
            self._listen, self._write_loop, self._heartbeat, self._watch,
        )  # fmt: skip
        if self.records is not None:  # finished games whose records wait: written when they can be
            jobs += (self.records.archive_waiting,)
        for job in jobs:
            self._tasks.append(loop.create_task(self._forever(job), name=f"cluster:{job.__name__}"))
        # what another node publishes to this one before it listens is lost: the node is ready
        # (and says it listens) once it is subscribed; should Redis go away meanwhile, the listener
        # goes on trying, and the node starts without waiting longer
        try:
            async with asyncio.timeout(SUBSCRIBE_WITHIN):
                await self._subscribed.wait()
        except TimeoutError:
            log.warning("not_subscribed_yet", node=self.node, waited=SUBSCRIBE_WITHIN)

    async def stop(self) -> None:
        self.stopping = True
        await cancel_and_wait(*self._tasks, within=3)
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            # hand the rooms on at once rather than when their leases run out
            async with asyncio.timeout(3):
                await self.leases.release_all()
                await self.redis.delete(node_key(self.node), online_key(self.node), held_key(self.node))
        if self.records is not None:
            await self.records.aclose()
        await self.redis.aclose()

    async def _forever(self, job: Any) -> None:
        """Run a loop; when Redis goes away, wait and start it again."""
        while True:
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, TimeoutError, StoreUnavailable) as e:
                log.warning("redis_unavailable", node=self.node, job=job.__name__, error=str(e))
            except Exception:
                log.exception("cluster_job_failed", node=self.node, job=job.__name__)
            await asyncio.sleep(0.5)

    async def _listen(self) -> None:
        await self.relay.listen(self._subscribed.set)

    # --- rooms: leases, owners, takeover -------------------------------------------------------------

    async def make_way(self) -> bool:
        return await self.local.make_way()

    async def resolve(self, name: str) -> Room | RemoteRoom:
        """The room called ``name``: owned here (taking the lease if nobody holds it) or elsewhere."""
        with _reaching_redis():
            return await self._resolve(name)

    async def _resolve(self, name: str) -> Room | RemoteRoom:
        key = name.casefold()
        async with self._resolving.hold(key):
            room = self.rooms.get(key)
            if room is not None:
                return room
            for _ in range(20):
                holder = await self.leases.holder(key)
                if holder is not None and holder.rsplit(":", 1)[0] != self.node:
                    return RemoteRoom(self.relay, name, holder)
                if holder is not None:  # a lease of this node's earlier life: let it go
                    await self.leases.release(key, holder)
                taken = await self._acquire(name)
                if taken is not None:
                    return taken
            raise StoreUnavailable(f"could not settle the owner of room {name}")

    async def _acquire(self, name: str) -> Room | None:
        key = name.casefold()
        # another node forwards to the room as soon as it sees the lease, which may be before this
        # node has read Redis' answer: what comes for the room meanwhile waits for it
        self.relay.expect(key)
        try:
            if not await self.leases.take(key):
                return None
            await self.redis.srem(IDLE, key)  # someone came for it: it is taken up again
            stored = await self.store.running_game(key)
            if stored is None:  # a new room: a room of that name that died leaves it nothing
                async with self.redis.pipeline(transaction=True) as pipe:
                    self.privacy.forget(pipe, key)
                    await pipe.execute()
            room = self.local.create_room(stored.room if stored else name)
            if stored is not None:
                self.store.adopt(stored.game_id, stored.room, stored.record, stored.kinds)
                try:
                    await room.restore(stored)
                except EngineError as e:
                    await self._unrestorable(key, room, stored, e)
                    raise StoreUnavailable(f"the game of room {stored.room} no longer replays") from e
            self.unrestorable.discard(key)  # (its log mended, or a new game: taken up as any other)
        finally:
            self.relay.arrived(key)
        log.info("room_owned", node=self.node, room=room.name, restored=stored is not None)
        return room

    async def _unrestorable(self, key: str, room: Room, stored: StoredGame, error: EngineError) -> None:
        """The game of room ``key`` no longer replays by the rules (a log edited by hand): it stays
        in Redis as it is, logged (``cafe-admin check`` names it), among the idle rooms, so that no
        node takes it over again by itself; the room made for it goes."""
        log.error("game_unrestorable", game=stored.game_id, room=stored.room, error=str(error))
        self.unrestorable.add(key)
        del self.local.rooms[key]
        room.abandon()
        await self.redis.sadd(IDLE, key)
        token = self.fences.pop(key, None)
        if token is not None:
            await self.leases.release(key, token)

    async def _watch(self) -> None:
        """Renew leases; take over rooms whose owner died; follow rooms that moved."""
        while True:
            await asyncio.sleep(self.timings.renew_every)
            for key in await self.leases.renew():
                self._lost(key)
            # running games nobody owns (their node died): take one over (every lease read at once)
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.smembers(IDLE)
                pipe.hkeys(PREFIX + "running")
                idle_keys, running = await pipe.execute()
            idle = set(map(str, idle_keys))
            others = [key for key in map(str, running) if key not in self.rooms and key not in idle]
            for key, holder in (await self.leases.holders(others)).items():
                # (a game found not to replay is back among the idle ones by now, or on its way:
                # the read above may have fallen between the two)
                if holder is None and key not in self.rooms and key not in self.unrestorable:
                    with contextlib.suppress(StoreUnavailable):
                        await self._take_over(key)
            # this node's sessions in rooms owned elsewhere: follow a move, re-enter after a death
            remote_rooms = {
                session.room.name.casefold(): session.room
                for session in list(self.relay.local.values())
                if isinstance(session.room, RemoteRoom)
            }
            holders = await self.leases.holders(remote_rooms)
            for session in list(self.relay.local.values()):
                room = session.room
                if (
                    isinstance(room, RemoteRoom)
                    and holders.get(room.name.casefold(), room.lease) != room.lease
                ):
                    await self._take_over(room.name)
            # members from nodes that died: they left (judged only after this node has reached
            # Redis long enough: right after an outage every other node's heartbeat has lapsed)
            if not self.presence.judges_deaths():
                continue
            remote = self.relay.remote
            for node in {n for n, _ in remote}:
                if not await self.redis.exists(node_key(node)):
                    for (n, sid), member in list(remote.items()):
                        if n == node:
                            del remote[(n, sid)]
                            if member.room is not None:
                                member.room.post(member, Leave(disconnected=True))

    async def _take_over(self, name: str) -> None:
        """Resolve ``name`` again and move this node's members of it to wherever it now lives."""
        room: Room | RemoteRoom = await self.resolve(name)
        for session in list(self.relay.local.values()):
            current = session.room
            if current is room or current is None or current.name.casefold() != name.casefold():
                continue
            # asked before the session is moved: should Redis fail the question (just back, still
            # loading its data), the session keeps the room it had, and the watcher tries again
            with _reaching_redis():
                seated = await self.store.seat_room(session.name or "") == name.casefold()
            if session.room is not current:  # (it went elsewhere meanwhile)
                continue
            session.room = room
            self.relay.orphaned(session)
            # (a member: one of its guests; the client asked for nothing)
            item = Returned() if seated else Enter(admitted=True, asked=False)
            if isinstance(room, RemoteRoom):
                self.relay.forward(room, session, item, own=True)
            else:
                room.post(session, item)

    def _lost(self, key: str) -> None:
        """Another node owns this room now: stop it here and send its members after it."""
        self.fences.pop(key, None)
        self._listed.pop(key, None)
        room = self.local.lost(key)
        if room is None:
            return
        log.warning("lease_lost", node=self.node, room=room.name)
        room.abandon()
        # what waited in its inbox is answered: the sender sends it again once the room is found
        for item in room.unhandled():
            msg_id = getattr(item.message, "id", None)
            if item.session is not None and msg_id is not None:
                item.session.send(Outgoing(m.Error(id=msg_id, code="unavailable", message=UNAVAILABLE)))
        for member in list(room.members):
            if isinstance(member, RemoteSession):
                self.relay.remote.pop((member.node, member.sid), None)
            elif isinstance(member, Session):
                member.room = RemoteRoom(self.relay, room.name, "")  # the watcher finds the new owner

    # --- what the rooms tell (their owner) ---------------------------------------------------------

    def room_changed(self, room: Room) -> None:
        """Tell this node's lobby, and publish the room's line in the cluster-wide room list
        (written in the background, and only when it changed: most commands, moves and chat among
        them, leave it as it was)."""
        self.watchers.changed(room)
        key = room.name.casefold()
        if key in self.fences:
            listing = room.core.listing()
            if self._listed.get(key) != listing:
                self._listed[key] = listing
                self._writes.put_nowait(("room", room.summary().model_dump_json()))

    def room_gone(self, room: Room) -> None:
        self.watchers.gone_room(room)
        key = room.name.casefold()
        self._listed.pop(key, None)
        token = self.fences.pop(key, None)
        if room.core.unloaded:  # nobody takes it over until someone comes for it (resolve)
            self._writes.put_nowait(("idle", key))
        self._writes.put_nowait(("drop", (key, token)))

    def lease_lost(self, room: Room) -> None:
        self._lost(room.name.casefold())

    def _rooms_written(self) -> None:
        """A room's line in the cluster's room list is written: this node's lobby and the others'
        read the list again (a lobby told of the change before the write read the line before)."""
        self.watchers.reread()
        self.relay.rooms_changed()

    async def _write_loop(self) -> None:
        while True:
            kind, value = await self._writes.get()
            if kind == "room":
                summary = json.loads(value)
                await self.redis.hset(ROOMS, summary["name"].casefold(), value)
                self._rooms_written()
            elif kind == "idle":
                await self.redis.sadd(IDLE, value)
            elif kind == "drop":
                key, token = value
                async with self.redis.pipeline(transaction=True) as pipe:
                    pipe.hdel(ROOMS, key)
                    self.privacy.forget(pipe, key)  # invitations end with their room
                    await pipe.execute()
                self._rooms_written()
                if token is not None:
                    await self.leases.release(key, token)
            elif kind == "private":
                await self.privacy.write(value)
            elif kind == "online":
                await self.presence.write_online(*value)
            elif kind == "published" and not value.done():  # (every write queued before it is done)
                value.set_result(None)

    async def room_list(self) -> list[m.RoomSummary]:
        with _reaching_redis():
            return await self._room_list()

    async def _room_list(self) -> list[m.RoomSummary]:
        """The rooms of every node whose owner lives, or whose game waits in the log (a line left
        by a node that died is not shown): in two round trips, however many rooms."""
        lines = await self.redis.hgetall(ROOMS)
        keys = [str(key) for key in lines]
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.exists(lease_key(key))
                pipe.hexists(RUNNING, key)
            alive = await pipe.execute()
        found = [
            m.RoomSummary.model_validate_json(value)
            for i, value in enumerate(lines.values())
            if alive[2 * i] or alive[2 * i + 1]
        ]
        return sorted(found, key=lambda r: r.name.casefold())

    async def seat_room(self, name: str) -> RoomRef | None:
        with _reaching_redis():
            room = await self.store.seat_room(name)
        return None if room is None else await self.resolve(room)

    async def back_room(self, name: str) -> RoomRef | None:
        # (a game that ended while its player was away, in a room of this node)
        return await self.seat_room(name) or self.local.ended_away(name)

    async def replaced(self, name: str) -> bool:
        """A connection here took ``name`` back (a resume token, a login): the other nodes close
        theirs of that name, the old one (lost, it stays open until it goes: logged). Whether
        another node listed the name online (Redis out of reach: not known, ``False``)."""
        envelope = env.Replaced.model_validate({"from": self.node, "name": name})
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                nodes = [str(n) for n in await self.redis.smembers(NODES) if str(n) != self.node]
                for node in nodes:
                    pipe.hexists(online_key(node), name.casefold())
                pipe.publish(NEWS, env.dump(envelope))
                *listed, _ = await pipe.execute()
        except (RedisError, OSError, TimeoutError) as e:
            log.warning("replaced_unsent", player=name, error=str(e) or type(e).__name__)
            return False
        return any(listed)

    async def plays_in(self, name: str, room: str) -> bool:
        with _reaching_redis():
            held = await self.store.seat_room(name)
        return held is not None and held.casefold() == room.casefold()

    async def expire(self, before: float) -> int:
        """The games of rooms that left memory (on any node: the cluster's idle rooms) that began
        before ``before``: this node takes each up (its lease: one node ends it) and ends it."""
        ended = 0
        with _reaching_redis():
            idle = set(map(str, await self.redis.smembers(IDLE)))
        for key in sorted(idle - self.unrestorable - set(self.rooms)):
            try:
                started = self._idle_started.get(key)
                if started is None:
                    with _reaching_redis():
                        stored = await self.store.running_game(key)
                        if stored is None:  # (its game ended: nothing waits)
                            await self.redis.srem(IDLE, key)
                            continue
                    started = self._idle_started[key] = stored.started
                if started >= before:
                    continue
                if key in self.rooms or key in self._resolving:  # (someone came for it: theirs)
                    continue
                self._idle_started.pop(key, None)
                room = await self.resolve(key)
            except StoreUnavailable:
                if key in self.unrestorable:
                    continue
                raise
            except Exception:  # (one game's fault keeps no other from ending)
                log.exception("expiry_failed", room=key)
                continue
            if isinstance(room, Room) and room.game is not None:
                room.post(None, Expired())
                ended += 1
        self._idle_started = {k: v for k, v in self._idle_started.items() if k in idle}
        return ended

    # --- private rooms: their guest lists and which they are, in Redis for every node -------------

    async def invite(self, room: str, identity: str) -> None:
        with _reaching_redis():
            await self.privacy.invite(room, identity)

    async def identity_changed(self, old: str, new: str) -> None:
        with _reaching_redis():
            await self.privacy.follow(old, new)

    async def admission(self, room: RoomRef, session: Session) -> Admission:
        with _reaching_redis():
            return await self.privacy.admission(room, session)

    async def private_rooms(self) -> set[str]:
        with _reaching_redis():
            return await self.privacy.private_rooms()

    def privacy_changed(self, room: Room, private: bool) -> None:
        """Tell every node (written in the background, in order with the room's line)."""
        self._writes.put_nowait(("private", self.privacy.change(room, private)))

    def refused_entry(self, room: Room, member: Member) -> None:
        self.privacy.refused_entry(room, member)

    # --- names and who ------------------------------------------------------------------------------

    def session(self, name: str) -> Session | None:
        return self.names.session(name)

    def name_in_use(self, name: str) -> bool:
        """Someone here holds ``name`` or one like it: a connection, a name held for the window,
        a bot, or a held seat."""
        return self.presence.name_in_use(name)

    def name_held(self, name: str, own: str | None = None) -> Held | None:
        """Whether someone on this node holds ``name`` or a look-alike (see
        :meth:`server.directory.local.LocalDirectory.name_held`)."""
        return self.presence.name_held(name, own)

    def away(self, name: str, until: float, token: str) -> None:
        self.names.away(name, until, token)

    def watch_rooms(self, session: Session, answered: list[m.RoomSummary] | None) -> None:
        self.watchers.watch(session, answered)

    def attach(self, session: Session) -> None:
        self.relay.local[session.sid] = session

    def detach(self, session: Session) -> None:
        self.relay.detach(session.sid)

    async def claim_name(self, name: str, own: str | None = None) -> Held | None:
        """Claim ``name`` for a session of this node, unless it or a look-alike belongs to
        someone else anywhere (see :meth:`server.cluster.presence.Presence.claim_name`)."""
        with _reaching_redis():
            return await self.presence.claim_name(name, own)

    def bind(self, session: Session) -> None:
        self.names.bind(session)
        assert session.name is not None
        self.presence.claimed(session.name)
        self.moved(session)

    def unclaim(self, name: str) -> None:
        self.presence.claimed(name)
        # (and what the claim wrote to Redis, the name's key and this node's held names: let go as
        # an unbound name's are, so that a hello through another node finds it free too)
        self._writes.put_nowait(("online", (name, None)))

    def unbind(self, session: Session, name: str) -> None:
        self.names.unbind(session, name)
        self._writes.put_nowait(("online", (name, None)))

    async def published(self) -> None:
        done = asyncio.get_running_loop().create_future()
        self._writes.put_nowait(("published", done))
        # (Redis away or slow: nobody waits for it; a line that could not be written makes the next
        # heartbeat write the whole list)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done, PUBLISHED_WITHIN)

    def moved(self, session: Session) -> None:
        """Tell the cluster where a session is."""
        if session.name is None:
            return
        self._writes.put_nowait(("online", (session.name, entry(session))))

    async def people(self) -> list[m.Person]:
        """Everyone connected to a living node: each node's list expires with its heartbeat.
        What this node changed before the question is in it (its writes are waited for)."""
        await self.published()
        with _reaching_redis():
            entries = await self.presence.online()
        private = await self.private_rooms()
        return people_of(entries, private)

    async def _heartbeat(self) -> None:
        """Say this node lives (see :meth:`server.cluster.presence.Presence.heartbeat`)."""
        await self.presence.heartbeat()

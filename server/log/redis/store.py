"""The game log, resume tokens and history in Redis, for cluster mode.

Every write to a room's game goes through a Lua script (:mod:`~server.log.redis.scripts`) that
first checks the room's lease still holds this node's fencing token: a node that lost its lease
can no longer write the room's log. Redis persists the log (run it with ``appendonly yes``). How
durable an acknowledged move is depends on ``durability``: ``none`` (in Redis' memory; on disk
within Redis' ``appendfsync`` period), ``fsync`` (on Redis' disk: ``appendfsync always``, checked
by :meth:`RedisStore.check`) or ``replica`` (on a replica as well: ``WAIT 1``).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError

from engine import GameRecord, Options, Outcome
from server.log.contract import (
    Account,
    AnalysisTable,
    LeaseLost,
    NotDurable,
    Standing,
    StoredGame,
    StoreUnavailable,
    TokenInfo,
    TournamentTable,
)
from server.log.front import AsyncModeration, ModerationFront
from server.log.redis import scripts
from server.log.redis.accounts import LEADERBOARD, UNRATED, RedisAccounts
from server.log.redis.analyses import RedisAnalyses
from server.log.redis.keys import (
    HISTORY_KEPT,
    PREFIX,
    RUNNING,
    SEATS,
    game_key,
    history_key,
    lease_key,
    moves_key,
)
from server.log.redis.lists import RedisLists
from server.log.redis.moderation import RedisModeration
from server.log.redis.moves import MoveWriter, acknowledged
from server.log.redis.tournaments import RedisTournaments
from server.ratings import RatingChange

log = structlog.get_logger("cafe.redis")

#: seconds a resume token is kept in Redis after it was issued or its connection ended; whether it
#: still holds is decided by its ``expires`` and the seats held (a token of a node that died keeps
#: no connection open, so this bounds it)
TOKEN_TTL = 7 * 24 * 3600
#: a running game's field for an option its room changed while it ran (``option:host``)
OPTION_FIELD = "option:"
#: how long a write waits for a replica (``replica`` durability) before it is not acknowledged
WAIT_MS = 1000


class RedisStore(ModerationFront):
    """The storage contract (:class:`server.log.contract.GameLog`) on Redis: the games and tokens
    here, accounts and ratings in a :class:`~server.log.redis.accounts.RedisAccounts`, lists in a
    :class:`~server.log.redis.lists.RedisLists`, moderation in a
    :class:`~server.log.redis.moderation.RedisModeration` (answered through
    :class:`~server.log.front.ModerationFront`). ``fence(room)`` gives this node's
    fencing token for a room it owns. With ``replica`` durability a write waits ``wait_ms`` for a
    replica to take it."""

    def __init__(
        self,
        client: aioredis.Redis,
        fence: Callable[[str], str | None],
        durability: str = "none",
        wait_ms: int = WAIT_MS,
    ) -> None:
        self.redis = client
        self._accounts = RedisAccounts(client)
        self._lists = RedisLists(client)
        self._moderation = RedisModeration(client)
        self._staff: AsyncModeration = self._moderation
        self.tournaments: TournamentTable = RedisTournaments(client)
        self.analyses: AnalysisTable = RedisAnalyses(client)
        self._fence = fence
        self.durability = durability
        self.wait_ms = wait_ms
        self._game_rooms: dict[str, tuple[str, list[str]]] = {}  # game id -> (room, person names)
        self._started = client.register_script(scripts.GAME_STARTED)
        self._played = client.register_script(scripts.MOVE_PLAYED)
        #: every room's moves, written together (one round trip for those that come meanwhile)
        self._moves = MoveWriter(client, self._played, wait_ms if durability == "replica" else None)
        self._finished = client.register_script(scripts.GAME_FINISHED)
        self._seat = client.register_script(scripts.SEAT_TAKEN)
        self._changed = client.register_script(scripts.DATA_CHANGED)
        self._issue = client.register_script(scripts.TOKEN_ISSUED)
        self._release = client.register_script(scripts.TOKEN_RELEASED)

    def close(self) -> None:
        pass

    async def check(self) -> None:
        """Refuse (:class:`NotDurable`) a Redis that cannot keep what ``fsync`` durability promises;
        under ``replica``, warn (``redis_no_replica``) when no replica follows Redis yet: every
        write then waits its timeout and is not acknowledged, until one does."""
        if self.durability == "replica":
            with contextlib.suppress(RedisError, OSError, TimeoutError):
                replicas = int((await self.redis.info("replication")).get("connected_slaves", 0))
                if replicas == 0:
                    log.warning(
                        "redis_no_replica",
                        cost="--redis-durability replica: no replica follows Redis; until one does,"
                        " every move waits a second and is answered unavailable",
                    )
            return
        if self.durability != "fsync":
            return
        try:
            found = {
                key: str((await self.redis.config_get(key)).get(key, "?"))
                for key in ("appendonly", "appendfsync")
            }
        except RedisError as e:
            raise NotDurable(f"--redis-durability fsync: CONFIG GET failed ({e}); cannot check Redis") from e
        if found != {"appendonly": "yes", "appendfsync": "always"}:
            raise NotDurable(
                "--redis-durability fsync needs Redis with appendonly yes and appendfsync always; it runs"
                f" with appendonly {found['appendonly']} and appendfsync {found['appendfsync']}"
            )

    def _token(self, room: str) -> str:
        token = self._fence(room)
        if token is None:
            raise LeaseLost(room)
        return token

    async def _run(self, script: Any, keys: list[str], args: list[Any]) -> int:
        """A fenced script's answer, a number (see :meth:`_call`)."""
        return int(await self._call(script, keys, args))

    async def _call(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """A fenced script's answer for the room of ``keys[0]`` (its lease), once it may be
        acknowledged (:func:`~server.log.redis.moves.acknowledged`): a number, or a list that
        starts with one."""
        copies = 1
        try:
            if self.durability == "replica":
                # WAIT counts the replicas that have this connection's writes: one pipeline, one
                # connection, for the script and its WAIT
                async with self.redis.pipeline(transaction=False) as pipe:
                    await script(keys=keys, args=args, client=pipe)
                    pipe.wait(1, self.wait_ms)
                    answer, copies = await pipe.execute()
            else:
                answer = await script(keys=keys, args=args)
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        result = int(answer[0] if isinstance(answer, list) else answer)
        acknowledged(keys[0], result, int(copies), self.wait_ms)
        return answer

    # --- writing -----------------------------------------------------------------------------

    def adopt(self, game_id: str, room: str, record: GameRecord, kinds: tuple[str, ...] | list[str]) -> None:
        """Remember a game restored from the log, so its moves can be written."""
        # every seat a connection plays (a client bot says kind "bot") is indexed, so that its
        # player is brought back to the room on any node; only the server's own bots ("bot:NAME") are not
        seats = zip(record.players, kinds, strict=True)
        people = [n.casefold() for n, k in seats if not k.startswith("bot:")]
        self._game_rooms[game_id] = (room, people)

    async def game_started(
        self,
        game_id: str,
        room: str,
        record: GameRecord,
        kinds: list[str],
        room_options: dict[str, Any] | None = None,
        identities: list[str | None] | None = None,
    ) -> None:
        self.adopt(game_id, room, record, kinds)
        who = [i for i in identities or () if i is not None]
        people = self._game_rooms[game_id][1]
        data = {
            "room": room,
            "players": list(record.players),
            "kinds": kinds,
            "seed": record.seed,
            "options": {"stammtisch": record.options.stammtisch},
            "room_options": room_options or {},
            "board": record.board,
            "start_player": record.start_player,
            "started": time.time(),
            "identities": list(identities or [None] * len(record.players)),
        }
        keys = [
            lease_key(room),
            game_key(game_id),
            RUNNING,
            SEATS,
            *(history_key(identity) for identity in who),
        ]
        await self._run(
            self._started, keys, [self._token(room), json.dumps(data), room.casefold(), game_id, *people]
        )

    async def move_played(self, game_id: str, number: int, move: str, auto: str | None = None) -> None:
        room, _ = self._game_rooms[game_id]
        result = await self._moves.write(
            [lease_key(room), moves_key(game_id), game_key(game_id)],
            [self._token(room), number, move, *([] if auto is None else [auto])],
        )
        if result == -2:
            raise LeaseLost(f"{room}: the log holds other moves than this node's")

    async def _game_data(self, game_id: str, key: str) -> tuple[str | bytes, dict[str, Any]]:
        """A running game's data as stored (to compare when writing it back) and as read."""
        try:
            raw = await self.redis.hget(key, "data")
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        if raw is None:
            raise StoreUnavailable(f"{game_id}: no such game in the log")
        return raw, json.loads(raw)

    async def seat_taken(self, game_id: str, seat: int, old: str, name: str, identity: str | None) -> None:
        room, people = self._game_rooms[game_id]
        key = game_key(game_id)
        for _ in range(10):  # the game's data changed between the read and the write: read again
            raw, data = await self._game_data(game_id, key)
            data["players"][seat] = name
            data["identities"][seat] = identity
            if old not in data.setdefault("voted_out", []):  # the old player watches from now on
                data["voted_out"].append(old)
            keys = [lease_key(room), key, SEATS, *([history_key(identity)] if identity else [])]
            args = [
                self._token(room),
                raw,
                json.dumps(data),
                room.casefold(),
                old.casefold(),
                name.casefold(),
            ]
            if await self._run(self._seat, keys, [*args, game_id]) != -3:
                break
        else:
            raise StoreUnavailable(f"{game_id}: the game kept changing")
        people[:] = [name.casefold() if p == old.casefold() else p for p in people]

    async def voted_out(self, game_id: str, name: str) -> None:
        room, _ = self._game_rooms[game_id]
        key = game_key(game_id)
        for _ in range(10):  # the game's data changed between the read and the write: read again
            raw, data = await self._game_data(game_id, key)
            if name not in data.setdefault("voted_out", []):
                data["voted_out"].append(name)
            keys = [lease_key(room), key]
            if await self._run(self._changed, keys, [self._token(room), raw, json.dumps(data)]) != -3:
                return
        raise StoreUnavailable(f"{game_id}: the game kept changing")

    async def game_option(self, game_id: str, key: str, value: bool) -> None:
        # a field of its own beside the game's data, so that no write of the data (a seat taken
        # over) can lose it
        hash_key = game_key(game_id)
        try:
            if not await self.redis.hexists(hash_key, "data"):
                raise StoreUnavailable(f"{game_id}: no such game in the log")
            await self.redis.hset(hash_key, OPTION_FIELD + key, json.dumps(value))
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

    async def game_finished(self, game_id: str, outcome: Outcome) -> list[RatingChange]:
        room, people = self._game_rooms[game_id]
        for _ in range(10):  # another node's game changed a rating read here: read again
            try:
                raw = await self.redis.hget(game_key(game_id), "data")
                data = json.loads(raw) if raw is not None else None
                plan, changes = (
                    (UNRATED, [])
                    if data is None
                    else await self._accounts.rating_plan(game_id, data, outcome)
                )
            except RedisError as e:
                raise StoreUnavailable(str(e)) from e
            keys = [
                lease_key(room),
                game_key(game_id),
                RUNNING,
                SEATS,
                f"{PREFIX}rated:{game_id}",
                LEADERBOARD,
            ]
            args = [
                self._token(room),
                json.dumps(outcome.to_dict()),
                time.time(),
                room.casefold(),
                game_id,
                plan,
            ]
            result = await self._run(self._finished, keys, [*args, *people])
            if result != -3:
                break
        else:
            raise StoreUnavailable(f"{game_id}: ratings kept changing")
        self._game_rooms.pop(game_id, None)
        if result == 0:  # finished before (by this node before a restart, or another)
            return await self.game_ratings(game_id)
        return changes

    async def token_issued(self, token: str, name: str, identity: str, replacing: str | None = None) -> bool:
        """A new token for ``name``: the name's earlier token is revoked with it (one script: of
        two nodes resuming with one token at once, one issues)."""
        keys = [f"{PREFIX}token-of:{name.casefold()}", f"{PREFIX}token:{token}", f"{PREFIX}token:"]
        try:
            issued = await self._issue(keys, [token, name, identity, TOKEN_TTL, replacing or ""])
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return bool(issued)

    async def token_released(self, token: str, expires: float) -> None:
        try:  # (one step: a token revoked meanwhile is not written again as an end alone)
            await self._release(keys=[f"{PREFIX}token:{token}"], args=[repr(expires)])
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

    async def token_revoked(self, token: str) -> None:
        try:
            await self.redis.delete(f"{PREFIX}token:{token}")
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

    # --- reading -----------------------------------------------------------------------------

    async def token(self, token: str) -> TokenInfo | None:
        try:
            fields = await self.redis.hgetall(f"{PREFIX}token:{token}")
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        if "name" not in fields:  # (none; or only the end a release wrote as another issue revoked it)
            return None
        expires = fields.get("expires") or None
        return TokenInfo(
            str(fields["name"]), str(fields["identity"]), None if expires is None else float(expires)
        )

    async def unfinished_games(self) -> list[StoredGame]:
        try:
            running = await self.redis.hgetall(RUNNING)
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        games = [await self.game(str(game_id)) for game_id in running.values()]
        return [g for g in games if g is not None]

    async def running_game(self, room: str) -> StoredGame | None:
        game_id = await self.redis.hget(RUNNING, room.casefold())
        return None if game_id is None else await self.game(str(game_id))

    async def seat_room(self, name: str) -> str | None:
        try:
            room = await self.redis.hget(SEATS, name.casefold())
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return None if room is None else str(room)

    async def game(self, game_id: str) -> StoredGame | None:
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hgetall(game_key(game_id))
                pipe.lrange(moves_key(game_id), 0, -1)
                fields, moves = await pipe.execute()
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return stored_game(game_id, fields, moves) if fields else None

    async def history(self, identity: str, limit: int = 10, reader: str | None = None) -> list[StoredGame]:
        """Of the games the player's history keeps (the newest ``HISTORY_KEPT``), read a page at
        a time until ``limit`` are ``reader``'s to read."""
        found: list[StoredGame] = []
        start = 0
        while len(found) < limit and start < HISTORY_KEPT:
            try:
                ids = await self.redis.lrange(history_key(identity), start, start + limit - 1)
            except RedisError as e:
                raise StoreUnavailable(str(e)) from e
            if not ids:
                break
            start += limit
            games = [await self.game(str(game_id)) for game_id in ids]
            found.extend(g for g in games if g is not None and g.readable_by(reader))
        return found[:limit]

    # --- accounts and ratings (accounts.py) ------------------------------------------------------

    async def index_forms(self) -> None:
        """Index every account by its look-alike form, once for each version of the forms."""
        await self._accounts.index_forms()

    async def account(self, name: str) -> Account | None:
        return await self._accounts.account(name)

    async def account_created(self, name: str, hash: str, identity: str | None) -> bool:
        return await self._accounts.account_created(name, hash, identity)

    async def account_alike(self, name: str) -> str | None:
        return await self._accounts.account_alike(name)

    async def password_changed(self, name: str, hash: str) -> None:
        await self._accounts.password_changed(name, hash)

    async def account_seen(self, name: str, when: float) -> None:
        await self._accounts.account_seen(name, when)

    async def account_language(self, name: str, lang: str) -> None:
        await self._accounts.account_language(name, lang)

    async def account_ascii(self, name: str, on: bool) -> None:
        await self._accounts.account_ascii(name, on)

    async def account_deleted(self, name: str) -> None:
        await self._accounts.account_deleted(name)
        await self._moderation.account_deleted(name)

    async def standing(self, key: str) -> Standing | None:
        return await self._accounts.standing(key)

    async def standings(self, keys: Sequence[str]) -> dict[str, Standing]:
        return await self._accounts.standings(keys)

    async def leaderboard(self, limit: int) -> list[Standing]:
        return await self._accounts.leaderboard(limit)

    async def games_count(self, identity: str, reader: str | None = None) -> int:
        """Of the games the player's history keeps (the newest 50)."""
        return len(await self.history(identity, HISTORY_KEPT, reader))

    async def game_ratings(self, game_id: str) -> list[RatingChange]:
        return await self._accounts.game_ratings(game_id)

    # --- people's lists (lists.py) ---------------------------------------------------------------

    async def lists(self, identity: str) -> dict[str, dict[str, str]]:
        return await self._lists.lists(identity)

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        await self._lists.list_changed(identity, action, key, name)

    async def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        await self._lists.lists_replaced(identity, lists)

    async def lists_deleted(self, identity: str) -> None:
        await self._lists.lists_deleted(identity)


def stored_game(game_id: str, fields: Mapping[str, str], moves: Sequence[str]) -> StoredGame:
    """A game as Redis keeps it: the fields of its hash (``data``, and ``result``, ``finished``,
    ``option:KEY``, ``private`` and ``auto:N`` when set) and its moves."""
    data = json.loads(fields["data"])
    record = GameRecord(
        players=tuple(data["players"]),
        seed=int(data["seed"]),
        options=Options(**data["options"]),
        board=data["board"],
        start_player=data["start_player"],
        moves=tuple(map(str, moves)),
    )
    result = json.loads(fields["result"]) if "result" in fields else None
    finished = float(fields["finished"]) if "finished" in fields else None
    return StoredGame(
        game_id,
        data["room"],
        record,
        tuple(data["kinds"]),
        float(data["started"]),
        finished,
        result,
        # missing in games logged before they were kept; then the options changed while it ran
        # ("private" alone: the field of a game logged before the others were kept)
        {
            **data.get("room_options", {}),
            **({"private": True} if "private" in fields else {}),
            **{
                f.removeprefix(OPTION_FIELD): json.loads(v)
                for f, v in fields.items()
                if f.startswith(OPTION_FIELD)
            },
        },
        tuple(data.get("identities") or ()),
        tuple(data.get("voted_out") or ()),
        # the moves the server played for their player, each beside its move (none before)
        {int(f[5:]): str(v) for f, v in fields.items() if str(f).startswith("auto:")},
    )

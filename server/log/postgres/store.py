"""The storage contract of a cluster whose records are in PostgreSQL: Redis keeps what is live,
PostgreSQL what must last.

=======================================  ===========================================================
Redis (:class:`RedisStore`, unchanged)    leases and fencing, running games (data and moves), resume
                                         tokens, which seat is whose, a guest's lists
PostgreSQL (:class:`Records`)            accounts and their settings, ratings and rating history, an
                                         account's lists, every finished game
=======================================  ===========================================================

A game's end moves its record in two writes. First Redis, fenced by the room's lease as every
write of a running game: the outcome is set, the game leaves the running games and joins
``cafe:archive`` (game id -> when it ended), all in one script. Then PostgreSQL, in one
transaction: the game's row, its players, and its rating, only if the row was not there (the game
id is its key). Then Redis drops the game. A crash between any two of these leaves the game in
``cafe:archive``, where every node looks each second (:meth:`PostgresStore.archive_waiting`): the
record is written then, once, and its rating applied once. While PostgreSQL is away the games go on;
the games that end wait in Redis, and their players hear no rating until it comes back.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence

import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError

from engine import Outcome
from server.log.contract import (
    Account,
    Standing,
    StoredGame,
    StoreUnavailable,
)
from server.log.postgres.analyses import PostgresAnalyses
from server.log.postgres.moderation import PostgresModeration
from server.log.postgres.records import Records
from server.log.postgres.tournaments import PostgresTournaments
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
from server.log.redis.store import RedisStore, stored_game
from server.ratings import ACCOUNT, RatingChange, account_key

log = structlog.get_logger("cafe.records")

#: finished games waiting to be written to PostgreSQL: game id -> when the game ended
ARCHIVE = PREFIX + "archive"
#: seconds between two looks for finished games still waiting
ARCHIVE_EVERY = 1.0
#: seconds a finished game is left to the node that finished it before any node writes it
ARCHIVE_GRACE = 2.0
#: games written in one look
ARCHIVE_BATCH = 100

# KEYS: lease, game, running, seats, archive, the game's moves
# ARGV: fence, result, finished, room, game_id, people...
# The outcome is written once (a finished game returns 0) and the game waits in the archive; the
# answer carries the game as it is now, for its record: its hash's fields, and its moves in one
# string, a line each (one reply to parse rather than one a move)
_GAME_ENDED = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('HEXISTS', KEYS[2], 'result') == 1 then return 0 end
if redis.call('HEXISTS', KEYS[2], 'data') == 0 then return 0 end
redis.call('HSET', KEYS[2], 'result', ARGV[2], 'finished', ARGV[3])
if redis.call('HGET', KEYS[3], ARGV[4]) == ARGV[5] then redis.call('HDEL', KEYS[3], ARGV[4]) end
for i = 6, #ARGV do
    if redis.call('HGET', KEYS[4], ARGV[i]) == ARGV[4] then redis.call('HDEL', KEYS[4], ARGV[i]) end
end
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[5])
return {1, redis.call('HGETALL', KEYS[2]), table.concat(redis.call('LRANGE', KEYS[6], 0, -1), '\\n')}
"""

# KEYS: game, the game's moves, archive, the histories of its players
# ARGV: game_id
# The game's record is in PostgreSQL: Redis lets it go (one command, rather than a transaction's
# command a key: the client's work per command is what a node pays).
_GAME_KEPT = """
redis.call('DEL', KEYS[1], KEYS[2])
for i = 4, #KEYS do redis.call('LREM', KEYS[i], 0, ARGV[1]) end
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""


class PostgresStore(RedisStore):
    """The storage contract with a cluster's records in PostgreSQL (``records``) and what is live
    in Redis, as :class:`RedisStore` keeps it. Redis' per-person lists of games (``history:``)
    hold only running games here, and go with them."""

    def __init__(
        self,
        client: aioredis.Redis,
        fence: Callable[[str], str | None],
        records: Records,
        durability: str = "none",
    ) -> None:
        super().__init__(client, fence, durability)
        self.records = records
        self._staff = PostgresModeration(records)  # Redis' stays for account_deleted's part
        self.tournaments = PostgresTournaments(records)
        self.analyses = PostgresAnalyses(records)
        self._ended = client.register_script(_GAME_ENDED)
        self._kept = client.register_script(_GAME_KEPT)
        #: when PostgreSQL last failed a game's record (``None``: it did not): a game that ends
        #: meanwhile leaves its record to the next look, rather than wait for it
        self._away_since: float | None = None

    async def open(self, *, upgrade_schema: bool = True) -> None:
        """Connect to PostgreSQL and bring its schema up to this code's (``upgrade_schema``), or
        leave one of another version as it is (``Records.open``)."""
        await self.records.open(upgrade_schema=upgrade_schema)

    async def aclose(self) -> None:
        await self.records.close()

    # --- a game's end: Redis, then PostgreSQL, then Redis lets go --------------------------------

    async def game_finished(self, game_id: str, outcome: Outcome) -> list[RatingChange]:
        room, people = self._game_rooms[game_id]
        keys = [lease_key(room), game_key(game_id), RUNNING, SEATS, ARCHIVE, moves_key(game_id)]
        args = [
            self._token(room),
            json.dumps(outcome.to_dict()),
            time.time(),
            room.casefold(),
            game_id,
            *people,
        ]
        ended = await self._call(self._ended, keys, args)
        self._game_rooms.pop(game_id, None)
        if self._away_since is not None and time.monotonic() - self._away_since < ARCHIVE_EVERY:
            return []  # PostgreSQL is away: the game waits in the archive
        # the game as the script left it (ended just now), or as Redis holds it (ended before)
        live = stored_game(game_id, _fields(ended[1]), _lines(ended[2])) if isinstance(ended, list) else None
        try:
            changes, _ = await self._archive(game_id, live)
        except StoreUnavailable as e:
            self._away_since = time.monotonic()
            log.warning("record_waiting", game=game_id, error=str(e))
            return []
        self._away_since = None
        return changes

    async def _archive(
        self, game_id: str, live: StoredGame | None = None
    ) -> tuple[list[RatingChange], bool]:
        """Write a finished game's record to PostgreSQL (once: again is a no-op that gives its
        rating changes back), then drop it from Redis; ``live``: the game as Redis holds it, when
        the caller has it. Its rating changes, and whether this call wrote it (another node may
        have, meanwhile)."""
        if live is None:
            live = await RedisStore.game(self, game_id)
        if live is None or live.finished is None:  # written and dropped already (by another node)
            try:
                await self.redis.zrem(ARCHIVE, game_id)
            except RedisError as e:
                raise StoreUnavailable(str(e)) from e
            return await self.records.game_ratings(game_id), False
        changes, wrote = await self.records.archive(live)
        await self._drop(live)
        return changes, wrote

    async def _drop(self, game: StoredGame) -> None:
        """The game's record is in PostgreSQL: Redis lets it go, and the lists of running games of
        its players (an account that registered while it ran included) let it go too."""
        game_id = game.game_id
        who = {i for i in game.identities if i is not None}
        who |= {account_key(name) for name in game.record.players}
        keys = [game_key(game_id), moves_key(game_id), ARCHIVE, *map(history_key, sorted(who))]
        try:
            await self._kept(keys=keys, args=[game_id])
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

    async def archive_waiting(self) -> None:
        """Write the finished games whose records wait (their node died between the two writes,
        or PostgreSQL was away), every :data:`ARCHIVE_EVERY` seconds, for as long as the node runs."""
        while True:
            await asyncio.sleep(ARCHIVE_EVERY)
            await self.archive_due(time.time() - ARCHIVE_GRACE)

    async def archive_due(self, before: float) -> int:
        """Write the records of the games that ended before ``before`` and wait; how many."""
        due = await self.redis.zrangebyscore(ARCHIVE, "-inf", before, start=0, num=ARCHIVE_BATCH)
        handled = written = 0
        for game_id in map(str, due):
            try:
                _, wrote = await self._archive(game_id)
            except StoreUnavailable as e:
                self._away_since = time.monotonic()
                log.warning("records_unavailable", waiting=len(due) - handled, error=str(e))
                return written
            handled += 1
            written += wrote  # (another node may have written it meanwhile: counted there)
        if handled:
            self._away_since = None
        if written:
            log.info("records_written", games=written)
        return written

    async def waiting(self) -> int:
        """How many finished games wait to be written to PostgreSQL."""
        try:
            return int(await self.redis.zcard(ARCHIVE))
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

    # --- reading: a running game (or one whose record waits) from Redis, the others from PostgreSQL

    async def game(self, game_id: str) -> StoredGame | None:
        live = await super().game(game_id)
        return live if live is not None else await self.records.game(game_id)

    async def history(self, identity: str, limit: int = 10, reader: str | None = None) -> list[StoredGame]:
        """The running games of ``identity`` (Redis) and its finished ones (PostgreSQL) that
        ``reader`` may read, newest first."""
        running = await super().history(identity, limit, reader)
        finished = await self.records.history(identity, limit, reader)
        seen = {g.game_id for g in running}
        games = running + [g for g in finished if g.game_id not in seen]
        return sorted(games, key=lambda g: g.started, reverse=True)[:limit]

    # --- accounts and ratings: PostgreSQL ----------------------------------------------------------

    async def index_forms(self) -> None:
        await self.records.index_forms()

    async def account(self, name: str) -> Account | None:
        return await self.records.account(name)

    async def account_created(self, name: str, hash: str, identity: str | None) -> bool:
        if not await self.records.account_created(name, hash, identity):
            return False
        if identity is not None and identity != account_key(name):
            # the guest's running games are the account's too (their records follow when they end)
            try:
                running = await self.redis.lrange(history_key(identity), 0, -1)
                if running:
                    await self.redis.rpush(history_key(account_key(name)), *running)
            except RedisError as e:
                raise StoreUnavailable(str(e)) from e
        return True

    async def account_alike(self, name: str) -> str | None:
        return await self.records.account_alike(name)

    async def password_changed(self, name: str, hash: str) -> None:
        await self.records.password_changed(name, hash)

    async def account_seen(self, name: str, when: float) -> None:
        await self.records.account_seen(name, when)

    async def account_language(self, name: str, lang: str) -> None:
        await self.records.account_language(name, lang)

    async def account_ascii(self, name: str, on: bool) -> None:
        await self.records.account_ascii(name, on)

    async def account_deleted(self, name: str) -> None:
        await self.records.account_deleted(name)
        # Redis' part: the running games no longer rate its seats as the account's, and its list
        # of running games goes
        await super().account_deleted(name)

    async def standing(self, key: str) -> Standing | None:
        return await self.records.standing(key)

    async def standings(self, keys: Sequence[str]) -> dict[str, Standing]:
        return await self.records.standings(keys)

    async def leaderboard(self, limit: int) -> list[Standing]:
        return await self.records.leaderboard(limit)

    async def games_count(self, identity: str, reader: str | None = None) -> int:
        # the running games are in Redis (the player's list of them), the finished in PostgreSQL
        running = await RedisStore.history(self, identity, HISTORY_KEPT, reader)
        return len(running) + await self.records.games_count(identity, reader)

    async def game_ratings(self, game_id: str) -> list[RatingChange]:
        return await self.records.game_ratings(game_id)

    # --- lists: an account's in PostgreSQL, a guest's in Redis (as long as its name) ---------------

    async def lists(self, identity: str) -> dict[str, dict[str, str]]:
        if identity.startswith(ACCOUNT):
            return await self.records.lists(identity)
        return await super().lists(identity)

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        if identity.startswith(ACCOUNT):
            await self.records.list_changed(identity, action, key, name)
        else:
            await super().list_changed(identity, action, key, name)

    async def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        if identity.startswith(ACCOUNT):
            await self.records.lists_replaced(identity, lists)
        else:
            await super().lists_replaced(identity, lists)

    async def lists_deleted(self, identity: str) -> None:
        if identity.startswith(ACCOUNT):
            await self.records.lists_deleted(identity)
        else:
            await super().lists_deleted(identity)


def _fields(flat: Sequence[str]) -> dict[str, str]:
    """A hash's fields from HGETALL's answer inside a script (field, value, field, value...)."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _lines(joined: str) -> list[str]:
    """A list's items that a script joined a line each (a move never holds a line's end)."""
    return joined.split("\n") if joined else []

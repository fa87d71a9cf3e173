"""What finished games leave in Redis: its ``used_memory`` after 100 and after 10,000 finished games,
with the records in PostgreSQL (``--database``) and, for comparison, with everything in Redis.

A fresh ``redis-server`` and a fresh PostgreSQL (Debian's, as in the tests) run in temporary
folders on free loopback ports. ``--players`` registered players play rated games of two to four
in ``--rooms`` rooms at once, through the cluster's store as a node does (game started, every move
logged, game finished): each game is the same real game's record (a random game of the engine,
59 moves), under its own id and players. Redis' memory is read (after ``MEMORY PURGE``)
when 100 and when ``--games`` games have finished, each time with no game running and no record
waiting, and PostgreSQL's tables' sizes at the end. The games a second count the records written.
Then ``--ends`` more games, played the same way, end one at a time: the CPU this process (the
node's part) spends on a game's end, its record moved to PostgreSQL included.

    python bench/records.py --games 10000

Target: with PostgreSQL, ``used_memory`` after 10,000 games within 10 % of after 100.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# run as a script, this file's folder comes first on the path and bench/engine.py would hide the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis.asyncio as aioredis  # noqa: E402

import compiled  # noqa: E402

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import GameRecord, Options, Outcome, legal_move_texts, new_position, play  # noqa: E402
from server import logs  # noqa: E402
from server.log.postgres.records import Records  # noqa: E402
from server.log.postgres.store import PostgresStore  # noqa: E402
from server.log.redis.store import RedisStore, lease_key  # noqa: E402
from tests.cluster.conftest import RedisServer  # noqa: E402
from tests.cluster.postgres import PostgresServer  # noqa: E402

FENCE = "bench:1"
#: when Redis' memory is read: after this many finished games, and after all
EARLY = 100


def _one_game(seed: int) -> tuple[list[str], dict[int, int]]:
    """A random game of four to its end: its moves, and the places it ends with by seat."""
    rng = random.Random(seed)
    position = new_position(["p0", "p1", "p2", "p3"], seed)
    moves: list[str] = []
    for _ in range(500):
        result = play(position, rng.choice(legal_move_texts(position)))
        moves.append(result.move)
        position = result.position
        if result.outcome is not None:
            places = {int(name[1:]): place for name, place in result.outcome.places.items()}
            return moves, places
    raise RuntimeError("the game did not end")


async def _memory(client: aioredis.Redis) -> int:
    await client.execute_command("MEMORY", "PURGE")
    info = await client.info("memory")
    return int(info["used_memory"])


async def _played(
    store: RedisStore,
    game_id: str,
    room: str,
    seed: int,
    seated: list[str],
    moves: list[str],
    places: dict[int, int],
) -> Outcome:
    """Start a game of the registered players ``seated`` in ``room`` and log every one of
    ``moves``: the outcome to finish it with (``places`` by seat, of a game of four)."""
    record = GameRecord(tuple(seated), seed=seed, options=Options())
    identities: list[str | None] = [f"account:{name}" for name in seated]
    await store.game_started(game_id, room, record, ["person"] * len(seated), {}, identities)
    for at, move in enumerate(moves, start=1):
        await store.move_played(game_id, at, move)
    ranked = {name: min(places[seat], len(seated)) for seat, name in enumerate(seated)}
    return Outcome("end", dict.fromkeys(seated, 0), {}, tuple(seated), ranked)


async def _run(
    make: Callable[[aioredis.Redis], RedisStore], redis_url: str, games: int, rooms: int, players: int
) -> tuple[int, int, float, RedisStore]:
    client = aioredis.from_url(redis_url, decode_responses=True)
    await client.flushall()
    store = make(client)
    await store.index_forms()
    for room in range(rooms):
        await client.set(lease_key(f"r{room}"), FENCE)
    names = [f"player{n}" for n in range(players)]
    for name in names:
        await store.account_created(name, "$argon2id$bench", None)
    moves, places = _one_game(7)
    rng = random.Random(1)
    counter = iter(range(games))

    async def room(number: int, until: int) -> None:
        """Play games in room ``number`` while fewer than ``until`` have been begun."""
        for n in counter:
            seated = rng.sample(names, rng.randint(2, 4))
            outcome = await _played(store, f"g{n:06d}", f"r{number}", n, seated, moves, places)
            await store.game_finished(f"g{n:06d}", outcome)
            if n + 1 >= until:
                return

    async def settled() -> int:
        """Redis' memory once no game runs and no record waits (each node writes the waiting
        ones every second, as here)."""
        if isinstance(store, PostgresStore):
            while await store.waiting():
                await store.archive_due(time.time())
        return await _memory(client)

    start = time.perf_counter()
    waiting = asyncio.create_task(store.archive_waiting()) if isinstance(store, PostgresStore) else None
    # the first games, all finished: then the rest, all finished; memory read with no game running
    await asyncio.gather(*(room(r, EARLY) for r in range(rooms)))
    early = await settled()
    await asyncio.gather(*(room(r, games) for r in range(rooms)))
    late = await settled()
    if waiting is not None:
        waiting.cancel()
    seconds = time.perf_counter() - start
    return early, late, seconds, store


async def _end_cpu(store: RedisStore, client: aioredis.Redis, ends: int) -> float:
    """The CPU (µs) this process spends on a game's end, each of ``ends`` games ended alone."""
    moves, places = _one_game(7)
    names = [f"player{n}" for n in range(4)]
    await client.set(lease_key("ends"), FENCE)
    spent = 0.0
    for n in range(ends):
        outcome = await _played(store, f"end{n:06d}", "ends", n, names, moves, places)
        before = time.process_time()
        await store.game_finished(f"end{n:06d}", outcome)
        spent += time.process_time() - before
    return spent / ends * 1e6


async def main(games: int, rooms: int, players: int, ends: int) -> None:
    logs.configure("error", "console")  # (a record that waits for PostgreSQL is written later)
    if shutil.which("redis-server") is None:
        raise SystemExit("needs redis-server (apt-get install -y redis-server)")
    with tempfile.TemporaryDirectory() as folder:
        redis = RedisServer(Path(folder), "--appendfsync", "everysec")
        redis.start()
        postgres = PostgresServer()
        try:
            postgres.start()
            url = postgres.create_database()
            await redis.wait_ready()
            waiting, sizes = 0, {}
            print(f"{games} games of 2-4 of {players} registered players, {rooms} rooms at once")
            after = [f"after {EARLY}", f"after {games}"]
            print(f"{'records in':<12} {after[0]:>12} {after[1]:>14} {'change':>8} {'games/s':>8}")
            for label in ("redis", "postgresql"):
                records = Records(url) if label == "postgresql" else None

                def make(client: aioredis.Redis, records: Records | None = records) -> RedisStore:
                    if records is None:
                        return RedisStore(client, lambda room: FENCE)
                    return PostgresStore(client, lambda room: FENCE, records)

                if records is not None:
                    await records.open()
                early, late, seconds, store = await _run(make, redis.url, games, rooms, players)
                change = (late - early) / early * 100
                print(f"{label:<12} {early:>12,} {late:>14,} {change:>+7.1f}% {games / seconds:>8.0f}")
                if ends:
                    cost = await _end_cpu(store, store.redis, ends)
                    print(f"{'':<12} a game's end, {ends} one at a time: {cost:,.0f} µs of CPU each")
                await store.redis.aclose()
                if records is not None:
                    assert isinstance(store, PostgresStore)
                    waiting = await store.waiting()
                    sizes = await records.table_sizes()
                    await records.close()
            print(f"PostgreSQL's tables (bytes with indexes; {waiting} games still waiting in Redis):")
            for table, size in sorted(sizes.items(), key=lambda item: -item[1]):
                print(f"  {table:<16} {size:>12,}")
            print(f"  {'total':<16} {sum(sizes.values()):>12,}  ({sum(sizes.values()) / games:,.0f} a game)")
        finally:
            postgres.remove()
            redis.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=10_000, help="finished games in each run")
    parser.add_argument("--rooms", type=int, default=64, help="rooms playing at once")
    parser.add_argument("--players", type=int, default=400, help="registered players")
    parser.add_argument("--ends", type=int, default=200, help="games then ended one at a time (0: none)")
    args = parser.parse_args()
    asyncio.run(main(args.games, args.rooms, args.players, args.ends))

"""A cluster's log keeps which moves the server played for their player: a move the turn clock
played, logged by one node in Redis, is marked in the record the other node reads, with Redis
alone and with the finished game archived in PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest
import redis.asyncio as aioredis

from tests.cluster.conftest import two_nodes
from tests.cluster.postgres import PostgresServer, postgres_server
from tests.server.clients import WsClient, http_get
from tests.server.process import ServerProcess

__all__ = ["postgres_server"]  # the fixture, used by name

#: lost players dropped after half a second, and a clock of a second allowed
ARGS = ("--resume-window", "0.5", "--clock-min", "1", "--bot-workers", "0")


async def _clock_then_drop(a: ServerProcess, b: ServerProcess, room: str) -> None:
    """ann (through a) and bob (through b) play in ``room`` with a one-second clock and absent
    drop: the clock plays the first move, the next player plays one, bob goes: the game ends."""
    ann, bob = await WsClient.connect(a.port, "ann"), await WsClient.connect(b.port, "bob")
    assert (await ann.command(f"/join {room}"))["type"] == "ack"
    for option in ("clock 1", "absent drop"):
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    assert (await bob.command(f"/join {room}"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    assert (await ann.next(lambda x: x["type"] == "played" and x["clock"], timeout=20))["auto"] is True
    await ann.barrier()
    assert ann.view is not None
    mover = ann if ann.view["game"]["to_move"] == "ann" else bob
    moves = await mover.request({"type": "legal_moves"})
    assert (await mover.request({"type": "move", "move": moves["moves"][0]}))["type"] == "ack"
    await bob.close()
    await ann.next("game_over", timeout=20)


async def _check_record(port: int, game_id: str) -> None:
    """The record and the replay of ``game_id``, read through ``port``: the clock's move marked."""
    record = (await http_get(port, f"/api/games/{game_id}")).json()
    assert record["auto"] == {"1": "clock"}
    replay = (await http_get(port, f"/api/games/{game_id}/replay")).json()
    assert [step["move"]["auto"] for step in replay["steps"][1:]] == ["clock", None, None]


async def test_redis_keeps_the_clocks_mark_for_the_other_node(redis_url: str, tmp_path: Path) -> None:
    """With Redis alone: the mark is beside the move in Redis, and the record and replay read
    through the other node show it."""
    async with two_nodes(redis_url, tmp_path, *ARGS) as (a, b):
        await _clock_then_drop(a, b, "clocked")
        client = aioredis.from_url(redis_url, decode_responses=True)
        keys = [k async for k in client.scan_iter("cafe:game:*") if not k.endswith(":moves")]
        assert len(keys) == 1
        game_id = keys[0].removeprefix("cafe:game:")
        assert await client.hget(keys[0], "auto:1") == "clock"
        await client.aclose()
        await _check_record(b.port, game_id)


@pytest.fixture
async def records_nodes(
    redis_url: str, postgres_server: PostgresServer, tmp_path: Path
) -> AsyncIterator[list[ServerProcess]]:
    async with two_nodes(redis_url, tmp_path, "--database", postgres_server.url, *ARGS) as started:
        yield started


async def test_postgresql_keeps_the_clocks_mark_with_the_finished_game(
    records_nodes: list[ServerProcess], postgres_server: PostgresServer
) -> None:
    """With the records in PostgreSQL: the finished game's row holds the mark, and the other node's
    record and replay show it."""
    a, b = records_nodes
    await _clock_then_drop(a, b, "archived")
    async with await psycopg.AsyncConnection.connect(postgres_server.url, autocommit=True) as conn:
        rows = await (await conn.execute("SELECT id, auto FROM games WHERE room = 'archived'")).fetchall()
    assert len(rows) == 1 and rows[0][1] == {"1": "clock"}
    await _check_record(b.port, rows[0][0])

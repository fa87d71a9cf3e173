"""A server process killed (SIGKILL) while a rated game ends rates it exactly once: the game's end
and its ratings are one transaction, and a game restored unfinished is rated when it ends again."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.server.clients import WsClient
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"
ARGS = ("--resume-window", "0.5", "--bot-workers", "0", "--hash-memory", "1024")


def _rated(db: Path) -> tuple[int, int, int]:
    """ann's rated games, her rating history rows, and the finished games in the log."""
    with sqlite3.connect(db) as c:
        (games,) = c.execute(
            "SELECT COALESCE(SUM(games), 0) FROM ratings WHERE key = 'account:ann'"
        ).fetchone()
        (rows,) = c.execute("SELECT COUNT(*) FROM rating_history WHERE key = 'account:ann'").fetchone()
        (finished,) = c.execute("SELECT COUNT(*) FROM games WHERE result IS NOT NULL").fetchone()
    return int(games), int(rows), int(finished)


@pytest.mark.parametrize("when", ["as_the_game_ends", "once_it_ended"])
async def test_a_server_killed_while_a_rated_game_ends_rates_it_once(tmp_path: Path, when: str) -> None:
    """ann and bob, registered, play with ``absent drop``; bob goes, so the game ends when his
    window passes. SIGKILL as that happens (or once ann heard the end): after the restart and ann's
    return the game is over, rated once for each of them."""
    db = tmp_path / "cafe.db"
    first = await ServerProcess.start(db, *ARGS)
    ann, bob = [await WsClient.connect(first.port, n) for n in ("ann", "bob")]
    for client in (ann, bob):
        assert (await client.request({"type": "register", "password": PASSWORD}))["registered"] is True
        assert (await client.command("/join rated"))["type"] == "ack"
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.close()
    if when == "once_it_ended":
        await ann.next("game_over", timeout=20)
    else:
        await asyncio.sleep(0.5)  # about when bob's window runs out: before, during or after the end
    first.proc.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(first.proc.wait(), 10) == -signal.SIGKILL

    second = await ServerProcess.start(db, *ARGS)
    try:
        again = await WsClient.connect(second.port, "ann", password=PASSWORD)
        for _ in range(200):  # restored unfinished, it ends once bob's window passes again
            if _rated(db)[2] == 1:
                break
            await asyncio.sleep(0.05)
        await again.barrier()
        rating = await again.command("/rating ann")
        assert "(1 rated game, 1 won" in rating["text"], rating
    finally:
        second.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.proc.wait(), 20)
    assert _rated(db) == (1, 1, 1)

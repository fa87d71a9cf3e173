"""A player voted out stays out for the rest of the game: the log keeps the vote, so a server
restarted on the same data seats them no more, and neither does, in a cluster, the node that
takes the room over (``tests/cluster/test_vote_out_kept.py``)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from engine import GameRecord
from server.log.contract import StoreUnavailable
from server.log.sqlite.store import Store
from tests.server.clients import WsClient
from tests.server.process import ServerProcess
from tests.server.test_seat_holding import (
    Connect,
    assert_refused_as_spectator,
    assert_watches,
    await_bot,
    seated,
)

#: the bots think in the server's own process, so that a SIGKILL leaves no worker process behind
ARGS = ("--bot-workers", "0")


async def vote_out_dan(connect: Connect) -> str:
    """ann, bob, cid and dan play; dan's connection drops, ann's ``/remove dan`` passes with bob's
    yes and a bot plays seat 4 ("voted out"). dan's resume token."""
    people = await seated(connect)
    ann, bob, dan = people["ann"], people["bob"], people["dan"]
    token = dan.token
    await dan.close()
    await ann.next(lambda m: m["type"] == "presence" and m["event"] == "away" and m["name"] == "dan")
    assert (await ann.command("/remove dan"))["type"] == "ack"
    await bob.next(lambda m: m["type"] == "vote" and m["state"] == "open")
    assert (await bob.command("/accept"))["type"] == "ack"
    taken = await await_bot(ann, "dan")
    assert taken["detail"] == "voted out"
    return token


async def dan_only_watches(connect: Connect, token: str) -> None:
    """dan comes back with his token: ``resumed``, but a spectator's snapshot (seat 4 still
    carries his name; no seat, no hand for him); ``legal_moves``, ``hint`` and ``move`` are
    ``not_seated`` and ``/join 4`` is ``voted_out``."""
    again = await connect("dan", token=token)
    assert again.messages[0]["resumed"] is True
    view = (await again.next("snapshot", timeout=20))["view"]
    assert view["state"] == "playing" and view["seats"][3]["name"] == "dan"
    assert_watches(again)
    await assert_refused_as_spectator(again)
    assert (await again.command("/join 4"))["code"] == "voted_out"
    assert_watches(again)


def on(server: ServerProcess) -> Connect:
    """Connects by name to ``server``."""

    async def connect(name: str, **hello: Any) -> WsClient:
        return await WsClient.connect(server.port, name, **hello)

    return connect


async def test_a_player_voted_out_watches_after_a_restart(tmp_path: Path) -> None:
    """dan is voted out; the server is killed (SIGKILL) and started again on the same data: dan,
    back with his token, only watches the game taken up from the log: no seat, no hand, and
    ``/join 4`` answers ``voted_out``."""
    db = tmp_path / "cafe.db"
    first = await ServerProcess.start(db, *ARGS)
    token = await vote_out_dan(on(first))
    first.proc.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(first.proc.wait(), 10) == -signal.SIGKILL

    second = await ServerProcess.start(db, *ARGS)
    try:
        await dan_only_watches(on(second), token)
    finally:
        second.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.proc.wait(), 20)


async def test_the_sqlite_log_keeps_who_was_voted_out(tmp_path: Path) -> None:
    """``voted_out`` (twice: kept once) and ``seat_taken`` are in the stored game, read again
    after the log is opened anew; a game the log does not hold is ``StoreUnavailable``."""
    path = str(tmp_path / "cafe.db")
    store = Store(path)
    await store.game_started("g1", "r", GameRecord(("ann", "bob", "cid"), 1), ["person"] * 3)
    await store.voted_out("g1", "cid")
    await store.voted_out("g1", "cid")
    await store.seat_taken("g1", 1, "bob", "zoe", "id-zoe")
    with pytest.raises(StoreUnavailable):
        await store.voted_out("nope", "ann")
    store.close()
    again = Store(path)
    try:
        [stored] = await again.unfinished_games()
        assert stored.voted_out == ("cid", "bob") and stored.record.players == ("ann", "zoe", "cid")
    finally:
        again.close()

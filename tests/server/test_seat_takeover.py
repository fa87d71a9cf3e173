"""A seat taken over by a ``/join N`` vote is the new player's in the log: a server process
stopped right after the vote passed comes back with them in the seat."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

from server.app import Server
from tests.server.clients import WsClient
from tests.server.conftest import ServerFactory
from tests.server.process import ServerProcess

#: a short resume window; the bots think in the server's own process, so that a SIGKILL leaves
#: no worker process behind (holding the log pipe open)
ARGS = ("--resume-window", "0.5", "--bot-workers", "0")


async def take_over_seat_2(ann: WsClient, bob: WsClient, zoe: WsClient) -> None:
    """ann and bob play room cafe; bob goes, a bot plays his seat; zoe asks for it, ann accepts."""
    for client in (ann, bob):
        assert (await client.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/option host off"))["type"] == "ack"
    assert (await bob.command("/start"))["type"] == "ack"
    await bob.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "replaced_by_bot", timeout=20)
    assert (await zoe.command("/room cafe"))["type"] == "ack"
    assert (await zoe.command("/join 2"))["type"] == "ack"
    opened = await ann.next(lambda x: x["type"] == "vote" and x["state"] == "open")
    assert (await ann.command("/accept"))["type"] == "ack"
    passed = await ann.next(lambda x: x["type"] == "vote" and x["state"] == "passed")
    assert passed["expires"] == opened["expires"]  # (one vote, one time: each message says it)
    await zoe.next(lambda x: x["type"] == "presence" and x["event"] == "joined" and x["name"] == "zoe")
    while zoe.view is None or zoe.view["seat"] != 1:  # in a cluster her view may come after
        await zoe.next(lambda x: True)
    assert zoe.view["game"]["hand"]


async def test_a_restart_after_a_seat_vote_seats_the_new_player(tmp_path: Path) -> None:
    """SIGKILL right after zoe took over bob's seat: the restarted server seats zoe (her token
    brings back her hand), and no seat holds bob's name any more."""
    db = tmp_path / "cafe.db"
    first = await ServerProcess.start(db, *ARGS)
    ann, bob, zoe = [await WsClient.connect(first.port, n) for n in ("ann", "bob", "zoe")]
    await take_over_seat_2(ann, bob, zoe)
    assert zoe.view is not None
    hand = zoe.view["game"]["hand"]
    first.proc.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(first.proc.wait(), 10) == -signal.SIGKILL

    second = await ServerProcess.start(db, *ARGS)
    try:
        again = await WsClient.connect(second.port, "zoe", token=zoe.token)
        assert again.messages[0]["resumed"] is True
        view = (await again.next("snapshot"))["view"]
        assert (view["seat"], view["seats"][1]["name"], view["game"]["hand"]) == (1, "zoe", hand)
        back = await WsClient.connect(second.port, "bob")  # no seat holds his name any more
        assert back.messages[0]["resumed"] is False
    finally:
        second.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.proc.wait(), 20)


async def test_a_tournament_tables_seat_is_its_players_alone(make_server: ServerFactory) -> None:
    """At a tournament's table, the seat of a player whose connection was lost cannot be taken
    over: its result is the entrant's in the standings. ``/join N`` there is ``seat_taken``, in
    English and in German, and no vote opens."""
    server: Server = await make_server(resume_window=60)
    ann = await WsClient.connect(server.port, "ann")
    welcome = await ann.request({"type": "register", "password": "correct horse"})
    assert welcome["registered"]
    made = await ann.command("/tournament new open swiss 1 size 2 start +1m")
    number = made["tournament"]["id"]
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.request({"type": "tournament", "action": "join", "name": "open"}))["type"] == "ack"
    server.tournaments.clock = lambda: time.time() + 61
    server.tournaments.poke()
    room = (await ann.next("seated"))["room"]
    await bob.next("seated")
    await bob.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    for lang in ("en", "de"):
        zoe = await WsClient.connect(server.port, f"zoe{lang}")
        assert (await zoe.command(f"/lang {lang}"))["type"] == "ack"
        assert (await zoe.command(f"/room {room}"))["type"] == "ack"
        seat = 2 if ann.view is not None and ann.view["seat"] == 0 else 1
        refused = await zoe.command(f"/join {seat}")
        assert refused["code"] == "seat_taken", refused
        assert ("tournament" if lang == "en" else "Turnier") in refused["message"], refused
    await ann.barrier()
    assert not [m for m in ann.messages if m["type"] == "vote"]
    assert number >= 1

"""Every error code of the catalogue (protocol/errors.py, PROTOCOL.md) is one the server sends, and
each is provoked here over a real socket: to the sender alone, with the connection still usable
unless the code says it ends."""

from __future__ import annotations

import ast
import asyncio
import gc
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from engine import legal_move_texts, new_position, play
from engine.errors import LEAVE_ERROR_CODES, RULE_ERROR_CODES
from protocol.errors import ERROR_CODES, PROTOCOL_ERROR_CODES, SERVER_ERROR_CODES
from protocol.limits import LIST_MAX
from server.app import Server
from server.log.contract import StoreUnavailable
from server.log.sqlite.store import Store
from tests.server import clients
from tests.server.clients import LineClient, WsClient
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api

ROOT = Path(__file__).resolve().parents[2]
Answer = dict[str, Any]
Provoke = Callable[[Server, pytest.MonkeyPatch], Awaitable[tuple[WsClient | None, Answer]]]


async def _in_room(server: Server, *names: str, start: bool = False) -> list[WsClient]:
    """``names`` seated in room ``codes`` (the first also sets a seed), the game started if asked."""
    clients = [await WsClient.connect(server.port, name) for name in names]
    for client in clients:
        assert (await client.command("/join codes"))["type"] == "ack"
    if start:
        assert (await clients[0].command("/start"))["type"] == "ack"
    return clients


async def _hello_first(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    client = await WsClient.connect(server.port)
    return client, await client.request({"type": "who"})


async def _already_welcome(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "hello", "name": "ann"})


async def _bad_name(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    client = await WsClient.connect(server.port)
    return client, await client.request({"type": "hello", "name": "9lives"})


async def _name_taken(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    await WsClient.connect(server.port, "ann")
    client = await WsClient.connect(server.port)
    return client, await client.request({"type": "hello", "name": "ann"})


async def _name_reserved(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    client = await WsClient.connect(server.port)
    return client, await client.request({"type": "hello", "name": "ADMlN"})


async def _bad_token(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    client = await WsClient.connect(server.port)
    return client, await client.request({"type": "hello", "name": "ann", "token": "no-such-token"})


async def _not_in_room(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.command("/start")


async def _bad_room(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "enter_room", "room": "no spaces"})


PASSWORD = "correct horse"


async def _registered(server: Server, name: str = "ann") -> WsClient:
    client = await WsClient.connect(server.port, name)
    answer = await client.request({"type": "register", "password": PASSWORD})
    assert answer["type"] == "welcome" and answer["registered"], answer
    return client


async def _no_hints(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann, bob = await _registered(server, "ann"), await _registered(server, "bob")
    for client in (ann, bob):
        assert (await client.command("/join codes"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    return ann, await ann.request({"type": "hint"})


async def _weak_password(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "register", "password": "short"})


async def _name_registered(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    await _registered(server)
    client = await WsClient.connect(server.port)
    return client, await client.request({"type": "hello", "name": "ann"})


async def _bad_password(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    await _registered(server)
    client = await WsClient.connect(server.port)
    return client, await client.request({"type": "hello", "name": "ann", "password": "wrong password"})


async def _too_many_attempts(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    await _registered(server)
    first = await WsClient.connect(server.port)
    wrong = await first.request({"type": "hello", "name": "ann", "password": "wrong one"})
    assert wrong["code"] == "bad_password"
    client = await WsClient.connect(server.port)
    return client, await client.request({"type": "hello", "name": "ann", "password": PASSWORD})


async def _not_registered(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "password", "old": PASSWORD, "new": "another password"})


async def _no_such_player(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.command("/finger nobody")


async def _room_full(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    await _in_room(server, "ann", "bob", "cem", "dan")
    eve = await WsClient.connect(server.port, "eve")
    return eve, await eve.command("/join codes")


async def _already_seated(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    return ann, await ann.command("/join codes")


async def _not_seated(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    await _in_room(server, "ann", "bob", start=True)
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/room codes"))["type"] == "ack"
    return zoe, await zoe.request({"type": "move", "move": "FRf@FR1s"})


async def _game_running(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann, _bob = await _in_room(server, "ann", "bob", start=True)
    return ann, await ann.command("/option seed 3")


async def _no_game(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    return ann, await ann.request({"type": "move", "move": "FRf@FR1s"})


async def _too_many_bot_games(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/join codes"))["type"] == "ack"
    assert (await ann.command("/addbot random"))["type"] == "ack"
    return ann, await ann.command("/start")


async def _not_enough_players(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    return ann, await ann.command("/start")


async def _no_such_bot(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    return ann, await ann.request({"type": "remove_bot", "name": "nobody"})


async def _bad_option(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    return ann, await ann.request({"type": "option", "key": "clock", "value": -3})


async def _too_many_rooms(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/room first"))["type"] == "ack"
    return ann, await ann.command("/room second")


async def _turned_away(server: Server) -> tuple[None, Answer]:
    client = await WsClient.connect(server.port)
    error = await client.next("error")
    with pytest.raises(ConnectionClosed) as closed:
        await client.next("never")
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
    assert error["seq"] == 1 and [m["type"] for m in client.messages] == ["error"]
    return None, error


async def _server_full(server: Server, _: pytest.MonkeyPatch) -> tuple[None, Answer]:
    await WsClient.connect(server.port, "ann")
    return await _turned_away(server)


async def _shutting_down(server: Server, monkeypatch: pytest.MonkeyPatch) -> tuple[None, Answer]:
    # the moment between the stop beginning and the listener closing, held open
    monkeypatch.setattr(server.lobby, "accepting", False)
    return await _turned_away(server)


async def _unavailable(server: Server, monkeypatch: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann, _bob = await _in_room(server, "ann", "bob")

    async def refused(*_: Any, **__: Any) -> None:
        raise StoreUnavailable("the disk is away")

    monkeypatch.setattr(server.lobby.store, "game_started", refused)
    return ann, await ann.command("/start")


async def _internal(server: Server, monkeypatch: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann, _bob = await _in_room(server, "ann", "bob")

    async def broken(*_: Any, **__: Any) -> None:
        raise RuntimeError("a bug in the store")

    monkeypatch.setattr(server.lobby.store, "game_started", broken)
    return ann, await ann.command("/start")


async def _not_in_lobby(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/room codes"))["type"] == "ack"
    return ann, await ann.command("/nick anna")


async def _bad_json(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    await ann.ws.send("{not json")
    return ann, await ann.next("error")


async def _unknown_type(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "dance"})


async def _bad_field(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "say"})


async def _unknown_command(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.command("/jion codes")


async def _bad_arguments(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.command("/option")


async def _rate_limited(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/room codes"))["type"] == "ack"
    assert (await ann.request({"type": "say", "text": "one"}))["type"] == "ack"
    return ann, await ann.request({"type": "say", "text": "two"})


async def _too_large(server: Server, _: pytest.MonkeyPatch) -> tuple[None, Answer]:
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "ann")
    await line.line("/say " + "x" * 2000)
    text = await line.expect("[too_large]")
    with pytest.raises(ConnectionError):  # a line too long ends the connection, as a frame does
        await line.expect("never")
    return None, {"type": "error", "code": "too_large", "message": text.splitlines()[-1]}


async def _empty_message(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/room codes"))["type"] == "ack"
    return ann, await ann.request({"type": "say", "text": "\u001b\u0007"})


async def _bad_utf8(server: Server, _: pytest.MonkeyPatch) -> tuple[None, Answer]:
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "ann")
    line.writer.write(b"\xc3\x28\x80\r\n")  # not UTF-8
    await line.writer.drain()
    text = await line.expect("[bad_utf8]")
    return None, {"type": "error", "code": "bad_utf8", "message": text.splitlines()[-1]}


async def _bad_language(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "lang", "lang": "fr"})


async def _not_connected(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.command("/tell ghost hello?")


async def _no_reply(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.command("/reply hello?")


async def _bad_target(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.command("/mute ann")


async def _list_full(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    for n in range(LIST_MAX):
        assert (await ann.command(f"/friend f{n}"))["type"] == "ack"
    return ann, await ann.command("/friend one_more")


async def _not_host(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    _, bob = await _in_room(server, "ann", "bob")
    return bob, await bob.command("/addbot")


async def _gone_in_a_game(server: Server) -> tuple[WsClient, WsClient]:
    """ann, bob and cid in a started game, cid gone: ann and bob remain."""
    ann, bob, cid = await _in_room(server, "ann", "bob", "cid", start=True)
    await cid.close()
    cid.name = None  # closed: the checks of the others' inboxes pass it over
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    return ann, bob


async def _no_vote(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    return ann, await ann.command("/accept")


async def _vote_running(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann, bob = await _gone_in_a_game(server)
    assert (await ann.command("/remove cid"))["type"] == "ack"
    return bob, await bob.command("/remove cid")


async def _too_soon(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann, _ = await _in_room(server, "ann", "bob", start=True)
    return ann, await ann.command("/remove bob")


async def _started_and_zoe(server: Server, *names: str) -> tuple[list[WsClient], WsClient]:
    """``names`` in a started game in room ``codes``; zoe watches it."""
    players = await _in_room(server, *names, start=True)
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/room codes"))["type"] == "ack"
    return players, zoe


async def _bad_seat(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    _, zoe = await _started_and_zoe(server, "ann", "bob")
    return zoe, await zoe.command("/join 4")


async def _seat_taken(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    _, zoe = await _started_and_zoe(server, "ann", "bob")
    return zoe, await zoe.command("/join 1")


async def _no_voters(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann, bob), zoe = await _started_and_zoe(server, "ann", "bob")
    for gone in (ann, bob):
        await gone.close()
        gone.name = None
        await zoe.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    return zoe, await zoe.command("/join 2")


async def _voted_out(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann, bob, cid = await _in_room(server, "ann", "bob", "cid", start=True)
    token = cid.token
    await cid.close()
    cid.name = None  # closed: the checks of the others' inboxes pass it over
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    assert (await ann.command("/remove cid"))["type"] == "ack"
    assert (await bob.command("/accept"))["type"] == "ack"
    await ann.next(lambda x: x["type"] == "vote" and x["state"] == "passed")
    cid = await WsClient.connect(server.port, "cid", token=token)
    assert (await cid.command("/room codes"))["type"] == "ack"
    return cid, await cid.command("/join 3")


async def _not_invited(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    assert (await ann.command("/option private on"))["type"] == "ack"
    zoe = await WsClient.connect(server.port, "zoe")
    return zoe, await zoe.command("/room codes")


async def _already_playing(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    assert (await ann.command("/addbot"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    return ann, await ann.command("/seek")


async def _queue_full(server: Server, monkeypatch: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    from server.lobby import seeking

    monkeypatch.setattr(seeking, "SEEKERS_MAX", 0)
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "seek"})


async def _not_seeking(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.command("/unseek")


#: code -> (how to provoke it, server settings)
async def _finished_games(server: Server, count: int) -> list[str]:
    """``count`` finished games of ann and bob (bob leaves each at once: absent drop), oldest first."""
    ann, bob = await WsClient.connect(server.port, "gameann"), await WsClient.connect(server.port, "gamebob")
    for n in range(count):
        for client in (ann, bob):
            assert (await client.command(f"/join over{n}"))["type"] == "ack"
        assert (await ann.command("/option absent drop"))["type"] == "ack"
        assert (await ann.command("/start"))["type"] == "ack"
        assert (await bob.command("/leave"))["type"] == "ack"
        await ann.next("game_over")
    assert isinstance(server.store, Store)
    return [g.game_id for g in reversed(server.store.games_named("gameann", count))]


async def _no_such_game(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    (ann,) = await _in_room(server, "ann")
    return ann, await ann.request({"type": "analyse", "game": "0000000000000000"})


async def _not_finished(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann, _bob = await _in_room(server, "ann", "bob", start=True)
    assert isinstance(server.store, Store)
    return ann, await ann.command(f"/analyse {server.store.games_named('ann', 1)[0].game_id}")


async def _analysis_pending(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    first, second = await _finished_games(server, 2)
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "analyse", "game": first}))["state"] == "queued"
    return ann, await ann.request({"type": "analyse", "game": second})


async def _analysis_busy(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    games = await _finished_games(server, 3)
    for name, game in zip(("ann", "bob"), games, strict=False):  # one running, one queued
        asker = await WsClient.connect(server.port, name)
        assert (await asker.request({"type": "analyse", "game": game}))["state"] == "queued"
    cy = await WsClient.connect(server.port, "cy")
    return cy, await cy.request({"type": "analyse", "game": games[2]})


async def _too_many_analyses(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    games = await _finished_games(server, 4)
    for name, game in zip(("ann", "bob", "cy"), games, strict=False):  # one address: three times the rate
        asker = await WsClient.connect(server.port, name)
        assert (await asker.request({"type": "analyse", "game": game}))["state"] == "queued"
    dan = await WsClient.connect(server.port, "dan")
    return dan, await dan.request({"type": "analyse", "game": games[3]})


async def _tournament(server: Server) -> WsClient:
    """ann, registered, has made the tournament ``cup`` (starting in ten minutes)."""
    ann = await _registered(server)
    assert (await ann.command("/tournament new cup swiss 3 start +10m"))["type"] == "tournament"
    return ann


async def _no_such_tournament(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await WsClient.connect(server.port, "ann")
    return ann, await ann.request({"type": "tournament", "action": "join", "name": "nope"})


async def _tournament_exists(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _tournament(server)
    return ann, await ann.command("/tournament new CUP arena 30")


async def _tournament_closed(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _tournament(server)
    assert (await ann.command("/tournament close cup"))["type"] == "ack"
    bob = await WsClient.connect(server.port, "bob")
    return bob, await bob.command("/tournament join cup")


async def _not_entered(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    await _tournament(server)
    bob = await WsClient.connect(server.port, "bob")
    return bob, await bob.command("/tournament leave cup")


async def _not_organizer(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    await _tournament(server)
    bob = await WsClient.connect(server.port, "bob")
    return bob, await bob.command("/tournament close cup")


async def _too_many_tournaments(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _registered(server)
    for name in ("t1", "t2", "t3"):
        assert (await ann.command(f"/tournament new {name} arena 30 start +10m"))["type"] == "tournament"
    return ann, await ann.command("/tournament new t4 arena 30")


async def _tournament_full(server: Server, patch: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    patch.setattr("server.tournament.commands.TOURNAMENT_ENTRANTS_MAX", 1)
    await _tournament(server)
    bob = await WsClient.connect(server.port, "bob")
    return bob, await bob.command("/tournament join cup")


async def _staff(server: Server, name: str = "ann", role: str = "admin") -> WsClient:
    """``name`` registered and given ``role`` by the operator."""
    client = await _registered(server, name)
    assert await server.store.role_set(name, role, by="(operator)")  # type: ignore[arg-type]
    return client


async def _not_staff(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    bob = await WsClient.connect(server.port, "bob")
    return bob, await bob.command("/modlog")


async def _staff_protected(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    mod = await _staff(server, "mia", "moderator")
    await _staff(server, "boss", "admin")
    return mod, await mod.command("/kick boss")


async def _bad_duration(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _staff(server)
    return ann, await ann.request({"type": "moderate", "action": "ban", "name": "bob", "duration": "soon"})


async def _banned(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _staff(server)
    assert (await ann.command("/ban troll 1d spam"))["type"] == "ack"
    troll = await WsClient.connect(server.port)
    return troll, await troll.request({"type": "hello", "name": "troll"})


async def _kicked(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _staff(server)
    kid = await _registered(server, "kid")
    assert (await ann.command("/kick kid"))["type"] == "ack"
    await kid.next("bye")
    kid.name = None  # (its connection is closed)
    again = await WsClient.connect(server.port)
    return again, await again.request({"type": "hello", "name": "kid", "password": PASSWORD})


async def _silenced(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _staff(server)
    bob = await WsClient.connect(server.port, "bob")
    assert (await ann.command("/silence bob 1h"))["type"] == "ack"
    return bob, await bob.request({"type": "say", "text": "hi"})


async def _no_such_report(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _staff(server)
    return ann, await ann.command("/resolve 9")


async def _no_such_room(server: Server, _: pytest.MonkeyPatch) -> tuple[WsClient, Answer]:
    ann = await _staff(server)
    return ann, await ann.command("/close nowhere")


CASES: dict[str, tuple[Provoke, dict[str, Any]]] = {
    "hello_first": (_hello_first, {}),
    "already_welcome": (_already_welcome, {}),
    "bad_name": (_bad_name, {}),
    "name_taken": (_name_taken, {}),
    "name_reserved": (_name_reserved, {}),
    "bad_token": (_bad_token, {}),
    "not_in_room": (_not_in_room, {}),
    "bad_room": (_bad_room, {}),
    "room_full": (_room_full, {}),
    "already_seated": (_already_seated, {}),
    "not_seated": (_not_seated, {}),
    "game_running": (_game_running, {}),
    "no_game": (_no_game, {}),
    "not_enough_players": (_not_enough_players, {}),
    "too_many_bot_games": (_too_many_bot_games, {"max_bot_games": 0}),
    "no_such_bot": (_no_such_bot, {}),
    "bad_option": (_bad_option, {}),
    "too_many_rooms": (_too_many_rooms, {"max_rooms": 1}),
    "server_full": (_server_full, {"max_connections": 1}),
    "shutting_down": (_shutting_down, {}),
    "unavailable": (_unavailable, {}),
    "not_in_lobby": (_not_in_lobby, {}),
    "internal": (_internal, {}),
    "bad_json": (_bad_json, {}),
    "unknown_type": (_unknown_type, {}),
    "bad_field": (_bad_field, {}),
    "unknown_command": (_unknown_command, {}),
    "bad_arguments": (_bad_arguments, {}),
    "too_large": (_too_large, {"max_line": 1024}),
    "rate_limited": (_rate_limited, {"chat_rate": 0.001, "chat_burst": 1}),
    "empty_message": (_empty_message, {}),
    "bad_utf8": (_bad_utf8, {}),
    "bad_language": (_bad_language, {}),
    "weak_password": (_weak_password, {}),
    "name_registered": (_name_registered, {}),
    "bad_password": (_bad_password, {}),
    "too_many_attempts": (_too_many_attempts, {"login_attempts": 1}),
    "not_registered": (_not_registered, {}),
    "no_such_player": (_no_such_player, {}),
    "not_connected": (_not_connected, {}),
    "no_reply": (_no_reply, {}),
    "bad_target": (_bad_target, {}),
    "list_full": (_list_full, {}),
    "not_host": (_not_host, {}),
    "no_vote": (_no_vote, {}),
    "vote_running": (_vote_running, {}),
    "too_soon": (_too_soon, {}),
    "bad_seat": (_bad_seat, {}),
    "seat_taken": (_seat_taken, {}),
    "no_voters": (_no_voters, {}),
    "voted_out": (_voted_out, {}),
    "no_hints": (_no_hints, {}),
    "not_invited": (_not_invited, {}),
    "no_such_tournament": (_no_such_tournament, {}),
    "tournament_exists": (_tournament_exists, {}),
    "tournament_closed": (_tournament_closed, {}),
    "not_entered": (_not_entered, {}),
    "not_organizer": (_not_organizer, {}),
    "too_many_tournaments": (_too_many_tournaments, {}),
    "tournament_full": (_tournament_full, {}),
    "no_such_game": (_no_such_game, {}),
    "not_finished": (_not_finished, {}),
    "analysis_pending": (_analysis_pending, {"analysis_budget": 5}),
    "analysis_busy": (_analysis_busy, {"analysis_budget": 5, "analysis_queue": 1}),
    "too_many_analyses": (_too_many_analyses, {"analysis_budget": 5, "analysis_rate": 1}),
    "not_staff": (_not_staff, {}),
    "staff_protected": (_staff_protected, {}),
    "bad_duration": (_bad_duration, {}),
    "banned": (_banned, {}),
    "kicked": (_kicked, {}),
    "silenced": (_silenced, {}),
    "no_such_report": (_no_such_report, {}),
    "no_such_room": (_no_such_room, {}),
    "already_playing": (_already_playing, {}),
    "queue_full": (_queue_full, {}),
    "not_seeking": (_not_seeking, {}),
}


@pytest.mark.parametrize("code", sorted(CASES))
async def test_the_server_sends_each_protocol_and_server_code(
    code: str, make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each code arrives as an ``error`` with a sentence, to the sender alone, who can go on."""
    provoke, settings = CASES[code]
    server: Server = await make_server(**settings)
    sender, answer = await provoke(server, monkeypatch)
    assert answer["type"] == "error" and answer["code"] == code, answer
    assert answer["message"]
    if sender is None:
        return
    if sender.name is None:  # refused before hello: a hello now is the proof it can go on
        assert (await sender.request({"type": "hello", "name": "later"}))["type"] == "welcome"
    await sender.barrier()
    sent = [m for m in sender.messages if m["type"] == "error"]
    assert [m["code"] for m in sent] == [code]
    for other in clients.OPEN:
        # (a client the test closed, or the server closed, can be told nothing more)
        if (
            isinstance(other, WsClient)
            and other is not sender
            and other.name is not None
            and other.ws.state is State.OPEN
        ):
            await other.barrier()
            assert not [m for m in other.messages if m["type"] == "error"], other.name


#: the seed of the games in which the rules refuse a move below
RULE_SEED = 21
#: rule code -> (how many moves are played first, each the first legal move of whoever is to
#: move, as the engine lists them; the move the rules then refuse)
RULE_CASES: dict[str, tuple[int, str]] = {
    "chair_taken": (1, "CUm@CN1e"),
    "wrong_nation": (0, "FRf@GB1n"),
    "gender": (1, "ESf@FR1s"),
    "alone": (1, "CUm@US1s"),
    "joker_to_bar": (12, "Jm@bar"),
    "bad_swap": (0, "swap FRf@GB1n"),
}


@pytest.mark.parametrize("code", sorted(RULE_CASES))
async def test_the_rules_refusals_reach_the_mover_alone_over_a_socket(code: str, server: Server) -> None:
    """A move the rules refuse is answered with the rule's code and sentence, to the mover alone,
    and changes nothing: no ``played``, the same move number for everyone."""
    before, refused = RULE_CASES[code]
    ann, bob = await _in_room(server, "ann", "bob")
    assert (await ann.command(f"/option seed {RULE_SEED}"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    players = {"ann": ann, "bob": bob}
    position = new_position(tuple(players), RULE_SEED)
    for _ in range(before):
        move = legal_move_texts(position)[0]
        mover = players[position.players[position.to_move].name]
        assert (await mover.request({"type": "move", "move": move}))["type"] == "ack"
        position = play(position, move).position
    mover = players[position.players[position.to_move].name]
    answer = await mover.request({"type": "move", "move": refused})
    assert (answer["type"], answer["code"]) == ("error", code), answer
    assert answer["message"]
    for client in players.values():
        await client.barrier()
        errors = [m["code"] for m in client.messages if m["type"] == "error"]
        assert errors == ([code] if client is mover else [])
        assert len([m for m in client.messages if m["type"] == "played"]) == before
        assert client.view is not None and client.view["game"]["move_number"] == before


def test_every_protocol_and_server_code_has_a_case() -> None:
    """The table above provokes every protocol and server code of the catalogue, and no other."""
    assert set(CASES) == set(PROTOCOL_ERROR_CODES) | set(SERVER_ERROR_CODES)


def _sent_codes() -> set[str]:
    """The literal error codes in the server's and protocol's sources."""
    forms = (
        r'ProtocolError\(\s*"(\w+)"',
        r'\berror\(\s*[\w.]+,\s*"(\w+)"',  # lobby.error(session, "code", ...), room._error(...)
        r'_error\(\s*[\w.]+,\s*"(\w+)"',
        r'code="(\w+)"',
        r'\bReply\(\s*[\w.]+,\s*"(\w+)"',  # the room core's answer
        r'\brefuse\(\s*[\w.]+,\s*"(\w+)"',  # Metrics.refuse(session, "code", ...)
        r'PydanticCustomError\(\s*"(\w+)"',  # a message model's own refusal
        r'\brefused\(\s*"(\w+)"',  # the same, with its sentence to translate (protocol.validation)
    )
    codes: set[str] = set()
    for package in ("server", "protocol"):
        for path in (ROOT / package).rglob("*.py"):
            source = path.read_text()
            for form in forms:
                codes.update(re.findall(form, source))
    return codes


def test_every_code_the_server_sends_is_in_the_catalogue_and_every_catalogue_code_is_sent() -> None:
    """The codes written in the server's sources are all in the catalogue, and every protocol and
    server code of the catalogue is among them; the engine's refusals are the rule codes (and
    leave's own)."""
    sent = _sent_codes()
    assert sent <= set(ERROR_CODES)
    assert set(PROTOCOL_ERROR_CODES) | set(SERVER_ERROR_CODES) <= sent
    engine_codes: set[str] = set()
    for path in (ROOT / "engine").rglob("*.py"):
        engine_codes.update(re.findall(r'IllegalMoveError\(\s*"(\w+)"', path.read_text()))
    assert engine_codes and engine_codes <= set(RULE_ERROR_CODES) | set(LEAVE_ERROR_CODES)


_BRACKETED = re.compile(r"\[([a-z_]+)\]")


def _holds_a_code(node: ast.AST) -> bool:
    """Whether ``node`` reads an error code: ``x["code"]``, ``x.code``, ``x.codes(...)``, or a
    name ``code``."""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in ("code", "codes"):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value == "code":
            return True
        if isinstance(n, ast.Name) and n.id in ("code", "codes"):
            return True
    return False


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _column(table: ast.AST, index: int, tables: dict[str, ast.AST]) -> set[str]:
    """The strings in column ``index`` of a literal table (or of a module's name bound to one)."""
    if isinstance(table, ast.Name):
        table = tables.get(table.id, table)
    if not isinstance(table, ast.List | ast.Tuple | ast.Set):
        return set()
    found: set[str] = set()
    for row in table.elts:
        if isinstance(row, ast.Call) and isinstance(row.func, ast.Attribute) and row.func.attr == "param":
            items = row.args
        else:
            items = row.elts if isinstance(row, ast.Tuple | ast.List) else [row]
        if index < len(items) and isinstance(items[index], ast.Constant):
            found |= _strings(items[index])
    return found


def _argnames(names: ast.AST) -> list[str]:
    if isinstance(names, ast.Constant) and isinstance(names.value, str):
        return [name.strip() for name in names.value.split(",")]
    if isinstance(names, ast.Tuple | ast.List):
        return [str(e.value) for e in names.elts if isinstance(e, ast.Constant)]
    return []


def _parse(source: str) -> ast.Module:
    """``ast.parse`` with the cyclic garbage collector paused.

    CPython 3.11 counts the depth of every tree it turns into Python objects in one counter
    (python/cpython issue 106905, fixed in later releases): a parse that starts while another is
    under way makes the outer one fail with "SystemError: AST constructor recursion depth
    mismatch". A collection during a parse can start one: it runs finalizers, a ResourceWarning
    from one is an error under ``filterwarnings = error``, and pytest's unraisable-exception hook
    formats it with ``traceback``, which on 3.11 parses the failing line. With the collector
    paused no finalizer runs in the middle of this parse.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(source)
    finally:
        if collecting:
            gc.enable()


def asserted_codes(source: str) -> set[str]:
    """The strings a test module checks as error codes: compared with something that reads a code
    (``answer["code"] == "x"``, ``(e.code, e.id) == ("x", 1)``, ``.codes(ann) == ["x"]``), passed as
    ``code="x"`` or under the key ``"code"``, in the column named ``code`` of a table a loop or a
    parametrized test reads, or written in an error line's brackets (``"[x]"``). A string that is
    only quoted (a room called ``"alone"``) is none.
    """
    tree = _parse(source)
    tables: dict[str, ast.AST] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
            tables[statement.targets[0].id] = statement.value
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            tables[statement.target.id] = statement.value or statement.target
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_holds_a_code(side) for side in sides):
                found.update(*(_strings(side) for side in sides if not _holds_a_code(side)))
        elif isinstance(node, ast.keyword) and node.arg == "code" and isinstance(node.value, ast.Constant):
            found |= _strings(node.value)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "code" and isinstance(value, ast.Constant):
                    found |= _strings(value)
        elif isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Tuple):
            for i, target in enumerate(node.target.elts):
                if isinstance(target, ast.Name) and "code" in target.id:
                    found |= _column(node.iter, i, tables)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "parametrize" and node.args[1:]:
            for i, name in enumerate(_argnames(node.args[0])):
                if "code" in name:
                    found |= _column(node.args[1], i, tables)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(_BRACKETED.findall(node.value))
    return found


def test_a_code_counts_as_asserted_only_where_it_is_checked_as_a_code() -> None:
    """A comparison with a code, a ``code=`` argument, a table's ``code`` column and an error
    line's brackets count; a room or a word of the same spelling does not."""
    checked = {
        'assert answer["code"] == "alone"': {"alone"},
        'assert (e.code, e.id) == ("gender", 3)': {"gender"},
        'assert d.feed(ann, move).codes(ann) == ["bad_swap"]': {"bad_swap"},
        'expected = Error(code="chair_taken", message="taken")': {"chair_taken"},
        'for move, code in (("FRf@GB1n", "wrong_nation"),): pass': {"wrong_nation"},
        'T = [(f, "joker_to_bar", "")]\n@pytest.mark.parametrize(("f", "code", "text"), T)\ndef t(): pass': {
            "joker_to_bar"
        },
        'await line.expect("! Too long. [too_large]")': {"too_large"},
        'assert "alone" not in server.lobby.rooms': set(),
        'await ann.command("/join alone")\nassert ann.name == "gender"': set(),
    }
    for source, codes in checked.items():
        assert asserted_codes(source) & set(ERROR_CODES) == codes, source


class _ParsesWhenCollected:
    """Garbage for the collector (it refers to itself) whose finalizer parses, as a ResourceWarning
    reported by pytest's unraisable-exception hook does."""

    def __init__(self) -> None:
        self.itself = self

    def __del__(self) -> None:
        ast.parse("(a + b) * c")


def test_a_test_file_is_parsed_even_when_a_collection_runs_a_parse_meanwhile() -> None:
    """``_parse`` reads a test module whole while the collector, run at every allocation, has
    finalizers to run that parse too (on CPython 3.11 a bare ``ast.parse`` fails here with
    "AST constructor recursion depth mismatch")."""
    source = "\n".join(f"def f{i}(x):\n    return [y for y in x if (y + {i}) * 2]" for i in range(200))
    thresholds = gc.get_threshold()
    gc.set_threshold(1)
    try:
        for _ in range(20):
            _ParsesWhenCollected()
            tree = _parse(source)
            assert len(tree.body) == 200
    finally:
        gc.set_threshold(*thresholds)
    gc.collect()  # the finalizers' parses, now


def test_every_catalogue_code_is_asserted_by_some_test() -> None:
    """Each code of the catalogue is provoked over a socket by the tables above, or another test
    checks it as an error code (``asserted_codes``): a code that is only quoted, as a room name or
    a word, does not count."""
    asserted: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        if path.resolve() != Path(__file__).resolve():
            asserted |= asserted_codes(path.read_text())
    provoked = set(CASES) | set(RULE_CASES)
    unasserted = [code for code in ERROR_CODES if code not in provoked and code not in asserted]
    assert unasserted == []


async def test_a_line_client_turned_away_reads_the_code_as_its_only_line(make_server: ServerFactory) -> None:
    """A terminal client that connects to a full server gets one line with ``[server_full]``, then
    the connection closes."""
    server: Server = await make_server(max_connections=1)
    await WsClient.connect(server.port, "ann")
    assert server.line_port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", server.line_port)
    try:
        received = await asyncio.wait_for(reader.read(), clients.TIMEOUT)  # to the end: it closes
    finally:
        writer.close()
    assert received.decode().splitlines() == ["! The server is full; try again later. [server_full]"]

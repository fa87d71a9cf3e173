"""The plain HTTP paths beside /ws: health, metrics, the page, game records."""

from __future__ import annotations

import asyncio
import json
import re

from server.app import Server
from tests.server.clients import MAX_TURNS, WsClient


async def _get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    await writer.wait_closed()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


async def test_healthz_answers_ok_as_json(server: Server) -> None:
    """/healthz is 200 with status ok, the room and connection counts."""
    status, headers, body = await _get(server.port, "/healthz")
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == {"status": "ok", "rooms": 0, "connections": 0}


async def test_metrics_count_connections_moves_and_errors(server: Server) -> None:
    """/metrics is Prometheus text with connections, rooms, games, moves, messages received, errors and
    move latency."""
    client = await WsClient.connect(server.port, "ann")
    await client.command("/join m1")
    await client.command("/addbot random")
    await client.command("/jion")
    await client.command("/start")
    started = await client.next("game_started")
    if started["start_player"] == "ann":
        legal = (await client.request({"type": "legal_moves"}))["moves"]
        await client.request({"type": "move", "move": legal[0]})
    await client.next("played")
    status, headers, body = await _get(server.port, "/metrics")
    text = body.decode()
    assert status == 200 and headers["content-type"].startswith("text/plain")
    assert 'cafe_connections{transport="ws"} 1.0' in text
    assert "cafe_rooms 1.0" in text
    assert "cafe_games_started_total" in text
    assert 'cafe_errors_total{code="unknown_command"}' in text
    assert "cafe_move_seconds_bucket" in text
    assert "cafe_moves_total 1.0" in text or "cafe_moves_total 2.0" in text
    assert "cafe_games_running 1.0" in text
    received = re.search(r'cafe_messages_received_total\{transport="ws"\} (\d+)', text)
    assert received is not None and int(received[1]) >= 5  # hello, 3 commands, start (+ a move)


async def test_root_serves_the_web_page_and_unknown_paths_404(server: Server) -> None:
    """/ is an HTML page; a path outside the static folder is 404, also with ../ tricks."""
    status, headers, body = await _get(server.port, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"Caf" in body
    assert (await _get(server.port, "/nothing-here"))[0] == 404
    assert (await _get(server.port, "/../pyproject.toml"))[0] == 404
    assert (await _get(server.port, "/%2e%2e/pyproject.toml"))[0] == 404


async def test_games_path_returns_a_record_the_engine_replays(server: Server) -> None:
    """GET /games/ID of a finished game gives a record with seed and moves that replays to its result."""
    from engine import load_record, outcome, replay
    from engine.game import verify

    client = await WsClient.connect(server.port, "ann")
    await client.command("/join rec")
    await client.command("/addbot random")
    await client.command("/addbot random")
    await client.command("/leave")
    assert not server.lobby.rooms  # a room with only bots and nobody in it goes away
    await client.command("/join rec")
    await client.command("/addbot greedy")
    await client.command("/start")
    for _ in range(MAX_TURNS):
        message = await client.next(lambda m: m["type"] in ("game_over", "patch"))
        if message["type"] == "game_over":
            break
        game = client.view["game"] if client.view else None
        if game and game["to_move"] == "ann" and game["over"] is None:
            legal = (await client.request({"type": "legal_moves"}))["moves"]
            await client.request({"type": "move", "move": legal[-1]})
    else:
        raise AssertionError("the game did not end")
    games = await server.store.history("ann")
    assert len(games) == 1
    status, _, body = await _get(server.port, f"/games/{games[0].game_id}")
    assert status == 200
    data = json.loads(body)
    final = outcome(replay(load_record(body)).position)
    assert final is not None and data["result"]["final_scores"] == dict(final.final_scores)
    assert verify(data)["ok"] is True
    data["seed"] += 1
    assert verify(data)["ok"] is False
    assert (await _get(server.port, "/games/nope"))[0] == 404

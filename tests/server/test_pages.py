"""The pages beside the game: the rules at /rules, and a finished game's replay for people and programs."""

from __future__ import annotations

import json

import engine
from engine import replay
from server.app import Server
from tests.server.clients import WsClient
from tests.server.test_http import _request


async def test_rules_page_is_the_projects_rules_as_html(server: Server) -> None:
    """/rules answers docs/rules.md as an HTML page, under the page's security headers, with no script."""
    status, headers, body = await _request(server.port, "GET", "/rules")
    page = body.decode()
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "content-security-policy" in headers
    assert "<h1>How to play Café International</h1>" in page
    assert "<h2>11. Writing moves</h2>" in page and "<table>" in page
    assert "<script" not in page and "style=" not in page
    assert 'href="/"' in page  # back to the café


async def test_help_points_to_the_rules(server: Server) -> None:
    """/help's list names the rules page."""
    client = await WsClient.connect(server.port, "hal")
    await client.send({"type": "command", "text": "/help"})
    text = await client.next(lambda m: m["type"] == "text")
    assert "/rules" in text["text"]


async def _finished_game(server: Server, name: str, room: str) -> str:
    client = await WsClient.connect(server.port, name)
    await client.command(f"/join {room}")
    await client.command("/addbot greedy")
    await client.command("/start")
    while True:
        message = await client.next(lambda m: m["type"] in ("game_over", "patch"))
        if message["type"] == "game_over":
            break
        game = client.view["game"] if client.view else None
        if game and game["to_move"] == name and game["over"] is None:
            legal = (await client.request({"type": "legal_moves"}))["moves"]
            await client.request({"type": "move", "move": legal[0]})
    return server.store.games_named(name)[0].game_id  # type: ignore[attr-defined, no-any-return]


async def test_a_finished_game_opens_a_viewer_in_a_browser_and_json_elsewhere(server: Server) -> None:
    """/games/ID gives a browser the viewer and programs the record; /api/games/ID is always the record."""
    game_id = await _finished_game(server, "vic", "viewer")
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    status, headers, body = await _request(server.port, "GET", f"/games/{game_id}", browser)
    assert status == 200 and headers["content-type"].startswith("text/html") and b"replay.js" in body
    assert headers["vary"] == "Accept"
    for path, accept in ((f"/games/{game_id}", "*/*"), (f"/api/games/{game_id}", "text/html")):
        status, headers, body = await _request(server.port, "GET", path, {"Accept": accept})
        assert status == 200 and headers["content-type"] == "application/json"
        assert json.loads(body)["id"] == game_id


async def test_replay_steps_are_the_engines_public_positions(server: Server) -> None:
    """/api/games/ID/replay lists the deal and the position after every move, with no hand or deck."""
    game_id = await _finished_game(server, "rex", "steps")
    status, _, body = await _request(server.port, "GET", f"/api/games/{game_id}/replay")
    assert status == 200
    data = json.loads(body)
    stored = await server.store.game(game_id)
    assert stored is not None
    assert len(data["steps"]) == len(stored.record.moves) + 1
    assert data["steps"][0]["move"] is None and data["steps"][0]["game"]["chairs"] == {}
    assert [s["move"]["move"] for s in data["steps"][1:]] == list(stored.record.moves)
    final = replay(stored.record).position
    last = data["steps"][-1]["game"]
    assert last["chairs"] == engine.view(final, None)["chairs"] and last["chairs"]
    assert [p["score"] for p in last["players"]] == [p.score for p in final.players]
    assert stored.result is not None and last["result"]["ranking"] == stored.result["ranking"]
    assert '"hand"' not in body.decode() and '"deck"' not in body.decode()


async def test_a_running_game_has_no_replay_yet(server: Server) -> None:
    """The replay of a game still running, or of no game, is 404."""
    client = await WsClient.connect(server.port, "ray")
    await client.command("/join running")
    await client.command("/addbot greedy")
    await client.command("/start")
    game = server.lobby.rooms["running"].core.game
    assert game is not None and game.outcome is None
    assert (await _request(server.port, "GET", f"/api/games/{game.game_id}/replay"))[0] == 404
    assert (await _request(server.port, "GET", "/api/games/nope/replay"))[0] == 404


async def test_rules_page_in_german_by_query_or_browser_language(server: Server) -> None:
    """/rules?lang=de, or a browser asking for German first, answers the German rules; any other
    language the English ones."""
    status, _, body = await _request(server.port, "GET", "/rules?lang=de")
    page = body.decode()
    assert status == 200 and '<html lang="de">' in page
    assert "<h1>So spielt man Café International</h1>" in page and "Zurück ins Café" in page
    assert "<h2>11. Züge schreiben</h2>" in page and "FRf@FR1s" in page
    _, _, body = await _request(server.port, "GET", "/rules", headers={"Accept-Language": "de-AT,de;q=0.9"})
    assert "So spielt man" in body.decode()
    _, _, body = await _request(server.port, "GET", "/rules?lang=fr", headers={"Accept-Language": "fr"})
    assert "<h1>How to play Café International</h1>" in body.decode()

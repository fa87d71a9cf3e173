"""The plain HTTP paths beside /ws: health, metrics, the page, game records."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re

import pytest
import structlog.testing
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from server import logs
from server.app import Server
from server.net import http
from server.net.http import same_origin
from tests.examples import run_examples
from tests.server.clients import MAX_TURNS, WsClient, http_get
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api

#: the headers of a WebSocket opening handshake
_UPGRADE = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
}


async def test_healthz_answers_ok_as_json(server: Server) -> None:
    """/healthz is 200 with status ok, the room and connection counts."""
    status, headers, body = await http_get(server.port, "/healthz")
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
    status, headers, body = await http_get(server.port, "/metrics")
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
    status, headers, body = await http_get(server.port, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"Caf" in body
    assert (await http_get(server.port, "/nothing-here")).status == 404
    assert (await http_get(server.port, "/../pyproject.toml")).status == 404
    assert (await http_get(server.port, "/%2e%2e/pyproject.toml")).status == 404


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
    ann = server.lobby.directory.session("ann")
    assert ann is not None and ann.identity is not None
    games = await server.store.history(ann.identity)
    assert len(games) == 1
    status, _, body = await http_get(server.port, f"/games/{games[0].game_id}")
    assert status == 200
    data = json.loads(body)
    final = outcome(replay(load_record(body)).position)
    assert final is not None and data["result"]["final_scores"] == dict(final.final_scores)
    assert verify(data)["ok"] is True
    data["seed"] += 1
    assert verify(data)["ok"] is False
    assert (await http_get(server.port, "/games/nope")).status == 404


async def test_a_practice_game_shows_no_fingerprint_of_its_seed_until_the_end(server: Server) -> None:
    """A seed typed for the room is a small number whose sha256 anyone could find by trying: a
    practice game's ``game_started`` and its running record carry ``seed_hash`` null; a game dealt
    from a seed the server drew carries the fingerprint, which its finished record matches."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join practice")
    assert (await ann.command("/option seed 42"))["type"] == "ack"
    await ann.command("/addbot greedy")
    assert (await ann.command("/start"))["type"] == "ack"
    started = await ann.next("game_started")
    assert started["practice"] is True and started["seed_hash"] is None
    game = server.lobby.rooms["practice"].core.game
    assert game is not None
    record = (await http_get(server.port, f"/api/games/{game.game_id}")).json()
    assert record["seed_hash"] is None and "seed" not in record
    bob = await WsClient.connect(server.port, "bob")
    await bob.command("/join drawn")
    await bob.command("/addbot greedy")
    assert (await bob.command("/start"))["type"] == "ack"
    started = await bob.next("game_started")
    game = server.lobby.rooms["drawn"].core.game
    assert game is not None and started["practice"] is False
    assert started["seed_hash"] == hashlib.sha256(str(game.seed).encode()).hexdigest()
    record = (await http_get(server.port, f"/api/games/{game.game_id}")).json()
    assert record["seed_hash"] == started["seed_hash"] and "seed" not in record


# --- hardening --------------------------------------------------------------------------------

SECURITY_HEADERS = ("x-content-type-options", "content-security-policy", "referrer-policy")


async def _request(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, *, host: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """An HTTP request, its ``Host`` the address it goes to unless ``host`` names another."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    writer.write(
        f"{method} {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n{extra}"
        "Connection: close\r\n\r\n".encode()
    )
    await writer.drain()
    # the head, then the body by its length (a 101 has none: the socket stays open for frames)
    head = (await reader.readuntil(b"\r\n\r\n")).decode()
    lines = head.removesuffix("\r\n\r\n").split("\r\n")
    status = int(lines[0].split()[1])
    fields = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = 0 if status == 101 or method == "HEAD" else int(fields.get("content-length", "0"))
    body = await reader.readexactly(length)
    if method == "HEAD":
        assert await reader.read() == b"", "a body after a HEAD answer"
    writer.close()
    await writer.wait_closed()
    return status, fields, body


def _security_events(metrics: str, event: str) -> float:
    found = re.search(rf'cafe_security_events_total\{{event="{event}"\}} ([0-9.]+)', metrics)
    return float(found[1]) if found else 0.0


@pytest.mark.parametrize(
    "path",
    [
        "/" + "a" * 5000,
        "/" + "a/" * 3000,
        "/../server/net/http.py",
        "/../../../../etc/passwd",
        "/%2e%2e/server/net/http.py",
        "//etc/passwd",
        "/style.css/..%2f..%2fhttp.py",
        "/nothing-here.js",
        "/games",
    ],
)
async def test_a_path_that_is_no_file_is_404(server: Server, path: str) -> None:
    """Any path that is not a file of the page, however long or however it climbs, is 404."""
    status, headers, _ = await _request(server.port, "GET", path)
    assert status == 404
    assert all(name in headers for name in SECURITY_HEADERS)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "TRACE", "OPTIONS", "PATCH", "CONNECT"])
async def test_methods_other_than_get_and_head_are_405(server: Server, method: str) -> None:
    """POST, PUT, DELETE, TRACE and the rest get 405 with Allow: GET, HEAD, and no page."""
    status, headers, body = await _request(server.port, method, "/")
    assert status == 405
    assert headers["allow"] == "GET, HEAD"
    assert b"<html" not in body
    status, headers, _ = await _request(server.port, method, "/ws")
    assert (status, headers["allow"]) == (405, "GET")
    _, _, metrics = await _request(server.port, "GET", "/metrics")
    assert _security_events(metrics.decode(), "method_refused") == 2


async def test_head_of_ws_is_405_and_a_request_with_a_body_is_closed_unanswered(server: Server) -> None:
    """``/ws`` takes GET alone (HEAD is 405, Allow: GET); a request with a body, which the
    WebSocket library's parser does not read, is closed without an answer, and the server goes on."""
    status, headers, _ = await _request(server.port, "HEAD", "/ws")
    assert (status, headers["allow"]) == (405, "GET")
    for framing in ("Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\n"):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(f"POST /livez HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n{framing}\r\na=b&c".encode())
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 5) == b"", framing
        writer.close()
    status, _, _ = await _request(server.port, "GET", "/livez")
    assert status == 200


async def test_head_answers_without_a_body(server: Server) -> None:
    """HEAD gives GET's status and headers, the length included, and no body."""
    status, headers, body = await _request(server.port, "GET", "/")
    head_status, head_headers, head_body = await _request(server.port, "HEAD", "/")
    assert (head_status, head_body) == (status, b"")
    assert head_headers["content-length"] == headers["content-length"] == str(len(body))
    assert head_headers["content-type"] == headers["content-type"]


@pytest.mark.parametrize("path", ["/", "/app.js", "/healthz", "/metrics", "/games/none", "/missing"])
async def test_every_answer_carries_the_security_headers(server: Server, path: str) -> None:
    """nosniff, a Content-Security-Policy that forbids framing, and a Referrer-Policy on every answer."""
    _, headers, _ = await _request(server.port, "GET", path)
    assert headers["x-content-type-options"] == "nosniff"
    csp = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert headers["referrer-policy"] == "no-referrer"


async def test_a_websocket_from_a_page_of_another_origin_is_403(server: Server) -> None:
    """By default a page of another origin may not open /ws (403, counted); the page's own origin
    may, and a client that sends no Origin may."""
    origin = f"http://127.0.0.1:{server.port}"
    status, headers, _ = await _request(
        server.port, "GET", "/ws", {"Origin": "https://evil.example", **_UPGRADE}
    )
    assert status == 403 and "content-security-policy" in headers
    status, _, _ = await _request(
        server.port, "GET", "/ws", {"Origin": f"http://127.0.0.1:{server.port + 1}", **_UPGRADE}
    )
    assert status == 403
    with pytest.raises(InvalidStatus) as refused:
        await connect(f"ws://127.0.0.1:{server.port}/ws", origin=Origin("http://localhost.evil.example"))
    assert refused.value.response.status_code == 403
    async with connect(f"ws://127.0.0.1:{server.port}/ws", origin=Origin(origin)) as ws:
        await ws.send('{"type": "hello", "name": "samesite"}')
        assert '"welcome"' in str(await ws.recv())
    await WsClient.connect(server.port, "noorigin")
    _, _, metrics = await _request(server.port, "GET", "/metrics")
    assert _security_events(metrics.decode(), "origin_refused") == 3


async def test_allowed_origins_lists_origins_or_allows_any(make_server: ServerFactory) -> None:
    """--allowed-origins takes a comma list of origins (others refused), or * for any; an origin
    listed with its scheme's own port matches the browser's, which leaves it out."""
    listed: Server = await make_server(allowed_origins="https://cafe.example, https://other.example:443")
    for origin, allowed in [
        ("https://cafe.example", True),
        ("https://other.example", True),
        ("https://cafe.example:443", True),
        ("https://cafe.example:8443", False),
        (f"http://127.0.0.1:{listed.port}", False),
        ("https://evil.example", False),
    ]:
        status, _, _ = await _request(listed.port, "GET", "/ws", {"Origin": origin, **_UPGRADE})
        assert (status == 101) == allowed, origin
    anyone: Server = await make_server(allowed_origins="*")
    status, _, _ = await _request(anyone.port, "GET", "/ws", {"Origin": "https://evil.example", **_UPGRADE})
    assert status == 101


async def test_a_loopback_server_answers_only_requests_that_name_it_locally(server: Server) -> None:
    """A server that listens on loopback only (the default) refuses, with 403 and counted, every
    request whose Host names another machine: a page of another site whose name was pointed at
    127.0.0.1 (DNS rebinding) reads nothing and opens no socket, though its Origin matches its
    Host; nor does a request without Host. Addresses, localhost and names under .localhost are
    answered."""
    port = server.port
    rebound = f"rebind.example:{port}"
    for path in ("/", "/api/leaderboard", "/metrics"):
        status, headers, body = await _request(port, "GET", path, host=rebound)
        assert (status, body) == (403, b"host not allowed\n") and "content-security-policy" in headers, path
    page = {"Origin": f"http://{rebound}", **_UPGRADE}  # (its own origin: same-origin alone lets it in)
    status, _, _ = await _request(port, "GET", "/ws", page, host=rebound)
    assert status == 403
    status, _, _ = await _request(port, "GET", "/", {"Host": f"127.0.0.1:{port}"}, host=rebound)
    assert status == 403  # (two Host headers: the first is not this machine's)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")  # no Host: no HTTP/1.1 request
    assert (await reader.readline()).split()[1] == b"403"
    writer.close()
    for host in (f"localhost:{port}", f"cafe.localhost:{port}", f"[::1]:{port}", f"127.0.0.1:{port}"):
        status, _, _ = await _request(port, "GET", "/", host=host)
        assert status == 200, host
    local = f"localhost:{port}"
    status, _, _ = await _request(port, "GET", "/ws", {"Origin": f"http://{local}", **_UPGRADE}, host=local)
    assert status == 101
    _, _, metrics = await _request(port, "GET", "/metrics")
    assert _security_events(metrics.decode(), "host_refused") == 6


async def test_a_loopback_server_answers_the_names_of_its_allowed_origins(make_server: ServerFactory) -> None:
    """Behind a proxy on the same machine that passes the site's Host, the names of the origins
    --allowed-origins lists are answered, and no other."""
    listed: Server = await make_server(allowed_origins="https://cafe.example")
    status, _, _ = await _request(listed.port, "GET", "/", host="cafe.example")
    assert status == 200
    status, _, _ = await _request(
        listed.port, "GET", "/ws", {"Origin": "https://cafe.example", **_UPGRADE}, host="cafe.example"
    )
    assert status == 101
    status, _, _ = await _request(listed.port, "GET", "/", host="other.example")
    assert status == 403


async def test_a_browsers_request_to_the_line_port_is_closed_before_any_name(server: Server) -> None:
    """A page whose name was pointed at this machine may post to the line port, its body lines
    read as a name and commands: a first line that is an HTTP request line closes the connection,
    and nobody is named, no room opened, and it is counted (``http_on_line``)."""
    assert server.line_port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", server.line_port)
    body = "mallory\r\n/join spam\r\n/say hi\r\n"
    writer.write(
        f"POST / HTTP/1.1\r\nHost: rebind.example:{server.line_port}\r\nContent-Length: {len(body)}\r\n"
        f"\r\n{body}".encode()
    )
    await writer.drain()
    read = await asyncio.wait_for(reader.read(), 5)  # (the greeting, then the end)
    assert b"Hello mallory" not in read
    writer.close()
    assert server.lobby.directory.session("mallory") is None and "spam" not in server.lobby.rooms
    _, _, metrics = await _request(server.port, "GET", "/metrics")
    assert _security_events(metrics.decode(), "http_on_line") == 1


def test_the_examples_of_the_http_checks_hold() -> None:
    """The examples of ``server.net.http``: the page's own origin, a loopback listener, a local Host."""
    found = run_examples(http)
    assert found.attempted > 0 and found.failed == 0


def test_same_origin_compares_host_and_port() -> None:
    """The page's own origin: the scheme's default port counts, other hosts, ports or schemes do not."""
    assert same_origin("https://cafe.example", "cafe.example")
    assert same_origin("https://cafe.example:443", "cafe.example")
    assert same_origin("http://cafe.example:8765", "cafe.example:8765")
    assert not same_origin("http://cafe.example:8766", "cafe.example:8765")
    assert not same_origin("https://cafe.example.evil.example", "cafe.example")
    assert not same_origin("null", "cafe.example")
    assert not same_origin("file://cafe.example", "cafe.example")
    assert not same_origin("https://cafe.example:x", "cafe.example")
    assert not same_origin("https://cafe.example", None)


async def test_a_players_address_serves_the_web_page_which_opens_the_profile(server: Server) -> None:
    """/players/NAME is the page itself (it opens NAME's profile), with its files named from the
    root so that they load from that address too; /api/players/NAME stays the data."""
    page = await http_get(server.port, "/players/ann")
    root = await http_get(server.port, "/")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert page.body == root.body
    assert b'src="/app.js"' in page.body and b'href="/style.css"' in page.body
    assert (await http_get(server.port, "/api/players/ann")).headers["content-type"] == "application/json"
    # an address that is no name is nobody's profile (the page would show what it says)
    notice = "/players/Security%20notice%3A%20log%20in%20again"
    for junk in (notice, "/players/a/b", "/players/9lives", "/players/"):
        assert (await http_get(server.port, junk)).status == 404, junk


async def _raw_status(port: int, path: str, headers: str) -> int:
    """The status of ``GET path`` with ``headers`` written as they are (a field twice, say)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}"
    writer.write(f"{head}Connection: close\r\n\r\n".encode())
    await writer.drain()
    status = int((await reader.readuntil(b"\r\n")).split()[1])
    writer.close()
    await writer.wait_closed()
    return status


async def test_a_second_request_on_a_connection_closes_it_and_is_no_internal_error(
    make_server: ServerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """A request pipelined behind another ends the connection unanswered (no second request is
    read on one connection): an ``early_data`` event at info level, not an error of the server's
    with a traceback (websockets logs its own assertion so)."""
    request = b"GET /api/tournaments HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    server = await make_server()
    logs.configure("info", "console")  # (the next test's servers set it back)
    with structlog.testing.capture_logs() as logged:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(request * 2)
        await writer.drain()
        answered = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        await writer.wait_closed()
        await asyncio.sleep(0.1)
    assert answered == b""
    assert [e["peer"] for e in logged if e["event"] == "early_data"] == ["127.0.0.1"], logged
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.records
    # and the server goes on answering
    assert (await http_get(server.port, "/api/tournaments")).status == 200


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        # two tokens name nobody: the request counts as one without (a game nobody may read: 404)
        ("/api/games/0000000000000000", "Authorization: Bearer a\r\nAuthorization: Bearer b\r\n", 404),
        ("/api/players/ann", "Authorization: Bearer a\r\nAuthorization: Bearer b\r\n", 404),
        ("/api/tournaments", "Authorization: Bearer a\r\nAuthorization: Bearer b\r\n", 200),
        # a list field sent twice reads as one list
        ("/rules", "Accept-Language: de\r\nAccept-Language: en;q=0.5\r\n", 200),
        ("/games/0000000000000000", "Accept: application/json\r\nAccept: text/html;q=0.5\r\n", 404),
    ],
)
async def test_a_header_sent_twice_is_answered_not_an_internal_error(
    server: Server, path: str, headers: str, status: int
) -> None:
    """Every answer to a request with a header field twice is the one it would have without it,
    never a 500 (websockets' headers raise on ``get`` of a field sent twice)."""
    assert await _raw_status(server.port, path, headers) == status


async def test_a_game_address_goes_by_the_quality_the_client_gives_each_kind(server: Server) -> None:
    """``/games/ID`` answers JSON to an ``Accept`` that ranks ``application/json`` above
    ``text/html`` by its ``q``, whatever the order, and the page to one that ranks HTML above;
    a range (``text/*``, ``*/*``) ranks what it covers unless a narrower one names it."""
    for accept, html in (
        ("text/html;q=0.1, application/json", False),
        ("text/html;q=0", False),
        ("application/json;q=0.5, text/html", True),
        ("text/*", True),
        ("text/*;q=0.5, application/json", False),
        ("text/html;q=0, text/*", False),
        ("*/*;q=0.9, text/*", True),
    ):
        answer = await http_get(server.port, "/games/0000000000000000", accept=accept)
        assert answer.headers["content-type"].startswith("text/html") is html, (accept, answer.status)


async def test_an_address_asks_the_api_at_a_connection_s_rate(make_server: ServerFactory) -> None:
    """With --rate 1 --burst 3, one address's fourth question to the API at once is 429 with
    ``Retry-After: 1`` (a game's record at /games/ID counts too, the page and /rules do not), and
    logged and counted as ``rate_limit_http``; a second later it may ask again. A player's profile
    or games count as a ``/history`` (five): the question after one waits four seconds more."""
    server = await make_server(rate=1.0, burst=3)
    for path in ("/api/leaderboard", "/api/tournaments", "/games/0123456789abcdef"):
        assert (await http_get(server.port, path)).status != 429, path
    refused = await http_get(server.port, "/api/tournaments")
    assert refused.status == 429 and refused.headers["retry-after"] == "1"
    assert refused.json() == {"error": "rate_limited"}
    for path in ("/", "/rules", "/players/ann", "/healthz"):
        assert (await http_get(server.port, path)).status == 200, path
    viewer = await http_get(server.port, "/games/0123456789abcdef", accept="text/html")
    assert viewer.status == 200 and viewer.headers["content-type"].startswith("text/html")
    metrics = (await http_get(server.port, "/metrics")).body.decode()
    assert _security_events(metrics, "rate_limit_http") == 1
    await asyncio.sleep(1.1)
    assert (await http_get(server.port, "/api/players/ann")).status == 404  # (asked: no such player)
    assert (await http_get(server.port, "/api/tournaments")).status == 429  # (four in debt)


async def test_two_origin_headers_are_refused_and_the_log_names_both(server: Server) -> None:
    """A request with two Origin headers is refused (403) whichever they are, and the operator's
    log names both, not only the first (which may be the server's own)."""
    own = f"http://127.0.0.1:{server.port}"
    upgrade = "".join(f"{k}: {v}\r\n" for k, v in _UPGRADE.items())
    with structlog.testing.capture_logs() as logged:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {own}\r\n"
            f"Origin: https://evil.example\r\n{upgrade}\r\n".encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        writer.close()
    assert head.startswith(b"HTTP/1.1 403")
    (refused,) = [x for x in logged if x["event"] == "origin_refused"]
    assert own in refused["origin"] and "https://evil.example" in refused["origin"], refused

"""The plain HTTP paths beside ``/ws``: health (``/livez``, ``/healthz``, ``/readyz``), ``/metrics``,
``/games/ID`` and the web page."""

from __future__ import annotations

import json
import mimetypes
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from engine.game import seed_hash
from protocol.names import is_name
from server.directory.privacy import Reader, reader
from server.limits import security_event
from server.lobby import profiles
from server.lobby.account_commands import RECORDS_COST
from server.lobby.lobby import Lobby
from server.log.contract import StoredGame, StoreUnavailable
from server.net.pages import not_found_page, page_language, replay_steps, rules_page
from server.peers import TrustedProxies, address_key, http_client, ip
from server.room.state import DRAWN
from server.tournament.api import api as tournament_api

STATIC = Path(__file__).parents[1] / "static"

#: what the page needs and nothing more: its own scripts, styles, data and socket; no inline code,
#: no framing by other sites
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: headers every HTTP answer carries
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Referrer-Policy": "no-referrer",
}
ALLOWED_METHODS = "GET, HEAD"
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def _typed_seed(room_options: dict[str, Any]) -> bool:
    """Whether a game's seed was typed by a player (not drawn by the server, for a casual table)."""
    return room_options.get("seed") is not None and not room_options.get(DRAWN)


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-cache"
    return Response(status.value, status.phrase, headers, body)


_HTML = "text/html; charset=utf-8"


def _wants_html(accept: str) -> bool:
    """Whether an ``Accept`` header asks for a page before JSON (a browser's does; curl's ``*/*``
    and a program's ``application/json`` do not): ``text/html`` ranked with a greater quality
    (``q``) than ``application/json``, or the same and first. Each takes the quality of the most
    specific range that names it (``text/html``, then ``text/*``, then ``*/*``).

    >>> _wants_html("text/html,application/xhtml+xml,*/*;q=0.8"), _wants_html("*/*")
    (True, False)
    >>> _wants_html("text/html;q=0"), _wants_html("text/html;q=0.1, application/json")
    (False, False)
    >>> _wants_html("application/json;q=0.5, text/html"), _wants_html("application/json, text/html")
    (True, False)
    >>> _wants_html("text/*"), _wants_html("application/json, text/*"), _wants_html("text/html;q=0, text/*")
    (True, False, False)
    """
    ranked: dict[str, tuple[float, int]] = {}
    for at, part in enumerate(accept.split(",")):
        kind, *params = (p.strip().lower() for p in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        ranked.setdefault(kind, (quality, at))

    def rank(kind: str) -> tuple[float, int]:
        for named in (kind, kind.split("/")[0] + "/*", "*/*"):
            if named in ranked:
                return ranked[named]
        return 0.0, len(ranked)

    html, json_ = rank("text/html"), rank("application/json")
    return html[0] > 0 and (html[0] > json_[0] or (html[0] == json_[0] and html[1] < json_[1]))


def _not_found() -> Response:
    return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")


def same_origin(origin: str, host: str | None) -> bool:
    """Whether ``origin`` (``scheme://host[:port]``) names the host and port of the ``Host``
    header: the page the server itself served.

    >>> same_origin("http://127.0.0.1:8765", "127.0.0.1:8765")
    True
    >>> same_origin("https://cafe.example", "cafe.example")
    True
    >>> same_origin("https://evil.example", "cafe.example")
    False
    """
    if not host:
        return False
    try:
        parts = urlsplit(origin)
        wanted = urlsplit("//" + host)
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
        wanted_port = wanted.port
    except ValueError:  # a port that is no number
        return False
    if parts.scheme not in _DEFAULT_PORTS or parts.hostname is None or parts.path not in ("", "/"):
        return False
    if wanted_port is not None and port != wanted_port:
        return False
    if wanted_port is None and port != _DEFAULT_PORTS[parts.scheme]:
        return False
    return parts.hostname == (wanted.hostname or "")


def origin_allowed(origin: str, host: str | None, allowed: str | None) -> bool:
    """Whether a page of ``origin`` may open the WebSocket: ``allowed`` is ``*``, a comma list
    of origins, or ``None`` for the page's own origin (the request's ``Host``)."""
    if allowed is None:
        return same_origin(origin, host)
    if allowed.strip() == "*":
        return True
    wanted = {_origin_key(o.strip()) for o in allowed.split(",") if o.strip()}
    return _origin_key(origin) in wanted


def _origin_key(origin: str) -> str:
    """An origin as compared: lower case, without a trailing ``/`` nor its scheme's own port
    (a browser leaves ``:443`` out; ``--allowed-origins`` may name it).

    >>> _origin_key("HTTPS://Cafe.Example:443/"), _origin_key("http://cafe.example:8080")
    ('https://cafe.example', 'http://cafe.example:8080')
    """
    key = origin.rstrip("/").lower()
    for scheme, port in _DEFAULT_PORTS.items():
        if key.startswith(f"{scheme}://") and key.endswith(f":{port}"):
            return key[: -len(f":{port}")]
    return key


def loopback_only(listen: str) -> bool:
    """Whether the server listening on ``listen`` (``--host``) is reached from this machine alone.

    >>> loopback_only("127.0.0.1"), loopback_only("::1"), loopback_only("localhost")
    (True, True, True)
    >>> loopback_only("0.0.0.0"), loopback_only("192.0.2.7"), loopback_only("cafe.example")
    (False, False, False)
    """
    address = ip(listen)
    return listen.lower() == "localhost" if address is None else address.is_loopback


def local_host(host: str | None, listed: frozenset[str]) -> bool:
    """Whether a request's ``Host`` may reach a server listening on loopback only: an address
    (a page served from an address is the server's own), ``localhost``, a name under ``.localhost``,
    or a name in ``listed``. Any other name is a page of another site whose name was pointed at
    this machine (DNS rebinding). A request without ``Host`` is no HTTP/1.1 request, and is refused.

    >>> [local_host(h, frozenset()) for h in ("127.0.0.1:8765", "[::1]:8765", "localhost", "a.localhost")]
    [True, True, True, True]
    >>> local_host("evil.example:8765", frozenset()), local_host("cafe.example", frozenset({"cafe.example"}))
    (False, True)
    >>> local_host(None, frozenset())
    False
    """
    if host is None:
        return False
    try:
        name = (urlsplit("//" + host).hostname or "").lower()
    except ValueError:
        return False
    return ip(name) is not None or name == "localhost" or name.endswith(".localhost") or name in listed


def listed_hosts(allowed: str | None) -> frozenset[str]:
    """The host names of the origins ``--allowed-origins`` lists (none for ``*`` or the default)."""
    if allowed is None or allowed.strip() == "*":
        return frozenset()
    names = set()
    for origin in allowed.split(","):
        try:
            name = urlsplit(origin.strip()).hostname
        except ValueError:
            continue
        if name:
            names.add(name.lower())
    return frozenset(names)


class HttpRoutes:
    """``process_request`` for the WebSocket server: answers every path but ``/ws``."""

    def __init__(self, lobby: Lobby, static_dir: str | None, proxies: TrustedProxies | None = None) -> None:
        self.lobby = lobby
        self.static = Path(static_dir) if static_dir else STATIC
        config = lobby.config
        #: on a server only this machine reaches, the names a request's ``Host`` may give besides
        #: ``localhost`` and addresses (``None``: it listens elsewhere too, and any may)
        self.hosts = listed_hosts(config.allowed_origins) if loopback_only(config.host) else None
        #: whose word on a request's client is taken (the server's ``Limits.proxies``)
        self.proxies = proxies if proxies is not None else TrustedProxies(None)

    def _client(self, connection: ServerConnection, request: Request) -> str:
        """Who sent ``request`` (``HOST:PORT``), as a security event names them."""
        return http_client(
            connection.remote_address, request.headers.get_all("X-Forwarded-For"), self.proxies
        )

    async def __call__(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if self.hosts is not None and not self._local(connection, request):
            return _response(HTTPStatus.FORBIDDEN, b"host not allowed\n", "text/plain; charset=utf-8")
        if path == "/ws" and request.method == "GET":
            return self._check_origin(connection, request)
        if request.method not in ("GET", "HEAD") or path == "/ws":
            # websockets' parser lets any method through; only a GET opens the socket
            security_event(
                self.lobby.metrics,
                "method_refused",
                method=request.method[:16],
                peer=self._client(connection, request),
            )
            response = _response(
                HTTPStatus.METHOD_NOT_ALLOWED, b"method not allowed\n", "text/plain; charset=utf-8"
            )
            response.headers["Allow"] = "GET" if path == "/ws" else ALLOWED_METHODS
            return response
        if path in ("/livez", "/healthz", "/readyz"):
            return self._health(path)
        if self._asks_records(path, request) and not self._may_ask(connection, request, path):
            security_event(self.lobby.metrics, "rate_limit_http", peer=self._client(connection, request))
            body = b'{"error": "rate_limited"}\n'
            response = _response(HTTPStatus.TOO_MANY_REQUESTS, body, "application/json")
            response.headers["Retry-After"] = "1"
            return response
        try:
            return await self._route(request, path)
        except StoreUnavailable:  # (the records out of reach: PostgreSQL or Redis away for a while)
            body = b'{"error": "unavailable"}\n'
            response = _response(HTTPStatus.SERVICE_UNAVAILABLE, body, "application/json")
            response.headers["Retry-After"] = "5"
            return response

    @staticmethod
    def _asks_records(path: str, request: Request) -> bool:
        """Whether ``request`` reads the records: the API, or a game's record at ``/games/ID``
        (not the replay viewer a browser gets there)."""
        if path.startswith("/api/"):
            return True
        return path.startswith("/games/") and not _wants_html(", ".join(request.headers.get_all("Accept")))

    def _may_ask(self, connection: ServerConnection, request: Request, path: str) -> bool:
        """Whether the request's address may ask the API now (each answer reads the store, and
        one of a player with thousands of games costs milliseconds of the event loop): from what
        the address may read (``Lobby.reading``, which its connections' ``/history`` and
        ``/finger`` spend too), a player's profile or games as much as a ``/history``."""
        cost = RECORDS_COST if path.startswith("/api/players/") else 1
        return self.lobby.reading.of(address_key(self._client(connection, request))).take_costly(cost)

    async def _route(self, request: Request, path: str) -> Response:
        """The answer to a ``GET`` (or ``HEAD``) of ``path`` past the checks every request meets."""
        if path == "/metrics":
            return _response(
                HTTPStatus.OK, self.lobby.metrics.render(), "text/plain; version=0.0.4; charset=utf-8"
            )
        if path == "/rules":
            query = request.path.partition("?")[2]
            # (a header sent twice reads as one list, as HTTP has it)
            languages = ", ".join(request.headers.get_all("Accept-Language")) or None
            return self._rules(page_language(query, languages))
        if path.startswith("/api/players/") or path == "/api/leaderboard":
            asking = await self._reader(request)
            status, data = await profiles.api(self.lobby.store, self.lobby.directory, request.path, asking)
            return _response(HTTPStatus(status), json.dumps(data).encode(), "application/json")
        if path == "/api/tournaments" or path.startswith("/api/tournaments/"):
            asking = await self._reader(request) if path == "/api/tournaments" else None
            who = None if asking is None else (asking.name, asking.identity)
            status, data = await tournament_api(self.lobby.store.tournaments, path, who)
            return _response(HTTPStatus(status), json.dumps(data).encode(), "application/json")
        if path.startswith("/api/games/") and path.endswith("/analysis"):
            game_id = path.removeprefix("/api/games/").removesuffix("/analysis")
            status, data = await self.lobby.analyses.http(game_id, await self._reader(request))
            return _response(HTTPStatus(status), json.dumps(data).encode(), "application/json")
        if path.startswith("/api/games/") and path.endswith("/replay"):
            game_id = path.removeprefix("/api/games/").removesuffix("/replay")
            return await self._replay(game_id, await self._reader(request))
        if path.startswith("/api/games/"):
            return await self._game(path.removeprefix("/api/games/"), await self._reader(request))
        if path.startswith("/players/"):
            # a profile's address to share: the page, which opens that profile (its data: /api/players/);
            # only a name's (the page shows what the address says, which must be a name)
            if not is_name(path.removeprefix("/players/")):
                return _not_found()
            return self._static("/index.html")
        if path.startswith("/games/"):
            # one address, two forms: a viewer for people, the record for programs
            if _wants_html(", ".join(request.headers.get_all("Accept"))):
                response = self._static("/replay.html")
            else:
                response = await self._game(path.removeprefix("/games/"), await self._reader(request))
            response.headers["Vary"] = "Accept"
            return response
        return self._static(path)

    def _rules(self, code: str) -> Response:
        page = rules_page(self.static, code)
        if page is None:
            return _response(HTTPStatus.NOT_FOUND, not_found_page("The rules are missing."), _HTML)
        return _response(HTTPStatus.OK, page, _HTML)

    async def _reader(self, request: Request) -> Reader | None:
        """Who asks: the player the request's resume token names (``Authorization: Bearer``)."""
        # two tokens name nobody: a request with more than one counts as one with none
        tokens = request.headers.get_all("Authorization")
        return await reader(self.lobby.store, tokens[0] if len(tokens) == 1 else None)

    async def _readable_game(self, game_id: str, asking: Reader | None) -> StoredGame | None:
        """The game, unless there is none or ``asking`` may not read it (a private room's game,
        and not one of its players): both look the same from outside."""
        game = await self.lobby.store.game(game_id)
        if game is None or not game.readable_by(None if asking is None else asking.identity):
            return None
        return game

    async def _replay(self, game_id: str, asking: Reader | None) -> Response:
        """The public positions of a finished game, for the replay viewer; a game still running
        has none to show yet."""
        game = await self._readable_game(game_id, asking)
        if game is None or game.result is None:
            body = json.dumps({"error": "no such finished game"}).encode()
            return _response(HTTPStatus.NOT_FOUND, body, "application/json")
        return _response(HTTPStatus.OK, json.dumps(replay_steps(game)).encode(), "application/json")

    def _health(self, path: str) -> Response:
        """``/livez``: the process runs and answers (200 while it stops too: it needs no restart).
        ``/healthz``, kept as it was: 503 once it stops. ``/readyz``: it can serve, so 503 while it
        stops or cannot reach its shared data (Redis); a balancer sends clients to ready nodes."""
        lobby = self.lobby
        if not lobby.accepting:
            status = "stopping"
        elif not lobby.directory.ready:
            status = "unavailable"
        else:
            status = "ok"
        failing = {"/livez": (), "/healthz": ("stopping",), "/readyz": ("stopping", "unavailable")}
        body = json.dumps(
            {"status": status, "rooms": len(lobby.rooms), "connections": lobby.connection_count()}
        ).encode()
        code = HTTPStatus.SERVICE_UNAVAILABLE if status in failing[path] else HTTPStatus.OK
        return _response(code, body, "application/json")

    async def _game(self, game_id: str, asking: Reader | None) -> Response:
        game = await self._readable_game(game_id, asking)
        if game is None:
            return _response(HTTPStatus.NOT_FOUND, b'{"error": "no such game"}\n', "application/json")
        body = game.record.to_dict()
        body.update(
            id=game.game_id,
            room=game.room,
            # a seed a player chose has no fingerprint until it is revealed (game_started); one the
            # server drew for a casual table has
            seed_hash=None
            if game.result is None and _typed_seed(game.room_options)
            else seed_hash(game.record.seed),
            result=game.result,
            # the moves the server played for their player: number -> "clock" or "bot"
            auto={str(number): mark for number, mark in sorted(game.auto.items())},
        )
        # the seed stays secret until the game is over: sha256(seed) is what was published at its start
        if game.result is None:
            del body["seed"]
        return _response(
            HTTPStatus.OK, json.dumps(body, sort_keys=True, indent=2).encode(), "application/json"
        )

    def process_response(
        self, connection: ServerConnection, request: Request, response: Response
    ) -> Response:
        """``process_response`` for the WebSocket server: every answer but the switch to the
        WebSocket carries the security headers, and a HEAD answer has no body."""
        if response.status_code == HTTPStatus.SWITCHING_PROTOCOLS:
            return response
        for name, value in SECURITY_HEADERS.items():
            response.headers[name] = value
        if request.method == "HEAD":
            return Response(response.status_code, response.reason_phrase, response.headers, b"")
        return response

    def _local(self, connection: ServerConnection, request: Request) -> bool:
        """Whether a request to a server only this machine reaches names it in ``Host``
        (:func:`local_host`); a refusal is a security event."""
        assert self.hosts is not None
        hosts = request.headers.get_all("Host")
        if len(hosts) <= 1 and local_host(hosts[0] if hosts else None, self.hosts):
            return True
        shown = hosts[0][:200] if hosts else None
        security_event(self.lobby.metrics, "host_refused", host=shown, peer=self._client(connection, request))
        return False

    def _check_origin(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse (403) a WebSocket opened by a page of an origin not allowed; a client that sends
        no Origin (a bot, a terminal tool) is no page and is let in."""
        origins = request.headers.get_all("Origin")
        if not origins:
            return None
        host = request.headers.get_all("Host")
        if len(origins) == 1 and origin_allowed(
            origins[0], host[0] if len(host) == 1 else None, self.lobby.config.allowed_origins
        ):
            return None
        security_event(
            self.lobby.metrics,
            "origin_refused",
            origin=" ".join(origins)[:200],  # (all of them: two headers are refused as such)
            peer=self._client(connection, request),
        )
        return _response(HTTPStatus.FORBIDDEN, b"origin not allowed\n", "text/plain; charset=utf-8")

    def _static(self, path: str) -> Response:
        name = "index.html" if path in ("/", "") else path.lstrip("/")
        root = self.static.resolve()
        try:
            target = (root / name).resolve()
            if root not in target.parents or not target.is_file():
                return _not_found()
            body = target.read_bytes()
        except (OSError, ValueError):  # a name too long for the file system, or with a NUL
            return _not_found()
        content_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if target.suffix == ".js":
            content_type = "text/javascript"
        if content_type.startswith("text/"):
            content_type += "; charset=utf-8"
        return _response(HTTPStatus.OK, body, content_type)

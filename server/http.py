"""The plain HTTP paths beside ``/ws``: ``/healthz``, ``/metrics``, ``/games/ID`` and the web page."""

from __future__ import annotations

import json
import mimetypes
from http import HTTPStatus
from pathlib import Path

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from engine.game import seed_hash
from server.lobby import Lobby

STATIC = Path(__file__).parent / "static"


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-cache"
    return Response(status.value, status.phrase, headers, body)


class HttpRoutes:
    """``process_request`` for the WebSocket server: answers every path but ``/ws``."""

    def __init__(self, lobby: Lobby, static_dir: str | None) -> None:
        self.lobby = lobby
        self.static = Path(static_dir) if static_dir else STATIC

    async def __call__(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            return None
        if path == "/healthz":
            ok = self.lobby.accepting
            body = json.dumps(
                {
                    "status": "ok" if ok else "stopping",
                    "rooms": len(self.lobby.rooms),
                    "connections": self.lobby.connection_count(),
                }
            ).encode()
            return _response(
                HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE, body, "application/json"
            )
        if path == "/metrics":
            return _response(
                HTTPStatus.OK, self.lobby.metrics.render(), "text/plain; version=0.0.4; charset=utf-8"
            )
        if path.startswith("/games/"):
            return await self._game(path.removeprefix("/games/"))
        return self._static(path)

    async def _game(self, game_id: str) -> Response:
        game = await self.lobby.store.game(game_id)
        if game is None:
            return _response(HTTPStatus.NOT_FOUND, b'{"error": "no such game"}\n', "application/json")
        body = game.record.to_dict()
        body.update(
            id=game.game_id, room=game.room, seed_hash=seed_hash(game.record.seed), result=game.result
        )
        # the seed stays secret until the game is over: sha256(seed) is what was published at its start
        if game.result is None:
            del body["seed"]
        return _response(
            HTTPStatus.OK, json.dumps(body, sort_keys=True, indent=2).encode(), "application/json"
        )

    def _static(self, path: str) -> Response:
        name = "index.html" if path in ("/", "") else path.lstrip("/")
        root = self.static.resolve()
        target = (root / name).resolve()
        if root not in target.parents or not target.is_file():
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
        content_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if target.suffix == ".js":
            content_type = "text/javascript"
        if content_type.startswith("text/"):
            content_type += "; charset=utf-8"
        return _response(HTTPStatus.OK, target.read_bytes(), content_type)

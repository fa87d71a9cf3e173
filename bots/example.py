"""A whole bot in thirty lines: it takes a seat, adds a server bot, starts, and plays the first
legal move the server offers it until the game is over. Only ``websockets`` and ``json``.

    python -m bots.example ws://127.0.0.1:8765/ws cafe ann
"""

import asyncio
import json
import sys
from typing import Any

from websockets.asyncio.client import connect


async def play(url: str, room: str, name: str) -> dict[str, Any]:
    """Play one game in ``room`` as ``name``; returns the server's ``game_over`` message (or the
    ``error`` that refused the name)."""
    async with connect(url) as ws:

        async def send(**message: Any) -> None:
            await asyncio.sleep(0.06)  # under the server's limit of 20 messages a second
            await ws.send(json.dumps(message))

        await send(type="hello", name=name, kind="bot")
        answer = json.loads(await ws.recv())
        if answer["type"] != "welcome":  # the name refused (taken, say): nothing else is answered
            return dict(answer)
        await send(type="join", room=room)
        await send(type="add_bot", strategy="greedy")
        await send(type="start")
        async for frame in ws:
            message = json.loads(frame)
            kind = message["type"]
            if (kind == "game_started" and message["start_player"] == name) or (
                kind == "played" and message["player"] != name  # then it is our turn (two players)
            ):
                await send(type="legal_moves")
            elif kind == "legal_moves" and message["moves"]:
                await send(type="move", move=message["moves"][0])
            elif kind == "game_over":
                return dict(message)
            elif kind == "error":
                print("refused:", message["message"], file=sys.stderr)
    raise ConnectionError("the server closed the connection")


if __name__ == "__main__":
    print(json.dumps(asyncio.run(play(*sys.argv[1:4])), indent=2))

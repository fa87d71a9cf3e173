"""The example session of PROTOCOL.md section 6, played for real: ann over the WebSocket (her
frames recorded as the server sent them), bob at a terminal over the line endpoint (his screen
recorded). bob, the host, sets the seed 11; both play the hint every turn, which gives the game
the document shows."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect

from protocol.diff import apply_patch
from tests.server.clients import TIMEOUT, LineClient

HINT = re.compile(r"Hint: (\S+(?: \S+)?) \(")


@dataclass
class Session:
    """What the example session sent and received: ann's frames both ways, bob's screen."""

    sent: list[dict[str, Any]] = field(default_factory=list)
    received: list[str] = field(default_factory=list)
    bob: str = ""


class _Ann:
    def __init__(self, session: Session, ws: Any) -> None:
        self.session = session
        self.ws = ws
        self.ids = itertools.count(1)
        self.unread: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None

    async def send(self, message: dict[str, Any]) -> int:
        msg_id = next(self.ids)
        frame = {"type": message["type"], "id": msg_id, **{k: v for k, v in message.items() if k != "type"}}
        self.session.sent.append(frame)
        await self.ws.send(json.dumps(frame))
        return msg_id

    async def until(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The oldest frame not taken yet that passes ``test``, read when needed (every frame is
        recorded as it arrives; those passed over stay for later calls)."""
        while True:
            for i, message in enumerate(self.unread):
                if test(message):
                    del self.unread[i]
                    return message
            raw = await asyncio.wait_for(self.ws.recv(), TIMEOUT)
            self.session.received.append(raw)
            message = json.loads(raw)
            if message["type"] == "snapshot":
                self.view = message["view"]
            elif message["type"] == "patch":
                self.view = apply_patch(self.view, message["ops"])
            self.unread.append(message)

    def over(self) -> bool:
        """Whether the game in ann's view has ended."""
        return (
            self.view is not None and self.view["game"] is not None and self.view["game"]["over"] is not None
        )

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        msg_id = await self.send(message)
        return await self.until(lambda m: m.get("id") == msg_id and m["type"] != "snapshot")


async def _bob_says(bob: LineClient, line: str, until: str) -> str:
    await bob.line(line)
    return await bob.expect(until)


async def _bob_does(bob: LineClient, ann: _Ann, line: str) -> None:
    """bob types a line; what ann has read before it cannot be its answer."""
    ann.unread.clear()
    await bob.line(line)


async def play(ws_port: int, line_port: int) -> Session:
    """Play the session against a server listening on these ports; return what was seen."""
    session = Session()
    async with connect(f"ws://127.0.0.1:{ws_port}/ws") as ws:
        ann = _Ann(session, ws)
        await ann.ask({"type": "hello", "name": "ann"})
        await ann.ask({"type": "list_rooms"})
        await ann.ask({"type": "enter_room", "room": "cafe"})
        bob = await LineClient.connect(line_port, "bob")
        await _bob_says(bob, "/jion cafe", "[unknown_command]")
        await _bob_does(bob, ann, "/join cafe")
        await ann.until(lambda m: m["type"] == "patch")
        await ann.ask({"type": "join"})
        await ann.until(lambda m: m["type"] == "patch")
        await _bob_does(bob, ann, "/option seed 11")
        await ann.until(lambda m: m["type"] == "patch")
        await _bob_does(bob, ann, "/start")
        await ann.until(lambda m: m["type"] == "patch")
        await _bob_does(bob, ann, "good luck!")
        await ann.until(lambda m: m["type"] == "chat")
        await ann.ask({"type": "say", "text": "you too"})
        game_over = False
        turn = "bob"
        first_turn_of_ann = True
        while not game_over:
            if turn == "bob":
                await _bob_says(bob, "/hint", "Hint: ")
                hint = HINT.match("Hint: " + await bob.expect("\n"))
                assert hint is not None, bob.text()[-300:]
                await _bob_does(bob, ann, f"/play {hint.group(1)}")
                played = await ann.until(lambda m: m["type"] == "played")
            else:
                if first_turn_of_ann:
                    # a misspelt type and a taken chair, each refused with the message's id
                    await ann.ask({"type": "mvoe", "move": "TRf@TR1e"})
                    await ann.ask({"type": "move", "move": "FRf@GB2e"})
                hint_msg = await ann.ask({"type": "hint"})
                await ann.ask({"type": "move", "move": hint_msg["move"]})
                played = await ann.until(lambda m: m["type"] == "played")
                if first_turn_of_ann:
                    await ann.send({"type": "resync"})
                    await ann.until(lambda m: m["type"] == "snapshot")
                    first_turn_of_ann = False
            assert played["player"] == turn, (played, session.received[-4:])
            turn = "ann" if turn == "bob" else "bob"
            # the patch of a move comes before its played: the view then says whether it ended
            if ann.over():
                await ann.until(lambda m: m["type"] == "game_over")
                game_over = True
        await bob.expect("/start plays again.")
        await _bob_does(bob, ann, "gg")
        await ann.until(lambda m: m["type"] == "chat")
        ann.unread.clear()
        await _bob_says(bob, "/quit", "Goodbye!")
        await ann.until(lambda m: m["type"] == "patch")
        await ann.ask({"type": "leave_room"})
        session.bob = bob.text()
        await bob.close()
    return session

"""The example session of PROTOCOL.md section 6 is true: played again against the server, every
frame ann is shown to receive is the frame she receives (her resume token and the game's id
aside), every frame she sends is one she sends, in order, and every line of bob's terminal shows
on his screen, in order."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from server.app import Server
from tests.server.example_session import play

PROTOCOL_MD = Path(__file__).parents[2] / "protocol" / "PROTOCOL.md"
TOKEN = re.compile(r"[0-9a-f]{32}")
GAME_ID = re.compile(r"[0-9a-f]{16}")


def _section(start: str, end: str) -> str:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    return text[text.index(start) : text.index(end, text.index(start))]


def _blocks(text: str) -> list[list[str]]:
    """The lines of each ```text block."""
    return [block.split("\n") for block in re.findall(r"```text\n(.*?)\n```", text, re.S)]


def documented_frames() -> list[tuple[str, dict[str, Any]]]:
    """ann's frames as the document shows them: ("→" or "←", the frame), a frame's later lines
    joined to its first."""
    frames: list[tuple[str, str]] = []
    for block in _blocks(_section("### ann's frames", "### bob's terminal")):
        for line in block:
            if line.startswith(("→ ", "← ")):
                frames.append((line[0], line[2:]))
            else:
                assert frames and line.startswith("     "), f"a line of no frame: {line!r}"
                frames[-1] = (frames[-1][0], frames[-1][1] + line.strip())
    return [(way, json.loads(text)) for way, text in frames]


def documented_screen() -> list[str]:
    """The lines of bob's terminal the server writes (not what he types, nor the notes)."""
    lines: list[str] = []
    for block in _blocks(_section("### bob's terminal", "In the picture each table")):
        lines += [ln for ln in block if ln.strip() and not ln.startswith(("> ", "("))]
    return lines


async def test_the_example_session_is_what_the_server_does(server: Server) -> None:
    """ann's documented frames, both ways, and bob's documented screen, against a real session."""
    assert server.line_port is not None
    session = await play(server.port, server.line_port)
    received = [json.loads(raw) for raw in session.received]
    documented = documented_frames()
    assert sum(1 for way, _ in documented if way == "←") >= 30  # the parse found the frames
    sent = iter(session.sent)
    for way, frame in documented:
        if way == "→":
            assert frame in sent, f"ann does not send {frame} (or not in this order)"
            continue
        real = received[frame["seq"] - 1]
        if frame["type"] == "welcome":
            real = {**real, "token": frame["token"]}
        if frame["type"] in ("game_started", "game_over"):  # a game's id is drawn: its form is shown
            assert GAME_ID.fullmatch(real["game"]), real
            real = {**real, "game": frame["game"]}
        assert frame == real, f"seq {frame['seq']}: the document shows\n{frame}\nthe server sends\n{real}"
    screen = session.bob
    at = 0
    for line in documented_screen():
        pattern = TOKEN.sub("[0-9a-f]{32}", re.escape(line))
        found = re.compile(pattern).search(screen, at)
        assert found is not None, f"bob's screen lacks {line!r} after {screen[max(0, at - 200) : at]!r}"
        at = found.end()

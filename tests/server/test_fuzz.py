"""Fuzzing the inputs of a live lobby: no exception escapes, every input is answered, and an input
answered with an error changes nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import messages as m
from server.config import Config
from server.directory import LocalDirectory
from server.lobby.lobby import Lobby
from server.log.sqlite.store import Store
from server.metrics import Metrics
from server.session import Outgoing, Session

TYPES = [
    "say",
    "command",
    "enter_room",
    "list_rooms",
    "who",
    "join",
    "start",
    "option",
    "move",
    "legal_moves",
    "hint",
    "add_bot",
    "remove_bot",
    "watch",
    "ping",
    "dance",
    "",
    "HELLO",
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
FRAMES = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200),
    st.builds(
        lambda t, extra: json.dumps({"type": t, **extra}),
        st.sampled_from(TYPES),
        st.dictionaries(
            st.sampled_from(["id", "text", "room", "move", "key", "value", "name", "strategy", "x"]),
            JSON,
            max_size=3,
        ),
    ),
)
LINES = st.one_of(
    st.text(max_size=120),
    st.builds(
        lambda c, rest: f"/{c} {rest}",
        st.sampled_from(
            [
                "play",
                "bar",
                "swap",
                "option",
                "join",
                "addbot",
                "removebot",
                "help",
                "watch",
                "room",
                "jion",
                "moves",
                "hand",
                "board",
                "score",
                "nick",
                "x",
            ]
        ),
        st.text(max_size=60),
    ),
)


class FakeSession(Session):
    """A session that records what it is sent instead of writing it to a socket."""

    transport = "ws"

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[Any] = []

    def send(self, message: Any) -> None:
        self.sent.append(message.message if isinstance(message, Outgoing) else message)


class Live:
    """A lobby with ann and bob in a running game in room ``f``, on a private event loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        config = Config(data=":memory:", rate=1e9, burst=10**9, chat_rate=1e9, chat_burst=10**9)
        metrics = Metrics()
        self.directory = LocalDirectory(config, Store(":memory:"), metrics)
        self.lobby = Lobby(config, self.directory, self.directory.log, metrics)
        self.ann, self.bob = FakeSession(), FakeSession()
        self.run(self._setup())

    async def _setup(self) -> None:
        for session, name in ((self.ann, "ann"), (self.bob, "bob")):
            self.lobby.attach(session)
            await self.lobby.handle(session, m.Hello(name=name))
            await self.lobby.handle(session, m.Join(room="f"))
            await self.settle()
        await self.lobby.handle(self.ann, m.SetOption(key="seed", value=3))
        await self.lobby.handle(self.ann, m.Start())
        await self.settle()
        assert self.room().state == "playing"

    def room(self) -> Any:
        return self.lobby.rooms["f"]

    async def settle(self) -> None:
        """Wait until every room has handled everything posted to it; a room that never settles
        fails the test."""
        async with asyncio.timeout(10):
            for room in list(self.lobby.rooms.values()):
                await room.settled()

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def fingerprint(self) -> tuple[Any, ...]:
        room = self.room()
        game = room.game
        return (
            game.position,
            game.moves,
            [s.name for s in room.seats],
            [s.name for s in room.members],
            room.options,
            sorted(self.lobby.rooms),
            sorted(self.directory.sessions),
        )

    def close(self) -> None:
        for room in list(self.lobby.rooms.values()):
            self.run(room.stop())
        self.directory.log.close()
        self.loop.close()


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    world = Live()
    yield world
    world.close()


def _check(live: Live, feed: Any) -> None:
    before = live.fingerprint()
    sent = len(live.ann.sent)

    async def fed() -> None:
        await feed()  # must not raise
        await live.settle()

    live.run(fed())
    answers = live.ann.sent[sent:]
    assert answers, "every input gets an answer"
    if any(isinstance(a, m.Error) for a in answers):
        assert live.fingerprint() == before, "an input answered with an error changed the state"
    assert not any(isinstance(a, m.Error) and a.code == "internal" for a in answers)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frame=FRAMES)
def test_json_frames(live: Live, frame: str | bytes) -> None:
    """Any frame: an answer, never an exception, and an error leaves the game as it was."""
    _check(live, lambda: live.lobby.receive(live.ann, frame))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=LINES)
def test_chat_lines(live: Live, line: str) -> None:
    """Any typed line: an answer (blank lines aside), never an exception, and an error changes nothing."""
    if not line.strip():
        return
    _check(live, lambda: live.lobby.receive_line(live.ann, line))

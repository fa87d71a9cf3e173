"""The words of the lobby's refusals about names and tokens, as people read them, over a socket:
each with its code and its exact English text."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from protocol.names import NAME_RULE
from server.app import Server
from tests.server import test_error_codes as codes
from tests.server.clients import WsClient, until
from tests.server.conftest import ServerFactory

Answer = dict[str, Any]


def _answer_of(
    provoke: Callable[[Server, pytest.MonkeyPatch], Awaitable[tuple[WsClient, Answer]]],
) -> Callable[[Server], Awaitable[Answer]]:
    """The answer a refusal of the error-code table gets (none of these uses its monkeypatch)."""

    async def answer(server: Server) -> Answer:
        _, got = await provoke(server, pytest.MonkeyPatch())
        return got

    answer.__name__ = provoke.__name__
    return answer


async def _expired_token(server: Server) -> Answer:
    """A lobby player's token, after a resume window of no time at all."""
    lone = await WsClient.connect(server.port, "lone")
    assert lone.token is not None
    await lone.close()
    await until(lambda: server.lobby.connections == 0 and not server.lobby._tasks, "the token released")
    client = await WsClient.connect(server.port)
    return await client.request({"type": "hello", "name": "lone", "token": lone.token})


async def _nick_bad_name(server: Server) -> Answer:
    ann = await WsClient.connect(server.port, "ann")
    return await ann.command("/nick 9lives")


async def _nick_taken(server: Server) -> Answer:
    await WsClient.connect(server.port, "bob")
    ann = await WsClient.connect(server.port, "ann")
    return await ann.command("/nick BOB")


REFUSALS: list[tuple[Callable[[Server], Awaitable[Answer]], str, str]] = [
    (_answer_of(codes._already_welcome), "already_welcome", "You are already ann."),
    (_answer_of(codes._bad_name), "bad_name", f"A name is {NAME_RULE}."),
    (_answer_of(codes._name_taken), "name_taken", "Someone is already called ann."),
    (_answer_of(codes._bad_token), "bad_token", "That resume token is unknown; say hello without it."),
    (_expired_token, "bad_token", "That resume token has expired; say hello without it."),
    (_answer_of(codes._not_in_lobby), "not_in_lobby", "Change your name in the lobby: /leave first."),
    (_nick_bad_name, "bad_name", f"A name is {NAME_RULE}."),
    (_nick_taken, "name_taken", "Someone is already called BOB."),
]


@pytest.mark.parametrize(("provoke", "code", "text"), REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
async def test_each_name_and_token_refusal_has_its_code_and_its_words(
    provoke: Callable[[Server], Awaitable[Answer]], code: str, text: str, make_server: ServerFactory
) -> None:
    """The refusal is an ``error`` with its code and its text, word for word."""
    server = await make_server(resume_window=0)
    answer = await provoke(server)
    assert (answer["type"], answer["code"], answer["message"]) == ("error", code, text)

"""Refusals at the line endpoint's name prompt are error lines like any other: the sentence, its
``[code]`` at the end, then the prompt again."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.errors import UNAVAILABLE
from protocol.names import NAME_RULE
from protocol.text.lines import PROMPT
from server.app import Server
from server.log.contract import StoreUnavailable
from tests.server.clients import LineClient, WsClient

PASSWORD = "correct horse"


async def _refused(client: LineClient, answer: str, code: str, sentence: str) -> None:
    """``answer`` at the prompt reads an error line, ``! SENTENCE [code]`` (carried on indented
    lines past 80 columns), then the prompt again."""
    await client.line(answer)
    text = await client.expect(f"[{code}]\r\n{PROMPT}")
    error = text.removesuffix(PROMPT).strip()
    error = error[error.index("! ") :]  # (after what is left of the prompt before)
    assert " ".join(error.split()) == f"! {sentence} [{code}]", text


async def test_each_refusal_at_the_name_prompt_ends_with_its_code(server: Server) -> None:
    """A bad name, a taken one, an unknown token (in a terminal's words), a command typed for a
    name, a wrong password, an unknown language and a bad ``/ascii`` each read ``! SENTENCE [code]``
    and the prompt; then a good name is welcomed."""
    await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await bob.close()
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await _refused(client, "9lives", "bad_name", f"A name is {NAME_RULE}.")
    await _refused(client, "ann", "name_taken", "Someone is already called ann.")
    unknown = "cem " + "0" * 32
    await _refused(client, unknown, "bad_token", "That resume token no longer holds; type your name alone.")
    first = "Type your name first; commands work once you have one (here: /lang, /ascii, /quit)."
    await _refused(client, "/join cafe", "hello_first", first)  # a command, not a name nor a token
    await client.line("bob")
    await client.expect("Password: ")
    await _refused(client, "not the password", "bad_password", "That is not the password of bob.")
    await _refused(client, "/lang fr", "bad_language", "The language is one of: en, de.")
    await client.line("/ascii maybe")
    await client.expect("[bad_arguments]\r\n" + PROMPT)
    await client.line("cem")
    await client.expect("Hello cem!")


async def test_accounts_out_of_reach_at_the_prompt_is_unavailable_with_its_code(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the accounts cannot be read, a name at the prompt is refused with ``[unavailable]``."""

    async def away(*_: Any) -> bool:
        raise StoreUnavailable("the disk is away")

    monkeypatch.setattr(server.lobby.accounts, "is_registered", away)
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await _refused(client, "cem", "unavailable", UNAVAILABLE)


async def test_enter_alone_at_a_password_prompt_asks_again_and_is_no_attempt(server: Server) -> None:
    """A stray Enter at ``Password:`` (at the name prompt, or the second of ``/register``'s) asks for
    the password again; it is no failed login: four wrong ones after three empty lines still
    leave the fifth attempt, the right password, to log in."""
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await bob.close()
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("bob")
    await client.expect("Password: ")
    for _ in range(3):
        await client.line("")
        await client.expect("Password: ")
    for _ in range(4):
        await _refused(client, "not the password", "bad_password", "That is not the password of bob.")
        await client.line("bob")
        await client.expect("Password: ")
    await client.line(PASSWORD)
    await client.expect("Hello bob!")
    cy = await LineClient.connect(server.line_port, "cy")
    await cy.line("/register")
    await cy.expect("Password: ")
    await cy.line(PASSWORD)
    await cy.expect("Password again: ")
    await cy.line("")
    await cy.expect("Password again: ")
    await cy.line(PASSWORD)
    await cy.expect("registered")

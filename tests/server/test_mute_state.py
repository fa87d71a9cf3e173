"""The answer to ``friends`` says whom the player mutes, as the server keeps it: mutes made on this
connection, at a terminal or on another connection of the same account. Over real sockets."""

from __future__ import annotations

from server.app import Server
from tests.server.clients import LineClient, WsClient

PASSWORD = "correct horse battery"


async def test_friends_answer_lists_the_mutes_of_this_connection(server: Server) -> None:
    """``/mute`` adds a name (in lower case) to ``friends``' ``muted``, ``/unmute`` takes it out."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/friends"))["muted"] == []
    for command in ("/mute Zed", "/mute bob", "/friend Cid"):
        assert (await ann.command(command))["type"] == "ack"
    answer = await ann.request({"type": "friends"})
    assert answer["type"] == "friends"
    assert answer["muted"] == ["bob", "zed"]
    assert [f["name"] for f in answer["friends"]] == ["Cid"]
    assert (await ann.command("/unmute ZED"))["type"] == "ack"
    assert (await ann.request({"type": "friends"}))["muted"] == ["bob"]


async def test_a_mute_made_at_a_terminal_is_in_the_next_logins_friends_answer(server: Server) -> None:
    """An account mutes someone at a terminal; its next login over WebSocket reads the mute in
    ``friends``, and an unmute at the terminal is read there too."""
    assert server.line_port is not None
    page = await WsClient.connect(server.port, "Mira")
    assert (await page.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await page.close()

    async def at_terminal(command: str, answer: str) -> None:
        line = await LineClient.connect(server.line_port or 0)
        await line.line("mira")
        await line.expect("Password: ")
        await line.line(PASSWORD)
        await line.expect("Hello Mira!")
        await line.line(command)
        await line.expect(answer)
        await line.line("/quit")
        await line.close()

    await at_terminal("/mute Zed", "You will not see what Zed says.")
    page = await WsClient.connect(server.port, "Mira", password=PASSWORD)
    assert (await page.request({"type": "friends"}))["muted"] == ["zed"]
    await page.request({"type": "command", "text": "/quit"})
    await page.close()
    await at_terminal("/unmute zed", "You see what zed says again.")
    page = await WsClient.connect(server.port, "Mira", password=PASSWORD)
    assert (await page.request({"type": "friends"}))["muted"] == []

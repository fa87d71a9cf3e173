"""A name unregistered and registered again is a new account: it inherits neither the old one's
lists nor their effect. (That it inherits no rating, rating history or game, nor the ratings of a
game the old one was still playing, is held for every log in ``tests/server/test_log_contract.py``.)"""

from __future__ import annotations

from server.app import Server
from tests.server.clients import WsClient
from tests.server.test_ratings import PASSWORD


async def test_a_name_registered_again_does_not_get_the_old_accounts_lists(server: Server) -> None:
    """ann's friends and mutes go with her account: the next ann to register and log in starts
    with empty lists, and the person the old ann muted reaches her."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await ann.command("/friend bob"))["type"] == "ack"
    assert (await ann.command("/mute cid"))["type"] == "ack"
    assert (await ann.request({"type": "unregister", "password": PASSWORD}))["type"] == "welcome"
    await ann.request({"type": "command", "text": "/quit"})  # (a guest's token would hold the name)
    await ann.close()
    new = await WsClient.connect(server.port, "ann")
    assert (await new.request({"type": "register", "password": PASSWORD + "!"}))["registered"] is True
    await new.close()
    again = await WsClient.connect(server.port, "ann", password=PASSWORD + "!")
    assert (await again.request({"type": "friends"}))["friends"] == []
    cid = await WsClient.connect(server.port, "cid")
    assert (await cid.command("/tell ann hello"))["type"] == "tell"
    assert (await again.next("tell"))["text"] == "hello"

"""A name unregistered and registered again is a new account: it inherits neither the old one's
rating, rating history and games, nor the ratings of a game the old one was still playing, nor
the old one's lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.app import Server
from server.log.sqlite.store import Store
from tests.server.clients import WsClient
from tests.server.test_ratings import ACCOUNTS, PASSWORD, _started


async def check_a_new_account_inherits_nothing(store: Any) -> None:
    """The scenario on any store (SQLite's or Redis'): ann plays a rated game to its end and is
    seated in another when she unregisters; a new ann registers; the second game ends."""
    assert await store.account_created("ann", "hash-1", None)
    await store.game_finished("g1", await _started(store, "g1", ACCOUNTS))
    still_running = await _started(store, "g2", ACCOUNTS)
    assert await store.standing("account:ann") is not None
    await store.account_deleted("ann")
    assert await store.account_created("ann", "hash-2", "guest-of-the-new-ann")
    changes = await store.game_finished("g2", still_running)
    assert "account:ann" not in {c.key for c in changes}
    assert await store.standing("account:ann") is None
    assert "account:ann" not in {s.key for s in await store.leaderboard(10)}
    assert await store.games_count("account:ann") == 0
    assert await store.history("account:ann") == []


async def test_a_name_registered_again_on_sqlite_inherits_nothing(tmp_path: Path) -> None:
    """On SQLite, the new account has no rating, no rated game and no history of the old one."""
    store = Store(str(tmp_path / "cafe.db"))
    try:
        await check_a_new_account_inherits_nothing(store)
    finally:
        store.close()


async def test_a_name_registered_again_does_not_get_the_old_accounts_lists(server: Server) -> None:
    """ann's friends and mutes go with her account: the next ann to register and log in starts
    with empty lists, and the person the old ann muted reaches her."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await ann.command("/friend bob"))["type"] == "ack"
    assert (await ann.command("/mute cid"))["type"] == "ack"
    assert (await ann.request({"type": "unregister", "password": PASSWORD}))["type"] == "welcome"
    await ann.close()
    new = await WsClient.connect(server.port, "ann")
    assert (await new.request({"type": "register", "password": PASSWORD + "!"}))["registered"] is True
    await new.close()
    again = await WsClient.connect(server.port, "ann", password=PASSWORD + "!")
    assert (await again.request({"type": "friends"}))["friends"] == []
    cid = await WsClient.connect(server.port, "cid")
    assert (await cid.command("/tell ann hello"))["type"] == "tell"
    assert (await again.next("tell"))["text"] == "hello"

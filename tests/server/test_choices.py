"""What a person chose is kept: a registered account's friends and mute lists, language and ASCII
choice outlast the resume window, a restart and a killed server, and go with the account; a
guest's lists last as long as its name. Over real sockets, with the store looked into."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from protocol.limits import LIST_MAX
from server.app import Server
from server.log.contract import StoreUnavailable
from server.log.sqlite import schema
from server.log.sqlite.store import Store
from tests.server.clients import LineClient, WsClient
from tests.server.conftest import ServerFactory
from tests.server.oldlogs import without_steps
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"
#: a short resume window, and how long to wait to be past it
WINDOW = 2.0
PAST_WINDOW = WINDOW + 0.5


async def make_choices(port: int, line_port: int) -> None:
    """ann registers, befriends Bob, mutes cid and reads German; at a terminal she turns on plain
    ASCII. Both connections end."""
    ann = await WsClient.connect(port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    for command in ("/friend Bob", "/mute cid", "/lang de"):
        assert (await ann.command(command))["type"] == "ack"
    await ann.close()
    line = await login_at_terminal(line_port)
    await line.line("/ascii on")
    await line.expect("Ab jetzt nur noch reiner ASCII-Text.")
    await line.close()


async def login_at_terminal(line_port: int, greeting: str | None = "Hallo ann!") -> LineClient:
    """ann logs in at the line endpoint with her password, greeted with ``greeting``: in German
    (her account's language in most tests here) unless told otherwise; ``None``: not waited for."""
    line = await LineClient.connect(line_port)
    await line.line("ann")
    await line.expect("Password: ")
    await line.line(PASSWORD)
    if greeting is not None:
        await line.expect(greeting)
    return line


async def check_choices_kept(port: int, line_port: int) -> None:
    """ann logs in again: Bob is her friend (told when bob connects), cid's tell never reaches
    her, she reads German, and at a terminal her text is plain ASCII."""
    ann = await WsClient.connect(port, "ann", password=PASSWORD)
    assert [f["name"] for f in (await ann.command("/friends"))["friends"]] == ["Bob"]
    error = await ann.request({"type": "move", "move": "FRf@FR1s"})
    assert error["message"].startswith("Betritt erst einen Raum")
    cid = await WsClient.connect(port, "cid")
    assert (await cid.command("/tell ann hello"))["type"] == "tell"
    bob = await WsClient.connect(port, "bob")
    online = await ann.next(lambda x: x["type"] == "notice" and "bob" in x["text"])
    assert online["text"] == "Dein Freund bob ist online."
    await ann.barrier()
    assert [x for x in ann.messages if x["type"] == "tell"] == []
    for client in (ann, cid, bob):  # (gone for good: /quit gives a guest's name up at once)
        await client.request({"type": "command", "text": "/quit"})
        await client.close()
    line = await login_at_terminal(line_port)
    await line.line("/help ascii")
    await line.expect("/ascii on/off - ")  # (an em dash in UTF-8)
    await line.close()


def stored_rows(db: Path) -> tuple[list[tuple[str, str, str]], list[tuple[object, ...]]]:
    """ann's list entries and account row (language, ASCII) as the SQLite file holds them."""
    with sqlite3.connect(db) as conn:
        lists = conn.execute(
            "SELECT list, key, name FROM lists WHERE identity = 'account:ann' ORDER BY list"
        ).fetchall()
        account = conn.execute("SELECT lang, ascii FROM accounts WHERE name = 'ann'").fetchall()
    conn.close()
    return lists, account


#: (a mute is kept under the look-alike form of the name: ``cld`` for ``cid``)
CHOSEN = ([("friend", "bob", "Bob"), ("mute", "cld", "cid")], [("de", 1)])


async def unregister(port: int) -> None:
    """ann logs in and deletes her account."""
    ann = await WsClient.connect(port, "ann", password=PASSWORD)
    assert (await ann.request({"type": "unregister", "password": PASSWORD}))["registered"] is False
    await ann.request({"type": "command", "text": "/quit"})  # (a guest's token would hold the name)
    await ann.close()


async def check_fresh(port: int) -> None:
    """The name registered again: at its next login it has no friends, mutes nobody (cid's tell
    arrives) and reads English."""
    new = await WsClient.connect(port, "ann")
    assert (await new.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await new.close()
    again = await WsClient.connect(port, "ann", password=PASSWORD)
    assert (await again.command("/friends"))["friends"] == []
    error = await again.request({"type": "move", "move": "FRf@FR1s"})
    assert error["message"].startswith("Enter a room first")
    cid = await WsClient.connect(port, "cid")
    assert (await cid.command("/tell ann hello"))["type"] == "tell"
    assert (await again.next("tell"))["text"] == "hello"
    for client in (again, cid):
        await client.close()


# --- a registered account ------------------------------------------------------------------------


async def test_an_accounts_choices_outlast_the_resume_window_and_a_restart(
    make_server: ServerFactory, tmp_path: Path
) -> None:
    """Logged in again after the resume window passed, ann has her friends, mutes, language and
    ASCII; so she has after the server stopped and started again on the same file."""
    server: Server = await make_server(resume_window=WINDOW)
    assert server.line_port is not None
    await make_choices(server.port, server.line_port)
    assert stored_rows(tmp_path / "cafe.db") == CHOSEN
    await asyncio.sleep(PAST_WINDOW)
    await check_choices_kept(server.port, server.line_port)
    await server.stop()
    again: Server = await make_server(resume_window=WINDOW)
    assert again.line_port is not None
    await check_choices_kept(again.port, again.line_port)
    assert stored_rows(tmp_path / "cafe.db") == CHOSEN


@pytest.mark.timeout(300)
async def test_an_accounts_choices_survive_a_killed_server(tmp_path: Path) -> None:
    """kill -9 of the server right after the last choice was acknowledged: the file holds them
    all, and the next server on it gives them back; /unregister then deletes them from it."""
    db = tmp_path / "cafe.db"
    args = ("--resume-window", str(WINDOW), "--hash-memory", "1024")
    first = await ServerProcess.start(db, *args)
    await make_choices(first.port, first.line_port)
    first.proc.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(first.proc.wait(), 10) == -signal.SIGKILL
    assert stored_rows(db) == CHOSEN
    second = await ServerProcess.start(db, *args)
    try:
        await check_choices_kept(second.port, second.line_port)
        await unregister(second.port)
        assert stored_rows(db) == ([], [])
        await check_fresh(second.port)
    finally:
        second.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.proc.wait(), 20)
    assert stored_rows(db) == ([], [(None, None)])  # the new ann's account, with nothing chosen


async def test_unregister_deletes_the_lists_and_settings_from_the_store(
    server: Server, tmp_path: Path
) -> None:
    """Right after /unregister the store holds none of ann's lists and no account; the name
    registered again starts afresh."""
    assert server.line_port is not None
    await make_choices(server.port, server.line_port)
    await unregister(server.port)
    assert stored_rows(tmp_path / "cafe.db") == ([], [])
    assert await server.store.lists("account:ann") == {"mute": {}, "friend": {}}
    assert await server.store.account("ann") is None
    await check_fresh(server.port)


async def test_a_registered_terminal_keeps_ascii_off_too(server: Server) -> None:
    """/ascii off after /ascii on is kept as well: the next login at a terminal reads UTF-8."""
    assert server.line_port is not None
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "register", "password": PASSWORD})
    await ann.close()
    line = await login_at_terminal(server.line_port, "Hello ann!")
    await line.line("/ascii on")
    await line.expect("Text in plain ASCII from now on.")
    await line.line("/ascii off")
    await line.expect("Text in UTF-8 from now on.")
    await line.close()
    stored = await server.store.account("ann")
    assert stored is not None and stored.ascii is False
    again = await login_at_terminal(server.line_port, "Hello ann!")
    await again.line("/help ascii")
    await again.expect("/ascii on/off — ")


async def test_a_choice_the_store_cannot_keep_is_unavailable_and_changes_nothing(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the store refuses a list change or the ASCII choice, the answer is ``unavailable``
    and the list, and the terminal's text, stay as they were."""
    assert server.line_port is not None
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "register", "password": PASSWORD})

    async def refused(*args: object) -> None:
        raise StoreUnavailable("disk full")

    monkeypatch.setattr(server.store, "list_changed", refused)
    monkeypatch.setattr(server.store, "account_ascii", refused)
    assert (await ann.command("/mute cid"))["code"] == "unavailable"
    cid = await WsClient.connect(server.port, "cid")
    assert (await cid.command("/tell ann hello"))["type"] == "tell"
    assert (await ann.next("tell"))["text"] == "hello"
    await ann.close()
    line = await login_at_terminal(server.line_port, greeting=None)
    await line.line("/ascii on")
    await line.expect("[unavailable]")
    await line.line("/help ascii")
    await line.expect("/ascii on/off — ")


async def test_a_return_while_the_lists_cannot_be_read_is_unavailable_and_changes_nothing(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the store cannot give a returning player's lists, the hello is ``unavailable`` before
    anything changed: the token still holds, and the next try comes back with the lists."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/mute cid"))["type"] == "ack"
    token = ann.token
    await ann.close()
    kept = server.store.lists

    async def refused(identity: str) -> dict[str, dict[str, str]]:
        raise StoreUnavailable("database is locked")

    monkeypatch.setattr(server.store, "lists", refused)
    client = await WsClient.connect(server.port)
    answer = await client.request({"type": "hello", "name": "ann", "token": token})
    assert answer["code"] == "unavailable"
    monkeypatch.setattr(server.store, "lists", kept)
    back = await WsClient.connect(server.port, "ann", token=token)
    cid = await WsClient.connect(server.port, "cid")
    assert (await cid.command("/tell ann hello"))["type"] == "tell"
    await back.barrier()
    assert [x for x in back.messages if x["type"] == "tell"] == []


# --- the bound ---------------------------------------------------------------------------------------


async def test_each_list_holds_200_names(server: Server) -> None:
    """A full friends list refuses a new name with ``list_full`` and changes nothing; a name it
    holds may be named again, the mute list is a list of its own, and room is made by unfriending."""
    ann = await WsClient.connect(server.port, "ann")
    for n in range(LIST_MAX):
        assert (await ann.command(f"/friend f{n}"))["type"] == "ack"
    refused = await ann.command("/friend one_more")
    assert refused["code"] == "list_full"
    assert refused["message"] == "Your friends list holds 200 names at most: /unfriend one first."
    assert (await ann.command("/friend F7"))["type"] == "ack"
    assert (await ann.command("/mute one_more"))["type"] == "ack"
    names = [f["name"] for f in (await ann.command("/friends"))["friends"]]
    assert len(names) == LIST_MAX and "one_more" not in names
    assert (await ann.command("/unfriend f0"))["type"] == "ack"
    assert (await ann.command("/friend one_more"))["type"] == "ack"
    assert ann.token is not None
    info = await server.store.token(ann.token)
    assert info is not None
    stored = await server.store.lists(info.identity)
    assert (
        len(stored["friend"]) == LIST_MAX and "one_more" in stored["friend"] and "f0" not in stored["friend"]
    )


async def test_a_full_mute_list_refuses_a_new_name(server: Server) -> None:
    """The mute list holds 200 names too; the refusal names /unmute."""
    ann = await WsClient.connect(server.port, "ann")
    for n in range(LIST_MAX):
        assert (await ann.command(f"/mute m{n}"))["type"] == "ack"
    refused = await ann.command("/mute one_more")
    assert (refused["code"], refused["message"]) == (
        "list_full",
        "Your mute list holds 200 names at most: /unmute one first.",
    )


# --- a guest -----------------------------------------------------------------------------------------


async def test_a_guests_lists_go_once_its_name_is_released(make_server: ServerFactory) -> None:
    """A guest's lists come back with its token, after a restart too; once the resume window
    passed its token is refused, a new guest of the name starts with none, and the store lets
    go of them when it prunes the expired tokens (an account's stay, its token expired too)."""
    server: Server = await make_server(resume_window=WINDOW)
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/friend bob"))["type"] == "ack"
    assert ann.token is not None
    info = await server.store.token(ann.token)
    assert info is not None
    identity = info.identity
    await ann.close()
    await server.stop()
    server = await make_server(resume_window=WINDOW)
    back = await WsClient.connect(server.port, "ann", token=ann.token)
    assert [f["name"] for f in (await back.command("/friends"))["friends"]] == ["bob"]
    token = back.token
    await back.close()
    zed = await WsClient.connect(server.port, "zed")
    assert (await zed.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await zed.command("/friend ann"))["type"] == "ack"
    await zed.close()
    await asyncio.sleep(PAST_WINDOW)
    refused = await WsClient.connect(server.port)
    assert (await refused.request({"type": "hello", "name": "ann", "token": token}))["code"] == "bad_token"
    new = await WsClient.connect(server.port, "ann")
    assert (await new.command("/friends"))["friends"] == []
    await new.close()
    assert isinstance(server.store, Store)
    assert (await server.store.lists(identity))["friend"] == {"bob": "bob"}  # out of reach, not yet pruned
    server.store.tokens_pruned(time.time())
    assert zed.token is not None and await server.store.token(zed.token) is None
    assert server.store.lists_pruned() == 1
    assert await server.store.lists(identity) == {"mute": {}, "friend": {}}
    assert (await server.store.lists("account:zed"))["friend"] == {"ann": "ann"}


async def test_a_guest_seated_in_a_running_game_keeps_its_lists_past_the_window(
    make_server: ServerFactory,
) -> None:
    """While a running game holds the guest's seat, its name holds, and so do its lists: pruned
    tokens leave them, and the guest comes back to them after the window."""
    server: Server = await make_server(resume_window=WINDOW)
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    for client in (ann, bob):
        assert (await client.command("/join held"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    assert (await ann.command("/mute cid"))["type"] == "ack"
    token = ann.token
    await ann.close()
    await asyncio.sleep(PAST_WINDOW)
    assert isinstance(server.store, Store)
    server.store.tokens_pruned(time.time())
    server.store.lists_pruned()
    back = await WsClient.connect(server.port, "ann", token=token)
    cid = await WsClient.connect(server.port, "cid")
    assert (await cid.command("/tell ann hello"))["type"] == "tell"
    await back.barrier()
    assert [x for x in back.messages if x["type"] == "tell"] == []


async def test_a_guest_who_registers_takes_its_lists_into_the_account(server: Server) -> None:
    """The lists a guest made are the account's once it registers: there at the next login, kept
    under the account in the store and no longer under the guest."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/friend bob"))["type"] == "ack"
    assert ann.token is not None
    info = await server.store.token(ann.token)
    assert info is not None
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await ann.close()
    again = await WsClient.connect(server.port, "ann", password=PASSWORD)
    assert [f["name"] for f in (await again.command("/friends"))["friends"]] == ["bob"]
    assert (await server.store.lists("account:ann"))["friend"] == {"bob": "bob"}
    assert await server.store.lists(info.identity) == {"mute": {}, "friend": {}}


# --- the schema --------------------------------------------------------------------------------------


#: a log made by the current code taken back to version 3: its accounts as they were, no lists
VERSION_3 = """
DROP TABLE lists;
DROP TABLE accounts;
CREATE TABLE accounts (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    hash TEXT NOT NULL,
    created REAL NOT NULL,
    last_seen REAL,
    lang TEXT
);
INSERT INTO accounts (name, hash, created, lang) VALUES ('ann', 'h', 1.0, 'de');
PRAGMA user_version = 3;
"""


async def test_a_log_of_schema_version_3_upgrades_in_place(tmp_path: Path) -> None:
    """A file written before lists and the ASCII choice were kept gains both when opened: its
    account reads as before (its language, no ASCII chosen), and takes lists and the choice."""
    path = tmp_path / "v3.db"
    Store(str(path)).close()
    with sqlite3.connect(path) as db:
        without_steps(db)
        db.executescript(VERSION_3)
    db.close()
    store = Store(str(path))
    try:
        assert store._db.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
        account = await store.account("ann")
        assert account is not None and (account.lang, account.ascii) == ("de", False)
        await store.account_ascii("ann", True)
        await store.list_changed("account:ann", "mute", "cid", "Cid")
        account = await store.account("ann")
        assert account is not None and account.ascii is True
        assert await store.lists("account:ann") == {"mute": {"cid": "Cid"}, "friend": {}}
    finally:
        store.close()

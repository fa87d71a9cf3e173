"""Names that look alike are one name: a name whose look-alike form (Unicode's confusables, UTS #39,
whatever the case) is a registered name's is ``name_registered``, one that is a connected person's
or a held seat's is ``name_taken``, and the names kept for the server, its staff and its bots are
``name_reserved``, in any case and any look-alike; at hello, at the line endpoint's name prompt, at
``/nick`` and ``/register``. One's own name still comes back, resumed or logged in."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from protocol.text.lines import PROMPT
from server.app import Server
from server.directory import names as name_tables
from server.directory.names import NameTable
from server.log.sqlite.store import Store
from tests.examples import run_examples
from tests.server.clients import LineClient, WsClient, until
from tests.server.conftest import ServerFactory
from tests.server.oldlogs import without_steps

PASSWORD = "correct horse battery"


async def _registered(server: Server, name: str) -> None:
    """``name`` registered, then gone."""
    client = await WsClient.connect(server.port, name)
    assert (await client.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await client.close()


async def _hello(server: Server, name: str) -> dict[str, object]:
    """The answer to a hello for ``name`` on a new connection."""
    client = await WsClient.connect(server.port)
    return await client.request({"type": "hello", "name": name})


@pytest.mark.parametrize("name", ["aIice", "a1ice", "ALlCE", "AL1CE", "aiice"])
async def test_a_look_alike_of_a_registered_name_is_name_registered(server: Server, name: str) -> None:
    """With ``alice`` registered, a capital I, a one or an l for its l or i is ``name_registered``,
    naming the account; nobody is welcomed or listed under it."""
    await _registered(server, "alice")
    answer = await _hello(server, name)
    assert (answer["type"], answer["code"]) == ("error", "name_registered")
    assert answer["message"] == f"{name} looks like alice, a registered name; choose another name."
    who = await (await WsClient.connect(server.port, "bob")).request({"type": "who"})
    assert [p["name"] for p in who["people"]] == ["bob"]


async def test_a_registered_names_look_alike_is_refused_with_a_password_and_at_nick(server: Server) -> None:
    """A look-alike is no way into the account (a password changes nothing), and a guest cannot
    take one with /nick."""
    await _registered(server, "alice")
    client = await WsClient.connect(server.port)
    answer = await client.request({"type": "hello", "name": "aIice", "password": PASSWORD})
    assert answer["code"] == "name_registered"
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/nick aIice"))["code"] == "name_registered"
    assert (await bob.command("/nick ALICE"))["code"] == "name_registered"  # (the very name)


async def test_the_account_still_logs_in_in_any_case_and_resumes(server: Server) -> None:
    """The registered person logs in as ``ALICE`` as before, and comes back with the token."""
    await _registered(server, "alice")
    again = await WsClient.connect(server.port, "ALICE", password=PASSWORD)
    assert again.messages[-1]["registered"] is True
    token = again.token
    await again.close()
    back = await WsClient.connect(server.port, "ALICE", token=token)
    assert back.messages[-1]["resumed"] is True


@pytest.mark.parametrize(
    ("held", "name", "message"),
    [
        ("mia", "rnia", "rnia looks like the name of someone here; choose another name."),
        ("mia", "mla", "mla looks like the name of someone here; choose another name."),
        ("bob", "b0b", "b0b looks like the name of someone here; choose another name."),
        ("ella", "e1la", "e1la looks like the name of someone here; choose another name."),
        ("mia", "MIA", "Someone is already called MIA."),
    ],
)
async def test_a_look_alike_of_a_connected_name_is_name_taken(
    server: Server, held: str, name: str, message: str
) -> None:
    """``rn`` for ``m``, ``l`` for ``i`` (``I`` in capitals), ``0`` for ``o``, ``1`` for ``l``:
    ``name_taken`` while the name is connected, saying it looks like someone's."""
    await WsClient.connect(server.port, held)
    answer = await _hello(server, name)
    assert (answer["type"], answer["code"], answer["message"]) == ("error", "name_taken", message)


async def test_a_look_alike_is_free_once_the_name_is_gone(server: Server) -> None:
    """A guest's name holds its look-alikes only while it is connected."""
    mia = await WsClient.connect(server.port, "mia")
    assert (await _hello(server, "rnia"))["code"] == "name_taken"
    await mia.request({"type": "command", "text": "/quit"})
    await mia.close()
    assert (await WsClient.connect(server.port, "rnia")).name == "rnia"


async def test_a_held_seat_holds_its_look_alikes(server: Server) -> None:
    """A player gone from a running game keeps the seat for the window, and its name's
    look-alikes are ``name_taken`` meanwhile."""
    ann, mia = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "mia")
    for client in (ann, mia):
        assert (await client.command("/join held"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await mia.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    answer = await _hello(server, "rnIa")
    assert (answer["code"], answer["message"]) == (
        "name_taken",
        "rnIa looks like the name of someone here; choose another name.",
    )


async def test_one_may_rename_to_a_look_alike_of_ones_own_name(server: Server) -> None:
    """Nobody else holds a name like one's own: a guest ``mia`` may become ``rnia``, and
    ``mia`` is then held by it."""
    mia = await WsClient.connect(server.port, "mia")
    welcome = await mia.command("/nick rnia")
    assert (welcome["type"], welcome["name"]) == ("welcome", "rnia")
    assert (await _hello(server, "mia"))["code"] == "name_taken"


@pytest.mark.parametrize(
    "name",
    ["server", "Server", "SYSTEM", "admin", "ADMlN", "adm1n", "Moderator", "mod", "M0D", "rnod", "bot", "B0T",
     "random", "greedy", "Strong", "greedy-bot1", "Strong-Bot12", "randombot", "GREEDY_BOTl", "strong-b0t"],
)  # fmt: skip
async def test_reserved_names_are_refused_in_any_case_and_look_alike(server: Server, name: str) -> None:
    """The server's, its staff's and its bots' names (each strategy's, and ``STRATEGY-botN``) are
    ``name_reserved`` at hello."""
    answer = await _hello(server, name)
    assert (answer["type"], answer["code"]) == ("error", "name_reserved")
    assert answer["message"] == f"{name} is kept for the server and its bots; choose another name."


@pytest.mark.parametrize("name", ["modest", "admins", "robot", "strongman", "greedy-bottle", "servers"])
async def test_names_that_only_begin_like_a_reserved_one_are_welcome(server: Server, name: str) -> None:
    """Only the reserved names themselves (and their look-alikes) are kept."""
    assert (await WsClient.connect(server.port, name)).name == name


async def test_reserved_names_at_nick_and_at_the_line_prompt(server: Server) -> None:
    """``/nick Admin`` is ``name_reserved``; so is ``SERVER`` typed at the line endpoint's name
    prompt, which then welcomes a good name."""
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/nick Admin"))["code"] == "name_reserved"
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port)
    await line.line("SERVER")
    text = await line.expect(PROMPT)
    sentence = "! SERVER is kept for the server and its bots; choose another name."
    assert sentence in " ".join(text.split())  # (folded past 80 columns)
    await line.line("carla")
    await line.expect("Hello carla!")


async def test_a_look_alike_at_the_line_prompt_is_refused_with_its_code(server: Server) -> None:
    """At the name prompt a look-alike of a registered name asks no password: it is refused."""
    await _registered(server, "alice")
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port)
    await line.line("aIice")
    text = await line.expect(PROMPT)
    assert "Password" not in text and "aIice looks like alice, a registered name" in " ".join(text.split())


async def test_a_reserved_guest_name_cannot_be_registered(make_server: ServerFactory, tmp_path: Path) -> None:
    """A guest who holds a reserved name from before (its token still good) cannot register it."""
    store = Store(str(tmp_path / "cafe.db"))  # a token issued before the name was reserved
    await store.token_issued("f" * 32, "admin", "guest-identity")
    store.close()
    server: Server = await make_server()
    admin = await WsClient.connect(server.port, "admin", token="f" * 32)
    answer = await admin.request({"type": "register", "password": PASSWORD})
    assert (answer["type"], answer["code"]) == ("error", "name_reserved")


async def test_an_old_log_gets_the_forms_of_its_accounts(make_server: ServerFactory, tmp_path: Path) -> None:
    """A log from before forms (schema version 4: no column, no version) and one whose forms were
    made with other data are indexed again as they open: ``aIice`` is refused after each restart."""
    server: Server = await make_server()
    await _registered(server, "alice")
    await server.stop()
    db = sqlite3.connect(tmp_path / "cafe.db")
    with db:
        without_steps(db)
        db.execute("DROP INDEX accounts_by_form")
        db.execute("ALTER TABLE accounts DROP COLUMN form")
        db.execute("DROP TABLE name_forms")
        db.execute("PRAGMA user_version = 4")
    db.close()
    server = await make_server()
    assert (await _hello(server, "aIice"))["code"] == "name_registered"
    await server.stop()
    db = sqlite3.connect(tmp_path / "cafe.db")
    with db:
        db.execute("UPDATE accounts SET form = 'something else'")
        db.execute("UPDATE name_forms SET version = 'older'")
    db.close()
    server = await make_server()
    assert (await _hello(server, "aIice"))["code"] == "name_registered"


async def test_unregistering_frees_the_look_alikes(server: Server) -> None:
    """Once ``alice`` is unregistered (and gone), ``aIice`` is welcome."""
    alice = await WsClient.connect(server.port, "alice")
    await alice.request({"type": "register", "password": PASSWORD})
    assert (await alice.request({"type": "unregister", "password": PASSWORD}))["registered"] is False
    await alice.request({"type": "command", "text": "/quit"})
    await alice.close()
    assert (await WsClient.connect(server.port, "aIice")).name == "aIice"


def test_a_name_table_counts_the_forms_of_its_names() -> None:
    """Setting, deleting and popping names keep the count of their forms: a form is there while
    any name of it is; no other way to change the table is there to skip the count."""
    table: NameTable[int] = NameTable()
    table["mia"] = 1
    table["rnia"] = 2
    table["mia"] = 3  # (the same name again counts once)
    assert dict(table.forms) == {"rnla": 2}
    del table["rnia"]
    assert dict(table.forms) == {"rnla": 1}
    assert table.pop("nobody", 0) == 0 and table.pop("mia") == 3
    assert not table.forms and not table
    with pytest.raises(KeyError):
        table.pop("mia")
    assert {"update", "setdefault", "clear", "popitem", "__ior__"}.isdisjoint(dir(table))


def test_the_name_tables_examples_hold() -> None:
    """The docstring examples of ``server.directory.names`` (how many names of a form, one's own aside)."""
    found = run_examples(name_tables)
    assert found.attempted >= 3 and found.failed == 0


# --- a name is held for its holder alone: connected, for the resume window, or by a seat ---------------


async def _gone(server: Server, name: str) -> None:
    """Wait until the server has let go of ``name``'s connection."""
    await until(lambda: server.lobby.directory.session(name) is None, f"{name}'s connection gone")


async def test_a_dropped_guests_name_is_held_for_the_window(server: Server) -> None:
    """mia, a guest in no game, loses her connection: for the resume window ``mia`` is
    ``name_taken`` (someone is called so) and ``rnia`` too (it looks like it); her token, not
    revoked by those hellos, brings her back."""
    mia = await WsClient.connect(server.port, "mia")
    await mia.close()
    await _gone(server, "mia")
    answer = await _hello(server, "mia")
    assert (answer["code"], answer["message"]) == ("name_taken", "Someone is already called mia.")
    answer = await _hello(server, "rnia")
    assert (answer["code"], answer["message"]) == (
        "name_taken",
        "rnia looks like the name of someone here; choose another name.",
    )
    back = await WsClient.connect(server.port, "mia", token=mia.token)
    assert back.messages[-1]["resumed"] is True


async def test_a_dropped_guests_name_is_free_after_the_window(make_server: ServerFactory) -> None:
    """Once the resume window has passed, the name and its look-alikes are free, and the old token
    is refused."""
    server: Server = await make_server(resume_window=0.3)
    mia = await WsClient.connect(server.port, "mia")
    await mia.close()
    await _gone(server, "mia")
    assert (await _hello(server, "rnia"))["code"] == "name_taken"
    await asyncio.sleep(0.4)
    assert (await WsClient.connect(server.port, "rnia")).name == "rnia"
    answer = await _hello_with(server, "mia", token=mia.token)
    assert answer["code"] == "bad_token"


async def _hello_with(server: Server, name: str, **fields: object) -> dict[str, object]:
    """The answer to a hello for ``name`` with ``fields`` (a token, a password) on a new connection."""
    client = await WsClient.connect(server.port)
    return await client.request({"type": "hello", "name": name, **fields})


async def test_a_token_does_not_bring_back_a_name_whose_look_alike_someone_holds(
    make_server: ServerFactory,
) -> None:
    """mia's token outlives a restart, the hold of her name does not (she was a guest in no
    game); rnia connects meanwhile. mia's token is then ``name_taken`` ("looks like the name of
    someone here"), and rnia stays the only one of the two."""
    server: Server = await make_server()
    mia = await WsClient.connect(server.port, "mia")
    await server.stop()
    server = await make_server()
    rnia = await WsClient.connect(server.port, "rnia")
    answer = await _hello_with(server, "mia", token=mia.token)
    assert (answer["type"], answer["code"], answer["message"]) == (
        "error",
        "name_taken",
        "mia looks like the name of someone here; choose another name.",
    )
    who = await rnia.request({"type": "who"})
    assert [p["name"] for p in who["people"]] == ["rnia"]


async def test_a_look_alikes_token_cannot_hijack_a_held_seat(make_server: ServerFactory) -> None:
    """The seat hijack: rnia keeps a token across a restart; mia sits in a game and drops. While
    her seat waits, a fresh ``rnia`` and rnia's token are both ``name_taken``, nobody can
    ``/nick`` to mia, and mia herself comes back to her seat and hand."""
    server: Server = await make_server()
    attacker = await WsClient.connect(server.port, "rnia")
    await server.stop()
    server = await make_server()
    ann, mia = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "mia")
    for client in (ann, mia):
        assert (await client.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await mia.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    assert (await _hello(server, "rnia"))["code"] == "name_taken"
    answer = await _hello_with(server, "rnia", token=attacker.token)
    assert (answer["code"], answer["message"]) == (
        "name_taken",
        "rnia looks like the name of someone here; choose another name.",
    )
    zed = await WsClient.connect(server.port, "zed")
    answer = await zed.command("/nick mia")
    assert (answer["code"], answer["message"]) == ("name_taken", "Someone is already called mia.")
    back = await WsClient.connect(server.port, "mia", token=mia.token)
    snapshot = await back.next("snapshot")
    assert snapshot["view"]["seat"] == 1 and snapshot["view"]["game"]["hand"]


async def test_nick_and_register_refuse_another_s_name_like_ones_own(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should two look-alikes ever be connected at once (let in by hand here, as a hold lost
    could), ``/nick`` from rnia to mia's very name is ``name_taken``, in any case, and rnia cannot
    register a name that looks like someone else's; nothing changes."""
    mia = await WsClient.connect(server.port, "mia")

    async def let_in(name: str, own: str | None = None) -> None:
        return None

    monkeypatch.setattr(server.lobby.directory, "claim_name", let_in)
    rnia = await WsClient.connect(server.port, "rnia")
    monkeypatch.undo()
    for nick in ("mia", "MIA"):
        answer = await rnia.command(f"/nick {nick}")
        assert (answer["code"], answer["message"]) == ("name_taken", f"Someone is already called {nick}.")
    answer = await rnia.request({"type": "register", "password": PASSWORD})
    assert (answer["code"], answer["message"]) == (
        "name_taken",
        "rnia looks like the name of someone here; choose another name.",
    )
    who = await mia.request({"type": "who"})
    assert [p["name"] for p in who["people"]] == ["mia", "rnia"]

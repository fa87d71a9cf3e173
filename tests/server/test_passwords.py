"""What a password guards, over real sockets: an account whose stored hash cannot be read lets
nobody in; a password matches only as it was set; failed logins count per address as well as per
name; registering and unregistering each hand out a new resume token and revoke the old one, and
say what happened."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from server.app import Server
from server.lobby import accounts as accounts_module
from tests.server.clients import OPEN, LineClient, WsClient
from tests.server.conftest import ServerFactory

PASSWORD = "Correct Horse"


async def _login(server: Server, name: str, password: str, host: str = "127.0.0.1") -> dict[str, Any]:
    client = await WsClient.connect(server.port, host=host)
    return await client.request({"type": "hello", "name": name, "password": password})


async def _register(server: Server, name: str, password: str = PASSWORD) -> WsClient:
    client = await WsClient.connect(server.port, name)
    welcome = await client.request({"type": "register", "password": password})
    assert welcome["registered"] is True
    client.token = welcome["token"]
    return client


@pytest.mark.parametrize(
    "stored",
    [
        "not a hash",  # argon2 cannot parse it: InvalidHashError
        "$argon2id$v=19$m=1024,t=3,p=4$c2FsdHNhbHQ$",  # parsed, then refused: VerificationError
    ],
    ids=["invalid-hash", "verification-error"],
)
async def test_an_unreadable_stored_hash_refuses_every_password(stored: str, server: Server) -> None:
    """When the stored hash cannot be read, the right password, a wrong one and an empty one are
    all ``bad_password``: nobody logs in."""
    await (await _register(server, "ann")).close()
    await server.store.password_changed("ann", stored)
    for password in (PASSWORD, "anything else", ""):
        answer = await _login(server, "ann", password)
        assert (answer["type"], answer["code"]) == ("error", "bad_password"), (password, answer)


async def test_a_password_matches_only_exactly(server: Server) -> None:
    """A password in another case, or with a space added, is ``bad_password``; the password as it
    was set logs in."""
    await (await _register(server, "ann")).close()
    for password in (PASSWORD.upper(), PASSWORD.lower(), PASSWORD + " ", " " + PASSWORD):
        answer = await _login(server, "ann", password)
        assert (answer["type"], answer["code"]) == ("error", "bad_password"), password
    assert (await _login(server, "ann", PASSWORD))["type"] == "welcome"


async def test_failed_logins_count_per_address_too(make_server: ServerFactory) -> None:
    """With ``--login-attempts 1`` one address may fail four times (four times a name's limit):
    wrong passwords for six registered names, one each, from one address: the first four are
    ``bad_password``, the fifth and sixth ``too_many_attempts``, though no name failed before."""
    server: Server = await make_server(login_attempts=1)
    names = [f"user{n}" for n in range(1, 7)]
    for name in names:
        await (await _register(server, name)).close()
    codes = [(await _login(server, name, "not the password"))["code"] for name in names]
    assert codes == ["bad_password"] * 4 + ["too_many_attempts"] * 2


async def test_failed_logins_over_ipv6_count_by_the_64(make_server: ServerFactory) -> None:
    """Over IPv6 the failures of an address are those of its /64 (where a client may take a new
    address for every attempt): with ``--login-attempts 1``, four wrong passwords from ``::1``
    make ``::/64`` wait, and the fifth is ``too_many_attempts``."""
    server: Server = await make_server(host="::1", login_attempts=1)
    names = [f"user{n}" for n in range(1, 6)]
    for name in names:
        await (await WsClient.connect(server.port, name, host="::1")).request(
            {"type": "register", "password": PASSWORD}
        )
    codes = [(await _login(server, name, "not the password", host="::1"))["code"] for name in names]
    assert codes == ["bad_password"] * 4 + ["too_many_attempts"]
    assert server.lobby.accounts.by_address.wait("::/64", time.monotonic()) > 0


async def test_register_and_unregister_each_issue_a_new_token_and_revoke_the_old(server: Server) -> None:
    """``register`` answers with a new token, and the guest's token is ``bad_token`` from then on;
    ``unregister`` does the same with the account's; the newest token resumes the name."""
    ann = await WsClient.connect(server.port, "ann")
    guest_token = ann.token
    registered = await ann.request({"type": "register", "password": PASSWORD})
    assert registered["registered"] is True and registered["token"] != guest_token
    stale = await WsClient.connect(server.port)
    answer = await stale.request({"type": "hello", "name": "ann", "token": guest_token})
    assert answer["code"] == "bad_token"
    unregistered = await ann.request({"type": "unregister", "password": PASSWORD})
    assert unregistered["registered"] is False
    assert unregistered["token"] not in (guest_token, registered["token"])
    for old in (guest_token, registered["token"]):
        stale = await WsClient.connect(server.port)
        assert (await stale.request({"type": "hello", "name": "ann", "token": old}))["code"] == "bad_token"
    back = await WsClient.connect(server.port, "ann", token=unregistered["token"])
    assert back.name == "ann"


async def test_register_and_unregister_say_so_at_the_terminal(server: Server) -> None:
    """At the terminal ``/register`` confirms the account in words before the new welcome, and
    ``/unregister`` says the account is deleted; a program reads the same ``notice``."""
    assert server.line_port is not None
    ann = await LineClient.connect(server.line_port, "ann")
    await ann.line("/register")
    for prompt in ("Password: ", "Password again: "):
        await ann.expect(prompt)
        await ann.line(PASSWORD)
    text = await ann.expect("Hello ann!")
    assert "* ann is registered: the name is yours, and each login asks for its password.\r\n" in text
    await ann.line("/unregister")
    await ann.expect("Password: ")
    await ann.line(PASSWORD)
    text = await ann.expect("Hello ann!")
    assert "* The account ann is deleted; you play on as a guest.\r\n" in text
    bob = await WsClient.connect(server.port, "bob")
    await bob.request({"type": "register", "password": PASSWORD})
    notices = [m["text"] for m in bob.messages if m["type"] == "notice"]
    assert notices == ["bob is registered: the name is yours, and each login asks for its password."]


async def test_logins_sent_at_once_count_as_one_after_another(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--login-attempts 5``, sixteen wrong passwords for one name sent at once: five are
    judged ``bad_password`` and the others are ``too_many_attempts``, as one after another would
    be; the right password then is refused too, and an address's good logins count nothing. (The
    hashes one address may have at once are more than five here: that limit is another's.)"""
    monkeypatch.setattr(accounts_module, "HASHES_AN_ADDRESS", 16)
    server: Server = await make_server(login_attempts=5)
    await (await _register(server, "ann")).close()
    answers = await asyncio.gather(*(_login(server, "ann", f"guess {n}") for n in range(16)))
    codes = sorted(a["code"] for a in answers)
    assert codes == ["bad_password"] * 5 + ["too_many_attempts"] * 11, codes
    assert (await _login(server, "ann", PASSWORD))["code"] == "too_many_attempts"
    for client in OPEN[:]:
        await client.close()
    other: Server = await make_server(login_attempts=1, data=":memory:")
    await (await _register(other, "bob")).close()
    for _ in range(6):  # (more than an address's four failures: none of them failed)
        assert (await _login(other, "bob", PASSWORD))["type"] == "welcome"


def _slow_hash(server: Server, monkeypatch: pytest.MonkeyPatch, seconds: float = 0.3) -> None:
    """Hashing a password takes ``seconds`` (as argon2id at its full memory may): a window for
    what races it."""
    accounts = server.lobby.accounts
    hash_ = accounts.hash

    async def slowly(password: str, address: str | None = None, msg_id: int | str | None = None) -> str:
        await asyncio.sleep(seconds)
        return await hash_(password, address, msg_id)

    monkeypatch.setattr(accounts, "hash", slowly)


async def test_a_resume_while_the_password_hashes_waits_for_the_registration(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ann asks to register, and while the password hashes her token is sent by a second
    connection: who holds a name changes one at a time, so the registration is made first, and
    the new token it comes with revokes the one the resume came with (``bad_token``: a token
    someone took does not undo a registration under way). Every connection's answers are its own."""
    _slow_hash(server, monkeypatch)
    ann = await WsClient.connect(server.port, "ann")
    await ann.send({"type": "register", "password": PASSWORD, "id": 7})
    await asyncio.sleep(0.05)
    other = await WsClient.connect(server.port)
    refused = await other.request({"type": "hello", "name": "ann", "token": ann.token})
    assert refused["code"] == "bad_token", refused
    registered = await ann.next(lambda m: m["type"] == "welcome" and m.get("id") == 7)
    assert registered["registered"] is True and await server.store.account("ann") is not None
    assert [x["type"] for x in other.messages] == ["error"]


async def test_a_game_that_starts_while_the_password_hashes_refuses_the_registration(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ann, seated in a waiting room, asks to register; while the password hashes, the host
    starts the game: the registration is ``already_playing`` and makes no account, so the game
    stays as its players were when it began (ann a guest)."""
    _slow_hash(server, monkeypatch)
    host = await WsClient.connect(server.port, "host")
    ann = await WsClient.connect(server.port, "ann")
    assert (await host.command("/join table"))["type"] == "ack"
    assert (await ann.command("/join table"))["type"] == "ack"
    await ann.send({"type": "register", "password": PASSWORD, "id": "reg"})
    await asyncio.sleep(0.05)
    assert (await host.command("/start"))["type"] == "ack"
    answer = await ann.next(lambda x: x.get("id") == "reg")
    assert answer["code"] == "already_playing", answer
    assert await server.store.account("ann") is None


async def test_a_seek_sent_right_after_a_rename_stays_in_the_queue(server: Server) -> None:
    """``seek``, ``register`` and ``seek`` again sent at once: the first seek ends with the
    registration, and the second is in the queue (a drop by name on its way took it out)."""
    ann = await WsClient.connect(server.port, "ann")
    for message in (
        {"type": "seek", "size": 2, "clock": 30, "rated": False, "id": 1},
        {"type": "register", "password": PASSWORD, "id": 2},
        {"type": "seek", "size": 2, "clock": 30, "rated": False, "id": 3},
    ):
        await ann.send(message)
    answer = await ann.next(lambda x: x.get("id") == 3)
    assert answer["type"] == "seeking", answer
    assert [e.seeker.name for e in await server.lobby.seeks.queue.entries()] == ["ann"]


async def test_a_password_change_that_waited_for_the_name_finds_its_connection_replaced(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """``/password`` waits while someone else takes the name back (the lock a login holds);
    replaced meanwhile, the connection is closing: the change does nothing and fails nowhere
    (its handler once asserted the name it no longer had, and the socket closed 1000)."""
    owner = await WsClient.connect(server.port, "pc0")
    assert (await owner.request({"type": "register", "password": PASSWORD}))["registered"] is True
    session = server.lobby.directory.session("pc0")
    assert session is not None
    async with server.lobby.name_changes.hold("pc0"):  # (as a login taking the name back holds it)
        await owner.send({"type": "password", "old": PASSWORD, "new": "new password!", "id": "pw"})
        await asyncio.sleep(0.1)
        server.lobby.detach_quietly(session)  # (the login replaces this connection)
    with pytest.raises(ConnectionClosed) as closed:
        await owner.next(lambda m: False, timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008, closed.value
    await asyncio.sleep(0.1)  # (the handler's end, after the close)
    failed = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert failed == [], failed
    account = await server.store.account("pc0")
    assert account is not None and await server.lobby.accounts.login("pc0", PASSWORD, "test") is not None

"""Registered accounts over both transports: register, log in, the password prompts with the
terminal's echo off, wrong passwords, the attempt limit, guests kept off registered names, and no
password anywhere in the log or the metrics."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import cast

import pytest

from protocol.errors import ProtocolError
from server import logs
from server.app import Server
from server.lobby.accounts import HASHES_AN_ADDRESS, Accounts, Attempts
from server.log.contract import AccountStore
from server.net.line import ECHO_OFF, ECHO_ON
from tests.server.clients import LineClient, WsClient, http_get
from tests.server.conftest import ServerFactory

PASSWORD = "correct horse battery"


async def test_register_over_websocket_then_log_in_from_another_connection(
    server: Server, tmp_path: Path
) -> None:
    """A registered name logs in with its password; the file keeps an argon2id hash, not the password."""
    ann = await WsClient.connect(server.port, "ann")
    welcome = await ann.request({"type": "register", "password": PASSWORD})
    assert welcome["type"] == "welcome" and welcome["registered"] is True
    await ann.close()
    again = await WsClient.connect(server.port, "ann", password=PASSWORD)
    assert again.name == "ann"
    assert again.messages[-1]["registered"] is True
    (stored,) = sqlite3.connect(tmp_path / "cafe.db").execute("SELECT hash FROM accounts").fetchone()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored


async def test_a_guest_cannot_take_a_registered_name_and_is_marked_a_guest(server: Server) -> None:
    """hello without the password is ``name_registered``; /nick to it too; who marks guests."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "register", "password": PASSWORD})
    await ann.close()
    guest = await WsClient.connect(server.port)
    assert (await guest.request({"type": "hello", "name": "ANN"}))["code"] == "name_registered"
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/nick ann"))["code"] == "name_registered"
    await WsClient.connect(server.port, "ann", password=PASSWORD)
    who = await bob.request({"type": "who"})
    assert {p["name"]: p["guest"] for p in who["people"]} == {"ann": False, "bob": True}


async def test_a_bare_register_away_from_a_terminal_says_how_to_type_it(server: Server) -> None:
    """``/register``, ``/password`` and ``/unregister`` without a password, typed where nothing asks
    for one with the echo off (the web page's command line, a program), answer how to give it at
    once, in the reader's language (it pointed a player at PROTOCOL.md)."""
    ann = await WsClient.connect(server.port, "ann")
    answers = [await ann.command(f"/{what}") for what in ("register", "password", "unregister")]
    assert [(a["code"], a["message"]) for a in answers] == [
        ("bad_arguments", "Type /register PASSWORD PASSWORD: the new password, twice."),
        ("bad_arguments", "Type /password OLD NEW NEW: your password, then the new one twice."),
        ("bad_arguments", "Type /unregister PASSWORD: your password."),
    ]
    assert (await ann.request({"type": "lang", "lang": "de"}))["type"] in ("notice", "ack")
    german = await ann.command("/register")
    assert german["message"] == "Tippe /register PASSWORT PASSWORT: das neue Passwort, zweimal."


async def test_line_register_asks_twice_with_echo_off_and_login_asks_the_password(server: Server) -> None:
    """/register sends IAC WILL ECHO, asks twice, then IAC WONT ECHO; the name prompt of a
    registered name asks Password: with the echo off; the password never comes back."""
    ann = await LineClient.connect(server.line_port, "ann")
    await ann.line("/register")
    await ann.expect("Password: ")
    assert ECHO_OFF in ann.received
    await ann.line(PASSWORD)
    await ann.expect("Password again: ")
    await ann.line(PASSWORD)
    await ann.expect("Hello ann")
    assert ann.received.index(ECHO_ON) > ann.received.index(ECHO_OFF)
    await ann.line("/quit")
    again = await LineClient.connect(server.line_port)
    await again.line("ann")
    await again.expect("Password: ")
    assert again.received.endswith(ECHO_OFF + b"Password: ")
    await again.line(PASSWORD)
    await again.expect("Hello ann!")
    assert ECHO_ON in again.received
    assert PASSWORD.encode() not in ann.received + again.received


async def test_line_wrong_password_then_the_attempt_limit(make_server: ServerFactory) -> None:
    """A wrong password is refused; past the limit even the right one waits, and says how long."""
    server: Server = await make_server(login_attempts=2)
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "register", "password": PASSWORD})
    await ann.close()
    line = await LineClient.connect(server.line_port)
    for _ in range(2):
        await line.line("ann")
        await line.expect("Password: ")
        await line.line("not the password")
        await line.expect("not the password of ann")
    await line.line("ann")
    await line.expect("Password: ")
    await line.line(PASSWORD)
    text = await line.expect("seconds")
    assert "Too many failed logins; try again in" in text


async def test_weak_password_and_password_change_and_unregister(server: Server) -> None:
    """Under 8 characters is ``weak_password``; /password needs the old one; /unregister frees
    the name for guests (once its guest gives up its token: /quit)."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": "short"}))["code"] == "weak_password"
    await ann.request({"type": "register", "password": PASSWORD})
    bad = await ann.request({"type": "password", "old": "wrong password", "new": "new password!"})
    assert bad["code"] == "bad_password"
    assert (await ann.request({"type": "password", "old": PASSWORD, "new": "new password!"}))["type"] == "ack"
    await ann.close()
    ann = await WsClient.connect(server.port, "ann", password="new password!")
    assert (await ann.request({"type": "unregister", "password": "new password!"}))["registered"] is False
    await ann.request({"type": "command", "text": "/quit"})
    await ann.close()
    await WsClient.connect(server.port, "ann")  # a guest may take it now


async def test_a_password_a_terminal_could_not_type_the_same_is_weak(server: Server) -> None:
    """A terminal's line loses its blanks at both ends, its tabs and its controls: a new password
    holding them could not be typed the same there, and is ``weak_password``, saying so (eight
    spaces are eight characters, and weak for that). Blanks inside stay, as a terminal keeps them;
    at a terminal, the password registered over WebSocket logs in."""
    ann = await WsClient.connect(server.port, "ann")
    said = "A password holds no space at either end, and no tab, control or invisible character."
    weak = (" " * 8, "  ab  cd  ", "trailing1 ", " leading1", "tab\there1", "bell\x07bell", "no\u00a0break1")
    for password in weak:
        refused = await ann.request({"type": "register", "password": password})
        assert (refused["code"], refused["message"]) == ("weak_password", said), password
    assert (await ann.request({"type": "register", "password": "ab  cd  ef"}))["registered"] is True
    refused = await ann.request({"type": "password", "old": "ab  cd  ef", "new": "new one! "})
    assert refused["code"] == "weak_password"
    await ann.close()
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port)
    await line.line("ann")
    await line.expect("Password: ")
    await line.line("ab  cd  ef")
    await line.expect("Hello ann!")


async def test_a_password_changes_during_a_rated_game_and_the_game_goes_on(server: Server) -> None:
    """A password is no part of who plays a game: ann changes hers while her rated game runs
    (where ``unregister`` waits: ``already_playing``), and plays on at her seat."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "register", "password": PASSWORD})
    bob = await WsClient.connect(server.port, "bob")
    await bob.request({"type": "register", "password": PASSWORD})
    assert (await ann.command("/join rated"))["type"] == "ack"
    assert (await bob.command("/join rated"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    waits = await ann.request({"type": "unregister", "password": PASSWORD})
    assert waits["code"] == "already_playing"
    answer = await ann.request({"type": "password", "old": PASSWORD, "new": "new password!"})
    assert answer["type"] == "ack"
    await ann.barrier()
    assert ann.view is not None
    mover = ann if ann.view["game"]["to_move"] == "ann" else bob
    legal = (await mover.request({"type": "legal_moves"}))["moves"]
    assert (await mover.request({"type": "move", "move": legal[0]}))["type"] == "ack"
    assert server.lobby.rooms["rated"].core.seats.index_of("ann") is not None


async def test_a_new_password_comes_with_a_new_token_and_the_old_one_lets_nobody_in(server: Server) -> None:
    """A token someone took is why a password is changed: the change hands its connection a new
    token (``welcome``, ``id`` null, before the ``ack``), and the old one is ``bad_token``; the
    new one brings ann back."""
    ann = await WsClient.connect(server.port, "ann")
    old = (await ann.request({"type": "register", "password": PASSWORD}))["token"]
    answer = await ann.request({"type": "password", "old": PASSWORD, "new": "new password!"})
    assert answer["type"] == "ack"
    notice, welcome = [x for x in ann.messages if x["type"] in ("notice", "welcome")][-2:]
    assert notice["text"] == "Your password is changed."
    assert (welcome["id"], welcome["name"], welcome["registered"]) == (None, "ann", True)
    assert welcome["seq"] < answer["seq"] and welcome["token"] != old
    thief = await WsClient.connect(server.port)
    refused = await thief.request({"type": "hello", "name": "ann", "token": old})
    assert refused["code"] == "bad_token"
    await ann.close()
    back = await WsClient.connect(server.port, "ann", token=welcome["token"])
    assert back.name == "ann"


async def test_no_password_reaches_the_log_or_the_metrics(
    make_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every event logged while registering, logging in (right and wrong) and changing the
    password, and the /metrics page, are free of the passwords."""
    secrets = [PASSWORD, "wrong password", "another password"]
    server: Server = await make_server()
    logs.configure("debug", "json")
    try:
        ann = await WsClient.connect(server.port, "ann")
        await ann.request({"type": "register", "password": PASSWORD})
        await ann.close()
        guest = await WsClient.connect(server.port)
        await guest.request({"type": "hello", "name": "ann", "password": "wrong password"})
        ann = await WsClient.connect(server.port, "ann", password=PASSWORD)
        await ann.request({"type": "password", "old": PASSWORD, "new": "another password"})
        line = await LineClient.connect(server.line_port)
        await line.line("ann")
        await line.expect("Password: ")
        await line.line("wrong password")
        await line.expect("not the password")
    finally:
        logs.configure("warning", "console")
    logged = "".join(capsys.readouterr())
    assert "login_failed" in logged and "registered" in logged
    _, _, metrics = await http_get(server.port, "/metrics")
    for secret in secrets:
        assert secret not in logged
        assert secret.encode() not in metrics


async def test_a_line_client_reads_the_ratings_of_a_rated_game(make_server: ServerFactory) -> None:
    """At the end of a rated game the line client prints each rating before and after."""
    server: Server = await make_server(resume_window=0.3)
    line = await LineClient.connect(server.line_port, "ann")
    await line.line("/REGISTER")  # (a command's name in any case)
    for prompt in ("Password: ", "Password again: "):
        await line.expect(prompt)
        await line.line(PASSWORD)
    bob = await WsClient.connect(server.port, "bob")
    await bob.request({"type": "register", "password": PASSWORD})
    await line.line("/join rated")
    await line.line("/option absent drop")
    await line.expect("absent")
    assert (await bob.command("/join rated"))["type"] == "ack"
    await line.line("/start")
    await line.expect("game starts")
    await bob.close()
    text = await line.expect("The seed was")
    assert "* Rated: ann 1000 -> " in text and "* Rated: bob 1000 -> " in text


def test_failed_logins_from_a_flood_of_addresses_stay_bounded() -> None:
    """Failures from ever new addresses keep at most ``max_keys`` of them; the most recent stay
    counted (one of them at its limit still waits)."""
    attempts = Attempts(limit=3, window=60.0, max_keys=100)
    for i in range(5_000):
        attempts.failed(f"10.0.{i // 256}.{i % 256}", now=1.0)
    assert len(attempts) == 100
    for _ in range(3):
        attempts.failed("10.0.19.135", now=2.0)  # the last address of the flood
    assert attempts.wait("10.0.19.135", now=3.0) == 59.0
    assert attempts.wait("10.0.0.0", now=3.0) == 0.0  # the first: forgotten


def test_failed_logins_that_expired_are_dropped_when_others_fail() -> None:
    """Addresses that never try again are dropped once their failures left the window, as soon as
    anyone else fails; one key keeps no more than ``limit`` failures."""
    attempts = Attempts(limit=3, window=60.0)
    for i in range(1_000):
        attempts.failed(f"addr{i}", now=float(i % 10))
    for _ in range(1_000):
        attempts.failed("busy", now=20.0)
    assert len(attempts) == 1_001
    attempts.failed("late", now=100.0)
    assert len(attempts) == 1  # "busy" too: its last failure was at 20
    attempts.failed("late", now=101.0)
    assert attempts.wait("late", now=102.0) == 0.0  # two failures, under the limit
    attempts.failed("late", now=102.0)
    assert attempts.wait("late", now=102.0) == 58.0
    assert len(attempts._failures["late"]) == 3


def test_an_attempt_given_back_leaves_nothing_behind() -> None:
    """An attempt counted before it was judged and given back (a right password) leaves its key
    as if it had never come, and other keys fail and wait as before (a key left with no failures
    would break the look at the oldest one)."""
    attempts = Attempts(limit=3, window=60.0)
    attempts.failed("198.51.100.1", now=1.0)
    attempts.give_back("198.51.100.1", 1.0)
    assert len(attempts) == 0
    attempts.failed("198.51.100.1", now=2.0)
    attempts.failed("198.51.100.1", now=3.0)
    attempts.give_back("198.51.100.1", 3.0)
    assert len(attempts._failures["198.51.100.1"]) == 1
    for now in (4.0, 5.0, 6.0):
        attempts.failed("203.0.113.9", now=now)
    assert attempts.wait("203.0.113.9", now=7.0) == 57.0
    attempts.give_back("203.0.113.9", 99.0)  # (nothing counted then: nothing given back)
    assert attempts.wait("203.0.113.9", now=7.0) == 57.0


async def test_metrics_count_logins_by_result_and_registrations(server: Server) -> None:
    """/metrics counts this node's registrations, and its logins with a password as ``ok`` or by
    the refusal's code, over both transports."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await ann.close()
    guest = await WsClient.connect(server.port)
    assert (await guest.request({"type": "hello", "name": "ann", "password": "wrong password"}))[
        "code"
    ] == "bad_password"
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port)
    await line.line("ann")
    await line.expect("Password: ")
    await line.line("wrong again")
    await line.expect("not the password")
    await WsClient.connect(server.port, "ann", password=PASSWORD)
    _, _, metrics = await http_get(server.port, "/metrics")
    text = metrics.decode()
    assert "cafe_registrations_total 1.0" in text
    assert 'cafe_logins_total{result="ok"} 1.0' in text
    assert 'cafe_logins_total{result="bad_password"} 2.0' in text


async def test_a_login_is_welcomed_under_the_accounts_own_spelling(server: Server) -> None:
    """Registered as "Anna", a login typed "anna" is welcomed as "Anna", and others see "Anna"."""
    anna = await WsClient.connect(server.port, "Anna")
    await anna.request({"type": "register", "password": PASSWORD})
    await anna.close()
    again = await WsClient.connect(server.port)
    welcome = await again.request({"type": "hello", "name": "anna", "password": PASSWORD})
    assert (welcome["type"], welcome["name"], welcome["registered"]) == ("welcome", "Anna", True)
    bob = await WsClient.connect(server.port, "bob")
    who = await bob.request({"type": "who"})
    assert {p["name"] for p in who["people"]} == {"Anna", "bob"}


async def test_one_address_hashes_a_few_passwords_at_once_and_leaves_the_threads_to_others() -> None:
    """An address's connections may have ``HASHES_AN_ADDRESS`` passwords hashed or checked at once
    (each costs a hashing thread's time); one more is ``too_many_attempts`` at once, while another
    address's is taken; once they are done, the address may hash again."""
    accounts = Accounts(cast(AccountStore, None), workers=1)
    release = threading.Event()

    class Held:  # a hash that waits to be let go, as a slow argon2 would take its time
        def hash(self, password: str) -> str:
            release.wait(10)
            return f"hashed {password}"

    accounts._hasher = Held()  # type: ignore[assignment]
    try:
        busy = [
            asyncio.ensure_future(accounts.hash("secret12", "10.0.0.1")) for _ in range(HASHES_AN_ADDRESS)
        ]
        other = asyncio.ensure_future(accounts.hash("secret12", "10.0.0.2"))
        await asyncio.sleep(0.05)
        with pytest.raises(ProtocolError) as refused:
            await accounts.hash("secret12", "10.0.0.1", msg_id=7)
        assert (refused.value.code, refused.value.id) == ("too_many_attempts", 7)  # (its answer)
        release.set()
        assert await asyncio.gather(*busy, other) == ["hashed secret12"] * (HASHES_AN_ADDRESS + 1)
        assert await accounts.hash("secret12", "10.0.0.1") == "hashed secret12"
    finally:
        release.set()
        accounts.close()



async def _registered_and_a_stranger(server: Server, name: str) -> tuple[WsClient, WsClient]:
    """``name`` connected and registered, and a connection that has said nothing yet."""
    owner = await WsClient.connect(server.port, name)
    assert (await owner.request({"type": "register", "password": PASSWORD}))["registered"] is True
    return owner, await WsClient.connect(server.port)


async def test_an_account_deleted_as_it_is_logged_into_welcomes_nobody_to_it(server: Server) -> None:
    """``/unregister`` and a login with the password, sent at the same moment ten times: whichever
    the server takes first, a login welcomed as registered has its account there, and one that
    came after the deletion is ``not_registered`` (no connection holds an account that is gone)."""
    for round_ in range(10):
        name = f"ghost{round_}"
        owner, other = await _registered_and_a_stranger(server, name)
        deleted, login = await asyncio.gather(
            owner.request({"type": "unregister", "password": PASSWORD}),
            other.request({"type": "hello", "name": name, "password": PASSWORD}),
            return_exceptions=True,  # (the owner replaced by the login reads no answer: closed)
        )
        assert isinstance(login, dict), login
        account = await server.store.account(name)
        if login["type"] == "welcome":
            assert login["registered"] is True and account is not None, (deleted, login)
        else:
            assert login["code"] == "not_registered" and account is None, (deleted, login)
        await asyncio.gather(owner.close(), other.close())


async def test_a_password_changed_as_the_old_one_logs_in_lets_one_of_them_through(server: Server) -> None:
    """``/password`` and a login with the old password, at the same moment ten times: either the
    login came first (the change's connection, replaced, changes nothing) or the change did (the
    old password is refused): never both."""
    for round_ in range(10):
        name = f"pw{round_}"
        owner, other = await _registered_and_a_stranger(server, name)
        changed, login = await asyncio.gather(
            owner.request({"type": "password", "old": PASSWORD, "new": "new password!"}),
            other.request({"type": "hello", "name": name, "password": PASSWORD}),
            return_exceptions=True,
        )
        assert isinstance(login, dict), login
        both = isinstance(changed, dict) and changed["type"] == "ack" and login["type"] == "welcome"
        assert not both, (changed, login)
        await asyncio.gather(owner.close(), other.close())


async def test_a_login_with_an_empty_token_is_a_login(server: Server) -> None:
    """``"token": ""`` is no token (as ``hello`` reads it): a name with its password and an empty
    token logs in, as without one."""
    owner = await WsClient.connect(server.port, "emptytok")
    assert (await owner.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await owner.close()
    again = await WsClient.connect(server.port)
    welcome = await again.request({"type": "hello", "name": "emptytok", "password": PASSWORD, "token": ""})
    assert welcome["type"] == "welcome" and welcome["registered"] is True, welcome

"""Moderation through real sockets on one node: staff rights read from the store, bans, kicks,
silences, reports, the log, announcements, closed rooms and the staff's marks."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from server.app import Server
from server.lobby.sanctions import Enforcer
from server.log.contract import OPERATOR, Sanction, SanctionKind
from tests.server.clients import LineClient, WsClient, http_get, until
from tests.server.conftest import ServerFactory

PASSWORD = "correct-horse"
#: what a wrong duration is told
RULE = "A duration is minutes, hours or days (30m, 2h, 7d), or perm."


async def _registered(server: Server, name: str, role: str | None = None) -> WsClient:
    """``name`` connected, registered, and given ``role`` by the operator."""
    client = await WsClient.connect(server.port, name)
    answer = await client.request({"type": "register", "password": PASSWORD})
    assert answer["type"] == "welcome" and answer["registered"], answer
    if role is not None:
        assert await server.store.role_set(name, role, by=OPERATOR)  # type: ignore[arg-type]
    return client


async def _at_a_terminal(server: Server, name: str) -> LineClient:
    """``name``, registered, logged in with the password at the line endpoint."""
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port)
    await line.line(name)
    await line.expect("Password: ")
    await line.line(PASSWORD)
    await line.expect(f"Hello {name}")
    return line


async def _hello(server: Server, name: str, **more: Any) -> dict[str, Any]:
    """The answer to ``hello`` as ``name`` on a new connection."""
    client = await WsClient.connect(server.port)
    return await client.request({"type": "hello", "name": name, **more})


async def _closed(client: WsClient) -> list[dict[str, Any]]:
    """Everything ``client`` reads until its connection closes."""
    read: list[dict[str, Any]] = []
    try:
        while True:
            read.append(await client._receive(5.0))
    except Exception:
        return read


STAFF_ONLY: list[dict[str, Any]] = [
    {"type": "reports"},
    {"type": "resolve", "report": 1},
    {"type": "moderate", "action": "kick", "name": "bob"},
    {"type": "moderate", "action": "ban", "name": "bob", "duration": "2h"},
    {"type": "moderate", "action": "silence", "name": "bob", "duration": "perm"},
    {"type": "moderate", "action": "unban", "name": "bob"},
    {"type": "moderate", "action": "unsilence", "name": "bob"},
    {"type": "close", "room": "cafe"},
    {"type": "announce", "text": "hello all"},
    {"type": "role", "name": "bob", "role": "moderator"},
    {"type": "modlog"},
]


async def test_nothing_a_person_without_a_role_sends_acts(server: Server) -> None:
    """Every staff message from a guest, and from a registered person without a role, is
    ``not_staff``; nothing is logged, nobody is closed; a moderator's admin-only ones too."""
    bob = await WsClient.connect(server.port, "bob")
    await bob.command("/join cafe")
    guest = await WsClient.connect(server.port, "gus")
    plain = await _registered(server, "pia")
    mod = await _registered(server, "mo", "moderator")
    for client in (guest, plain):
        for message in STAFF_ONLY:
            answer = await client.request(message)
            assert (answer["type"], answer["code"]) == ("error", "not_staff"), (message, answer)
    admin_only: list[dict[str, Any]] = [
        {"type": "announce", "text": "hi"},
        {"type": "role", "name": "pia", "role": "moderator"},
    ]
    for message in admin_only:
        answer = await mod.request(message)
        assert (answer["type"], answer["code"]) == ("error", "not_staff"), answer
    assert [e.action for e in await server.store.modlog()] == ["role:moderator"]  # (the operator's)
    assert await server.store.sanctions("bob") == []
    assert await server.store.role("pia") is None
    assert (await bob.request({"type": "ping"}))["type"] == "pong"


async def test_a_closed_rooms_members_get_the_notice_and_no_ack(server: Server) -> None:
    """``/close ROOM``: the members read the notice and go to the lobby, which ``room_closed``
    tells them; nobody but the staff member who asked gets an ``ack`` (an ack answers one's own
    message only)."""
    ann = await _registered(server, "ann", "moderator")
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/join cafe"))["type"] == "ack"
    bob.take_all()
    assert (await ann.command("/close cafe spam"))["type"] == "ack"
    await bob.next(lambda x: x["type"] == "notice" and "spam" in x["text"])
    assert (await bob.next("room_closed"))["room"] == "cafe"  # (in the lobby now)
    await bob.barrier()
    assert [x for x in bob.messages + bob.take_all() if x["type"] == "ack" and x["id"] is None] == []


async def test_an_entry_crossing_a_close_is_answered_then_undone(server: Server) -> None:
    """bob enters a room in the instant the staff close it: whatever he was answered (a snapshot,
    an ack), ``room_closed`` comes after it, so that he knows he is in the lobby, as he is."""
    ann = await _registered(server, "ann", "moderator")
    cy, bob = await WsClient.connect(server.port, "cy"), await WsClient.connect(server.port, "bob")
    for turn in range(4):
        room = f"crossed{turn}"
        assert (await cy.request({"type": "enter_room", "room": room}))["type"] == "ack"
        await bob.barrier()
        before = len(bob.messages)
        await bob.send({"type": "enter_room", "room": room})
        await ann.send({"type": "close", "room": room, "reason": "spam"})
        await bob.next("room_closed")
        await bob.barrier()
        got = [x["type"] for x in bob.messages[before:]]
        assert "snapshot" not in got[got.index("room_closed") :], got
        assert (await bob.request({"type": "leave_room"}))["code"] == "not_in_room"


async def test_a_closed_room_with_a_game_goes_at_once(server: Server) -> None:
    """``/close ROOM`` of a room whose game runs: the game ends and the room goes with its
    members, at once (not the while a room stays after its game is over): it is listed no more,
    and whoever enters the name finds a new room."""
    ann = await _registered(server, "ann", "moderator")
    bob, cy = await WsClient.connect(server.port, "bob"), await WsClient.connect(server.port, "cy")
    for client in (bob, cy):
        assert (await client.command("/join cafe"))["type"] == "ack"
    assert (await bob.command("/start"))["type"] == "ack"
    assert (await ann.command("/close cafe spam"))["type"] == "ack"
    await bob.next(lambda x: x["type"] == "notice" and "spam" in x["text"])
    await until(lambda: "cafe" not in server.lobby.directory.rooms, "the closed room gone")
    assert "cafe" not in [r["name"] for r in (await ann.request({"type": "list_rooms"}))["rooms"]]
    assert (await cy.command("/join cafe"))["type"] == "ack"
    assert cy.view is not None and cy.view["state"] == "waiting" and cy.view["game"] is None


async def test_a_ban_closes_the_connection_and_keeps_the_name_out(server: Server) -> None:
    """``/ban NAME 2h REASON``: logged first, the banned person reads why and is closed; a new
    hello is ``banned`` with the reason and the end time; ``/unban`` lets them in again."""
    ann = await _registered(server, "ann", "moderator")
    troll = await WsClient.connect(server.port, "troll")
    answer = await ann.command("/ban troll 2h insults in the lobby")
    assert answer["type"] == "ack"
    read = await _closed(troll)
    bye = [m for m in read if m["type"] == "bye"]
    assert bye and "insults in the lobby" in bye[0]["reason"] and "ann" in bye[0]["reason"]
    [entry] = await server.store.modlog("troll")
    assert (entry.by, entry.action, entry.target, entry.duration, entry.reason) == (
        "ann", "ban", "troll", "2h", "insults in the lobby"
    )  # fmt: skip
    refused = await _hello(server, "TROLL")
    assert (refused["type"], refused["code"]) == ("error", "banned")
    until_text = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 7200))
    assert "insults in the lobby" in refused["message"] and until_text in refused["message"]
    assert "UTC" in refused["message"]
    assert (await ann.command("/unban troll"))["type"] == "ack"
    assert (await _hello(server, "troll", token=troll.token))["type"] == "welcome"
    assert [e.action for e in await server.store.modlog("troll")] == ["unban", "ban"]


async def test_a_guests_ban_holds_for_its_address_and_not_for_accounts(server: Server) -> None:
    """A guest banned is kept out under any other guest name from its address; a registered
    player from the same address logs in as themselves."""
    await _registered(server, "ann", "admin")
    reg = await _registered(server, "reg")
    await reg.close()
    admin = await WsClient.connect(server.port, "ann", password=PASSWORD)
    flood = await WsClient.connect(server.port, "flood")
    assert (await admin.request({"type": "moderate", "action": "ban", "name": "flood", "duration": "1d"}))[
        "type"
    ] == "ack"
    await _closed(flood)
    other = await _hello(server, "newname")
    assert (other["type"], other["code"]) == ("error", "banned")
    said = other["message"]
    assert said.startswith("Guests from your address are banned") and "flood" not in said
    again = await _hello(server, "flood")  # the guest banned reads its own ban
    assert again["code"] == "banned" and again["message"].startswith("flood is banned until")
    assert (await _hello(server, "reg", password=PASSWORD))["type"] == "welcome"


async def test_a_sanction_without_a_reason_reads_as_a_sentence(server: Server) -> None:
    """A kick, a ban and a closed room given no reason say so in a sentence of their own, not
    with a reason of "-"."""
    mod = await _registered(server, "kim", "moderator")
    eve = await _registered(server, "eve")
    fay = await WsClient.connect(server.port, "fay")  # (in before a guest's kick holds the address)
    dora = await WsClient.connect(server.port, "dora")
    assert (await mod.command("/kick dora"))["type"] == "ack"
    [bye] = [m["reason"] for m in await _closed(dora) if m["type"] == "bye"]
    assert bye.startswith("You are kicked by kim for 10 minutes, until ") and bye.endswith(" UTC."), bye
    assert (await mod.command("/ban eve 2h"))["type"] == "ack"
    [bye] = [m["reason"] for m in await _closed(eve) if m["type"] == "bye"]
    assert bye.startswith("You are banned by kim, until ") and bye.endswith(" UTC."), bye
    refused = await _hello(server, "eve", password=PASSWORD)
    assert refused["code"] == "banned" and refused["message"].endswith(" UTC."), refused
    assert (await fay.command("/join tea"))["type"] == "ack"
    assert (await mod.command("/close tea"))["type"] == "ack"
    notice = await fay.next(lambda m: m["type"] == "notice" and "closed" in m["text"])
    assert notice["text"] == "The room tea was closed by kim.", notice


async def test_a_flooding_guest_is_stopped_with_one_command(server: Server) -> None:
    """A guest flooding the lobby with insults: one ``/kick`` by a moderator closes it, its
    ``bye`` saying by whom, until when (UTC) and why, and it cannot come back for ten minutes,
    under its name or another guest name (``kicked``)."""
    mod = await _registered(server, "mod_helper".replace("mod_", "kim"), "moderator")
    troll = await WsClient.connect(server.port, "troll")
    for _ in range(5):
        await troll.request({"type": "say", "text": "you are all idiots"})
    assert (await mod.command("/kick troll flooding"))["type"] == "ack"
    read = await _closed(troll)
    [bye] = [m["reason"] for m in read if m["type"] == "bye"]
    until = time.strftime("%Y-%m-%d %H:%M", time.gmtime(time.time() + 600))
    until_before = time.strftime("%Y-%m-%d %H:%M", time.gmtime(time.time() + 540))
    assert bye.startswith("You are kicked by kimhelper for 10 minutes, until "), bye
    assert bye.endswith(" UTC: flooding") and (until in bye or until_before in bye), bye
    for name in ("troll", "troll2"):
        answer = await _hello(server, name)
        assert (answer["type"], answer["code"]) == ("error", "kicked"), answer
        assert "UTC" in answer["message"]
    [kick] = await server.store.sanctions("troll")
    assert kick.until is not None and 590 < kick.until - time.time() <= 600


async def test_a_kicked_players_seat_is_held_as_a_dropped_players(server: Server) -> None:
    """A kicked player's seat in a running game waits for them as for a lost connection."""
    mod = await _registered(server, "kim", "moderator")
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    for client in (ann, bob):
        assert (await client.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    assert (await mod.command("/kick ann"))["type"] == "ack"
    await _closed(ann)
    away = await bob.next(lambda m: m["type"] == "presence" and m["name"] == "ann" and m["event"] == "away")
    assert away["room"] == "cafe"
    await bob.barrier()
    assert bob.view is not None
    assert [(s["name"], s["connected"]) for s in bob.view["seats"]] == [("ann", False), ("bob", True)]


async def test_a_silenced_person_plays_but_does_not_chat_tell_or_invite(server: Server) -> None:
    """``silence`` for 30m: say, tell, reply and invite are ``silenced`` with the end time; the
    room's commands still work; ``unsilence`` lets them chat again, told all a silence held back."""
    admin = await _registered(server, "ann", "admin")
    assert (await admin.command("/room cafe"))["type"] == "ack"  # a room there, for bob to join
    bob = await WsClient.connect(server.port, "bob")
    answer = await admin.request({"type": "moderate", "action": "silence", "name": "bob", "duration": "30m"})
    assert answer["type"] == "ack"
    notice = await bob.next("notice")
    assert "silenced until" in notice["text"]
    end = time.strftime("%H:%M", time.gmtime(time.time() + 1800))
    for message in (
        {"type": "say", "text": "hi"},
        {"type": "tell", "name": "ann", "text": "hi"},
        {"type": "command", "text": "/say hello"},
    ):
        refused = await bob.request(message)
        assert (refused["type"], refused["code"]) == ("error", "silenced"), refused
        assert end[:2] in refused["message"]
    assert (await bob.command("/join cafe"))["type"] == "ack"
    assert (await bob.request({"type": "invite", "name": "ann"}))["code"] == "silenced"
    assert (await admin.command("/unsilence bob"))["type"] == "ack"
    told = await bob.next(lambda x: x["type"] == "notice" and "again" in x["text"])
    free = "You may chat, tell, invite, change your name and open rooms and tournaments again."
    assert told["text"] == free, told
    assert (await bob.request({"type": "say", "text": "sorry"}))["type"] == "ack"


async def test_unsilence_frees_the_guests_that_came_later_from_the_address(server: Server) -> None:
    """A guest's silence holds for guests who come later from its address: ``/unsilence`` of the
    guest silenced frees them too (they read so), as it frees the guest; a silence of their own
    would still hold them."""
    admin = await _registered(server, "ann", "admin")
    loud = await WsClient.connect(server.port, "loud")
    assert (await admin.command("/silence loud 1h shouting"))["type"] == "ack"
    later = await WsClient.connect(server.port, "later")
    assert (await later.request({"type": "say", "text": "hi"}))["code"] == "silenced"
    # an account would log in as itself, free of the address's silence: not while it holds
    assert (await later.request({"type": "register", "password": "correct horse"}))["code"] == "silenced"
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "later2")
    await line.line("/register")
    assert "Password: " not in await line.expect("[silenced]")
    assert (await admin.command("/unsilence loud"))["type"] == "ack"
    free = await later.next(lambda x: x["type"] == "notice" and "again" in x["text"])
    assert free["text"].startswith("You may chat, tell, invite")
    for client in (loud, later):
        assert (await client.request({"type": "say", "text": "hi"}))["type"] == "ack"  # the lobby's chat
    assert (await admin.command("/silence later 1h too"))["type"] == "ack"
    again = await WsClient.connect(server.port, "again")
    assert (await admin.command("/unsilence loud"))["type"] == "ack"
    assert (await again.request({"type": "tell", "name": "ann", "text": "hi"}))["code"] == "silenced"


async def test_a_silence_is_told_at_hello_to_whom_it_holds(server: Server) -> None:
    """Whoever a silence holds hears so right after the welcome, not first at a refused chat: a
    guest who comes later from the silenced guest's address (over WebSocket and at a terminal)
    and the silenced account logging in again. A guest it does not hold hears nothing of it."""
    admin = await _registered(server, "ann", "admin")
    await WsClient.connect(server.port, "loud")
    await _registered(server, "sil")
    assert (await admin.command("/silence loud 1h shouting"))["type"] == "ack"
    assert (await admin.command("/silence sil perm rude"))["type"] == "ack"
    later = await WsClient.connect(server.port, "later")
    told = await later.next(lambda x: x["type"] == "notice")
    assert told["text"].startswith("You are silenced until "), told
    terminal = await LineClient.connect(server.line_port, "termy")
    await terminal.expect("You are silenced until ")
    again = await WsClient.connect(server.port, "sil", password=PASSWORD)
    told = await again.next(lambda x: x["type"] == "notice")
    assert told["text"].startswith("You are silenced for good"), told
    await admin.command("/unsilence loud")
    free = await WsClient.connect(server.port, "free")
    assert (await free.request({"type": "say", "text": "hi"}))["type"] == "ack"
    assert not [x for x in free.messages if x["type"] == "notice" and "silenced" in x["text"]], free.messages


async def test_a_hello_refused_leaves_no_silence_on_the_connection(server: Server) -> None:
    """A silenced account's name tried with a wrong password, then another name on the same
    connection: the silence was the refused name's, and the new name chats."""
    admin = await _registered(server, "ann", "admin")
    await (await _registered(server, "troll")).close()
    assert (await admin.command("/silence troll 1h spam"))["type"] == "ack"
    client = await WsClient.connect(server.port)
    refused = await client.request({"type": "hello", "name": "troll", "password": "wrong password"})
    assert refused["code"] == "bad_password"
    assert (await client.request({"type": "hello", "name": "meek"}))["type"] == "welcome"
    assert (await client.request({"type": "say", "text": "hello"}))["type"] == "ack"


async def test_an_accounts_ban_is_told_only_to_who_shows_the_account_is_theirs(server: Server) -> None:
    """An account banned with a private reason: a hello under its name without the password is
    ``name_registered``, with a wrong one ``bad_password`` (over WebSocket and at a terminal),
    nothing of the ban told; with the password it is ``banned`` with the reason (the ban revoked
    the account's tokens)."""
    mod = await _registered(server, "mike", "moderator")
    carl = await _registered(server, "carl")
    token = carl.token
    assert (await mod.command("/ban carl 7d his name is Carl Smith of Leeds"))["type"] == "ack"
    await _closed(carl)
    for more, code in (({}, "name_registered"), ({"password": "wrong password"}, "bad_password")):
        answer = await _hello(server, "carl", **more)
        assert answer["code"] == code and "Leeds" not in answer["message"] and "ban" not in answer["message"]
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port)
    await line.line("carl")
    await line.expect("Password: ")
    await line.line("wrong password")
    text = await line.expect("[bad_password]")
    assert "Leeds" not in text
    assert (await _hello(server, "carl", token=token))["code"] == "bad_token"
    answer = await _hello(server, "carl", password=PASSWORD)
    assert answer["code"] == "banned" and "Carl Smith of Leeds" in answer["message"], answer


async def test_a_refused_nick_takes_on_nothing_of_the_name(server: Server) -> None:
    """A guest asks for a silenced guest's name, held by that guest: ``name_taken``, and the
    asker still chats (the silence was the name's, which they did not get)."""
    admin = await _registered(server, "ann", "admin")
    await WsClient.connect(server.port, "troll")
    early = await WsClient.connect(server.port, "early")
    assert (await admin.command("/silence troll 1h spam"))["type"] == "ack"
    refused = await early.request({"type": "nick", "name": "troll"})
    assert refused["code"] == "name_taken", refused
    assert (await early.request({"type": "say", "text": "still here"}))["type"] == "ack"


async def test_a_second_shorter_silence_is_told_with_the_end_that_holds(server: Server) -> None:
    """A silence of 2h, then one of 30m: the longer holds, and both the staff member's answer
    and the silenced person's notice name its end, not the shorter one's."""
    kim = await _registered(server, "kim", "moderator")
    bob = await WsClient.connect(server.port, "bob")
    before = time.time()
    assert (await kim.command("/silence bob 2h first"))["type"] == "ack"
    first = await bob.next(lambda x: x["type"] == "notice" and "silenced until" in x["text"])
    ends = {time.strftime("%H:%M", time.gmtime(t + 7200)) for t in (before, time.time())}
    [longer] = [end for end in ends if end in first["text"]]
    shorter = time.strftime("%H:%M", time.gmtime(time.time() + 1800))
    kim.take_all()
    bob.take_all()
    assert (await kim.command("/silence bob 30m second"))["type"] == "ack"
    told = [x["text"] for x in kim.take_all() if x["type"] == "notice"]
    assert len(told) == 1 and told[0].startswith("bob is silenced, until "), told
    assert longer in told[0] and shorter not in told[0], (told, longer)
    notice = await bob.next(lambda x: x["type"] == "notice" and "silenced until" in x["text"])
    assert longer in notice["text"] and shorter not in notice["text"], notice
    refused = await bob.request({"type": "say", "text": "hi"})
    assert refused["code"] == "silenced" and longer in refused["message"], refused


async def test_of_two_bans_the_one_that_holds_is_the_one_told_at_hello(server: Server) -> None:
    """A ban of 30 minutes, then one for good: a login is refused with the ban for good and its
    reason, not the first one found."""
    kim = await _registered(server, "kim", "moderator")
    troll = await _registered(server, "troll")
    assert (await kim.command("/ban troll 30m short"))["type"] == "ack"
    await troll.close()
    assert (await kim.command("/ban troll perm forever"))["type"] == "ack"
    refused = await _hello(server, "troll", password=PASSWORD)
    assert refused["code"] == "banned", refused
    assert refused["message"] == "troll is banned for good: forever", refused


def test_the_sanction_that_bars_is_the_one_that_ends_last() -> None:
    """Of a guest's own kick and a ban for good of its address (given to another name), the ban
    is the one told, as it is the one that holds; a registered name reads only its own."""
    now = time.time()

    def made(kind: SanctionKind, name: str, until: float | None) -> Sanction:
        return Sanction(1, kind, name, "10.0.0.9", "kim", kind, now, until)

    kick, ban = made("kick", "troll", now + 600), made("ban", "other", None)
    assert Enforcer.barring([kick, ban], "troll", registered=False) == ban
    assert Enforcer.barring([kick, ban], "troll", registered=True) == kick
    assert Enforcer.barring([ban], "troll", registered=True) is None
    same_end = made("ban", "troll", now + 600)
    assert Enforcer.barring([kick, same_end], "troll", registered=True) == same_end


async def test_bans_silences_and_roles_hold_after_a_restart(make_server: ServerFactory) -> None:
    """A ban, a silence and a role are in the store: after a restart the banned name stays out,
    the silenced one is silenced at hello, and the moderator acts as one."""
    first: Server = await make_server()
    await _registered(first, "ann", "moderator")
    await _registered(first, "sil")
    mod = await WsClient.connect(first.port, "ann", password=PASSWORD)
    assert (await mod.command("/ban troll perm spam"))["type"] == "ack"
    assert (await mod.command("/silence sil 7d rude"))["type"] == "ack"
    await first.stop()
    second: Server = await make_server()
    refused = await _hello(second, "troll")
    assert (refused["code"], "for good" in refused["message"]) == ("banned", True)
    sil = await WsClient.connect(second.port, "sil", password=PASSWORD)
    assert (await sil.next(lambda x: x["type"] == "notice"))["text"].startswith("You are silenced until")
    assert (await sil.request({"type": "say", "text": "hi"}))["code"] == "silenced"
    mod = await WsClient.connect(second.port, "ann", password=PASSWORD)
    assert (await mod.command("/modlog"))["type"] == "modlog"


async def test_staff_cannot_act_on_staff_above_or_beside_them(server: Server) -> None:
    """A moderator cannot kick, ban or silence an admin or another moderator
    (``staff_protected``); an admin acts on a moderator, but not on another admin; nobody on
    themselves (``bad_target``)."""
    boss = await _registered(server, "boss", "admin")
    await _registered(server, "chief", "admin")
    mia = await _registered(server, "mia", "moderator")
    await _registered(server, "max", "moderator")
    for target in ("boss", "max"):
        answer = await mia.command(f"/ban {target} 1d")
        assert (answer["type"], answer["code"]) == ("error", "staff_protected"), answer
    assert (await mia.command("/kick mia"))["code"] == "bad_target"
    refused = await boss.command("/ban chief 1d")
    assert (refused["code"], refused["message"]) == (
        "staff_protected",
        "chief is an admin: the operator decides about them (cafe-admin).",
    )
    assert (await boss.command("/role chief none"))["code"] == "staff_protected"
    assert (await mia.command("/kick max"))["message"] == "max is staff: an admin decides about them."
    assert (await boss.command("/silence max 2h"))["type"] == "ack"
    assert await server.store.sanctions("boss") == [] and await server.store.sanctions("chief") == []


async def test_a_sanction_of_a_look_alike_name_is_one_of_the_account_it_looks_like(server: Server) -> None:
    """The staff's ``K1MB`` is the account ``kimb`` (as a report of it is): the kick closes kimb's
    connection and the ban keeps kimb out; a look-alike of an admin is ``staff_protected``; a
    guest connected as ``tro11`` is kicked as ``TROLL``."""
    mia = await _registered(server, "mia", "moderator")
    await _registered(server, "boss", "admin")
    kim = await _registered(server, "kimb")
    kicked = await mia.command("/kick K1MB spam")
    assert kicked["type"] == "ack", kicked
    assert any(m["type"] == "bye" for m in await _closed(kim))
    banned = await mia.command("/ban K1MB 1d spam")
    assert banned["type"] == "ack"
    assert [s.kind for s in await server.store.sanctions("kimb")] == ["kick", "ban"]
    assert (await _hello(server, "kimb", password=PASSWORD))["code"] == "banned"
    assert (await mia.command("/silence b0ss 2h"))["code"] == "staff_protected"
    assert await server.store.sanctions("boss") == []
    guest = await WsClient.connect(server.port, "tro11")
    assert (await mia.command("/kick TROLL flood"))["type"] == "ack"
    assert any(m["type"] == "bye" for m in await _closed(guest))


async def test_bad_arguments_get_clear_errors(server: Server) -> None:
    """A wrong duration is ``bad_duration`` when sent (``bad_arguments`` with the usage when
    typed); a missing one too; arguments missing are ``bad_arguments`` with the usage; a report
    id that is not open is ``no_such_report``; nothing is logged."""
    admin = await _registered(server, "ann", "admin")
    typed = await admin.command("/ban bob 3y")
    assert typed["code"] == "bad_arguments"
    assert typed["message"] == f"{RULE} Usage: /ban NAME TIME [REASON]"
    sent = await admin.request({"type": "moderate", "action": "ban", "name": "bob", "duration": "soon"})
    assert (sent["code"], sent["message"]) == ("bad_duration", RULE)
    assert (await admin.request({"type": "moderate", "action": "ban", "name": "bob"}))[
        "code"
    ] == "bad_duration"
    missing = await admin.command("/silence bob")
    assert missing["code"] == "bad_arguments" and "Usage: /silence NAME TIME [REASON]" in missing["message"]
    assert (await admin.command("/role bob admin"))["code"] == "bad_arguments"
    assert (await admin.command("/resolve 7"))["code"] == "no_such_report"
    huge = await admin.request({"type": "resolve", "report": 2**70})  # (past what a store holds)
    assert huge["code"] == "bad_field", huge
    assert (await admin.request({"type": "close", "room": "bad room!"}))["code"] == "bad_room"
    for name in ("bad name!", ""):
        assert (await admin.request({"type": "modlog", "name": name}))["code"] == "bad_name"
    assert (await admin.request({"type": "modlog", "name": "cafe-1"}))["type"] == "modlog"
    assert (await admin.command("/role nobody moderator"))["code"] == "no_such_player"
    assert (await admin.command("/kick nobody"))["code"] == "not_connected"
    assert (await admin.command("/close noroom"))["code"] == "no_such_room"
    assert [e.action for e in await server.store.modlog()] == ["role:admin"]  # (the operator's)


async def test_a_report_reaches_the_staff_with_the_chat_both_saw(server: Server) -> None:
    """``/report NAME REASON``: the reporter is thanked, NAME is told nothing, the staff connected
    get a notice; ``/reports`` lists it with the lobby chat both read; ``/resolve`` closes it."""
    mod = await _registered(server, "kim", "moderator")
    troll, bob = await WsClient.connect(server.port, "troll"), await WsClient.connect(server.port, "bob")
    await troll.request({"type": "say", "text": "you idiots"})
    await bob.request({"type": "say", "text": "please stop"})
    await bob.barrier()
    await troll.barrier()
    troll.take_all()
    answer = await bob.command("/report troll insults everyone")
    assert answer["type"] == "ack"
    assert any(m["type"] == "notice" and "Thank you" in m["text"] for m in bob.messages)
    told = await mod.next(lambda m: m["type"] == "notice" and "New report" in m["text"])
    assert "troll" in told["text"]
    await troll.barrier()
    assert troll.take_all() == []
    listed = await mod.command("/reports")
    [report] = listed["reports"]
    assert (report["reporter"], report["name"], report["reason"]) == ("bob", "troll", "insults everyone")
    assert (report["resolved"], report["resolved_by"], report["note"]) == (None, None, None)
    assert [line.split(" ", 1)[1] for line in report["excerpt"]] == [
        "[lobby] <troll> you idiots",
        "[lobby] <bob> please stop",
    ]
    answer = await mod.command(f"/resolve {report['id']} warned")
    assert answer["type"] == "ack", answer
    assert (await mod.command("/reports"))["reports"] == []
    [closed] = (await mod.command("/reports all"))["reports"]
    assert (closed["resolved_by"], closed["note"]) == ("kim", "warned")


async def test_a_reported_staff_member_is_told_nothing_and_reads_none_of_it(server: Server) -> None:
    """A report of a moderator reaches the other staff, not the moderator: no notice, no line in
    their ``/reports``, ``/resolve`` of it is ``no_such_report``, and its resolving is not in their
    ``/modlog``; an admin reads and resolves it."""
    kim = await _registered(server, "kim", "moderator")
    ann = await _registered(server, "ann", "admin")
    await kim.barrier()
    kim.take_all()
    rep = await WsClient.connect(server.port, "rep")
    assert (await rep.command("/report kim abusive mod"))["type"] == "ack"
    told = await ann.next(lambda m: m["type"] == "notice" and "New report" in m["text"])
    assert "rep -> kim" in told["text"]
    await kim.barrier()
    assert not [m for m in kim.take_all() if m["type"] == "notice"]
    assert (await kim.command("/reports"))["reports"] == []
    assert (await kim.command("/reports all"))["reports"] == []
    [report] = (await ann.command("/reports"))["reports"]
    assert (await kim.command(f"/resolve {report['id']} nothing"))["code"] == "no_such_report"
    assert (await ann.command(f"/resolve {report['id']} spoke to kim"))["type"] == "ack"
    logged = (await ann.command("/modlog"))["entries"]
    assert [e["target"] for e in logged if e["action"] == "resolve"] == ["kim"]
    for asked in ("/modlog", "/modlog kim"):  # nor its resolving, in the log
        assert not [e for e in (await kim.command(asked))["entries"] if e["action"] == "resolve"], asked


async def test_a_report_of_a_look_alike_of_a_staff_members_name_is_a_report_of_them(
    server: Server,
) -> None:
    """The server holds look-alike names as one (``m0d`` is ``mod``): a report of ``KlM`` or
    ``k1m`` is a report of the moderator ``kim``, so it reaches the other staff under kim's name,
    with kim's lines, and kim reads nothing of it; reporting a look-alike of oneself is
    ``bad_target``."""
    kim = await _registered(server, "kim", "moderator")
    ann = await _registered(server, "ann", "admin")
    rep = await WsClient.connect(server.port, "rep")
    await kim.request({"type": "say", "text": "rules are rules"})
    await rep.barrier()
    await kim.barrier()
    kim.take_all()
    for typed in ("KlM", "k1m"):
        assert (await rep.command(f"/report {typed} rude"))["type"] == "ack"
        told = await ann.next(lambda m: m["type"] == "notice" and "New report" in m["text"])
        assert told["text"].endswith("rep -> kim (/reports)"), told
    await kim.barrier()
    assert not [m for m in kim.take_all() if m["type"] == "notice"]
    assert (await kim.command("/reports all"))["reports"] == []
    reports = (await ann.command("/reports"))["reports"]
    assert [r["name"] for r in reports] == ["kim", "kim"]
    assert all(any("<kim> rules are rules" in line for line in r["excerpt"]) for r in reports)
    assert (await ann.command("/report AnN myself"))["code"] == "bad_target"
    lia = await WsClient.connect(server.port, "lia")  # a guest's name too
    assert (await lia.command("/report L1A myself"))["code"] == "bad_target"


async def test_a_staff_members_log_shows_fifty_entries_with_their_resolving_left_out(
    server: Server,
) -> None:
    """``/modlog`` shows the latest 50 entries a staff member may read: the resolving of a report
    of themselves, left out, leaves no place empty."""
    kim = await _registered(server, "kim", "moderator")
    ann = await _registered(server, "ann", "admin")
    for n in range(50):
        await server.store.modlog_appended("ann", "announce", "*", f"news {n}")
    report = await server.store.report_added("rep", "kim", "abusive mod", [])
    assert (await ann.command(f"/resolve {report.id} spoke to kim"))["type"] == "ack"
    entries = (await kim.command("/modlog"))["entries"]
    assert len(entries) == 50 and not [e for e in entries if e["action"] == "resolve"]
    assert entries[0]["reason"] == "news 49"
    assert len((await ann.command("/modlog"))["entries"]) == 50


async def test_reports_cannot_flood_the_staff(server: Server) -> None:
    """A person makes five reports an hour; the sixth is ``rate_limited`` and stored nowhere; a
    report of oneself is ``bad_target``."""
    bob = await WsClient.connect(server.port, "bob")
    for n in range(5):
        assert (await bob.command(f"/report p{n} spam"))["type"] == "ack"
    assert (await bob.command("/report p9 spam"))["code"] == "rate_limited"
    assert (await bob.command("/report bob spam"))["code"] == "bad_target"
    assert await server.store.reports_open() == 5


async def test_an_address_s_reports_at_once_are_counted_as_one_after_another(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sixteen guests of one address report at once while the store answers slowly (as Redis
    does, where other reports run meanwhile): ten reports are made, as the address's hour allows,
    and the others are ``rate_limited``."""
    asked = server.store.reports_since

    async def slowly(maker: str, since: float) -> int:
        await asyncio.sleep(0.05)
        return await asked(maker, since)

    monkeypatch.setattr(server.store, "reports_since", slowly)
    guests = [await WsClient.connect(server.port, f"g{n}") for n in range(16)]
    answers = await asyncio.gather(*(g.command("/report troll spam") for g in guests))
    assert sorted(a["type"] for a in answers) == ["ack"] * 10 + ["error"] * 6, answers
    assert {a["code"] for a in answers if a["type"] == "error"} == {"rate_limited"}
    assert await server.store.reports_open() == 10


async def test_roles_are_given_by_an_admin_and_marked_for_everyone(server: Server) -> None:
    """``/role NAME moderator`` by an admin: ``who`` marks the staff with their role (``@`` at a
    terminal), ``/finger`` names it, the new moderator may act; ``/role NAME none`` takes it back."""
    admin = await _registered(server, "ann", "admin")
    mia = await _registered(server, "mia")
    await WsClient.connect(server.port, "gus")
    assert (await mia.command("/modlog"))["code"] == "not_staff"
    assert (await admin.command("/role mia moderator"))["type"] == "ack"
    who = await mia.command("/who")
    roles = {p["name"]: p.get("role") for p in who["people"]}
    assert roles == {"ann": "admin", "mia": "moderator", "gus": None}
    assert (await mia.command("/modlog"))["type"] == "modlog"
    assert (await admin.command("/finger mia"))["text"].splitlines()[1] == "staff: moderator"
    assert (await admin.command("/finger ann"))["text"].splitlines()[1] == "staff: admin"
    line = await LineClient.connect(server.line_port or 0, "lou")
    await line.line("/who")
    text = await line.expect("@mia")
    assert "@ann" in text and "@gus" not in text
    assert (await admin.command("/role mia none"))["type"] == "ack"
    assert (await mia.command("/modlog"))["code"] == "not_staff"
    assert "staff:" not in (await admin.command("/finger mia"))["text"]
    actions = [e.action for e in await server.store.modlog("mia")]
    assert actions == ["role:none", "role:moderator"]
    # taking a role nobody holds, or lifting a ban nobody has, changes nothing: said so, and
    # neither logged nor counted
    assert (await admin.request({"type": "role", "name": "mia", "role": "none"}))["type"] == "ack"
    said = [x["text"] for x in admin.messages if x["type"] == "notice"]
    assert said[-1] == "mia has no role: nothing was changed."
    assert (await admin.command("/unban mia"))["type"] == "ack"
    assert [e.action for e in await server.store.modlog("mia")] == actions
    metrics = (await http_get(server.port, "/metrics")).body.decode()
    assert 'cafe_moderation_actions_total{action="role:none"} 1.0' in metrics
    assert 'cafe_moderation_actions_total{action="unban"}' not in metrics


async def test_names_that_look_like_staff_are_refused(server: Server) -> None:
    """``admin2``, ``Mod_Ann``, ``ann-moderator`` and ``sysop`` are ``name_reserved``."""
    for name in ("admin2", "Mod_Ann", "ann-moderator", "sysop"):
        answer = await _hello(server, name)
        assert (answer["type"], answer["code"]) == ("error", "name_reserved"), name


async def test_an_announcement_reaches_everyone(server: Server) -> None:
    """An admin's ``/announce TEXT`` is a notice to everyone connected, in the lobby and in rooms,
    and on the log."""
    admin = await _registered(server, "ann", "admin")
    bob, cid = await WsClient.connect(server.port, "bob"), await WsClient.connect(server.port, "cid")
    await cid.command("/room cafe")
    assert (await admin.command("/announce The server restarts at 22:00 UTC."))["type"] == "ack"
    for client in (bob, cid, admin):
        notice = await client.next(lambda m: m["type"] == "notice" and m["text"].startswith("Announcement"))
        assert notice["text"] == "Announcement from ann: The server restarts at 22:00 UTC."
    [entry] = await server.store.modlog("ann", limit=1)
    assert (entry.action, entry.reason) == ("announce", "The server restarts at 22:00 UTC.")


async def test_closing_a_room_ends_its_game_unrated_and_sends_everyone_to_the_lobby(server: Server) -> None:
    """``/close ROOM REASON``: a rated game running there ends (reason ``closed``, no ratings),
    its players and spectators are told and are in the lobby; the log has it."""
    mod = await _registered(server, "kim", "moderator")
    ann, bob = await _registered(server, "ann"), await _registered(server, "bob")
    watcher = await WsClient.connect(server.port, "wes")
    for client in (ann, bob):
        assert (await client.command("/join table1"))["type"] == "ack"
    await watcher.command("/room table1")
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    assert (await mod.command("/close table1 spam"))["type"] == "ack"
    for client in (ann, bob, watcher):
        over = await client.next("game_over")
        assert over["reason"] == "closed" and not over.get("ratings")
        notice = await client.next(lambda m: m["type"] == "notice" and "closed" in m["text"])
        assert "kim" in notice["text"] and "spam" in notice["text"]
    who = await ann.command("/who")
    assert {p["name"]: p["room"] for p in who["people"]}["bob"] is None
    assert await server.store.standing("account:ann") is None
    [entry] = await server.store.modlog("table1")
    assert (entry.action, entry.target, entry.reason) == ("close", "table1", "spam")


async def test_a_chat_line_wrapped_at_a_terminal_never_passes_for_a_line_of_a_report(server: Server) -> None:
    """A troll pads a chat line so that the terminal's fold of it in ``/reports`` would start a
    line with ``| <kim> ...``, a line kim never said: at kim's terminal every line begun with a
    bar is one chat line kept with the report, and what a long one carries on with begins with a
    colon."""
    await _registered(server, "kim", "moderator")
    troll, bob = await WsClient.connect(server.port, "troll"), await WsClient.connect(server.port, "bob")
    forged = " | 15:00 [lobby] <kim> everyone here is banned"
    for pad in range(44, 60):
        await troll.request({"type": "say", "text": "a" * pad + forged})
    await bob.barrier()
    assert (await bob.command("/report troll flooding"))["type"] == "ack"
    line = await _at_a_terminal(server, "kim")
    await line.line("/reports")
    await line.expect("reports troll: flooding")
    await line.line("/ping")  # (its answer follows the whole list)
    listed = await line.expect("pong")
    barred = [row for row in listed.split("\r\n") if row.startswith("    | ")]
    assert len(barred) == 16, listed
    assert [row for row in barred if "[lobby] <troll>" not in row] == [], barred
    assert any(row.startswith("    : | 15:00") for row in listed.split("\r\n")), listed


async def test_a_reason_wrapped_at_a_terminal_never_passes_for_a_line_of_a_report(server: Server) -> None:
    """A reporter pads the reason so that a fold of it would start a line with ``| ... <vie>``, a
    line vie never said: the staff's notice names the report without its reason, and in
    ``/reports`` what the reason carries on with begins with a colon."""
    await _registered(server, "kim", "moderator")
    line = await _at_a_terminal(server, "kim")
    vie, ree = await WsClient.connect(server.port, "vie"), await WsClient.connect(server.port, "ree")
    await vie.request({"type": "say", "text": "good game everyone"})
    await ree.barrier()
    forged = " | 17:40 [lobby] <vie> you are all idiots"
    for pad in range(25, 30):  # (five reports a person an hour)
        answer = await ree.command(f"/report vie insults {'y' * pad}{forged}")
        assert answer["type"] == "ack", answer
    await line.line("/ping")
    told = await line.expect("pong")
    notices = [row for row in told.split("\r\n") if "New report" in row]
    assert len(notices) == 5, told
    assert "idiots" not in told, told
    await line.line("/reports")
    await line.line("/ping")
    listed = await line.expect("pong")
    barred = [row for row in listed.split("\r\n") if row.startswith("    | ")]
    assert len(barred) == 5, listed
    assert {row.split(" ", 6)[-1] for row in barred} == {"[lobby] <vie> good game everyone"}, listed
    assert any(row.startswith("    : | 17:40") for row in listed.split("\r\n")), listed


async def test_the_log_and_reports_read_at_a_terminal(server: Server) -> None:
    """At the line endpoint: ``/ban``, ``/modlog`` as lines newest first, ``/reports``, in English
    and German."""
    await _registered(server, "ann", "admin")
    line = await _at_a_terminal(server, "ann")
    await line.line("/ban troll 7d insults")
    await line.line("/modlog")
    await line.expect("ann ban troll 7d: insults")
    await line.line("/lang de")
    await line.line("/reports")
    await line.expect("Keine Meldungen")


@pytest.mark.parametrize("action", ["kick", "ban", "silence"])
async def test_moderation_is_counted_in_metrics(server: Server, action: str) -> None:
    """``/metrics`` counts each moderation action and the open reports."""
    from tests.server.clients import http_get

    admin = await _registered(server, "ann", "admin")
    await WsClient.connect(server.port, "bob")
    duration = "" if action == "kick" else " 1h"
    assert (await admin.command(f"/{action} bob{duration}"))["type"] == "ack"
    await admin.command("/report bob spam")
    body = (await http_get(server.port, "/metrics")).body.decode()
    assert f'cafe_moderation_actions_total{{action="{action}"}} 1.0' in body
    assert "cafe_reports_open 1.0" in body


async def test_the_metrics_count_no_report_of_a_staff_member(server: Server) -> None:
    """Anyone reads ``/metrics``: a report of a staff member (who reads it nowhere) is counted
    neither among the open reports nor among the actions, nor is its resolving; a report of
    anyone else is."""
    from tests.server.clients import http_get

    async def metrics() -> tuple[str | None, str | None]:
        body = (await http_get(server.port, "/metrics")).body.decode()
        lines = body.splitlines()
        opened = next((line for line in lines if line.startswith("cafe_reports_open ")), None)
        reported = 'cafe_moderation_actions_total{action="report"}'
        made = next((line for line in lines if line.startswith(reported)), None)
        return opened, made

    admin = await _registered(server, "ann", "admin")
    kim = await _registered(server, "kim")
    assert (await admin.command("/role kim moderator"))["type"] == "ack"
    troll = await WsClient.connect(server.port, "troll")
    await WsClient.connect(server.port, "bob")
    assert (await troll.command("/report kim abusing powers"))["type"] == "ack"
    assert await metrics() == ("cafe_reports_open 0.0", None)
    assert (await kim.request({"type": "reports"}))["reports"] == []
    listed = (await admin.request({"type": "reports"}))["reports"]
    assert [r["name"] for r in listed] == ["kim"]
    assert (await admin.command(f"/resolve {listed[0]['id']} nothing in it"))["type"] == "ack"
    body = (await http_get(server.port, "/metrics")).body.decode()
    assert 'action="resolve"' not in body
    assert (await troll.command("/report bob spam"))["type"] == "ack"
    assert await metrics() == ("cafe_reports_open 1.0", 'cafe_moderation_actions_total{action="report"} 1.0')


async def test_a_reports_excerpt_is_the_chat_of_the_room_both_were_in(server: Server) -> None:
    """In a room, the excerpt holds the room's chat the reporter read where the reported person
    was, not chat of other places read before."""
    mod = await _registered(server, "kim", "moderator")
    troll, bob, cid = [await WsClient.connect(server.port, n) for n in ("troll", "bob", "cid")]
    await cid.request({"type": "say", "text": "hello lobby"})
    for client in (troll, bob):
        assert (await client.command("/room cafe"))["type"] == "ack"
    await troll.request({"type": "say", "text": "idiots, all of you"})
    await bob.barrier()
    assert (await bob.command("/report troll insults in cafe"))["type"] == "ack"
    [report] = (await mod.command("/reports"))["reports"]
    assert [line.split(" ", 1)[1] for line in report["excerpt"]] == ["[cafe] <troll> idiots, all of you"]


async def test_whereis_marks_the_staff_and_a_new_moderator_is_told(server: Server) -> None:
    """``/whereis NAME`` carries the role as ``who`` does (``admin``, ``moderator``, else null;
    ``@NAME`` at a terminal); the person given or refused the moderator role reads a notice."""
    admin = await _registered(server, "ann", "admin")
    mia = await _registered(server, "mia")
    gus = await WsClient.connect(server.port, "gus")
    assert (await admin.command("/role mia moderator"))["type"] == "ack"
    await mia.next(lambda m: m["type"] == "notice" and m["text"].startswith("You are a moderator now"))
    for name, role in (("ann", "admin"), ("MIA", "moderator"), ("gus", None)):
        [person] = (await gus.request({"type": "whereis", "name": name}))["people"]
        assert (person["name"].casefold(), person["role"]) == (name.casefold(), role)
    [who] = [p for p in (await gus.command("/who"))["people"] if p["name"] == "mia"]
    assert (await gus.command("/whereis mia"))["people"] == [who]
    assert (await admin.command("/role mia none"))["type"] == "ack"
    await mia.next(lambda m: m["type"] == "notice" and m["text"] == "You are no longer a moderator.")
    [person] = (await gus.command("/whereis mia"))["people"]
    assert person["role"] is None
    line = await LineClient.connect(server.line_port or 0, "lia")
    await line.line("/whereis ann")
    await line.expect("@ann")


async def test_a_moderator_who_deletes_the_account_leaves_a_role_change_in_the_log(server: Server) -> None:
    """The role goes with the account: ``unregister`` writes ``role:none`` to the moderation log
    (by the person, "account deleted") and counts it in /metrics; registering the name again gives
    no role back."""
    kim = await _registered(server, "kim", "moderator")
    assert (await kim.request({"type": "unregister", "password": PASSWORD}))["registered"] is False
    entries = [(e.action, e.by, e.target, e.reason) for e in await server.store.modlog("kim")]
    assert entries[0] == ("role:none", "kim", "kim", "account deleted"), entries
    metrics = (await http_get(server.port, "/metrics")).body.decode()
    assert 'cafe_moderation_actions_total{action="role:none"} 1.0' in metrics
    assert (await kim.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert await server.store.role("kim") is None

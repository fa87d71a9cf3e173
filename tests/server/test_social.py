"""Tells, replies, lobby chat, /whereis, /who, mutes and friends, over real sockets."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from protocol import messages
from server.app import Server
from server.lobby.choices import StoredLists
from server.lobby.social import PersonalLists, Social
from server.log.sqlite.store import Store
from tests.server.clients import LineClient, WsClient
from tests.server.conftest import ServerFactory


async def _connect(server: Server, *names: str) -> list[WsClient]:
    return [await WsClient.connect(server.port, name) for name in names]


def _tells(client: WsClient) -> list[tuple[str, str, str]]:
    return [(x["name"], x["to"], x["text"]) for x in client.messages if x["type"] == "tell"]


# --- tells ---------------------------------------------------------------------------------------


async def test_a_tell_reaches_its_recipient_in_a_room_and_the_sender_gets_it_back(server: Server) -> None:
    """``/tell NAME TEXT`` from the lobby reaches NAME in a room; the sender's answer is the tell."""
    ann, bob, zoe = await _connect(server, "ann", "bob", "zoe")
    assert (await bob.command("/room cafe"))["type"] == "ack"
    answer = await ann.command("/tell BOB  hello   there")
    assert answer["type"] == "tell" and (answer["name"], answer["to"], answer["text"]) == (
        "ann",
        "bob",
        "hello   there",
    )
    got = await bob.next("tell")
    assert (got["name"], got["to"], got["text"], got["id"]) == ("ann", "bob", "hello   there", None)
    await zoe.barrier()
    assert _tells(zoe) == []


async def test_reply_answers_the_last_teller(server: Server) -> None:
    """``/reply TEXT`` goes to whoever told you something last."""
    ann, bob, cid = await _connect(server, "ann", "bob", "cid")
    await ann.command("/tell bob one")
    await cid.command("/tell bob two")
    answer = await bob.command("/reply to cid")
    assert answer["type"] == "tell" and answer["to"] == "cid"
    assert (await cid.next("tell"))["text"] == "to cid"
    await ann.barrier()
    assert _tells(ann) == [("ann", "bob", "one")]


async def test_reply_before_any_tell_is_refused(server: Server) -> None:
    """With nobody to answer, ``/reply`` is ``no_reply``."""
    ann = await WsClient.connect(server.port, "ann")
    answer = await ann.command("/reply hi")
    assert answer["type"] == "error" and answer["code"] == "no_reply"


async def test_a_tell_to_nobody_says_the_name_does_not_exist(server: Server) -> None:
    """A tell to a name nobody has is ``not_connected``, saying there is no such name."""
    ann = await WsClient.connect(server.port, "ann")
    answer = await ann.command("/tell ghost boo")
    assert answer["code"] == "not_connected" and "no such name" in answer["message"]


async def test_a_tell_to_a_player_whose_seat_waits_says_the_name_exists(server: Server) -> None:
    """A tell to someone away from a running game is ``not_connected``, naming the room that holds
    their seat."""
    ann, bob = await _connect(server, "ann", "bob")
    for c in (ann, bob):
        assert (await c.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    answer = await ann.command("/tell bob come back")
    assert answer["code"] == "not_connected" and "room cafe" in answer["message"]


async def test_a_tell_to_yourself_is_refused(server: Server) -> None:
    """Telling yourself is ``bad_target``."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/tell Ann hi"))["code"] == "bad_target"


async def test_tells_are_sanitized_like_chat(server: Server) -> None:
    """Control characters and line breaks never reach the recipient of a tell."""
    ann, bob = await _connect(server, "ann", "bob")
    answer = await ann.request({"type": "tell", "name": "bob", "text": "a\x1b[2J\nb"})
    assert answer["text"] == "a[2J b"
    assert (await bob.next("tell"))["text"] == "a[2J b"
    empty = await ann.request({"type": "tell", "name": "bob", "text": "\x1b"})
    assert empty["code"] == "empty_message"


async def test_tells_are_rate_limited_like_chat(make_server: ServerFactory) -> None:
    """Tells draw on the chat allowance: past it, ``rate_limited``."""
    server: Server = await make_server(chat_rate=0.001, chat_burst=1)
    ann, _bob = await _connect(server, "ann", "bob")
    assert (await ann.command("/tell bob one"))["type"] == "tell"
    assert (await ann.command("/tell bob two"))["code"] == "rate_limited"


async def test_a_line_client_reads_tells_both_ways(server: Server) -> None:
    """On the line endpoint a tell reads ``[ann tells you] ...`` and the sender's copy ``-> bob: ...``."""
    assert server.line_port is not None
    bob = await LineClient.connect(server.line_port, "bob")
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/tell bob psst")
    await bob.expect("[ann tells you] psst")
    await bob.line("/reply yes?")
    await bob.expect("-> ann: yes?")
    assert (await ann.next("tell"))["text"] == "yes?"


# --- lobby chat, whereis, who ---------------------------------------------------------------------


async def test_chat_in_the_lobby_reaches_the_lobby_only(server: Server) -> None:
    """What someone in the lobby says reaches everyone in the lobby, not people in rooms."""
    ann, bob, zoe = await _connect(server, "ann", "bob", "zoe")
    assert (await zoe.command("/room cafe"))["type"] == "ack"
    assert (await ann.command("hello lobby"))["type"] == "ack"
    chat = await bob.next("chat")
    assert (chat["room"], chat["name"], chat["text"]) == (None, "ann", "hello lobby")
    await zoe.barrier()
    assert not [x for x in zoe.messages if x["type"] == "chat"]


async def test_whereis_names_the_room(server: Server) -> None:
    """``/whereis NAME`` answers a ``who`` list of that one person with their room."""
    ann, bob = await _connect(server, "ann", "bob")
    await bob.command("/room cafe")
    answer = await ann.command("/whereis BOB")
    bob_here = {"name": "bob", "kind": "person", "room": "cafe", "guest": True, "rating": None}
    bob_here["private"] = False
    assert answer["type"] == "who" and answer["people"] == [{**bob_here, "role": None, "seeking": False}]
    assert (await ann.command("/whereis nobody"))["code"] == "not_connected"


async def test_who_shows_each_persons_room(server: Server) -> None:
    """``/who`` lists everyone with the room they are in (``null`` for the lobby)."""
    ann, bob = await _connect(server, "ann", "bob")
    await bob.command("/room cafe")
    answer = await ann.command("/who")
    assert [(p["name"], p["room"]) for p in answer["people"]] == [("ann", None), ("bob", "cafe")]
    # each person is made once and serves every list until they change: bob moved, ann did not
    before = await server.lobby.directory.people()
    await bob.command("/leave")
    after = await server.lobby.directory.people()
    assert after[0] is before[0] and (after[1].name, after[1].room) == ("bob", None)
    answer = await ann.command("/who")
    assert [(p["name"], p["room"]) for p in answer["people"]] == [("ann", None), ("bob", None)]


# --- mutes ---------------------------------------------------------------------------------------


async def _chats(client: WsClient) -> list[tuple[str, str]]:
    await client.barrier()
    return [(x["name"], x["text"]) for x in client.messages if x["type"] in ("chat", "tell")]


async def test_mute_holds_back_chat_and_tells_and_unmute_lets_them_through(server: Server) -> None:
    """Muted, a person's room chat, lobby chat and tells never reach you; they are not told;
    ``/unmute`` undoes it."""
    ann, bob = await _connect(server, "ann", "bob")
    assert (await ann.command("/mute bob"))["type"] == "ack"
    assert (await bob.command("lobby words"))["type"] == "ack"
    assert (await bob.command("/tell ann secret"))["type"] == "tell"  # bob cannot tell
    for c in (ann, bob):
        await c.command("/room cafe")
    assert (await bob.command("room words"))["type"] == "ack"
    assert await _chats(ann) == []
    assert not [x for x in bob.messages if x["type"] == "error"]
    assert (await ann.command("/unmute BOB"))["type"] == "ack"
    await bob.command("again")
    assert await _chats(ann) == [("bob", "again")]


async def test_muting_a_name_mutes_the_names_that_look_like_it(server: Server) -> None:
    """A name and its look-alikes are one name: muting ``miaa`` holds back ``rniaa`` and ``m1aa``
    too (each coming after the other left), and ``/unmute`` of a look-alike undoes it."""
    (fya,) = await _connect(server, "fya")
    assert (await fya.command("/mute miaa"))["type"] == "ack"
    for name in ("MIAa", "rniaa", "m1aa"):
        (troll,) = await _connect(server, name)
        assert (await troll.command(f"/tell fya hi from {name}"))["type"] == "tell"
        assert (await troll.command(f"lobby words of {name}"))["type"] == "ack"
        await troll.request({"type": "command", "text": "/quit"})  # (the name is free at once)
        await troll.close()
    assert await _chats(fya) == []
    assert (await fya.command("/friends"))["muted"] == ["miaa"]
    assert (await fya.command("/unmute rnlaa"))["type"] == "ack"
    assert (await fya.command("/friends"))["muted"] == []
    (again,) = await _connect(server, "m1aa")
    await again.command("/tell fya hello")
    assert await _chats(fya) == [("m1aa", "hello")]
    # a name that looks like one's own is one's own: muting it would mute oneself
    (lia,) = await _connect(server, "lia")
    assert (await lia.command("/mute L1A"))["code"] == "bad_target"
    assert (await lia.command("lobby words of lia"))["type"] == "ack"
    assert await _chats(lia) == [("lia", "lobby words of lia")]


async def test_a_muted_teller_is_not_the_one_reply_answers(server: Server) -> None:
    """A tell from someone muted does not become the target of ``/reply``."""
    ann, bob = await _connect(server, "ann", "bob")
    await ann.command("/mute bob")
    await bob.command("/tell ann hi")
    assert (await ann.command("/reply who?"))["code"] == "no_reply"


async def test_muting_yourself_or_a_bad_name_is_refused(server: Server) -> None:
    """``/mute`` of yourself is ``bad_target``; of something that cannot be a name, ``bad_name``."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/mute ANN"))["code"] == "bad_target"
    assert (await ann.command("/friend 9x"))["code"] == "bad_name"


async def test_lists_last_across_a_resume(server: Server) -> None:
    """The lists belong to the player: a resumed connection keeps its mutes and friends."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    await ann.command("/mute bob")
    await ann.command("/friend cid")
    token = ann.token
    await ann.close()
    again = await WsClient.connect(server.port, "ann", token=token)
    await bob.command("hello?")
    assert await _chats(again) == []
    friends = await again.command("/friends")
    assert friends["friends"] == [{"name": "cid", "online": False, "room": None, "private": False}]


async def test_stored_lists_read_what_the_store_keeps() -> None:
    """A change kept is read back; lists saved for an identity replace what it had; forgotten
    ones are gone."""
    table = Store(":memory:")
    store = StoredLists(table)
    assert await store.load("id1") == PersonalLists()
    await store.changed("id1", "mute", "bob", "Bob")
    await store.changed("id1", "friend", "cid", "Cid")
    assert await store.load("id1") == PersonalLists(muted={"bob": "bob"}, friends={"cid": "Cid"})
    await store.save("id1", PersonalLists(muted={"dan": "dan"}))
    assert await store.load("id1") == PersonalLists(muted={"dan": "dan"})
    await store.forget("id1")
    assert await table.lists("id1") == {"mute": {}, "friend": {}}
    table.close()


# --- friends ---------------------------------------------------------------------------------------


async def test_friends_lists_who_is_online_and_where(server: Server) -> None:
    """``/friends`` shows each friend, whether connected and the room they are in."""
    ann, bob = await _connect(server, "ann", "bob")
    await bob.command("/room cafe")
    await ann.command("/friend BOB")
    await ann.command("/friend cid")
    await ann.command("/friend dan")
    await ann.command("/unfriend dan")
    await ann.command("/unfriend dan")  # (again: nothing to take off)
    await ann.barrier()
    told = [x["text"] for x in ann.messages if x["type"] == "notice" and "dan" in x["text"]]
    assert told[-2:] == ["dan is no longer on your friends list.", "dan is not on your friends list."]
    answer = await ann.command("/friends")
    assert answer["type"] == "friends"
    assert answer["friends"] == [
        {"name": "bob", "online": True, "room": "cafe", "private": False},
        {"name": "cid", "online": False, "room": None, "private": False},
    ]


async def test_a_friend_connecting_or_starting_a_game_is_noticed(server: Server) -> None:
    """Friends get a notice when their friend connects and when the friend's game starts."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/friend bob")
    bob = await WsClient.connect(server.port, "bob")
    online = await ann.next(lambda x: x["type"] == "notice" and "online" in x["text"])
    assert online["text"] == "Your friend bob is online."
    await bob.command("/join cafe")
    await bob.command("/addbot")
    assert (await bob.command("/start"))["type"] == "ack"
    started = await ann.next(lambda x: x["type"] == "notice" and "started" in x["text"])
    assert "bob" in started["text"] and "cafe" in started["text"]


async def test_a_connection_that_replaces_an_open_one_tells_no_friend_again(server: Server) -> None:
    """bob coming back on a new connection while his first is still open (a resume token, as a
    login is) stays online for his friends: ann hears nothing more. Once a connection of his was
    lost, his return is news again."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/friend bob")
    bob = await WsClient.connect(server.port, "bob")
    await ann.next(lambda x: x["type"] == "notice" and "online" in x["text"])
    ann.take_all()
    again = await WsClient.connect(server.port, "bob", token=bob.token)
    await ann.barrier()
    assert not [x for x in ann.take_all() if x["type"] == "notice"]
    await again.close()
    for _ in range(500):  # (bob's connection ends)
        if server.lobby.directory.session("bob") is None:
            break
        await asyncio.sleep(0.01)
    await WsClient.connect(server.port, "bob", token=again.token)
    online = await ann.next(lambda x: x["type"] == "notice" and "online" in x["text"])
    assert online["text"] == "Your friend bob is online."


async def test_a_game_start_among_people_without_friends_makes_no_notice(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When nobody connected has friends, a game's start (or a connection) makes no friends'
    notice at all, not even one sent to nobody; the game starts as before."""
    made: list[str] = []
    notice = messages.Notice

    def counted(**fields: Any) -> messages.Notice:
        made.append(str(fields.get("text")))
        return notice(**fields)

    monkeypatch.setattr(messages, "Notice", counted)
    ann, bob = await _connect(server, "ann", "bob")
    for client in (ann, bob):
        assert (await client.command("/join quiet"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    assert not [text for text in made if text.startswith("Your friend")]


class _Named:
    """A named connection as the social side sees one."""

    def __init__(self, name: str, identity: str) -> None:
        self.name: str | None = name
        self.identity: str | None = identity
        self.muted: dict[str, str] = {}


async def test_the_connections_of_a_player_share_their_lists_until_the_last_goes() -> None:
    """Two connections of one player hold one copy of the lists; while one is left, ``lists_of``
    gives that copy; once the last is gone, the store's. A registration counts the connection
    under the account, whose lists its own become."""
    table = Store(":memory:")
    social = Social(None, StoredLists(table), list)  # type: ignore[arg-type]
    await table.list_changed("id-a", "mute", "bob", "bob")
    a, b, c = _Named("ann", "id-a"), _Named("ann", "id-a"), _Named("cy", "id-c")
    for s in (a, b, c):
        await social.welcome(s)  # type: ignore[arg-type]
    assert a.muted is b.muted and a.muted == {"bob": "bob"}
    social.gone(a)  # type: ignore[arg-type]
    assert (await social.lists_of("id-a")).muted is b.muted
    social.gone(b)  # type: ignore[arg-type]
    fresh = await social.lists_of("id-a")
    assert fresh.muted == {"bob": "bob"} and fresh.muted is not b.muted
    c.identity = "account:cy"  # cy registers
    await social.identity_changed(c, "id-c", keep=True)  # type: ignore[arg-type]
    assert (await social.lists_of("account:cy")).muted is c.muted
    social.gone(c)  # type: ignore[arg-type]
    assert (await social.lists_of("account:cy")).muted is not c.muted
    table.close()


async def test_a_mute_kept_by_casefolded_name_is_kept_again_by_its_form() -> None:
    """Lists kept before mutes went by the names' look-alike forms (``mia`` under ``mia``) load as
    forms (``rnla``) and are written back so, so that an unmute of any look-alike finds them."""
    table = Store(":memory:")
    lists = StoredLists(table)
    await table.list_changed("id-a", "mute", "mia", "Mia")
    await table.list_changed("id-a", "friend", "bob", "Bob")
    assert (await lists.load("id-a")).muted == {"rnla": "mia"}
    assert (await table.lists("id-a"))["mute"] == {"rnla": "mia"}
    assert (await table.lists("id-a"))["friend"] == {"bob": "Bob"}
    await table.list_changed("id-a", "unmute", "rnla", "M1A")
    assert (await lists.load("id-a")).muted == {}
    table.close()


class _Invitee(_Named):
    """An invitee that keeps what it is sent."""

    def __init__(self, name: str, identity: str) -> None:
        super().__init__(name, identity)
        self.sent: list[Any] = []

    def send(self, message: Any) -> None:
        self.sent.append(message)


class _Guests:
    """The directory's guest lists, as a social side reaches them: an invitation waits on
    ``writing`` while it is written, as one to Redis takes a round trip."""

    def __init__(self, invitee: _Invitee) -> None:
        self.invitee = invitee
        self.writing = asyncio.Event()
        self.listed: set[tuple[str, str]] = set()

    def session(self, name: str) -> _Invitee | None:
        return self.invitee if name == self.invitee.name else None

    async def invite(self, room: str, identity: str) -> None:
        await self.writing.wait()
        self.listed.add((room, identity))

    async def identity_changed(self, old: str, new: str) -> None:
        self.listed = {(room, new if who == old else who) for room, who in self.listed}


async def test_an_invitation_from_elsewhere_follows_an_invitee_who_changes_while_it_is_written() -> None:
    """An invitation from another node lists its invitee as they are on this node; one who
    deletes their account (a new identity) while the list is written is on it as who they are
    now, not as the account the name's next holder could register, and hears of it after."""
    zoe = _Invitee("zoe", "account:zoe")
    guests = _Guests(zoe)
    social = Social(guests, None, list)  # type: ignore[arg-type]
    assert social.invited("ann", "zoe", "geheim")
    assert not social.invited("ann", "nobody", "geheim")
    await asyncio.sleep(0)
    zoe.identity = "guest-2"  # (deleted, and its own node followed every list before this one was written)
    guests.writing.set()
    for _ in range(10):
        await asyncio.sleep(0)
    assert guests.listed == {("geheim", "guest-2")}
    assert [(x.type, x.room, x.name) for x in zoe.sent] == [("invited", "geheim", "ann")]

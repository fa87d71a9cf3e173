"""Room options around the game over real sockets: the host, private rooms and invitations,
drawn seats, who begins, ``/info`` and ``/reset``."""

from __future__ import annotations

from server.app import Server
from tests.server.clients import LineClient, WsClient
from tests.server.conftest import ServerFactory


async def _seated(server: Server, *names: str, room: str = "cafe") -> list[WsClient]:
    clients = [await WsClient.connect(server.port, name) for name in names]
    for client in clients:
        assert (await client.command(f"/join {room}"))["type"] == "ack"
    return clients


async def test_only_the_host_sets_options_and_host_off_lets_everyone(server: Server) -> None:
    """The first seated is host: another player's ``/option`` is ``not_host`` until ``host off``."""
    ann, bob = await _seated(server, "ann", "bob")
    refused = await bob.command("/option clock 60")
    assert refused["code"] == "not_host" and "ann" in refused["message"]
    assert (await bob.command("/addbot"))["code"] == "not_host"
    assert (await bob.command("/start"))["code"] == "not_host"
    assert (await ann.command("/option host off"))["type"] == "ack"
    assert (await bob.command("/option clock 60"))["type"] == "ack"


async def test_a_clock_of_0_is_no_clock_and_one_under_the_least_is_refused(server: Server) -> None:
    """As PROTOCOL says: ``clock`` 0 (or ``/option clock 0``) turns the clock off, as ``null`` and
    ``off`` do; a clock shorter than the server's least is ``bad_option``."""
    (ann,) = await _seated(server, "ann")
    for command in ("/option clock 60", "/option clock 0"):
        assert (await ann.command(command))["type"] == "ack"
    await ann.barrier()
    assert ann.view is not None and ann.view["options"]["clock"] is None
    assert (await ann.request({"type": "option", "key": "clock", "value": 60}))["type"] == "ack"
    assert (await ann.request({"type": "option", "key": "clock", "value": 0}))["type"] == "ack"
    await ann.barrier()
    assert ann.view["options"]["clock"] is None
    assert (await ann.command("/option clock 4"))["code"] == "bad_option"


async def test_host_off_during_a_game_holds_after_a_restart(make_server: ServerFactory) -> None:
    """ann turns ``host`` off while the game runs; the server stops and starts again from its log:
    the game comes back with ``host`` off, so bob, not the host, still sets the room's options."""
    first = await make_server(resume_window=30)
    ann, bob = await _seated(first, "ann", "bob")
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    assert (await ann.command("/option host off"))["type"] == "ack"
    tokens = {"ann": ann.token, "bob": bob.token}
    await first.stop()
    second = await make_server(resume_window=30)
    back = {name: await WsClient.connect(second.port, name, token=token) for name, token in tokens.items()}
    snapshot = await back["bob"].next("snapshot")
    assert snapshot["view"]["options"]["host"] is False
    assert (await back["bob"].command("/option private on"))["type"] == "ack"
    assert (await back["bob"].command("/option host on"))["type"] == "ack"


async def test_a_private_room_is_not_listed_but_can_be_entered_and_invited_to(server: Server) -> None:
    """``private on`` hides the room from ``/rooms``; an invitation names it and lets zoe in."""
    (ann,) = await _seated(server, "ann", room="secret")
    await _seated(server, "bob", room="open")
    zoe = await WsClient.connect(server.port, "zoe")
    assert [r["name"] for r in (await zoe.command("/rooms"))["rooms"]] == ["open", "secret"]
    assert (await ann.command("/option private on"))["type"] == "ack"
    pushed = await zoe.next(lambda x: x["type"] == "rooms" and x["id"] is None)
    assert [r["name"] for r in pushed["rooms"]] == ["open"]
    assert [r["name"] for r in (await zoe.command("/rooms"))["rooms"]] == ["open"]
    assert (await ann.command("/invite ZOE"))["type"] == "ack"
    invited = await zoe.next("invited")
    assert (invited["room"], invited["name"]) == ("secret", "ann")
    assert (await zoe.command("/room secret"))["type"] == "ack"


async def test_invite_refusals(server: Server) -> None:
    """``/invite`` from the lobby is ``not_in_room``; of someone not here, ``not_connected``."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/invite bob"))["code"] == "not_in_room"
    await ann.command("/room cafe")
    assert (await ann.command("/invite bob"))["code"] == "not_connected"
    assert (await ann.command("/invite ann"))["code"] == "bad_target"


async def test_an_invitation_from_someone_muted_never_arrives(server: Server) -> None:
    """zoe mutes ann: ann's invitation to her private room is acked (she is not told) but never
    reaches zoe; zoe is on its guest list all the same, as PROTOCOL says (a refusal would tell ann
    of the mute)."""
    (ann,) = await _seated(server, "ann")
    assert (await ann.command("/option private on"))["type"] == "ack"
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/mute ann"))["type"] == "ack"
    assert (await ann.command("/invite zoe"))["type"] == "ack"
    await zoe.barrier()
    assert not [x for x in zoe.messages if x["type"] == "invited"]
    assert (await zoe.request({"type": "enter_room", "room": "cafe"}))["type"] == "ack"


async def test_a_line_client_reads_an_invitation(server: Server) -> None:
    """On the line endpoint an invitation says who and how to get there."""
    assert server.line_port is not None
    zoe = await LineClient.connect(server.line_port, "zoe")
    (ann,) = await _seated(server, "ann")
    await ann.command("/invite zoe")
    await zoe.expect("* ann invites you to room cafe: /room cafe to go there.")


async def test_start_n_and_drawseat_over_the_wire(server: Server) -> None:
    """``start 2`` makes the second seat begin; ``drawseat on`` is in the room's options."""
    ann, bob = await _seated(server, "ann", "bob")
    assert (await ann.command("/option start 2"))["type"] == "ack"
    assert (await ann.command("/option drawseat on"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    started = await bob.next("game_started")
    assert started["start_player"] == started["players"][1]
    assert ann.view is not None and ann.view["options"]["drawseat"] is True


async def test_info_and_reset_over_the_wire(server: Server) -> None:
    """``/info`` answers a text naming the host; ``/reset`` before a game ends is refused."""
    ann, bob = await _seated(server, "ann", "bob")
    info = await bob.command("/info")
    assert info["type"] == "text" and info["kind"] == "info" and "Host: ann." in info["text"]
    assert (await ann.command("/reset"))["code"] == "no_game"
    await ann.command("/start")
    assert (await ann.command("/reset"))["code"] == "game_running"


async def _started_with_bob_gone(server: Server) -> tuple[WsClient, LineClient]:
    """ann, bob and cid (a line client) in a running game in room cafe; bob's connection is gone."""
    ann, bob = await _seated(server, "ann", "bob")
    assert server.line_port is not None
    cid = await LineClient.connect(server.line_port, "cid")
    await cid.line("/join cafe")
    await cid.expect("cid takes a seat")
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    return ann, cid


async def test_remove_vote_over_the_wire(server: Server) -> None:
    """``/remove`` of a gone player opens a vote the others see; ``/accept`` of the other passes it
    and a bot plays the seat; a line client reads the vote."""
    ann, cid = await _started_with_bob_gone(server)
    assert (await ann.command("/remove bob"))["type"] == "ack"
    opened = await ann.next("vote")
    assert (opened["state"], opened["name"], opened["voters"]) == ("open", "bob", ["ann", "cid"])
    await cid.expect(
        "* Vote: ann asks to take bob (seat 2) out of the game.\r\n  ann, cid: /accept or /refuse"
    )
    await cid.line("/accept")
    await cid.expect("* Vote passed: ann asks to take bob (seat 2) out of the game.")
    passed = await ann.next(lambda x: x["type"] == "vote" and x["state"] != "open")
    assert passed["state"] == "passed"
    bot = await ann.next(lambda x: x["type"] == "presence" and x["event"] == "replaced_by_bot")
    assert bot["name"] == "bob" and bot["detail"] == "voted out"


async def test_join_seat_vote_over_the_wire(server: Server) -> None:
    """``/join 2`` of a gone player's seat asks the seated others; a line client reads the prompt
    and its ``/accept`` passes it: the asker plays the seat and gets the hand, nobody else does."""
    ann, cid = await _started_with_bob_gone(server)
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/room cafe"))["type"] == "ack"
    assert (await zoe.command("/join 2"))["type"] == "ack"
    opened = await ann.next("vote")
    assert (opened["kind"], opened["state"], opened["by"], opened["name"]) == ("join", "open", "zoe", "bob")
    await cid.expect("* Vote: zoe asks to take over seat 2 (bob).")
    await cid.expect("  ann, cid: /accept or /refuse (0 yes, 0 no).")
    assert (await ann.command("/accept"))["type"] == "ack"
    await cid.line("/accept")
    await cid.expect("* Vote passed: zoe asks to take over seat 2 (bob).")
    joined = await ann.next(
        lambda x: x["type"] == "presence" and x["event"] == "joined" and x["name"] == "zoe"
    )
    assert joined["detail"] == "seat 2, bob's"
    await zoe.barrier()
    await ann.barrier()
    view = zoe.view
    assert view is not None and view["you"] == "zoe" and view["seats"][1]["name"] == "zoe"
    assert ann.view is not None and view["game"]["hand"] and view["game"]["hand"] != ann.view["game"]["hand"]
    assert (await zoe.command("/join 1"))["code"] == "already_seated"


async def test_join_seat_names_the_room_one_is_in(server: Server) -> None:
    """A ``join`` with a seat and another room than one's own is ``not_in_room``; nothing changes."""
    zoe = await WsClient.connect(server.port, "zoe")
    refused = await zoe.request({"type": "join", "room": "cafe", "seat": 2})
    assert refused["code"] == "not_in_room"
    assert (await zoe.command("/rooms"))["rooms"] == []


async def test_a_chosen_seed_deals_one_game_and_only_while_its_chooser_is_seated(server: Server) -> None:
    """ann chooses seed 42 and gives up her seat: the seed goes with her, the room reads why, and
    the game bob and cid start is dealt from a seed the server draws (no practice). bob then
    chooses 42: that game is a practice game, and at its end the seed is random again, so that
    the seed, known now, deals nothing more. (A game ends here when cid gives up the seat:
    ``absent drop``.)"""
    ann, bob, cid = await _seated(server, "ann", "bob", "cid")
    for option in ("absent drop", "seed 42"):
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    assert (await ann.command("/stand"))["type"] == "ack"

    async def play_one(practice: bool) -> dict[str, object]:
        assert (await bob.command("/start"))["type"] == "ack"
        started = await cid.next("game_started")
        assert started["practice"] is practice and (started["seed_hash"] is None) is practice
        assert (await cid.command("/stand"))["type"] == "ack"
        over = await bob.next("game_over")
        assert (await cid.command("/join"))["type"] == "ack"
        return over

    first = await play_one(practice=False)
    notice = await ann.next(lambda x: x["type"] == "notice" and "forgotten" in x["text"])
    assert notice["text"] == "The seed ann chose is forgotten: ann left the table."
    assert first["seed"] != 42
    assert (await bob.command("/option seed 42"))["type"] == "ack"
    second = await play_one(practice=True)
    assert second["seed"] == 42
    notice = await ann.next(lambda x: x["type"] == "notice" and "random again" in x["text"])
    assert notice["text"] == "The seed is random again for the next game."
    await ann.barrier()
    assert ann.view is not None and ann.view["options"]["seed"] is None
    # /info still tells the game that ended as what it was
    assert "Rated: no, a practice game (the room chose the seed)." in (await ann.command("/info"))["text"]
    third = await play_one(practice=False)
    assert third["seed"] != 42

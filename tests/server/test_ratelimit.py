"""The token bucket behind --rate/--burst and --chat-rate/--chat-burst: its burst cap and its refill,
on a clock the test moves by hand, then over a real socket (the lobby's buckets on that clock too)."""

from __future__ import annotations

import itertools

import pytest

from server.app import Server
from server.lobby import lobby
from server.ratelimit import TokenBucket
from tests.server.clients import LineClient, WsClient
from tests.server.conftest import ServerFactory


class FakeClock:
    """Seconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _takes(bucket: TokenBucket, n: int) -> list[bool]:
    return [bucket.take() for _ in range(n)]


def test_a_new_bucket_holds_exactly_its_burst() -> None:
    """A fresh bucket grants ``burst`` messages at once and refuses the next."""
    clock = FakeClock()
    bucket = TokenBucket(rate=4.0, burst=3, clock=clock)
    assert _takes(bucket, 4) == [True, True, True, False]


def test_an_idle_bucket_saves_up_no_more_than_its_burst() -> None:
    """However long a bucket sits idle, it grants at most ``burst`` messages in a row."""
    clock = FakeClock()
    bucket = TokenBucket(rate=4.0, burst=3, clock=clock)
    assert _takes(bucket, 1) == [True]
    clock.now += 1000.0
    assert _takes(bucket, 4) == [True, True, True, False]
    clock.now += 0.5  # two tokens' worth: below the cap, so both count
    assert _takes(bucket, 3) == [True, True, False]


def test_an_empty_bucket_refills_one_token_per_one_over_rate_seconds() -> None:
    """Emptied, the bucket grants one message after 1/rate seconds, and only one."""
    clock = FakeClock()
    bucket = TokenBucket(rate=4.0, burst=2, clock=clock)
    assert _takes(bucket, 3) == [True, True, False]
    clock.now += 0.125  # half a token
    assert _takes(bucket, 1) == [False]
    clock.now += 0.125  # the second half: a refused take spent nothing
    assert _takes(bucket, 2) == [True, False]
    clock.now += 0.75  # three tokens' worth, capped at two
    assert _takes(bucket, 3) == [True, True, False]


def test_spending_more_goes_into_debt_that_the_refill_pays_back_first() -> None:
    """A message that cost more than one spends the rest, into debt at most a burst deep: nothing
    passes until the refill has paid it back."""
    clock = FakeClock()
    bucket = TokenBucket(rate=4.0, burst=3, clock=clock)
    assert _takes(bucket, 1) == [True]
    bucket.spend(4)  # two left, four spent: two owed
    assert _takes(bucket, 1) == [False]
    clock.now += 0.75  # three tokens: one left over the debt
    assert _takes(bucket, 2) == [True, False]
    bucket.spend(100)  # at most a burst deep
    clock.now += 1.0
    assert _takes(bucket, 2) == [True, False]


async def test_a_long_room_list_counts_as_many_messages_as_it_is_long(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``list_rooms`` of three rooms, at one message a room, spends four: a connection with a
    burst of six and a slow refill is refused at its second list's next message."""
    monkeypatch.setattr(lobby, "ROOMS_A_MESSAGE", 1)
    server: Server = await make_server(rate=0.01, burst=6)
    for name in ("ann", "bob", "cid"):
        client = await WsClient.connect(server.port, name)
        assert (await client.command(f"/join r{name}"))["type"] == "ack"
    zoe = await WsClient.connect(server.port, "zoe")  # (its hello took one: five left)
    assert len((await zoe.request({"type": "list_rooms"}))["rooms"]) == 3  # one left
    assert (await zoe.request({"type": "ping"}))["type"] == "pong"  # none left
    assert (await zoe.request({"type": "ping"}))["code"] == "rate_limited"


async def test_a_long_list_of_people_counts_as_many_messages_as_it_is_long(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``who`` of four people, at one message a person, spends five: a connection with a burst of
    seven and a slow refill is refused at its next message but one."""
    monkeypatch.setattr(lobby, "PEOPLE_A_MESSAGE", 1)
    server: Server = await make_server(rate=0.01, burst=7)
    for name in ("ann", "bob", "cid"):
        await WsClient.connect(server.port, name)
    zoe = await WsClient.connect(server.port, "zoe")  # (its hello took one: six left)
    assert len((await zoe.request({"type": "who"}))["people"]) == 4  # one left
    assert (await zoe.request({"type": "ping"}))["type"] == "pong"  # none left
    assert (await zoe.request({"type": "ping"}))["code"] == "rate_limited"


async def test_a_list_of_games_counts_as_five_messages(make_server: ServerFactory) -> None:
    """``/history`` and ``/finger`` read a list of games each: with a burst of 12 and a slow
    refill, after the hello, a ``/history`` and a ``/finger`` (ten), one ping passes and the
    next is ``rate_limited``."""
    server: Server = await make_server(rate=0.01, burst=12)
    zoe = await WsClient.connect(server.port, "zoe")  # (its hello took one: eleven left)
    assert (await zoe.command("/history"))["type"] == "text"  # six left
    assert (await zoe.command("/finger zoe"))["code"] == "no_such_player"  # one left
    assert (await zoe.request({"type": "ping"}))["type"] == "pong"  # none left
    assert (await zoe.request({"type": "ping"}))["code"] == "rate_limited"


async def test_an_addresss_connections_share_what_it_may_read_of_the_records(
    make_server: ServerFactory,
) -> None:
    """``/history`` counts as five messages against its connection and against its address too,
    whose other connections (and requests of the API) share the same: with a burst of ten, an
    address's three connections each asking once at once, the third is ``rate_limited``, saying
    it is the address's reading; a ping of it passes."""
    server: Server = await make_server(rate=0.01, burst=10)
    clients = [await WsClient.connect(server.port, f"p{n}") for n in range(3)]
    assert (await clients[0].command("/history"))["type"] == "text"
    assert (await clients[1].command("/history"))["type"] == "text"
    refused = await clients[2].command("/history")
    assert refused["code"] == "rate_limited" and "address" in refused["message"], refused
    assert (await clients[2].request({"type": "ping"}))["type"] == "pong"


def test_a_bucket_with_no_time_passing_never_refills() -> None:
    """Without time passing, an empty bucket stays empty however often it is asked."""
    clock = FakeClock()
    bucket = TokenBucket(rate=1000.0, burst=1, clock=clock)
    assert _takes(bucket, 5) == [True, False, False, False, False]


def test_the_bucket_reads_the_monotonic_clock_by_default() -> None:
    """Without a clock argument the bucket refills by real time (monotonic)."""
    bucket = TokenBucket(rate=1e9, burst=1)
    assert bucket.take()
    # a billion tokens a second: any real time that passes refills the one token
    assert bucket.take()


async def test_over_a_socket_chat_is_refused_past_the_burst_and_accepted_after_the_refill(
    make_server: ServerFactory,
) -> None:
    """chat_burst lines pass at once, the next is rate_limited, and after 1/chat_rate seconds one
    more passes; a long pause saves up no more than the burst."""
    server: Server = await make_server(chat_rate=1.0, chat_burst=3)
    clock = FakeClock()
    server.lobby.clock = clock  # (read by the buckets of the connections attached from now on)
    talker = await WsClient.connect(server.port, "talker")
    assert (await talker.command("/room chatty"))["type"] == "ack"
    ids = itertools.count()

    async def burst(n: int) -> list[str]:
        sent = [f"say-{next(ids)}" for _ in range(n)]
        for msg_id in sent:
            await talker.send({"type": "say", "text": "hi", "id": msg_id})
        answers = [await talker.next(lambda m, i=msg_id: m.get("id") == i) for msg_id in sent]
        return [a["type"] if a["type"] == "ack" else a["code"] for a in answers]

    assert await burst(4) == ["ack", "ack", "ack", "rate_limited"]
    clock.now += 1.2  # one token at one a second, and a fifth of the next
    assert await burst(2) == ["ack", "rate_limited"]
    clock.now += 4.5  # four and a half tokens' worth, capped at three
    assert await burst(4) == ["ack", "ack", "ack", "rate_limited"]


async def test_invitations_count_as_chat(make_server: ServerFactory) -> None:
    """An invitation reaches another person's screen as a tell does: past the chat burst it is
    ``rate_limited`` and zoe reads no more of them."""
    server: Server = await make_server(chat_rate=1.0, chat_burst=3)
    server.lobby.clock = FakeClock()  # (no token comes back while the test runs)
    host = await WsClient.connect(server.port, "host")
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await host.command("/join den"))["type"] == "ack"
    answers = [await host.request({"type": "invite", "name": "zoe"}) for _ in range(5)]
    assert [a["type"] if a["type"] == "ack" else a["code"] for a in answers] == ["ack"] * 3 + [
        "rate_limited"
    ] * 2
    await zoe.barrier()
    assert sum(1 for x in zoe.messages if x["type"] == "invited") == 3


async def test_a_terminals_empty_lines_are_not_counted(make_server: ServerFactory) -> None:
    """An empty line at a terminal is nothing typed: a paste's sixty blank lines, lines of telnet
    negotiation alone and lines ended LF CR (each CR an empty line more) cost little of the rate,
    so the commands among them are answered and the connection stays (with `--burst 40` they
    were refused and the flooding client closed)."""
    server: Server = await make_server(rate=20.0, burst=40)
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "ann")
    line.writer.write(b"\r\n" * 60 + b"\xff\xf6\r\n" * 20 + b"/ping\r\n")
    await line.expect("pong")
    line.writer.write(b"/ping\n\r" * 30)
    for _ in range(30):
        await line.expect("pong")
    await line.line("/ping")
    await line.expect("pong")
    assert "rate_limited" not in line.text() and "flooding" not in line.text()


async def test_a_flood_of_empty_lines_is_still_a_flood(make_server: ServerFactory) -> None:
    """Empty lines cost a twentieth of a message each: a terminal that sends them without end (or
    lines of telnet negotiation alone) is closed for flooding like any other, unanswered till then
    (free, one connection held the event loop: a bystander's ping took 175 ms)."""
    server: Server = await make_server(rate=20.0, burst=40)
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "ann")
    line.writer.write(b"\r\n" * 20_000 + b"\xff\xf1\r\n" * 2_000)
    await line.expect("flooding")
    assert "rate_limited" not in line.text()

"""Outgoing messages: the text every recipient gets, and the message object line clients render."""

from __future__ import annotations

import asyncio
import gc
import weakref

from protocol import messages as m
from server.session import Outgoing, Session

PLAYED = m.Played(room="café", player="ann", move="FRf@FR1s", points=2, events=[{"type": "seat"}], auto=True)


def test_the_per_move_messages_made_directly_are_the_messages_and_their_text() -> None:
    """Outgoing.patch, .played and .ack give the same text as the message objects, and the same
    message objects when a line client asks for them."""
    ops = [{"op": "replace", "path": "/game/to_move", "value": "bob"}]
    made = [
        (Outgoing.patch("café", ops), m.Patch(room="café", ops=ops)),
        (Outgoing.played("café", "ann", "FRf@FR1s", 2, [{"type": "seat"}], True), PLAYED),
        (Outgoing.ack(7), m.Ack(id=7)),
    ]
    for out, message in made:
        assert out.json == Outgoing(message).json
        assert out.message == message


def test_a_message_from_another_node_keeps_its_text_and_is_read_only_when_asked() -> None:
    """Outgoing.from_json sends another node's text as it is (with this connection's seq) and
    parses it into the message for a line client."""
    text = m.dump_server_message(PLAYED)
    out = Outgoing.from_json(text)
    assert out.json == text
    assert out.with_seq(7) == text.replace('"seq":0', '"seq":7', 1)
    assert out.message == PLAYED


def test_a_message_is_encoded_once_for_all_its_recipients_each_with_its_own_seq() -> None:
    """Outgoing.encoded gives the UTF-8 of with_seq in two parts, the second the same bytes for
    every recipient (the text after the sequence number, "café" included)."""
    for out in (Outgoing(PLAYED), Outgoing.from_json(m.dump_server_message(PLAYED)), Outgoing.ack("x")):
        first, second = out.encoded(1), out.encoded(12345)
        assert first[0] + first[1] == out.with_seq(1).encode()
        assert second[0] + second[1] == out.with_seq(12345).encode()
        assert second[1] is first[1]


class Recording(Session):
    """A session that keeps each write it is asked for: its messages' texts with their seq."""

    transport = "ws"

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[list[tuple[int, str]]] = []

    def _write_now(self, batch: list[Outgoing], first: int) -> bool:
        self.writes.append([(seq, out.json) for seq, out in enumerate(batch, first)])
        return False


async def test_what_sessions_queue_in_one_turn_goes_out_at_its_end_in_one_write_each() -> None:
    """Messages sent in one turn of the loop, to several sessions, are written when it ends: each
    session's in one write, numbered from where its last write stopped."""
    a, b = Recording(), Recording()
    a.start()
    b.start()
    acks = [Outgoing.ack(i) for i in range(4)]
    a.send(acks[0])
    b.send(acks[1])
    a.send(acks[2])
    assert a.writes == b.writes == []
    await asyncio.sleep(0)
    assert a.writes == [[(1, acks[0].json), (2, acks[2].json)]]
    assert b.writes == [[(1, acks[1].json)]]
    a.send(acks[3])
    await asyncio.sleep(0)
    assert a.writes[1:] == [[(3, acks[3].json)]]
    assert b.writes == [[(1, acks[1].json)]]


def test_an_event_loop_that_ended_is_not_kept_by_the_sessions_flushes() -> None:
    """What sessions flush is kept for each event loop, which it holds only weakly."""

    async def use() -> weakref.ref[asyncio.AbstractEventLoop]:
        Recording().start()
        return weakref.ref(asyncio.get_running_loop())

    loop = asyncio.run(use())
    gc.collect()
    assert loop() is None

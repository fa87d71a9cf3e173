"""Outgoing messages: the text every recipient gets, and the message object line clients render."""

from __future__ import annotations

from protocol import messages as m
from server.session import Outgoing

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

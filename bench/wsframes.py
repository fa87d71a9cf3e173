"""CPU per WebSocket frame on the client side: the load generator's own RFC 6455 client
(``bench/loadgen/wire.py``) against websockets' sans-I/O ``ClientProtocol``, on the frames a move
costs a game client (one move sent; an ack, a patch and a played message received together).

    python bench/wsframes.py [--seconds 0.4] [--repeat 3]

Each figure is the best of ``--repeat`` runs of ``--seconds`` of process CPU time, so a run takes
a few seconds. Sending is: frame, mask and hand the bytes to the transport (a stub that drops
them). Receiving is: parse the frames out of the bytes and decode each text payload.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# run as a script, this file's folder comes first on the path and bench/engine.py would hide the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.client import ClientProtocol  # noqa: E402
from websockets.server import ServerProtocol  # noqa: E402
from websockets.uri import parse_uri  # noqa: E402

from bench.loadgen.wire import WebSocket  # noqa: E402

#: what a game client sends for a move, and the three frames a move brings back to the mover
MOVE = '{"type":"move","id":17,"move":"FRf@FR1s ESm@ES1e"}'
RECEIVED = (
    '{"seq":41,"id":17,"type":"ack"}',
    '{"seq":42,"type":"patch","room":"load7","ops":[{"op":"replace","path":"/game/chairs/FR1s","value":"FRf"},'
    '{"op":"add","path":"/game/chairs/ES1e","value":"ESm"},{"op":"replace","path":"/game/to_move","value":"w7x2"},'
    '{"op":"replace","path":"/game/deck_size","value":61},{"op":"replace","path":"/game/move_number","value":9},'
    '{"op":"replace","path":"/game/players/1/score","value":14},{"op":"replace","path":"/game/players/1/hand_size",'
    '"value":5},{"op":"replace","path":"/game/last_move","value":{"player":"w7x1","move":"FRf@FR1s ESm@ES1e",'
    '"points":7}}]}',
    '{"seq":43,"type":"played","room":"load7","player":"w7x1","move":"FRf@FR1s ESm@ES1e","points":7,"events":'
    '[{"type":"seat","player":"w7x1","card":"FRf","chair":"FR1s","points":3},{"type":"seat","player":"w7x1",'
    '"card":"ESm","chair":"ES1e","points":4},{"type":"draw","player":"w7x1","count":2}]}',
)


class _Sink:
    """A transport that drops what is written, and a client that counts what is received."""

    def __init__(self) -> None:
        self.texts = 0
        self.worker = self

    def write(self, data: bytes) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def on_text(self, text: str) -> None:
        self.texts += 1

    def error(self, what: str) -> None:
        raise RuntimeError(what)


def _server_frames() -> bytes:
    """The three received frames as the server puts them on the wire (unmasked)."""
    server = ServerProtocol()
    client = ClientProtocol(parse_uri("ws://127.0.0.1:1/ws"))
    client.send_request(client.connect())
    for data in client.data_to_send():
        server.receive_data(data)
    request = server.events_received()[0]
    server.send_response(server.accept(request))  # type: ignore[arg-type]
    server.data_to_send()
    for text in RECEIVED:
        server.send_text(text.encode())
    return b"".join(server.data_to_send())


def _open_client_protocol() -> ClientProtocol:
    """A ``ClientProtocol`` past its opening handshake."""
    client = ClientProtocol(parse_uri("ws://127.0.0.1:1/ws"))
    server = ServerProtocol()
    client.send_request(client.connect())
    for data in client.data_to_send():
        server.receive_data(data)
    server.send_response(server.accept(server.events_received()[0]))  # type: ignore[arg-type]
    for data in server.data_to_send():
        client.receive_data(data)
    client.data_to_send()
    client.events_received()
    return client


def _per_call(work: Callable[[], Any], seconds: float, repeat: int) -> float:
    """The least CPU seconds one call of ``work`` took, over ``repeat`` runs of ``seconds``."""
    best = float("inf")
    for _ in range(repeat):
        calls = 0
        start = time.process_time()
        end = start + seconds
        while (now := time.process_time()) < end:
            for _ in range(200):
                work()
            calls += 200
        best = min(best, (now - start) / calls)
    return best


async def measure(seconds: float, repeat: int) -> dict[str, float]:
    """Microseconds of CPU per frame: sending one move, and receiving one of the three frames."""
    wire = _server_frames()
    sink = _Sink()
    own = WebSocket(sink, "127.0.0.1", 1, "/ws")  # type: ignore[arg-type]
    own.transport = sink  # type: ignore[assignment]
    own.open = True
    theirs = _open_client_protocol()
    move = MOVE.encode()

    def own_send() -> None:
        own.send_text(MOVE)

    def their_send() -> None:
        theirs.send_text(move)
        for data in theirs.data_to_send():
            sink.write(data)

    def own_receive() -> None:
        own.data_received(wire)

    def their_receive() -> None:
        theirs.receive_data(wire)
        for frame in theirs.events_received():
            sink.on_text(frame.data.decode())  # type: ignore[union-attr]

    frames = len(RECEIVED)
    before = sink.texts
    own_receive()
    their_receive()
    assert sink.texts - before == 2 * frames, "each client reads every frame"
    return {
        "own_send": _per_call(own_send, seconds, repeat) * 1e6,
        "their_send": _per_call(their_send, seconds, repeat) * 1e6,
        "own_receive": _per_call(own_receive, seconds, repeat) * 1e6 / frames,
        "their_receive": _per_call(their_receive, seconds, repeat) * 1e6 / frames,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.4, help="CPU seconds a run")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the best counts")
    args = parser.parse_args()
    f = asyncio.run(measure(args.seconds, args.repeat))
    sizes = ", ".join(str(len(t)) for t in RECEIVED)
    runs = f"best of {args.repeat} x {args.seconds:g} s"
    print(f"CPU per frame, {runs} (a {len(MOVE)}-byte move out; {sizes} bytes in)")
    print(f"{'':<26}{'own client':>12}{'ClientProtocol':>16}{'ratio':>8}")
    for label, key in (("send a move, us", "send"), ("receive a frame, us", "receive")):
        own, theirs = f[f"own_{key}"], f[f"their_{key}"]
        print(f"{label:<26}{own:>12.2f}{theirs:>16.2f}{theirs / own:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How much one server process carries: rooms of four clients playing over real sockets, and the
same connections and message sizes through a bare ``websockets`` relay (``bench/relay.py``).

The game phase starts a server (or targets ``--url``), opens ``--rooms`` rooms of 4 clients over
WebSockets (``--line-share`` of them over the line endpoint), seats them, sets a seed and starts.
The client to move, known from its own view (the snapshot with every patch applied) or, on the
line endpoint, from the text it reads, plays the next move of a game drawn in advance from that
seed (``engine.random_game``), so the clients spend no time on the rules; a room that finishes
starts the next game. After ``--warmup`` seconds, it measures for ``--seconds``: moves per second,
the time from sending a move to the last client of the room receiving it (its patch; the line
clients, its line), the server's CPU and memory (``/proc``), the generator's CPU, and every error
(an ``error`` message, a ``!`` line, a gap in ``seq``, a patch that does not apply, a move never
received). The relay phase then opens the same number of connections in rooms of 4; one client of
a room sends a frame of the size of a move message, and the relay answers as the game server
answers a move, with frames of the mean sizes just seen: an ``ack`` to the sender, then a patch
and a ``played`` message to each of the 4; the next client goes on.

    python bench/load.py [--rooms 500] [--seconds 20] [--rate 0] [--line-share 0.1]
                         [--workers 2] [--url ws://127.0.0.1:8765/ws --line-port 2323 --pid PID]
    python bench/load.py --connections-only 10000 [--seconds 60]   # idle connections' cost
    python bench/load.py --relay-only 0 960 0                      # the relay alone, 1 frame a member
    python bench/load.py --cluster --rate 1000 --rooms 500         # one node, then a cluster

``--rate`` caps the moves per second over all rooms (to measure latency at a fixed load); 0 plays
as fast as the server answers. ``--cluster`` runs the game phase on one node (as without it),
then on two nodes sharing a ``redis-server`` (append-only, ``appendfsync everysec``) with their
records in a PostgreSQL of their own, both in a temporary folder: each room is opened by its
first seat on one node (the nodes take turns), and its last two seats connect to the other node,
so half of the clients are on a node that does not own their room; then on one node again. It
reports the CPU a move summed over the nodes, Redis and PostgreSQL (its backends included)
against the mean of the one node's two phases, before and after, so that the machine's speed
drifting during a run counts alike on both sides.

The server is started with its per-connection rate limits raised
(``--rate``/``--burst`` 100000) and every client's address being loopback, its cap per address
raised to the connections it makes: the benchmark measures throughput, not the guards. The
clients run in ``--workers`` processes of plain asyncio beside the server, on the same machine.
Connections go to loopback only; every phase has a deadline and the run stops by itself.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

# run as a script, this file's folder comes first on the path and bench/engine.py would hide the
# package; the repository's root goes there instead, for the engine and bench.loadgen
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.loadgen.idle import connections_phase, report_connections  # noqa: E402
from bench.loadgen.phases import cluster_phase, game_phase, relay_phase  # noqa: E402
from bench.loadgen.plan import LOOPBACK, plan_games, raise_open_files  # noqa: E402
from bench.loadgen.report import report, report_cluster, summarise_profile  # noqa: E402
from bench.loadgen.stats import figures  # noqa: E402

#: characters of a move message, as the game phase measures them (for ``--relay-only``)
MOVE_BYTES = 43


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=500, help="rooms of 4 clients")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds played before measuring")
    parser.add_argument("--rate", type=float, default=0.0, help="moves per second in all; 0: unlimited")
    parser.add_argument("--line-share", type=float, default=0.1, help="share of clients on the line endpoint")
    parser.add_argument("--workers", type=int, default=2, help="generator processes")
    parser.add_argument("--games", type=int, default=64, help="games planned in advance (seeds)")
    parser.add_argument("--connect-concurrency", type=int, default=50, help="handshakes at once per worker")
    parser.add_argument("--url", help="an already running server's ws://127.0.0.1:PORT/ws")
    parser.add_argument("--line-port", type=int, help="with --url: its line port")
    parser.add_argument("--pid", type=int, help="with --url: its process id, for CPU and memory")
    parser.add_argument("--data", help="the started server's SQLite file (default: a temporary one)")
    parser.add_argument("--log-level", default="warning", help="the started server's log level")
    parser.add_argument("--no-relay", action="store_true", help="skip the bare relay baseline")
    parser.add_argument(
        "--compression",
        choices=("none", "deflate"),
        default="none",
        help="the server's WebSocket compression, and so the relay's",
    )
    parser.add_argument(
        "--event-loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="the server's event loop, and so the relay's",
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="one node, then two nodes with Redis and PostgreSQL, at the same rate; no relay",
    )
    parser.add_argument(
        "--redis-socket",
        action="store_true",
        help="--cluster: the nodes reach Redis on a Unix socket (unix://...) rather than TCP",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--profile", help="run the server under py-spy; write its raw samples here")
    parser.add_argument(
        "--relay-only",
        type=int,
        nargs=3,
        metavar=("ACK", "PATCH", "PLAYED"),
        help="only the bare relay, answering a move with frames of these characters (0: no such frame)",
    )
    parser.add_argument(
        "--connections-only",
        type=int,
        metavar="N",
        help="only hold N idle connections (hello, then nothing) for --seconds: memory and CPU they cost",
    )
    args = parser.parse_args(argv)
    if args.url:
        host = args.url.split("//", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
        if host not in LOOPBACK:
            parser.error("--url must point at loopback")
        if args.line_share > 0 and args.line_port is None:
            parser.error("--line-share needs --line-port with --url")
    if not 0 <= args.line_share <= 1 or args.rooms < 1 or args.seconds <= 0:
        parser.error("--line-share is 0 to 1; --rooms and --seconds are positive")
    raise_open_files()
    if args.connections_only:
        held = connections_phase(args)
        report_connections(held)
        if args.profile:
            summarise_profile(args.profile)
        if args.json:
            Path(args.json).write_text(json.dumps({"args": vars(args), "idle": held}, indent=2))
        return 0 if held["errors"] == 0 and held["lost"] == 0 else 1
    if args.relay_only:
        ack, patch, played = args.relay_only
        sizes = {"mean_ack_bytes": ack, "mean_patch_bytes": patch, "mean_event_bytes": played}
        relay = figures(relay_phase(args, {**sizes, "mean_move_bytes": MOVE_BYTES}))
        report(args, None, relay)
        if args.json:
            Path(args.json).write_text(json.dumps({"args": vars(args), "relay": relay}, indent=2))
        return 0 if relay["errors"] == 0 else 1
    t = time.monotonic()
    plans = plan_games(args.games, 1000)
    print(f"planned {len(plans)} games in {time.monotonic() - t:.1f} s", file=sys.stderr)
    if args.cluster:
        if args.url:
            parser.error("--cluster starts its own processes: no --url")
        profile, args.profile = args.profile, None  # (only the cluster's nodes are profiled)
        one = figures(game_phase(args, plans))
        args.profile = profile
        cluster = figures(cluster_phase(args, plans))
        args.profile = None
        again = figures(game_phase(args, plans))
        report(args, one, cluster, names=("one node", "cluster"))
        report_cluster(one, cluster, again)
        args.profile = profile
        if args.profile:
            for node in ("node1", "node2"):
                print(f"\n{node}:")
                summarise_profile(f"{args.profile}.{node}")
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {"args": vars(args), "one_node": one, "cluster": cluster, "one_node_again": again},
                    indent=2,
                )
            )
        return 0 if one["errors"] == 0 and cluster["errors"] == 0 and again["errors"] == 0 else 1
    game = figures(game_phase(args, plans))
    relay = None
    if not args.no_relay:
        relay_phase_ = relay_phase(args, game)
        relay = figures(relay_phase_)
    report(args, game, relay)
    if args.profile:
        summarise_profile(args.profile)
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "game": game, "relay": relay}, indent=2))
    return 0 if game["errors"] == 0 and (relay is None or relay["errors"] == 0) else 1


if __name__ == "__main__":
    sys.exit(main())

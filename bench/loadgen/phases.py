"""The main process's phases: start the target and the worker processes, connect, seat, play for
the measured window, and collect what the workers counted."""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import sqlite3
import sys
import tempfile
import time
from multiprocessing.connection import Connection as PipeEnd
from pathlib import Path
from typing import Any

from bench.loadgen.cluster import NODES, ClusterTarget
from bench.loadgen.plan import (
    CONNECT_TIMEOUT,
    DRAIN_TIMEOUT,
    ROOT,
    SEATS,
    SERVER_RATE,
    STEP_TIMEOUT,
    GamePlan,
    RoomSpec,
    WorkerSpec,
)
from bench.loadgen.stats import Phase, merge
from bench.loadgen.target import Target, free_port, machine_busy
from bench.loadgen.worker import worker_main
from server.log.sqlite.journal import logged_moves


def room_specs(rooms: int, line_share: float) -> list[RoomSpec]:
    """Rooms ``load0``...; every client whose running share crosses a whole number is a line client.
    Room ``r`` plays ``r / rooms`` of its first game before the clock starts (``RoomSpec.head``)."""
    specs = []
    for r in range(rooms):
        seats = []
        for s in range(SEATS):
            g = r * SEATS + s
            seats.append(int((g + 1) * line_share) > int(g * line_share))
        specs.append(RoomSpec(r, f"load{r}", tuple(seats), r / rooms))
    return specs


class Workers:
    """The generator processes, each with a pipe for commands and replies."""

    def __init__(self, specs: list[WorkerSpec]) -> None:
        ctx = mp.get_context("spawn")
        self.pipes: list[PipeEnd] = []
        self.procs: list[Any] = []
        for spec in specs:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=worker_main, args=(child, spec), daemon=True)
            proc.start()
            self.pipes.append(parent)
            self.procs.append(proc)

    def ask(self, command: tuple[Any, ...], timeout: float) -> list[tuple[Any, ...]]:
        for pipe in self.pipes:
            pipe.send(command)
        deadline = time.monotonic() + timeout
        replies = []
        for pipe in self.pipes:
            if not pipe.poll(max(0.0, deadline - time.monotonic())):
                raise TimeoutError(f"a worker did not answer {command[0]!r} in {timeout:.0f} s")
            replies.append(pipe.recv())
        return replies

    def stop(self) -> None:
        for proc in self.procs:
            proc.join(30)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)


def run_phase(
    name: str,
    target: Target | ClusterTarget,
    specs: list[WorkerSpec],
    args: argparse.Namespace,
    connections: int,
) -> Phase:
    phase = Phase(name, connections, args.seconds)
    time.sleep(0.5)
    mem = phase.memory
    mem["idle"] = target.memory().get("VmRSS", 0)
    print(f"[{name}] {connections} connections, {len(specs)} worker processes", file=sys.stderr)
    workers = Workers(specs)
    try:
        replies = workers.ask(("connect",), CONNECT_TIMEOUT + 30)
        phase.failures += sum(r[1] for r in replies)
        time.sleep(0.5)
        mem["connected"] = target.memory().get("VmRSS", 0)
        print(f"[{name}] connected ({phase.failures} failed); seating", file=sys.stderr)
        replies = workers.ask(("join",), CONNECT_TIMEOUT + 30)
        phase.failures += sum(r[1] for r in replies)
        time.sleep(0.5)
        mem["seated"] = target.memory().get("VmRSS", 0)
        if specs[0].mode == "game":
            print(f"[{name}] playing the rooms' first games' heads", file=sys.stderr)
            workers.ask(("head",), CONNECT_TIMEOUT + 30)
        start = time.monotonic() + 0.5
        warm_end = start + args.warmup
        end = warm_end + args.seconds
        print(f"[{name}] playing {args.warmup:g} s + {args.seconds:g} s", file=sys.stderr)
        for pipe in workers.pipes:
            pipe.send(("play", start, warm_end, end))
        time.sleep(max(0.0, warm_end - time.monotonic()))
        parts0, busy0 = target.cpu_parts(), machine_busy()
        time.sleep(max(0.0, end - time.monotonic()))
        parts1, busy1 = target.cpu_parts(), machine_busy()
        phase.cpu_parts = {k: (parts1[k] - parts0.get(k, 0.0)) / args.seconds for k in parts1}
        cpu0 = sum(parts0.values()) if parts0 else None
        cpu1 = sum(parts1.values()) if parts1 else None
        phase.machine_cpu = (busy1 - busy0) / args.seconds
        mem.update({"playing": target.memory().get("VmRSS", 0), "peak": target.memory().get("VmHWM", 0)})
        if cpu0 is not None and cpu1 is not None:
            phase.server_cpu = (cpu1 - cpu0) / args.seconds
        replies = []
        deadline = time.monotonic() + DRAIN_TIMEOUT + STEP_TIMEOUT
        for pipe in workers.pipes:
            if not pipe.poll(max(0.0, deadline - time.monotonic())):
                raise TimeoutError("a worker did not report")
            replies.append(pipe.recv())
        phase.stats = merge([r[1] for r in replies])
        workers.ask(("close",), 90)
    finally:
        workers.stop()
    return phase


def server_argv(args: argparse.Namespace, port: int, line_port: int, data: str, conns: int) -> list[str]:
    return [
        sys.executable, "-m", "server",
        "--host", "127.0.0.1", "--port", str(port), "--line-port", str(line_port),
        "--data", data, "--log-level", args.log_level,
        "--rate", SERVER_RATE, "--burst", SERVER_RATE,
        "--max-connections", str(conns + 100), "--max-rooms", str(args.rooms + 100),
        "--max-per-ip", str(conns + 100),
        "--compression", args.compression, "--event-loop", args.event_loop,
    ]  # fmt: skip


def worker_specs(
    args: argparse.Namespace,
    mode: str,
    url: str,
    line_port: int | None,
    plans: tuple[GamePlan, ...],
    rooms: list[RoomSpec],
    move_sizes: tuple[int, int] = (0, 0),
    nodes: tuple[tuple[int, int | None], ...] = (),
) -> list[WorkerSpec]:
    """Each generator process's share of ``rooms``; ``move_sizes``: the relay's move frame and
    move line."""
    n = max(1, min(args.workers, len(rooms)))
    # ws://127.0.0.1:PORT/PATH; the host is loopback (checked in main)
    port, _, path = url.split("//", 1)[1].split(":", 1)[1].partition("/")
    return [
        WorkerSpec(
            index=w,
            mode=mode,
            ws_port=int(port),
            ws_path="/" + path,
            line_port=line_port,
            rooms=tuple(rooms[w::n]),
            plans=plans,
            rate=args.rate / n,
            move_size=move_sizes[0],
            line_move_size=move_sizes[1],
            connect_concurrency=args.connect_concurrency,
            nodes=nodes,
        )
        for w in range(n)
    ]


def game_phase(args: argparse.Namespace, plans: tuple[GamePlan, ...]) -> Phase:
    rooms = room_specs(args.rooms, args.line_share)
    conns = args.rooms * SEATS
    data_dir = tempfile.mkdtemp(prefix="cafe-load-")
    data = args.data or str(Path(data_dir) / "load.db")
    if args.url:
        target = Target(None, int(args.url.rsplit(":", 1)[1].split("/")[0]), args.line_port, args.pid)
        url, line_port = args.url, args.line_port
    else:
        port, line_port = free_port(), free_port() if args.line_share > 0 else -1
        argv = server_argv(args, port, line_port, data, conns)
        target = Target(argv, port, line_port, None, args.profile)
        url = f"ws://127.0.0.1:{port}/ws"
    try:
        specs = worker_specs(args, "game", url, line_port, plans, rooms)
        phase = run_phase("game", target, specs, args, conns)
    finally:
        target.stop()
    phase.log_warnings = [line for line in target.stderr if line.strip()]
    if not args.url:
        with contextlib.closing(sqlite3.connect(data)) as db:
            phase.log_rows = sum(len(moves) for _, moves in logged_moves(db).values())
        if not args.data:
            for path in Path(data_dir).iterdir():
                path.unlink()
            Path(data_dir).rmdir()
    return phase


def cluster_phase(args: argparse.Namespace, plans: tuple[GamePlan, ...]) -> Phase:
    """The game phase on two nodes, their Redis and their PostgreSQL: each room is opened on one
    node by its first seat, and half of its seats connect to the other node."""
    rooms = room_specs(args.rooms, args.line_share)
    conns = args.rooms * SEATS
    argvs = []
    for _ in NODES:
        port, line_port = free_port(), free_port() if args.line_share > 0 else -1
        argvs.append(server_argv(args, port, line_port, ":memory:", conns))
    target = ClusterTarget(args, argvs)
    try:
        nodes = tuple((node.port, node.line_port) for node in target.nodes)
        url = f"ws://127.0.0.1:{target.port}/ws"
        specs = worker_specs(args, "game", url, target.line_port, plans, rooms, nodes=nodes)
        phase = run_phase("cluster", target, specs, args, conns)
    finally:
        target.stop()
    phase.log_warnings = [line for line in target.stderr if line.strip()]
    return phase


def relay_phase(args: argparse.Namespace, game: dict[str, Any]) -> Phase:
    """The relay answers each move with frames of the sizes the game server's clients received;
    its line clients, as many as the game's, get one line of the text a line client read a move."""
    line_share = args.line_share if game.get("mean_line_bytes") else 0.0
    rooms = room_specs(args.rooms, line_share)
    port, line_port = free_port(), free_port()
    argv = [sys.executable, str(ROOT / "bench" / "relay.py"), "--port", str(port)]
    argv += ["--size", str(round(game["mean_patch_bytes"])), "--ack-size", str(round(game["mean_ack_bytes"]))]
    argv += ["--event-size", str(round(game["mean_event_bytes"]))]
    argv += ["--compression", args.compression, "--event-loop", args.event_loop]
    if line_share:
        argv += ["--line-port", str(line_port), "--line-size", str(round(game["mean_line_bytes"]))]
    move_sizes = (round(game["mean_move_bytes"]), round(game.get("mean_line_move_bytes", 0)))
    target = Target(argv, port, None, None)
    try:
        url = f"ws://127.0.0.1:{port}/"
        specs = worker_specs(args, "relay", url, line_port if line_share else None, (), rooms, move_sizes)
        return run_phase("relay", target, specs, args, args.rooms * SEATS)
    finally:
        target.stop()

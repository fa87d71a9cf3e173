"""``--cluster``: the processes under load are two server nodes, the Redis they share and the
PostgreSQL that keeps their records, started here in a temporary folder; their CPU is summed."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.loadgen.target import Target, cpu_seconds, free_port, memory, wait_listening

#: the cluster's nodes, in the order rooms are spread over them
NODES = ("node1", "node2")


def _children(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (PostgreSQL's backends and helpers)."""
    with contextlib.suppress(OSError):
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def _cpu_of(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += cpu_seconds(pid)
    return total


class ClusterTarget:
    """Two nodes, Redis and PostgreSQL, with the interface of :class:`Target` the phases read:
    ``cpu()`` is the CPU of all of them together, ``memory()`` the nodes' memory, and
    ``cpu_parts()`` each one's CPU (PostgreSQL's with every backend it runs at that moment)."""

    def __init__(self, args: argparse.Namespace, node_argv: list[list[str]]) -> None:
        from tests.cluster.postgres import PostgresServer

        self.folder = Path(tempfile.mkdtemp(prefix="cafe-load-cluster-"))
        self.redis_port = free_port()
        binary = shutil.which("redis-server")
        if binary is None:
            raise SystemExit("--cluster needs redis-server (apt-get install -y redis-server)")
        # with --redis-socket Redis also listens on a Unix socket, which the nodes use
        sock = self.folder / "redis.sock"
        self.redis = subprocess.Popen(
            [binary, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--protected-mode", "no",
             *(["--unixsocket", str(sock), "--unixsocketperm", "700"] if args.redis_socket else [])],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.postgres = PostgresServer()
        self.nodes: list[Target] = []
        try:
            wait_listening(self.redis_port, None)
            self.postgres.start()
            database = self.postgres.create_database()
            redis = f"unix://{sock}?db=0" if args.redis_socket else f"redis://127.0.0.1:{self.redis_port}/0"
            for name, argv in zip(NODES, node_argv, strict=True):
                port = int(argv[argv.index("--port") + 1])
                line = int(argv[argv.index("--line-port") + 1])
                argv = [*argv, "--redis", redis, "--node-id", name, "--database", database]
                profile = f"{args.profile}.{name}" if args.profile else None
                self.nodes.append(Target(argv, port, line if line > 0 else None, None, profile))
        except BaseException:
            self.stop()
            raise
        self.port = self.nodes[0].port
        self.line_port = self.nodes[0].line_port

    @property
    def stderr(self) -> list[str]:
        return [line for node in self.nodes for line in node.stderr]

    def _postgres_pids(self) -> list[int]:
        with contextlib.suppress(OSError, ValueError):
            main = int((self.postgres.data / "postmaster.pid").read_text().split()[0])
            return [main, *_children(main)]
        return []

    def cpu_parts(self) -> dict[str, float]:
        parts = {name: node.cpu() or 0.0 for name, node in zip(NODES, self.nodes, strict=True)}
        parts["redis"] = _cpu_of([self.redis.pid])
        parts["postgresql"] = _cpu_of(self._postgres_pids())
        return parts

    def cpu(self) -> float:
        return sum(self.cpu_parts().values())

    def memory(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for node in self.nodes:
            for key, value in node.memory().items():
                out[key] = out.get(key, 0) + value
        with contextlib.suppress(OSError):
            redis = memory(self.redis.pid)
            out["redis"] = redis.get("VmRSS", 0)
        return out

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        if self.redis.poll() is None:
            self.redis.terminate()
            try:
                self.redis.wait(10)
            except subprocess.TimeoutExpired:
                self.redis.kill()
                self.redis.wait(10)
        try:
            self.postgres.remove()
        except AssertionError as e:  # pg_ctl's complaint, shown but not fatal to the figures
            print(f"stopping PostgreSQL: {e}", file=sys.stderr)
        shutil.rmtree(self.folder, ignore_errors=True)

"""What the load generator's processes share: the constants, the games planned in advance, and
what each worker process is asked to run."""

from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path

from engine import random_game, replay

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = ("127.0.0.1", "localhost", "::1")
SEATS = 4
PLAN_NAMES = ("a", "b", "c", "d")
#: seconds allowed for each phase's steps
CONNECT_TIMEOUT = 180.0
STEP_TIMEOUT = 60.0
DRAIN_TIMEOUT = 5.0
#: the server's flood guard, raised for the benchmark
SERVER_RATE = "100000"


@dataclass(frozen=True)
class GamePlan:
    """A game decided in advance: the seed, every move, and the seat that plays each one."""

    seed: int
    moves: tuple[str, ...]
    movers: tuple[int, ...]


@dataclass(frozen=True)
class RoomSpec:
    index: int
    name: str
    line_seats: tuple[bool, ...]
    #: the share of its first game the room plays before the clock starts, as fast as the server
    #: answers: the rooms' games then end spread over the run, as a server's do, not all at once
    head: float = 0.0


@dataclass(frozen=True)
class WorkerSpec:
    index: int
    mode: str  # "game" or "relay"
    ws_port: int
    ws_path: str
    line_port: int | None
    rooms: tuple[RoomSpec, ...]
    plans: tuple[GamePlan, ...]
    rate: float  # moves per second for this worker; 0 plays as fast as the server answers
    move_size: int  # relay: characters of a move frame
    line_move_size: int  # relay: bytes of a move's line, its end included
    connect_concurrency: int
    #: ``--cluster``: each node's (WebSocket port, line port); a room's first two seats connect to
    #: the node that owns it (its first seat opens it there), the other two to the other node
    nodes: tuple[tuple[int, int | None], ...] = ()

    def ports(self, room: int, seat: int) -> tuple[int, int | None]:
        """The WebSocket and line ports seat ``seat`` of room ``room`` connects to."""
        if not self.nodes:
            return self.ws_port, self.line_port
        return self.nodes[(room + seat // 2) % len(self.nodes)]


def plan_games(count: int, first_seed: int) -> tuple[GamePlan, ...]:
    """``count`` random 4-player games; the deal depends on the seed only, not on the names."""
    plans = []
    for seed in range(first_seed, first_seed + count):
        record = random_game(PLAN_NAMES, seed)
        movers = tuple(r.player for r in replay(record).results)
        plans.append(GamePlan(seed, record.moves, movers))
    return tuple(plans)


def raise_open_files() -> None:
    """As many open files as the hard limit allows (a socket each); children inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

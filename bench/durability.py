"""What each ``--redis-durability`` costs: moves written per second through the cluster's game log.

For each setting a fresh ``redis-server`` (and, for ``replica``, a second one following it) runs in a
temporary folder on a free loopback port; ``--rooms`` rooms each write ``--moves`` moves one after
another, as a room actor does (the next move waits for the last one's acknowledgement), all rooms at
once. The figure is moves acknowledged per second, the median of ``--repeat`` runs. ``--window``
is the node's ``--redis-window`` (milliseconds; the server's default unless given): a room that
waits for each acknowledgement writes at most one move a window.

    python bench/durability.py --rooms 8 --moves 300 --window 0

The settings' Redis: ``none`` appendonly with appendfsync everysec; ``fsync`` appendfsync always;
``replica`` everysec on both, each write waiting for the replica (WAIT 1).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# run as a script, this file's folder comes first on the path and bench/engine.py would hide the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis.asyncio as aioredis  # noqa: E402

import compiled  # noqa: E402

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import GameRecord  # noqa: E402
from server.config import Config  # noqa: E402
from server.log.redis.batch import batched  # noqa: E402
from server.log.redis.store import RedisStore, lease_key  # noqa: E402

SETTINGS = {
    "none": ["--appendfsync", "everysec"],
    "fsync": ["--appendfsync", "always"],
    "replica": ["--appendfsync", "everysec"],
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _redis(folder: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("needs redis-server (apt-get install -y redis-server)")
    folder.mkdir(parents=True, exist_ok=True)
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder), "--save", ""]
    return subprocess.Popen(
        [*argv, "--appendonly", "yes", "--protected-mode", "no", *extra], stdout=subprocess.DEVNULL
    )


async def _ready(url: str, replica: bool = False) -> None:
    client = aioredis.from_url(url, decode_responses=True)
    try:
        for _ in range(400):
            try:
                if not replica and await client.ping():
                    return
                if replica and (await client.info("replication")).get("master_link_status") == "up":
                    return
            except Exception:  # still starting
                pass
            await asyncio.sleep(0.05)
        raise RuntimeError(f"{url} did not come up")
    finally:
        await client.aclose()


async def _room(store: RedisStore, client: aioredis.Redis, room: str, moves: int) -> None:
    await client.set(lease_key(room), "bench:1")
    game_id = f"{room}-game"
    await store.game_started(game_id, room, GameRecord(("ann", "bob"), 1), ["person", "person"])
    for number in range(1, moves + 1):
        await store.move_played(game_id, number, "CFf@bar")


async def _run(setting: str, rooms: int, moves: int, window: float, folder: Path) -> float:
    port = _free_port()
    procs = [_redis(folder / "primary", port, *SETTINGS[setting])]
    try:
        url = f"redis://127.0.0.1:{port}/0"
        await _ready(url)
        if setting == "replica":
            replica_port = _free_port()
            procs.append(
                _redis(
                    folder / "replica",
                    replica_port,
                    "--replicaof",
                    "127.0.0.1",
                    str(port),
                    *SETTINGS[setting],
                )
            )
            await _ready(f"redis://127.0.0.1:{replica_port}/0", replica=True)
        client = aioredis.from_url(url, decode_responses=True)
        batched(client).window = window / 1000
        try:
            store = RedisStore(client, lambda room: "bench:1", setting)
            await store.check()
            began = time.perf_counter()
            await asyncio.gather(*(_room(store, client, f"room{i}", moves) for i in range(rooms)))
            return rooms * moves / (time.perf_counter() - began)
        finally:
            await client.aclose()
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rooms", type=int, default=8, help="rooms writing at once (default 8)")
    p.add_argument("--moves", type=int, default=300, help="moves each room writes (default 300)")
    p.add_argument(
        "--repeat", type=int, default=3, help="runs of each setting; the median is shown (default 3)"
    )
    p.add_argument(
        "--window",
        type=float,
        default=Config.model_fields["redis_window"].default,
        help="the node's --redis-window, in milliseconds (default: the server's)",
    )
    args = p.parse_args()
    print(
        f"{'durability':<12}{'moves/s':>10}   (rooms {args.rooms}, moves a room {args.moves},"
        f" window {args.window:g} ms)"
    )
    for setting in SETTINGS:
        figures = []
        for i in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="cafe-durability-") as folder:
                folder_i = Path(folder) / str(i)
                figures.append(await _run(setting, args.rooms, args.moves, args.window, folder_i))
        runs = ", ".join(f"{f:.0f}" for f in figures)
        print(f"{setting:<12}{statistics.median(figures):>10.0f}   runs: {runs}")


if __name__ == "__main__":
    asyncio.run(main())

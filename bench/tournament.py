"""A Swiss tournament of bots over real sockets: each round's pairing time and repeat opponents.

A server runs in this process (SQLite in a temporary folder). ``--players`` bots connect over
WebSockets (the first registers and makes the tournament, the others join), and the Swiss of
``--rounds`` rounds at tables of ``--size`` starts at once (the director's clock is moved past
its start). Each bot plays the first legal move as soon as it is its turn. The pairing of each
round (``server.tournament.pairing.swiss_tables``, timed where the director calls it) is the
figure; the run also prints each round's wall time and, at the end, how many pairs of players
met more than once.

    .venv/bin/python bench/tournament.py --players 32 --rounds 5 --size 4

``--pairing-only`` times the pairing alone, with no server, for as many players as a tournament
takes (128): each round's standings are the players in a new random order (seeded), the worst
case for avoiding repeats, since neighbours in it met in no particular pattern.

    .venv/bin/python bench/tournament.py --pairing-only --players 128 --rounds 6 --size 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.diff import apply_patch
from server import logs
from server.app import Server
from server.config import Config
from server.tournament import pairing, state

PASSWORD = "correct horse battery"


class Bot:
    """One player over a WebSocket: it follows its view and plays the first legal move."""

    def __init__(self, name: str, ws: ClientConnection) -> None:
        self.name = name
        self.ws = ws
        self.view: dict[str, Any] | None = None
        self.ids = 0
        self.answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.games = 0

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.answers[self.ids] = future
        await self.ws.send(json.dumps({**message, "id": self.ids}))
        return await future

    async def listen(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            if message["type"] == "snapshot":
                self.view = message["view"]
            elif message["type"] == "patch" and self.view is not None:
                self.view = apply_patch(self.view, message["ops"])
            if message.get("id") in self.answers and message["type"] != "snapshot":
                self.answers.pop(message["id"]).set_result(message)
            elif message["type"] in ("snapshot", "patch", "game_started"):
                asyncio.get_running_loop().create_task(self.turn())

    async def turn(self) -> None:
        view = self.view
        if not view or view.get("state") != "playing" or view.get("seat") is None:
            return
        game = view["game"]
        if game is None or game["result"] is not None or game["to_move"] != self.name:
            return
        moves = await self.request({"type": "legal_moves"})
        if moves["type"] == "legal_moves" and moves["moves"]:
            await self.request({"type": "move", "move": moves["moves"][0]})


async def main(players: int, rounds: int, size: int, timeout: float) -> None:
    logs.configure("warning", "console")
    timings: list[float] = []
    pair = pairing.swiss_tables

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return pair(*args, **kwargs)
        finally:
            timings.append(time.perf_counter() - start)

    vars(state)["swiss_tables"] = timed  # timed where the tournament's state calls it
    with tempfile.TemporaryDirectory() as folder:
        settings: dict[str, Any] = {
            "port": 0, "line_port": -1, "data": str(Path(folder) / "cafe.db"), "log_level": "warning",
            "rate": 1000.0, "burst": 1000, "max_per_ip": players + 5, "hash_memory": 1024, "bot_workers": 0,
        }  # fmt: skip
        config = Config(**settings)
        server = Server(config)
        await server.start()
        bots: list[Bot] = []
        tasks = []
        for i in range(players):
            ws = await connect(f"ws://127.0.0.1:{server.port}/ws", max_size=2**22)
            bot = Bot(f"p{i:02d}", ws)
            tasks.append(asyncio.get_running_loop().create_task(bot.listen()))
            assert (await bot.request({"type": "hello", "name": bot.name}))["type"] == "welcome"
            bots.append(bot)
        assert (await bots[0].request({"type": "register", "password": PASSWORD}))["registered"]
        made = await bots[0].request(
            {"type": "command", "text": f"/tournament new bench swiss {rounds} size {size} start +1m"}
        )
        assert made["type"] == "tournament", made
        for bot in bots[1:]:
            assert (await bot.request({"type": "tournament", "action": "join", "name": "bench"}))[
                "type"
            ] == "ack"
        pauses: list[float] = [0.0]

        async def watch_loop() -> None:
            """The longest the event loop left a 1 ms sleep waiting beyond its time."""
            while True:
                before = time.perf_counter()
                await asyncio.sleep(0.001)
                pauses.append(time.perf_counter() - before - 0.001)

        tasks.append(asyncio.get_running_loop().create_task(watch_loop()))
        started = time.monotonic()
        server.tournaments.clock = lambda: time.time() + 61
        server.tournaments.poke()
        round_seen, round_started = 0, started
        deadline = started + timeout
        info: dict[str, Any] = {}
        while time.monotonic() < deadline:
            info = (await bots[0].request({"type": "tournament", "name": "bench"}))["tournament"]
            if info["round"] != round_seen:
                if round_seen:
                    print(f"round {round_seen}: {time.monotonic() - round_started:6.1f} s of play")
                round_seen, round_started = info["round"], time.monotonic()
            if info["status"] == "finished":
                print(f"round {round_seen}: {time.monotonic() - round_started:6.1f} s of play")
                break
            await asyncio.sleep(0.2)
        shown = await bots[0].request({"type": "tournament", "name": "bench"})
        stored = await server.store.tournaments.tournament(shown["tournament"]["id"])
        assert stored is not None
        tables = stored.state["tables"]  # (every table: the answer lists the latest finished)
        met: Counter[frozenset[str]] = Counter()
        for table in tables:
            for a, b in combinations(table["players"], 2):
                met[frozenset((a, b))] += 1
        repeats = sum(1 for count in met.values() if count > 1)
        print(f"status {shown['tournament']['status']} after {time.monotonic() - started:.1f} s;"
              f" {len(tables)} tables")  # fmt: skip
        for number, seconds in enumerate(timings, start=1):
            print(f"round {number} paired in {seconds * 1000:7.1f} ms")
        print(f"the event loop's longest pause: {max(pauses) * 1000:.1f} ms")
        sizes = Counter(len(t["players"]) for t in tables)
        print(f"table sizes: {dict(sizes)}; pairs of players who met more than once: {repeats}")
        print("top of the standings:", [(s["name"], s["points"]) for s in shown["standings"][:4]])
        for task in tasks:
            task.cancel()
        await server.stop()


def pairing_only(players: int, rounds: int, size: int) -> None:
    """Each round's pairing of ``players``, standings shuffled (seed 1) between rounds."""
    import random

    from server.tournament.pairing import pair_key, repeat_pairs, swiss_tables

    rng = random.Random(1)
    names = [f"p{i:03d}" for i in range(players)]
    met: Counter[tuple[str, str]] = Counter()
    worst = (0.0, list(names), Counter(met))
    for number in range(1, rounds + 1):
        started = time.perf_counter()
        tables = swiss_tables(names, size, met)
        took = time.perf_counter() - started
        if took > worst[0]:
            worst = (took, list(names), Counter(met))
        print(f"round {number} paired in {took * 1000:7.1f} ms, repeat pairs {repeat_pairs(tables, met)}")
        met.update(pair_key(a, b) for table in tables for a, b in combinations(table, 2))
        rng.shuffle(names)
    print(f"worst round: {worst[0] * 1000:.1f} ms")

    async def paused(in_thread: bool) -> float:
        """The event loop's longest pause while the worst round is paired again on the loop, or
        in a thread (as the director pairs)."""
        pauses = [0.0]
        done = asyncio.Event()

        async def watch() -> None:
            while not done.is_set():
                before = time.perf_counter()
                await asyncio.sleep(0.001)
                pauses.append(time.perf_counter() - before - 0.001)

        watcher = asyncio.get_running_loop().create_task(watch())
        await asyncio.sleep(0.01)
        if in_thread:
            await asyncio.to_thread(swiss_tables, worst[1], size, worst[2])
        else:
            swiss_tables(worst[1], size, worst[2])
        done.set()
        await watcher
        return max(pauses)

    for where, in_thread in (("on the loop", False), ("in a thread", True)):
        pause = asyncio.run(paused(in_thread))
        print(f"the worst round paired {where}: the event loop's longest pause {pause * 1000:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before it gives up")
    parser.add_argument("--pairing-only", action="store_true", help="time the pairing alone, no server")
    args = parser.parse_args()
    if args.pairing_only:
        pairing_only(args.players, args.rounds, args.size)
    else:
        asyncio.run(main(args.players, args.rounds, args.size, args.timeout))

"""What a room keeps alive from one of its moves to the next: the objects and references a young
pass of the garbage collector walks for each room that moved since the pass before.

Rooms of 4 play random legal moves through the room core (no sockets, no event loop); after a
first stretch, the collector is stopped and each room moves ``--moves`` more times. The objects
then in the youngest generation are what those moves left alive: the room's current state (its
position, views, record and history), by type, per room.

    .venv/bin/python bench/roomstate.py [--rooms 100] [--moves 4] [--top 15]
"""

from __future__ import annotations

import argparse
import collections
import gc
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import compiled

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import legal_move_texts  # noqa: E402
from protocol import messages as m  # noqa: E402
from server.room.effects import Send  # noqa: E402
from tests.server.roomcore import Driver, FakeMember  # noqa: E402


def _rooms(count: int) -> list[tuple[Driver, list[FakeMember]]]:
    rooms = []
    for r in range(count):
        driver = Driver(seed=r)
        members = driver.start(*(f"p{r}x{i}" for i in range(4)))
        rooms.append((driver, members))
    return rooms


def _round(rooms: list[tuple[Driver, list[FakeMember]]], rng: random.Random, number: int) -> int:
    """Each room whose game goes on plays one random legal move; how many did."""
    played = 0
    for driver, members in rooms:
        game = driver.core.game
        if game is None or game.outcome is not None:
            continue
        position = game.position
        name = position.players[position.to_move].name
        member = next(x for x in members if x.name == name)
        move = m.PlayMove(id=number, move=rng.choice(legal_move_texts(position)))
        step = driver.core.handle(member, move, 0.0)
        for effect in driver.core.commit(step):
            if isinstance(effect, Send):
                effect.message.json  # noqa: B018 - the text every transport makes
        played += 1
    return played


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100, help="rooms of 4")
    parser.add_argument("--before", type=int, default=30, help="moves each room plays first")
    parser.add_argument("--moves", type=int, default=4, help="moves each room plays while counted")
    parser.add_argument("--top", type=int, default=15, help="kinds of object listed")
    args = parser.parse_args(argv)
    rng = random.Random(1)
    rooms = _rooms(args.rooms)
    for number in range(args.before):
        _round(rooms, rng, number)
    gc.collect()  # the youngest generation is empty from here
    gc.disable()
    try:
        moved = sum(_round(rooms, rng, args.before + n) for n in range(args.moves))
        young = gc.get_objects(0)
    finally:
        gc.enable()
    count: collections.Counter[str] = collections.Counter()
    refs: collections.Counter[str] = collections.Counter()
    for obj in young:
        kind = type(obj).__qualname__
        if isinstance(obj, list | tuple) and obj:
            kind += f" of {type(obj[0]).__qualname__}"
        count[kind] += 1
        refs[kind] += len(gc.get_referents(obj))
    n = args.rooms
    print(f"{n} rooms of 4, {moved} moves while counted ({args.moves} a room), after {args.before} a room")
    print(f"alive a room: {len(young) / n:.1f} objects, {sum(refs.values()) / n:.0f} references between them")
    for kind, objects in count.most_common(args.top):
        print(f"  {objects / n:6.2f} objects {refs[kind] / n:7.1f} references  {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The SQLite game log commits the moves of many rooms together, and each one before it returns."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from engine import GameRecord
from server.log.sqlite.store import Store


async def started(store: Store, games: int) -> list[str]:
    ids = [f"g{i}" for i in range(games)]
    for game_id in ids:
        await store.game_started(
            game_id, f"room{game_id}", GameRecord(("ann", "bob"), seed=1), ["person"] * 2
        )
    return ids


def logged(path: Path) -> set[tuple[str, int, str]]:
    """The moves another connection reads from the file: what a restarted server would find."""
    with sqlite3.connect(path) as db:
        return set(db.execute("SELECT game_id, number, move FROM journal"))


async def test_moves_logged_at_once_are_all_committed_when_each_returns(tmp_path: Path) -> None:
    """Moves logged by many rooms in the same turn of the event loop are all in the file as soon
    as their calls return."""
    store = Store(str(tmp_path / "log.db"))
    ids = await started(store, 20)
    await asyncio.gather(*(store.move_played(g, 1, "FRf@FR1s") for g in ids))
    assert logged(tmp_path / "log.db") == {(g, 1, "FRf@FR1s") for g in ids}
    await store.move_played(ids[0], 2, "ITm@bar")
    assert (ids[0], 2, "ITm@bar") in logged(tmp_path / "log.db")
    store.close()


async def test_a_move_that_cannot_be_logged_fails_alone(tmp_path: Path) -> None:
    """A move the log refuses (a number already taken) fails its own call; the moves committed
    with it are logged."""
    store = Store(str(tmp_path / "log.db"))
    ids = await started(store, 3)
    await store.move_played(ids[1], 1, "FRf@FR1s")
    results = await asyncio.gather(
        store.move_played(ids[0], 1, "ESm@ES1e"),
        store.move_played(ids[1], 1, "CNf@bar"),
        store.move_played(ids[2], 1, "ITm@bar"),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], sqlite3.IntegrityError)
    assert logged(tmp_path / "log.db") == {
        (ids[0], 1, "ESm@ES1e"),
        (ids[1], 1, "FRf@FR1s"),
        (ids[2], 1, "ITm@bar"),
    }
    store.close()


@pytest.mark.parametrize("games", [1, 50])
async def test_the_log_gives_back_the_moves_in_order(tmp_path: Path, games: int) -> None:
    """Moves logged a few at a time come back as each game's record, in order."""
    store = Store(str(tmp_path / "log.db"))
    ids = await started(store, games)
    moves = ["FRf@FR1s", "ESm@ES1e", "CNf@bar"]
    for number, move in enumerate(moves, 1):
        await asyncio.gather(*(store.move_played(g, number, move) for g in ids))
    for g in ids:
        game = await store.game(g)
        assert game is not None and list(game.record.moves) == moves
    store.close()


def commits(store: Store) -> list[str]:
    """The transactions the store's connection commits from now on (one entry each)."""
    seen: list[str] = []
    store._db.set_trace_callback(lambda sql: seen.append(sql) if sql == "COMMIT" else None)
    return seen


async def test_games_started_at_once_share_one_commit_with_the_moves(tmp_path: Path) -> None:
    """Games started and moves logged in the same turn of the event loop are one transaction,
    and every game and move is in the file as soon as its call returns."""
    store = Store(str(tmp_path / "log.db"))
    ids = await started(store, 3)
    seen = commits(store)
    new = [f"n{i}" for i in range(10)]
    record = GameRecord(("ann", "bob"), seed=1)
    await asyncio.gather(
        *(store.game_started(g, f"room{g}", record, ["person"] * 2, {}, ["id-a", None]) for g in new),
        *(store.move_played(g, 1, "FRf@FR1s") for g in ids),
    )
    assert seen == ["COMMIT"]
    with sqlite3.connect(tmp_path / "log.db") as db:
        assert {g for (g,) in db.execute("SELECT id FROM games")} == set(ids) | set(new)
        assert set(db.execute("SELECT game_id, name, identity FROM players WHERE game_id = 'n3'")) == {
            ("n3", "ann", "id-a"),
            ("n3", "bob", None),
        }
    assert logged(tmp_path / "log.db") == {(g, 1, "FRf@FR1s") for g in ids}
    for g in new:
        game = await store.game(g)
        assert game is not None and game.record == record and game.kinds == ("person", "person")
    store.close()


async def test_a_game_that_cannot_be_logged_fails_alone(tmp_path: Path) -> None:
    """A game start the log refuses (its id already taken) fails its own call; the games and
    moves committed with it are logged, and the refused one left no players behind."""
    store = Store(str(tmp_path / "log.db"))
    [old] = await started(store, 1)
    record = GameRecord(("cy", "dan"), seed=2)
    results = await asyncio.gather(
        store.game_started("fresh", "r1", record, ["person"] * 2),
        store.game_started(old, "r2", record, ["person"] * 2),
        store.move_played(old, 1, "ITm@bar"),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], sqlite3.IntegrityError)
    with sqlite3.connect(tmp_path / "log.db") as db:
        assert {g for (g,) in db.execute("SELECT id FROM games")} == {old, "fresh"}
        assert set(db.execute("SELECT name FROM players WHERE game_id = ?", (old,))) == {("ann",), ("bob",)}
    assert logged(tmp_path / "log.db") == {(old, 1, "ITm@bar")}
    store.close()

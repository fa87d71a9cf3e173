"""The SQLite log's journal: running games' moves in the order they were logged, each finished
game's moves in its own row, and a journal that stays within a few times what the running games
need however many games finish beside a long one."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from pathlib import Path

import pytest

import server.log.sqlite.journal
from engine import GameRecord, Outcome
from server.log.sqlite.journal import logged_moves
from server.log.sqlite.store import Store
from tests.server.test_store import old_log

DRAW = Outcome("deck", {"ann": 0, "bob": 0}, {"ann": 0, "bob": 0}, ("ann", "bob"), {"ann": 1, "bob": 1})
RECORD = GameRecord(("ann", "bob"), seed=1)


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    """What another connection reads from the file: what a restarted server would find."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        return list(db.execute(sql))


def journal(path: Path) -> list[tuple[str, int, str]]:
    return [
        (str(g), int(str(n)), str(m))
        for g, n, m in rows(path, "SELECT game_id, number, move FROM journal ORDER BY seq")
    ]


async def start(store: Store, *ids: str) -> None:
    for game_id in ids:
        await store.game_started(game_id, f"room-{game_id}", RECORD, ["person"] * 2)


async def moves(store: Store, game_id: str, first: int, count: int) -> None:
    for number in range(first, first + count):
        await store.move_played(game_id, number, f"m{number}")


async def test_a_finished_games_moves_leave_the_journal_for_its_row(tmp_path: Path) -> None:
    """While a game runs its moves are rows of the journal; once it is finished they are a list
    in its row of ``games``, the journal holds none of them, and the game reads the same."""
    path = tmp_path / "log.db"
    store = Store(str(path))
    await start(store, "g1")
    await moves(store, "g1", 1, 3)
    assert journal(path) == [("g1", 1, "m1"), ("g1", 2, "m2"), ("g1", 3, "m3")]
    assert rows(path, "SELECT moves FROM games") == [(None,)]
    await store.game_finished("g1", DRAW)
    assert journal(path) == []
    assert rows(path, "SELECT moves FROM games") == [('["m1", "m2", "m3"]',)]
    store.close()
    store = Store(str(path))
    game = await store.game("g1")
    assert game is not None and game.record.moves == ("m1", "m2", "m3") and game.result is not None
    assert await store.unfinished_games() == []
    store.close()


async def test_the_journal_is_cut_before_the_oldest_running_games_first_move(tmp_path: Path) -> None:
    """A game that finishes leaves its rows behind the first move of an older running game; they
    go when that game finishes."""
    path = tmp_path / "log.db"
    store = Store(str(path))
    await start(store, "old", "new")
    await moves(store, "old", 1, 1)
    await moves(store, "new", 1, 2)
    await moves(store, "old", 2, 1)
    await store.game_finished("new", DRAW)
    assert journal(path) == [("old", 1, "m1"), ("new", 1, "m1"), ("new", 2, "m2"), ("old", 2, "m2")]
    old = await store.game("old")
    assert old is not None and old.record.moves == ("m1", "m2")
    await store.game_finished("old", DRAW)
    assert journal(path) == []
    store.close()


async def test_a_move_that_is_not_its_games_next_fails_alone(tmp_path: Path) -> None:
    """A move numbered other than one after its game's last (taken, or a gap) is refused, and so
    is a move of a game that is not in the log; the moves logged with them are committed."""
    path = tmp_path / "log.db"
    store = Store(str(path))
    await start(store, "g1", "g2")
    await moves(store, "g1", 1, 2)
    results = await asyncio.gather(
        store.move_played("g1", 2, "taken"),
        store.move_played("g1", 4, "gap"),
        store.move_played("g2", 1, "m1"),
        store.move_played("nowhere", 1, "m1"),
        store.move_played("g1", 3, "m3"),
        return_exceptions=True,
    )
    assert [type(r) for r in results] == [
        sqlite3.IntegrityError,
        sqlite3.IntegrityError,
        type(None),
        sqlite3.IntegrityError,
        type(None),
    ]
    assert "not the next" in str(results[0]) and "FOREIGN KEY" in str(results[3])
    assert journal(path) == [("g1", 1, "m1"), ("g1", 2, "m2"), ("g2", 1, "m1"), ("g1", 3, "m3")]
    # after a refused move the game goes on from its last logged one, here and after a restart
    await store.move_played("g1", 4, "m4")
    store.close()
    store = Store(str(path))
    with pytest.raises(sqlite3.IntegrityError):
        await store.move_played("g1", 4, "again")
    await store.move_played("g1", 5, "m5")
    game = await store.game("g1")
    assert game is not None and game.record.moves == ("m1", "m2", "m3", "m4", "m5")
    store.close()


async def test_in_a_failed_commit_the_moves_after_a_refused_one_of_its_game_fail_too(tmp_path: Path) -> None:
    """When the rows of one commit are logged one by one (one of them failed the transaction), a
    game's move after one of its own that failed is refused: the game's moves have no gap."""
    path = tmp_path / "log.db"
    store = Store(str(path))
    await start(store, "g1")
    await moves(store, "g1", 1, 1)
    store._db.execute(  # the journal refuses one move's text, as a full disk would refuse them all
        "CREATE TRIGGER refuse BEFORE INSERT ON journal WHEN NEW.move = 'bad'"
        " BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )
    results = await asyncio.gather(
        store.move_played("g1", 2, "bad"), store.move_played("g1", 3, "m3"), return_exceptions=True
    )
    assert "refused" in str(results[0]) and "not the next after 1" in str(results[1])
    await store.move_played("g1", 2, "m2")
    assert journal(path) == [("g1", 1, "m1"), ("g1", 2, "m2")]
    store.close()


async def test_a_long_game_is_copied_forward_so_that_the_journal_stays_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a game running all along, many finished games would stay in the journal behind its
    first move: it is moved to the journal's end instead, and the journal holds at most four
    times the running games' moves and the slack."""
    monkeypatch.setattr(server.log.sqlite.journal, "JOURNAL_SLACK", 10)
    path = tmp_path / "log.db"
    store = Store(str(path))
    await start(store, "long")
    await moves(store, "long", 1, 2)
    longest = 0
    for i in range(40):
        await start(store, f"s{i}")
        await moves(store, f"s{i}", 1, 3)
        await store.game_finished(f"s{i}", DRAW)
        longest = max(longest, len(journal(path)))
    assert longest <= 4 * 2 + 10 + 3 + 1
    # its rows were written anew at the end (they were the journal's first two), and only once
    assert [n for g, n, _ in journal(path) if g == "long"] == [1, 2]
    assert min(seq for (seq,) in rows(path, "SELECT seq FROM journal WHERE game_id = 'long'")) > 2
    await moves(store, "long", 3, 1)
    store.close()
    store = Store(str(path))
    (game,) = await store.unfinished_games()
    assert game.game_id == "long" and game.record.moves == ("m1", "m2", "m3")
    for i in (0, 39):
        finished = await store.game(f"s{i}")
        assert finished is not None and finished.record.moves == ("m1", "m2", "m3")
    store.close()


async def test_any_interleaving_of_games_moves_finishes_and_restarts_reads_back_as_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games of random lengths, their moves logged a few at a time in any order, finished at any
    point and the log reopened now and then: every game reads back with exactly its moves, and
    the journal stays short."""
    monkeypatch.setattr(server.log.sqlite.journal, "JOURNAL_SLACK", 20)
    path = tmp_path / "log.db"
    rng = random.Random(7)
    played: dict[str, list[str]] = {}
    running: list[str] = []
    finished: set[str] = set()
    store = Store(str(path))
    for step in range(300):
        if len(running) < 6 and rng.random() < 0.3:
            game_id = f"g{step}"
            await start(store, game_id)
            played[game_id] = []
            running.append(game_id)
        batch = rng.sample(running, min(len(running), rng.randint(1, 4)))
        await asyncio.gather(
            *(store.move_played(g, len(played[g]) + 1, f"{g}/{len(played[g]) + 1}") for g in batch)
        )
        for g in batch:
            played[g].append(f"{g}/{len(played[g]) + 1}")
        if running and rng.random() < 0.15:
            done = rng.choice(running)
            running.remove(done)
            finished.add(done)
            await store.game_finished(done, DRAW)
        if rng.random() < 0.05:
            store.close()
            store = Store(str(path))
        live = sum(len(played[g]) for g in running)
        assert len(journal(path)) <= 4 * live + 20 + 2 * 4
    for game_id, expected in played.items():
        game = await store.game(game_id)
        assert game is not None and list(game.record.moves) == expected
        assert (game.finished is not None) == (game_id in finished)
    assert {g.game_id for g in await store.unfinished_games()} == set(running)
    assert len(finished) >= 10 and max(map(len, played.values())) >= 30
    store.close()


async def test_an_old_logs_moves_go_to_the_journal_and_to_finished_games_rows(tmp_path: Path) -> None:
    """A log from before the journal opens: its running game's moves are in the journal, its
    finished game's in its row, and the old table of moves is gone."""
    path = tmp_path / "old.db"
    record = old_log(path)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "INSERT INTO games SELECT 'done', room, players, kinds, seed, options, board, start_player,"
            " started, 2.0, '{}' FROM games"
        )
        db.executemany("INSERT INTO moves VALUES ('done', ?, ?)", [(2, "b"), (1, "a")])
        db.execute(
            "INSERT INTO games SELECT 'empty', room, players, kinds, seed, options, board, start_player,"
            " started, 2.0, '{}' FROM games WHERE id = 'old1'"
        )
    store = Store(str(path))
    assert [(g, n) for g, n, _ in journal(path)] == [("old1", 1), ("old1", 2)]
    assert rows(path, "SELECT id, moves FROM games ORDER BY id") == [
        ("done", '["a", "b"]'),
        ("empty", "[]"),
        ("old1", None),
    ]
    assert rows(path, "SELECT name FROM sqlite_master WHERE name = 'moves'") == []
    (game,) = await store.unfinished_games()
    assert game.record == record
    done = await store.game("done")
    assert done is not None and done.record.moves == ("a", "b")
    await store.move_played("old1", 3, "m3")
    store.close()


async def test_another_process_reads_every_games_moves_running_or_finished(tmp_path: Path) -> None:
    """``logged_moves`` reads the file as a check after a soak does: each game's moves in order,
    the running ones' from the journal (rows of finished games left there are not counted)."""
    path = tmp_path / "log.db"
    store = Store(str(path))
    await start(store, "old", "done", "fresh")
    await moves(store, "old", 1, 1)
    await moves(store, "done", 1, 2)
    await store.game_finished("done", DRAW)
    await moves(store, "old", 2, 1)
    assert len(journal(path)) == 4  # the finished game's two rows wait behind the running one's first
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        assert logged_moves(db) == {
            "old": (False, ["m1", "m2"]),
            "done": (True, ["m1", "m2"]),
            "fresh": (False, []),
        }
    store.close()

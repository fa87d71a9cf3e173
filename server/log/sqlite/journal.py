"""The running games' moves: table ``journal``, in the order they were logged, with no index.

Each commit appends to the end of one table, where an index by game would add a page of its own,
in another place of the file, for nearly every move of a commit (the moves of a turn of the loop
belong to as many rooms). Which rows are whose is kept in memory (read again when the log is
opened). When a game finishes, its moves are written into its row of ``games`` (``moves``, one
JSON list) in the transaction that records its result, and the journal's rows before the oldest
running game's first one are deleted. The games running beside it keep rows of finished games
between theirs, a few times as many as their own in steady play; a game that runs on while many
others finish (left waiting for its players, say) is moved to the journal's end once it holds
far more than that, so the journal stays within a few times what the running games need.

A table keyed by game and number would need none of that (no rows kept in memory, no cut, no game
moved), but the moves of one commit would each write a page of their own. ``bench/store.py``
(500 games, 20 moves a commit) measured the two in turns, on the same store but for this part: a
keyed table (``WITHOUT ROWID``, the running games' moves only) cost 11.5 to 13.0 µs of CPU a move
in eight rounds, the journal 5.5 to 6.9; the 6 µs are about 3.7 % of the game server's CPU a move
(``bench/README.md``).
"""

from __future__ import annotations

import json
import sqlite3
from array import array

#: a move's row (the batch of a turn of the loop writes them, :mod:`server.log.sqlite.batch`)
INSERT_MOVE = "INSERT INTO journal (seq, game_id, number, move, auto) VALUES (?, ?, ?, ?, ?)"

#: the rows of finished games the journal may hold beside three times the running games' before
#: it moves the oldest running games to its end (in steady play the games running hold two to
#: three times their own rows of finished games between theirs: ``bench/store.py`` ends with
#: 27,000 beside 10,600, and moves none)
JOURNAL_SLACK = 10_000


def logged_moves(db: sqlite3.Connection) -> dict[str, tuple[bool, list[str]]]:
    """Every game in a log that another process reads (a check after a soak, a benchmark's count
    of moves), running or finished: game id -> (finished, its moves in order)."""
    journal: dict[str, list[tuple[int, str]]] = {}
    for game_id, number, move in db.execute("SELECT game_id, number, move FROM journal"):
        journal.setdefault(game_id, []).append((number, move))
    return {
        game_id: (True, json.loads(moves)) if finished is not None
        else (False, [move for _, move in sorted(journal.get(game_id, []))])
        for game_id, finished, moves in db.execute("SELECT id, finished, moves FROM games")
    }  # fmt: skip


class _Running:
    """A running game's rows in the journal: their ``seq`` and their moves, in order, and its last
    move's number. (The moves are the very strings its room holds: a list of them costs a
    pointer a move, as the ``seq`` do, and a finished game's are not read back from the file.)"""

    __slots__ = ("auto", "last", "moves", "seqs")

    def __init__(self) -> None:
        self.seqs = array("q")
        self.moves: list[str] = []
        self.last = 0
        #: the moves the server played for their player, by number (few: made when one comes)
        self.auto: dict[int, str] | None = None


class Journal:
    """Which rows of ``journal`` are whose, and the journal kept short as games finish."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        #: the journal's rows of each running game, the game whose first row is oldest first
        self._running: dict[str, _Running] = {}
        self._live_rows = 0  # their rows in all
        self._last_seq = 0  # the journal's last row
        rows = db.execute(
            "SELECT j.seq, j.game_id, j.number, j.move, j.auto FROM journal j"
            " JOIN games g ON g.id = j.game_id WHERE g.finished IS NULL ORDER BY j.seq"
        )
        for seq, game_id, number, move, auto in rows:
            self.add(game_id, seq, number, move, auto)
        self._last_seq = db.execute("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0]
        with db:  # the rows no running game needs
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM journal WHERE seq < ?", (self._front(None),))

    def next_seq(self) -> int:
        """The ``seq`` of a new row, at the journal's end."""
        self._last_seq += 1
        return self._last_seq

    def add(self, game_id: str, seq: int, number: int, move: str, auto: str | None = None) -> None:
        """The row ``seq``, the game's move ``number``, is committed (``auto``: the server played
        it for its player, ``"clock"`` or ``"bot"``)."""
        running = self._running.get(game_id)
        if running is None:
            running = self._running[game_id] = _Running()
        running.seqs.append(seq)
        running.moves.append(move)
        running.last = number
        if auto is not None:
            if running.auto is None:
                running.auto = {}
            running.auto[number] = auto
        self._live_rows += 1

    def last_number(self, game_id: str) -> int:
        """The number of the game's last move in the journal (0: none yet)."""
        running = self._running.get(game_id)
        return running.last if running is not None else 0

    def moves(self, game_id: str) -> list[str]:
        """The moves of a running game, in order, as the journal holds them."""
        running = self._running.get(game_id)
        return [] if running is None else list(running.moves)

    def auto(self, game_id: str) -> dict[int, str]:
        """The moves of a running game the server played for their player: number -> mark."""
        running = self._running.get(game_id)
        return {} if running is None or running.auto is None else dict(running.auto)

    def cut(self, finished: str) -> list[tuple[str, array[int]]]:
        """In the transaction that finishes ``finished``: delete the journal's rows before the
        first one another running game needs. When the journal holds more rows of finished games
        than three times the running games' and ``JOURNAL_SLACK``, the running games whose rows
        start in its older half are first moved to its end. The games moved, with their new
        rows (for :meth:`finished` once this is committed)."""
        front = self._front(finished)
        span = self._last_seq + 1 - front
        finishing = self._running.get(finished)
        live = self._live_rows - (len(finishing.seqs) if finishing is not None else 0)
        moved: list[tuple[str, array[int]]] = []
        if span - live > 3 * live + JOURNAL_SLACK:
            middle = front + span // 2
            seq = self._last_seq
            for game_id, running in self._running.items():
                if running.seqs[0] >= middle:
                    break
                if game_id == finished:
                    continue
                seqs = array("q", range(seq + 1, seq + 1 + len(running.seqs)))
                self._db.executemany(
                    "INSERT INTO journal (seq, game_id, number, move, auto)"
                    " SELECT ?, game_id, number, move, auto FROM journal WHERE seq = ?",
                    zip(seqs, running.seqs, strict=True),
                )
                seq += len(seqs)
                moved.append((game_id, seqs))
            # the first game not copied, else the first copy
            front = next(
                (r.seqs[0] for g, r in self._running.items() if g != finished and r.seqs[0] >= middle),
                self._last_seq + 1,
            )
            # the rows copied that the cut below leaves (a game's rows between others')
            self._db.executemany(
                "DELETE FROM journal WHERE seq = ?",
                ((old,) for game_id, _ in moved for old in self._running[game_id].seqs if old >= front),
            )
        self._db.execute("DELETE FROM journal WHERE seq < ?", (front,))
        return moved

    def finished(self, game_id: str, moved: list[tuple[str, array[int]]]) -> None:
        """The game's end is committed, with the cut that :meth:`cut` gave ``moved`` for: what the
        journal holds now."""
        running = self._running.pop(game_id, None)
        if running is not None:
            self._live_rows -= len(running.seqs)
        for moved_id, seqs in moved:
            copied = self._running.pop(moved_id)  # to the end: its first row is the newest now
            copied.seqs = seqs
            self._running[moved_id] = copied
        self._last_seq += sum(len(seqs) for _, seqs in moved)

    def _front(self, finished: str | None) -> int:
        """The first row of the journal a running game other than ``finished`` needs."""
        for game_id, running in self._running.items():  # (the first or the second)
            if game_id != finished:
                return running.seqs[0]
        return self._last_seq + 1

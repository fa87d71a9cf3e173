"""Checkpoints in a thread of their own: they copy the WAL into the database file and sync it,
which inside a commit would stall the event loop."""

from __future__ import annotations

import sqlite3
import threading

import structlog

log = structlog.get_logger("cafe.store")


class Checkpointer:
    """Copies the WAL into the database file every ``interval`` seconds from a thread with its own
    connection. SQLite works without the GIL, so the event loop goes on meanwhile; a checkpoint
    inside a commit would stop it for the pages' writing and the file's sync (up to ~17 ms, about
    once a second at 1,000 commits a second). ``PASSIVE`` never waits for the writer."""

    def __init__(self, path: str, interval: float) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(interval,), name="cafe-checkpoint", daemon=True
        )
        self._thread.start()

    def _run(self, interval: float) -> None:
        while not self._stopping.wait(interval):
            try:
                self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as e:  # the next round tries again; the WAL keeps every commit
                log.warning("checkpoint_failed", error=str(e))

    def close(self) -> None:
        """Stop the thread, after the checkpoint it may be in."""
        self._stopping.set()
        self._thread.join()
        self._db.close()

"""The worker processes the server starts (the bots' moves, the analyses): fresh interpreters
(spawned: forking the server would copy its threads' state) behind a ``ProcessPoolExecutor``, each
ending with the server, and ended by ``close`` at once with whatever it runs.

``ProcessPoolExecutor.shutdown`` cancels the work that waits, not the work that runs, and the
interpreter waits for that at exit: an analysis (a minute of one core) would hold a stopping
server past its supervisor's patience. Each worker therefore says its process id when it starts,
on a queue of the pool's, and ``close`` ends them; a worker still starting then (its id not said
yet) finds the pool closed as it says it, and ends before it takes any work.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.queues import SimpleQueue
from multiprocessing.synchronize import Event as EventType
from typing import Any

#: the warning multiprocessing's resource tracker (a process it starts beside the workers, writing
#: to the server's stderr, whose lines are JSON) gives of the semaphores a server killed outright
#: left: a line that is no log event, about what the tracker cleans up all the same
QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def _quiet_tracker() -> None:
    """The processes started from now on (the tracker among them) take ``QUIET_TRACKER``."""
    given = os.environ.get("PYTHONWARNINGS", "")
    if QUIET_TRACKER not in given.split(","):
        os.environ["PYTHONWARNINGS"] = f"{given},{QUIET_TRACKER}" if given else QUIET_TRACKER


def follow_parent(parent: int) -> None:
    """In a worker: end as soon as the server that started it is gone. A server killed outright
    cannot shut its pool down, and its workers would go on holding memory and its log's pipe."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()


def _started(
    parent: int, pids: SimpleQueue[int], closed: EventType, then: Callable[[], None] | None
) -> None:
    pids.put(os.getpid())
    if closed.is_set():  # (after the id: ``close`` sets this before it reads the ids)
        os._exit(0)
    follow_parent(parent)
    if then is not None:
        then()


def _read(work: asyncio.Future[Any]) -> None:
    """Take a work's outcome, which nobody may await any more (its awaiter cancelled): not left
    for asyncio to report as never retrieved."""
    if not work.cancelled():
        work.exception()


class Workers:
    """``count`` worker processes, started when the first work comes, and anew after one of them
    died; ``then`` runs in each as it starts (a module's function: it is sent to the new
    interpreter by name)."""

    def __init__(self, count: int, then: Callable[[], None] | None = None) -> None:
        self.count = count
        self.then = then
        self._executor: ProcessPoolExecutor | None = None
        self._pids: SimpleQueue[int] | None = None
        self._closed: EventType | None = None

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker. A worker that died fails every call waiting on its pool
        (``BrokenProcessPool``): the first ends the pool, and the next call starts a fresh one."""
        if self._executor is None:
            _quiet_tracker()
            context = multiprocessing.get_context("spawn")
            self._pids, self._closed = context.SimpleQueue(), context.Event()
            self._executor = ProcessPoolExecutor(
                self.count,
                mp_context=context,
                initializer=_started,
                initargs=(os.getpid(), self._pids, self._closed, self.then),
            )
        executor = self._executor
        try:  # (a pool known to be broken refuses the work at once)
            work = asyncio.get_running_loop().run_in_executor(executor, fn, *args)
            work.add_done_callback(_read)
            # Whoever awaits it may be cancelled (a room that stops), the work is not: cancelled
            # while it waits in a pool whose worker dies, its future would make the pool's own
            # thread raise InvalidStateError as it fails that work (concurrent.futures of Python
            # 3.11), an exception nobody can catch. Work that waits goes with ``close``.
            return await asyncio.shield(work)
        except BrokenProcessPool:
            if self._executor is executor:  # (not a fresh pool another call made since)
                self.close()
            raise

    def close(self) -> None:
        """Cancel the work that waits and end the workers, with the work they run."""
        executor, queue, closed = self._executor, self._pids, self._closed
        if executor is None or queue is None or closed is None:
            return
        self._executor = self._pids = self._closed = None
        closed.set()  # a worker that has not said its id yet ends as it says it
        executor.shutdown(wait=False, cancel_futures=True)
        pids = []
        while not queue.empty():
            pids.append(queue.get())
        queue.close()
        # only children of this process that still run: a worker that died may have left its
        # process id to another process since
        running = {child.pid for child in multiprocessing.active_children()}
        for pid in pids:
            if pid in running:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)

"""The server's worker processes (``server.workers``): ``close`` ends them with their work, also a
worker still starting when the pool closes, which never takes the work it would have run."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures.process import BrokenProcessPool

from server.workers import Workers

#: seconds the work would take, far past what a stop may take
LONG = 60.0


def _children() -> set[int]:
    return {p.pid for p in multiprocessing.active_children() if p.pid is not None}


async def _gone(before: set[int], deadline: float) -> set[int]:
    """The child processes started since ``before`` (the test's own, not those an earlier test
    of this process left ending) still alive once none is, or ``deadline`` passed."""
    alive = _children() - before
    while alive and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        alive = _children() - before
    return alive


async def test_a_worker_still_starting_when_the_pool_closes_ends_without_its_work() -> None:
    """The work is handed over and the pool closed at once, before its worker has started and
    said its process id: the worker ends rather than sleep for a minute, and the call fails."""
    before = _children()
    workers = Workers(1)
    call = asyncio.ensure_future(workers.run(time.sleep, LONG))
    await asyncio.sleep(0)  # (the work is submitted: the worker is being spawned)
    workers.close()
    with contextlib.suppress(BrokenProcessPool, FutureCancelled, asyncio.CancelledError):
        await asyncio.wait_for(call, 10)
        raise AssertionError("the long work ran")
    assert await _gone(before, time.monotonic() + 10) == set()


async def test_a_worker_at_work_ends_with_the_pool() -> None:
    """A worker that started and runs its work is ended by ``close`` at once."""
    before = _children()
    workers = Workers(1)
    call = asyncio.ensure_future(workers.run(time.sleep, LONG))
    deadline = time.monotonic() + 30
    while not _children() - before and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # (it said its id and took the work)
    workers.close()
    with contextlib.suppress(BrokenProcessPool, FutureCancelled, asyncio.CancelledError):
        await asyncio.wait_for(call, 10)
        raise AssertionError("the long work ran")
    assert await _gone(before, time.monotonic() + 10) == set()

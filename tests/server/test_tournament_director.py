"""The tournaments' director stops when the server stops, whatever its store does with a cancel."""

from __future__ import annotations

import asyncio

from server.log.sqlite.store import Store
from server.tournament.director import Director


class _SwallowingLease:
    """A lease whose client turns the first cancel into an error of its own, as a store client
    may; later ones go through."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.swallowed = False

    async def holds(self) -> bool:
        self.asked.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            if self.swallowed:
                raise
            self.swallowed = True
            raise ConnectionError("connection lost while reading the answer") from None
        return False


async def _nobody() -> set[str]:
    return set()


async def _no_table(*_: object) -> None:
    raise AssertionError("no table is opened here")


async def test_stop_returns_though_the_lease_swallowed_the_cancel() -> None:
    """A stop while the lease is being asked ends the loop: the cancel the lease turned into an
    error is not lived through forever (a node would hang on SIGTERM)."""
    lease = _SwallowingLease()
    store = Store(":memory:")
    try:
        director = Director(store, _no_table, people=_nobody, lease=lease, tick=0.01)  # type: ignore[arg-type]
        director.start()
        await asyncio.wait_for(lease.asked.wait(), 5)
        stopping = asyncio.ensure_future(director.stop())
        done, _ = await asyncio.wait({stopping}, timeout=5)
        assert lease.swallowed
        assert stopping in done, "the director went on after the stop"
    finally:
        store.close()

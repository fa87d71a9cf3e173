"""The server process's garbage collector: rare full and middle passes, and a young pass every
second, started and stopped with the server."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from server.app import YOUNG_PERIOD, YoungPasses, collect_garbage_seldom
from tests.server.conftest import ServerFactory


@pytest.fixture
def young_collections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The generations ``gc.collect`` is asked for from now on (nothing is collected)."""
    asked: list[int] = []

    def collect(generation: int = 2) -> int:
        asked.append(generation)
        return 0

    monkeypatch.setattr(gc, "collect", collect)
    yield asked


async def _until_asked(asked: list[int], count: int) -> None:
    async with asyncio.timeout(5):
        while len(asked) < count:
            await asyncio.sleep(YOUNG_PERIOD / 5)


async def test_young_passes_collect_the_youngest_generation_until_stopped(
    young_collections: list[int],
) -> None:
    """Once started, the passes collect generation 0, again and again, and nothing after
    ``stop``."""
    passes = YoungPasses(period=0.01)
    passes.start()
    assert passes.armed
    await _until_asked(young_collections, 3)
    assert set(young_collections) == {0}
    passes.stop()
    assert not passes.armed
    asked = len(young_collections)
    await asyncio.sleep(0.05)
    assert len(young_collections) == asked


async def test_the_server_runs_young_passes_while_it_serves(
    make_server: ServerFactory, young_collections: list[int]
) -> None:
    """A started server collects its youngest generation on its own; a stopped one no longer."""
    server = await make_server()
    assert server.young_passes.armed
    await _until_asked(young_collections, 2)
    assert set(young_collections) == {0}
    await server.stop()
    assert not server.young_passes.armed


def test_collect_garbage_seldom_sets_the_thresholds() -> None:
    """The process's thresholds: young passes at 100,000 net allocations, a middle pass after 250
    young ones (one a second comes from ``YoungPasses``), the start-up's objects frozen, and the
    collector on (``python -m server`` loads the modules with it off)."""
    before = gc.get_threshold()
    gc.disable()
    try:
        collect_garbage_seldom()
        assert gc.get_threshold() == (100_000, 250, 100)
        assert gc.get_freeze_count() > 0
        assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
        gc.set_threshold(*before)

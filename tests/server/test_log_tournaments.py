"""Every game log keeps the tournaments' part of the storage contract
(``server.log.contract.TournamentTable``): each test runs on the SQLite log, on Redis (a real
redis-server, one for the module, emptied for each test) and on Redis with the records in
PostgreSQL (a real PostgreSQL server, emptied for each test): a tournament kept whole, a name held
while it is live, a write over a changed version refused, the live and recent lists."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.log.contract import GameLog
from server.log.sqlite.store import Store
from server.tournament.state import Tournament
from tests.server.logs import BACKENDS, fresh_log, postgres_for_module, redis_server

__all__ = ["postgres_for_module", "redis_server"]  # the fixtures, used by name


@pytest.fixture(params=BACKENDS)
async def log(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[GameLog]:
    """A fresh, empty log of each backend."""
    async with fresh_log(request, tmp_path_factory) as store:
        yield store


def _state(name: str) -> dict[str, Any]:
    t = Tournament(0, name, "swiss", 4, 60, 100.0, "ann", 50.0, rounds=3)
    t.join("ann", 1000, 50.0)
    return t.to_dict()


async def test_a_tournament_is_kept_whole_with_its_id(log: GameLog) -> None:
    """Created, it has the next id; read back by id and by name (any case), it is what was kept."""
    first = await log.tournaments.tournament_created(_state("Cup"))
    second = await log.tournaments.tournament_created(_state("blitz"))
    assert first is not None and second is not None and second > first
    kept = await log.tournaments.tournament(first)
    assert kept is not None and kept.version == 1
    assert kept.state == {**_state("Cup"), "id": first}
    named = await log.tournaments.tournament_named("cup")
    assert named is not None and named.state["id"] == first
    assert await log.tournaments.tournament(999) is None
    assert await log.tournaments.tournament_named("nope") is None


async def test_a_live_name_is_held_and_freed_when_over(log: GameLog) -> None:
    """A second tournament of a live one's name (any case) is refused; once the first is over the
    name is free, and the name finds the latest."""
    first = await log.tournaments.tournament_created(_state("cup"))
    assert first is not None
    assert await log.tournaments.tournament_created(_state("CUP")) is None
    state = {**_state("cup"), "id": first, "status": "finished"}
    assert await log.tournaments.tournament_saved(1, state)
    again = await log.tournaments.tournament_created(_state("Cup"))
    assert again is not None and again != first
    latest = await log.tournaments.tournament_named("cup")
    assert latest is not None and latest.state["id"] == again


async def test_a_write_over_a_changed_version_writes_nothing(log: GameLog) -> None:
    """Two writers read version 1: the first writes, the second is refused and nothing of its
    state is kept."""
    number = await log.tournaments.tournament_created(_state("cup"))
    assert number is not None
    one = {**_state("cup"), "id": number, "round": 1}
    other = {**_state("cup"), "id": number, "round": 7}
    assert await log.tournaments.tournament_saved(1, one)
    assert not await log.tournaments.tournament_saved(1, other)
    kept = await log.tournaments.tournament(number)
    assert kept is not None and (kept.version, kept.state["round"]) == (2, 1)


async def test_live_and_recent_lists(log: GameLog) -> None:
    """The live ones oldest first; the ones over latest first, as many as asked."""
    ids = [await log.tournaments.tournament_created(_state(f"t{i}")) for i in range(4)]
    assert None not in ids
    for number in ids[:3]:
        assert await log.tournaments.tournament_saved(
            1, {**_state(f"t{ids.index(number)}"), "id": number, "status": "finished"}
        )
    live = await log.tournaments.tournaments_live()
    assert [t.state["id"] for t in live] == [ids[3]]
    recent = await log.tournaments.tournaments_recent(2)
    assert [t.state["id"] for t in recent] == [ids[2], ids[1]]


def test_the_sqlite_log_keeps_it_across_a_reopening(tmp_path: Path) -> None:
    """The table is made by its schema step; a reopened file has the tournament."""
    import asyncio

    async def write() -> int | None:
        store = Store(str(tmp_path / "cafe.db"))
        try:
            return await store.tournaments.tournament_created(_state("cup"))
        finally:
            store.close()

    async def read(number: int) -> dict[str, Any] | None:
        store = Store(str(tmp_path / "cafe.db"))
        try:
            kept = await store.tournaments.tournament(number)
            return None if kept is None else kept.state
        finally:
            store.close()

    number = asyncio.run(write())
    assert number is not None
    assert asyncio.run(read(number)) == {**_state("cup"), "id": number}

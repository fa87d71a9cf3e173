"""What every game log promises about resume tokens, written once for the SQLite log and for Redis.

Each check gets a fresh, empty log and says in its docstring what it shows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from server.log.contract import GameLog, TokenInfo


async def issued_token_names_its_player(store: GameLog) -> None:
    """A new token stands for its name and player, with no end while its connection is open."""
    await store.token_issued("t1", "Ann", "id-ann")
    assert await store.token("t1") == TokenInfo("Ann", "id-ann", None)
    assert await store.token("t2") is None


async def new_token_revokes_the_names_earlier_one(store: GameLog) -> None:
    """A new token for a name, in any case, revokes the name's earlier one and no other name's."""
    await store.token_issued("a1", "ann", "id-ann")
    await store.token_issued("b1", "bob", "id-bob")
    await store.token_issued("a2", "ANN", "id-ann")
    assert await store.token("a1") is None
    assert await store.token("a2") == TokenInfo("ANN", "id-ann", None)
    assert await store.token("b1") == TokenInfo("bob", "id-bob", None)
    await store.token_issued("a3", "ann", "id-ann")
    assert await store.token("a2") is None
    assert await store.token("a3") == TokenInfo("ann", "id-ann", None)


async def released_token_holds_until_it_expires(store: GameLog) -> None:
    """A token whose connection is gone holds until the time given; a new one is open-ended again."""
    await store.token_issued("a1", "ann", "id-ann")
    await store.token_issued("b1", "bob", "id-bob")
    await store.token_released("a1", 1234.5)
    assert await store.token("a1") == TokenInfo("ann", "id-ann", 1234.5)
    assert await store.token("b1") == TokenInfo("bob", "id-bob", None)
    await store.token_issued("a2", "ann", "id-ann")
    assert await store.token("a2") == TokenInfo("ann", "id-ann", None)


async def releasing_a_revoked_token_brings_nothing_back(store: GameLog) -> None:
    """Releasing a token that was revoked, or never issued, leaves it unknown."""
    await store.token_issued("a1", "ann", "id-ann")
    await store.token_revoked("a1")
    await store.token_released("a1", 99.0)
    await store.token_released("never", 99.0)
    assert await store.token("a1") is None
    assert await store.token("never") is None


async def revoked_token_is_forgotten_and_no_other(store: GameLog) -> None:
    """A revoked token is unknown at once; other names' tokens hold, and the name may get a new one."""
    await store.token_issued("a1", "ann", "id-ann")
    await store.token_issued("b1", "bob", "id-bob")
    await store.token_revoked("a1")
    assert await store.token("a1") is None
    assert await store.token("b1") == TokenInfo("bob", "id-bob", None)
    await store.token_issued("a2", "ann", "id-ann")
    assert await store.token("a2") == TokenInfo("ann", "id-ann", None)


CHECKS: list[Callable[[GameLog], Awaitable[None]]] = [
    issued_token_names_its_player,
    new_token_revokes_the_names_earlier_one,
    released_token_holds_until_it_expires,
    releasing_a_revoked_token_brings_nothing_back,
    revoked_token_is_forgotten_and_no_other,
]

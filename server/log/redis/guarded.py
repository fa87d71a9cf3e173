"""Redis out of reach, as the storage contract says it: :class:`~server.log.contract.StoreUnavailable`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from redis.exceptions import RedisError

from server.log.contract import StoreUnavailable

T = TypeVar("T")
P = ParamSpec("P")


def guarded(method: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
    """Redis out of reach becomes ``StoreUnavailable``."""

    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

    return call

"""Finished games' analyses in Redis, for cluster mode (a :class:`server.log.contract.AnalysisTable`):
``cafe:analysis:ID`` holds a game's analysis as JSON, written once (``SET NX``). Nothing expires:
analyses are records, as the games are."""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.log.contract import StoreUnavailable
from server.log.redis.keys import PREFIX


def analysis_key(game_id: str) -> str:
    return f"{PREFIX}analysis:{game_id}"


class RedisAnalyses:
    """The analyses' part of ``RedisStore``. Redis out of reach is ``StoreUnavailable``."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client

    async def analysis(self, game_id: str) -> dict[str, Any] | None:
        try:
            raw = await self.redis.get(analysis_key(game_id))
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        if raw is None:
            return None
        found: dict[str, Any] = json.loads(raw)
        return found

    async def analysis_saved(self, game_id: str, analysis: dict[str, Any]) -> bool:
        try:
            return bool(await self.redis.set(analysis_key(game_id), json.dumps(analysis), nx=True))
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

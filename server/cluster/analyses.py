"""One analysis of a game in the whole cluster: the node that runs it holds the key
``cafe:analysis:claim:GAME`` (``node:token``) while it does; another node asked for the same game
waits for the analysis to be kept rather than running it too (an analysis costs a minute of a core,
and every node would otherwise spend it for one game asked through each). A claim runs out after
the time the analysis may take, so a node that died with it holds it no longer."""

from __future__ import annotations

import contextlib
import secrets

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.cluster.leases import RELEASE
from server.log.redis.keys import PREFIX


def claim_key(game_id: str) -> str:
    return f"{PREFIX}analysis:claim:{game_id}"


class AnalysisClaims:
    """This node's claims to run analyses (``server.analysis.desk.Claims``)."""

    def __init__(self, client: aioredis.Redis, node: str) -> None:
        self.redis = client
        self.token = f"{node}:{secrets.token_hex(4)}"
        self._release = client.register_script(RELEASE)

    async def claim(self, game_id: str, seconds: int) -> bool:
        """Whether this node runs the analysis of ``game_id`` now (no other node does)."""
        return bool(await self.redis.set(claim_key(game_id), self.token, nx=True, ex=seconds))

    async def release(self, game_id: str) -> None:
        """The analysis is kept, or failed here: another node may run it at once."""
        with contextlib.suppress(RedisError):
            await self._release(keys=[claim_key(game_id)], args=[self.token])


__all__ = ["AnalysisClaims", "claim_key"]

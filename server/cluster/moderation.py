"""Staff actions between nodes: an action taken on one node reaches the connections it concerns on
every other (envelope ``moderation``, channel ``cafe:news``), and the staff's node finds a guest's
address where the guest is connected (its line in the node's list of people)."""

from __future__ import annotations

import json

import structlog
from redis.exceptions import RedisError

from server.cluster import envelopes as env
from server.cluster.node import ClusterDirectory
from server.cluster.presence import name_key, online_key
from server.cluster.relay import NEWS
from server.lobby.sanctions import Action
from server.log.contract import StoreUnavailable

log = structlog.get_logger("cafe.cluster")


def action_of(envelope: env.Moderation) -> Action:
    """The action an envelope carries."""
    return Action(
        envelope.kind,
        name=envelope.name,
        address=envelope.address,
        until=envelope.until,
        reason=envelope.reason,
        by=envelope.by,
        text=envelope.text,
        room=envelope.room,
    )


class ClusterModeration:
    """This node's end of staff actions between nodes (``server.lobby.moderation.Elsewhere``)."""

    def __init__(self, cluster: ClusterDirectory) -> None:
        self.cluster = cluster

    async def broadcast(self, action: Action) -> None:
        """Send ``action`` to every node (each but this one applies it); raises
        ``StoreUnavailable`` when Redis cannot take it."""
        envelope = env.Moderation.model_validate(
            {
                "from": self.cluster.node,
                "kind": action.kind,
                "name": action.name,
                "address": action.address,
                "until": action.until,
                "reason": action.reason,
                "by": action.by,
                "text": action.text[:800],
                "room": action.room,
            }
        )
        try:
            await self.cluster.redis.publish(NEWS, env.dump(envelope))
        except (RedisError, OSError, TimeoutError) as e:
            raise StoreUnavailable(str(e) or type(e).__name__) from e

    async def address(self, name: str) -> str | None:
        """The address of the guest ``name`` connected to another node (``None``: not a guest, or
        not connected elsewhere)."""
        redis, node = self.cluster.redis, self.cluster.node
        try:
            found = await redis.get(name_key(name))
            if found is None or str(found) == node:
                return None
            entry = await redis.hget(online_key(str(found)), name.casefold())
        except (RedisError, OSError, TimeoutError) as e:
            raise StoreUnavailable(str(e) or type(e).__name__) from e
        if entry is None:
            return None
        address = json.loads(entry).get("address")
        return str(address) if address else None


__all__ = ["ClusterModeration", "action_of"]

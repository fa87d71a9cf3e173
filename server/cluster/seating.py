"""Tables for people on other nodes: a table made on one node sends each of its players connected
elsewhere to their seat, through the node they are connected to (envelope ``seat``)."""

from __future__ import annotations

from collections.abc import Sequence

from server.cluster import envelopes as env
from server.cluster.node import ClusterDirectory
from server.cluster.presence import name_key
from server.cluster.relay import channel


class ClusterSeating:
    """This node's way to other nodes' players (``server.lobby.tables.Elsewhere``)."""

    def __init__(self, cluster: ClusterDirectory) -> None:
        self.cluster = cluster

    async def seat(
        self, name: str, room: str, game_id: str, players: Sequence[str], identity: str | None = None
    ) -> bool:
        """Ask the node ``name`` is connected to to take them to their seat in ``room`` (if the
        connection there is ``identity``'s); ``False`` when they are connected to no other node
        (or that node does not listen)."""
        envelope = env.SeatAt(to=name, room=room, game=game_id, players=list(players), identity=identity)
        return await self._to_node_of(name, env.dump(envelope))

    async def tell(self, name: str, identity: str | None, text: str) -> bool:
        """Send ``name`` (if the connection is ``identity``'s) the notice ``text`` through the node
        they are connected to; ``False`` when they are connected to no other node."""
        return await self._to_node_of(name, env.dump(env.NoticeTo.of(name, identity, text)))

    async def _to_node_of(self, name: str, data: str) -> bool:
        """Publish ``data`` to the node ``name`` is connected to, if another: whether one heard."""
        redis, node = self.cluster.redis, self.cluster.node
        found = await redis.get(name_key(name))
        where = None if found is None else str(found)
        if where is None or where == node:
            return False
        return int(await redis.publish(channel(where), data)) > 0


__all__ = ["ClusterSeating"]

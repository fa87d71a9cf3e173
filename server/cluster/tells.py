"""Tells and friends' news between nodes.

A tell (or an invitation) for someone connected to another node is handed to that node
(envelope ``tell``, ``invite``), which delivers it as its own: the recipient's mutes apply there,
and ``/reply`` answers back the same way. Its sender hears it echoed only once Redis took it for a
listening node; while Redis is out of reach, or the recipient's node no longer listens (it died,
and its list of people has not expired yet), the sender hears ``unavailable``. News for the
friends of someone (they connected, they started a game), and what someone says in the lobby, go
to every node (channel ``cafe:news``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import structlog
from redis.exceptions import RedisError

from server.cluster import envelopes as env
from server.cluster.node import ClusterDirectory
from server.cluster.presence import name_key, online_key
from server.cluster.relay import NEWS, channel
from server.log.contract import StoreUnavailable
from server.session import Session

log = structlog.get_logger("cafe.cluster")


class Courier:
    """This node's end of tells and news between nodes, for :class:`~server.lobby.social.Social`."""

    def __init__(self, cluster: ClusterDirectory) -> None:
        self.cluster = cluster
        self._sending: set[asyncio.Task[None]] = set()

    async def tell(self, sender: Session, name: str, text: str) -> str | None:
        """Hand a tell to the node where ``name`` is connected: their name as they spell it, or
        ``None`` when nobody by that name is connected to another node. Raises
        ``StoreUnavailable`` when it cannot be handed on (Redis away, their node gone)."""
        return await self._hand(sender, name, lambda who: env.TellTo.model_validate({**who, "text": text}))

    async def invite(self, sender: Session, name: str, room: str) -> str | None:
        """Hand an invitation to ``room`` to the node where ``name`` is connected, as ``tell``:
        that node puts the player on the room's guest list as they are when it arrives (this
        node's copy of its list of people may be a moment behind who they are)."""

        def make(who: dict[str, str]) -> env.InviteTo:
            return env.InviteTo.model_validate({**who, "room": room})

        return await self._hand(sender, name, make)

    async def _hand(
        self,
        sender: Session,
        name: str,
        make: Callable[[dict[str, str]], env.TellTo | env.InviteTo],
    ) -> str | None:
        assert sender.name is not None
        redis, node = self.cluster.redis, self.cluster.node
        try:
            found = await redis.get(name_key(name))
            where = None if found is None else str(found)
            if where is None or where == node:
                return None
            entry = await redis.hget(online_key(where), name.casefold())
            if entry is None:
                return None
            to = str(json.loads(entry)["name"])
            envelope = make({"from": node, "sid": sender.sid, "name": sender.name, "to": to})
            receivers = await redis.publish(channel(where), env.dump(envelope))
        except (RedisError, OSError, TimeoutError) as e:
            raise StoreUnavailable(str(e) or type(e).__name__) from e
        if receivers < 1:
            log.warning("tell_undelivered", node=node, to_node=where, player=sender.name, what=envelope.op)
            raise StoreUnavailable(f"node {where} does not listen")
        return to

    def news(self, name: str, text: str, skip: tuple[str, ...] = ()) -> None:
        """Tell the friends of ``name`` on the other nodes ``text``, but those in ``skip`` (in the
        background: news that cannot be sent is only logged)."""
        self._to_every_node(env.dump(env.News.of(self.cluster.node, name, text, skip)))

    def lobby_chat(self, name: str, text: str) -> None:
        """What ``name`` said in the lobby here, for the lobbies of the other nodes (in the
        background, as news)."""
        said = env.LobbyChat.model_validate({"from": self.cluster.node, "name": name, "text": text})
        self._to_every_node(env.dump(said))

    def _to_every_node(self, data: str) -> None:
        """Publish ``data`` on ``cafe:news`` in the background."""
        task = asyncio.get_running_loop().create_task(self._publish(data))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _publish(self, data: str) -> None:
        try:
            await self.cluster.redis.publish(NEWS, data)
        except (RedisError, OSError, TimeoutError) as e:
            log.warning("news_unsent", node=self.cluster.node, error=str(e) or type(e).__name__)


__all__ = ["Courier"]

"""Cluster mode: several server nodes sharing one Redis.

==============  =================================================================================
``node``        ``ClusterDirectory``: the directory of a node, composing the parts below; the room
                list in Redis and taking over the rooms of a node that died
``leases``      ``Leases``: the rooms this node owns in Redis, their fencing tokens, their renewal
``presence``    ``Presence``: who is online here and the names this node holds, in Redis; claiming
                a name against every node; the heartbeat that keeps them and the node alive
``relay``       messages between nodes: ``RemoteRoom`` (a room owned elsewhere) and
                ``RemoteSession`` (on the owner, a member connected to another node)
``awaited``     ``Awaited``: the answers this node's connections wait for from rooms elsewhere,
                and which of them Redis lost
``privacy``     ``SharedPrivacy``: which rooms are private and their guest lists, for every node
``timings``     ``ClusterTimings``: how long leases, heartbeats and names last (``--lease``)
``tells``       ``Courier``: tells to people on other nodes, and news for their friends
``envelopes``   the typed messages nodes send each other, and their wire format
``seating``     ``ClusterSeating``: a table's players connected to other nodes moved to their seats
``seekqueue``   ``RedisQueue``: quick pairing's one queue in Redis, paired by one node under a lease
``moderation``  staff actions taken on one node, carried to the connections they concern on others
``tournaments`` the tournaments' lease: the one node that directs every tournament
``wiring``      a node's cluster parts made and joined to its lobby (``server.app`` imports it for a
                cluster alone, so that a single server never loads Redis' and PostgreSQL's clients)
==============  =================================================================================
"""

from server.cluster.node import ClusterDirectory
from server.cluster.relay import RemoteRoom, RemoteSession

__all__ = ["ClusterDirectory", "RemoteRoom", "RemoteSession"]

"""Cluster mode: several server nodes sharing one Redis.

==============  =================================================================================
``node``        ``ClusterDirectory``: names, who is online and the room list in Redis; room leases
                and taking over the rooms of a node that died
``relay``       messages between nodes: ``RemoteRoom`` (a room owned elsewhere) and
                ``RemoteSession`` (on the owner, a member connected to another node)
``privacy``     ``SharedPrivacy``: which rooms are private and their guest lists, for every node
``timings``     ``ClusterTimings``: how long leases, heartbeats and names last (``--lease``)
``tells``       ``Courier``: tells to people on other nodes, and news for their friends
``envelopes``   the typed messages nodes send each other, and their wire format
==============  =================================================================================
"""

from server.cluster.node import ClusterDirectory
from server.cluster.relay import RemoteRoom, RemoteSession

__all__ = ["ClusterDirectory", "RemoteRoom", "RemoteSession"]

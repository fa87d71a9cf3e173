"""A node's cluster parts, made and joined to its lobby: the directory in Redis, tells and friends'
news, seats, moderation and quick pairing across the nodes, and the tournaments' lease.

``server.app`` imports this module only for a cluster (``--redis``): with it come Redis' and
PostgreSQL's clients, which a single server never uses (they were a third of its start's imports,
about 0.12 s of 0.4).
"""

from __future__ import annotations

import os
import socket

from server.cluster.analyses import AnalysisClaims
from server.cluster.moderation import ClusterModeration, action_of
from server.cluster.node import ClusterDirectory
from server.cluster.seating import ClusterSeating
from server.cluster.seekqueue import RedisQueue
from server.cluster.tells import Courier
from server.cluster.tournaments import TournamentLease
from server.config import Config
from server.lobby.lobby import Lobby
from server.metrics import Metrics


def directory(config: Config, metrics: Metrics) -> ClusterDirectory:
    """This node's directory in the cluster on ``config.redis``, named ``config.node_id`` or after
    its host and process."""
    assert config.redis
    node = config.node_id or f"{socket.gethostname()}-{os.getpid()}"
    return ClusterDirectory(config, metrics, config.redis, node)


def join(cluster: ClusterDirectory, lobby: Lobby) -> None:
    """What the lobby does for people on other nodes goes through ``cluster``, and what other nodes
    send reaches the lobby."""
    social = lobby.social
    # tells and friends' news reach people on the other nodes
    social.courier = Courier(cluster)
    cluster.relay.on_tell = social.told
    cluster.relay.on_news = social.news
    cluster.relay.on_lobby_chat = social.lobby_heard
    # a name taken back through another node closes its old connection here
    cluster.relay.on_replaced = lobby.replaced_elsewhere
    cluster.relay.on_invite = social.invited
    lobby.tables.elsewhere = ClusterSeating(cluster)
    cluster.relay.on_seat = lobby.tables.seat_soon
    cluster.relay.on_notice = lobby.tables.tell_here
    # bans, kicks, silences and announcements reach the people on every node
    moderation = lobby.moderation
    moderation.elsewhere = ClusterModeration(cluster)
    cluster.relay.on_moderation = lambda envelope: moderation.apply(action_of(envelope))
    lobby.seeks.queue = RedisQueue(cluster)  # one queue for every node
    lobby.seeks.node = cluster.node
    lobby.analyses.claims = AnalysisClaims(cluster.redis, cluster.node)  # one node runs each


def tournament_lease(cluster: ClusterDirectory) -> TournamentLease:
    """The lease the node that directs the tournaments holds."""
    return TournamentLease(cluster.redis, cluster.node, cluster.timings.lease_ms)

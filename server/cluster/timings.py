"""How long a node's claims in Redis last: its rooms' leases, its heartbeat, its people's names.

One setting, the lease (``--lease``, 3 s), gives them all, in the proportions they keep to each
other: a node renews its leases and writes its heartbeat every third of a lease; it counts as dead
5/3 of a lease after its last heartbeat, by when a dead node's leases have run out; it is ready
while its last heartbeat is at most a lease old; and the names of its people stay claimed for ten
leases, through an outage of Redis longer than a lease.

>>> ClusterTimings.for_lease(3.0) == ClusterTimings()
True
>>> quick = ClusterTimings.for_lease(1.5)
>>> quick
ClusterTimings(lease=1.5, renew_every=0.5, node_ttl=2.5, name_ttl=15.0, ready_within=1.5)
>>> quick.lease_ms, quick.node_ttl_ms, quick.name_ttl_ms
(1500, 2500, 15000)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClusterTimings:
    """A node's timings, in seconds."""

    #: a room's lease: a dead owner's rooms move after at most this long
    lease: float = 3.0
    #: between two renewals of this node's leases, and between two heartbeats
    renew_every: float = 1.0
    #: a node counts as alive this long after its last heartbeat
    node_ttl: float = 5.0
    #: a connected name stays claimed this long after its node's last refresh
    name_ttl: float = 30.0
    #: this node is ready while its last good heartbeat is younger than this
    ready_within: float = 3.0

    @classmethod
    def for_lease(cls, lease: float) -> ClusterTimings:
        """The timings of a lease of ``lease`` seconds: each in the defaults' proportion to it."""
        scale = lease / _DEFAULT.lease
        scaled = {f.name: scale * getattr(_DEFAULT, f.name) for f in dataclasses.fields(cls)}
        return cls(**{**scaled, "lease": lease})

    # as Redis takes them (PX, PEXPIRE): whole milliseconds, at least one

    @property
    def lease_ms(self) -> int:
        return _milliseconds(self.lease)

    @property
    def node_ttl_ms(self) -> int:
        return _milliseconds(self.node_ttl)

    @property
    def name_ttl_ms(self) -> int:
        return _milliseconds(self.name_ttl)


_DEFAULT = ClusterTimings()


def _milliseconds(seconds: float) -> int:
    return max(1, round(seconds * 1000))

"""A connection's address as the per-address limits and a guest's sanctions count it: an IPv4
address as it is; an IPv6 address by its /64 network, which one subscriber usually gets whole and
in which a client may take a new address for every connection."""

from __future__ import annotations

import ipaddress


def address_key(peer: str) -> str:
    """The address of ``peer`` (``HOST:PORT``) without its port, an IPv6 one as its /64.

    >>> address_key("203.0.113.7:51000")
    '203.0.113.7'
    >>> address_key("2001:db8:1:2:aaaa:bbbb:cccc:dddd:51000")
    '2001:db8:1:2::/64'
    >>> address_key("::ffff:203.0.113.7:51000")
    '203.0.113.7'
    """
    return network(peer.rpartition(":")[0] or peer)


def ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an address (an IPv6 one in brackets too); ``None`` for a name.

    >>> ip("[::1]"), ip("203.0.113.7"), ip("cafe.example")
    (IPv6Address('::1'), IPv4Address('203.0.113.7'), None)
    """
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def network(host: str) -> str:
    """``host`` (an address without its port) as the limits count it: an IPv6 address as its /64.

    >>> network("::1"), network("2001:db8:1:2::7"), network("203.0.113.7")
    ('::/64', '2001:db8:1:2::/64', '203.0.113.7')
    """
    address = ip(host)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return host

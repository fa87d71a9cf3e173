"""A connection's address as the per-address limits and a guest's sanctions count it: an IPv4
address as it is; an IPv6 address by its /64 network, which one subscriber usually gets whole and
in which a client may take a new address for every connection."""

from __future__ import annotations

import ipaddress
from typing import Any


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


def _unmapped(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """``address``, an IPv4 one written as IPv6 (``::ffff:10.0.0.5``) as IPv4."""
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return mapped or address


def peer_text(peer: tuple[Any, ...] | None) -> str:
    """A socket's peer (``(host, port, ...)``) as ``HOST:PORT``; ``""`` for none."""
    return f"{peer[0]}:{peer[1]}" if peer else ""


class TrustedProxies:
    """The reverse proxies (``--trusted-proxies``: addresses and networks) whose word on a client's
    address is taken: a connection from one of them counts as the client it names, everywhere an
    address counts (the connections per address, a guest's sanctions, failed logins).

    >>> proxies = TrustedProxies("10.0.0.5, 172.28.0.0/16, ::1")
    >>> proxies.trusts("10.0.0.5"), proxies.trusts("172.28.3.4"), proxies.trusts("::ffff:10.0.0.5")
    (True, True, True)
    >>> proxies.trusts("10.0.0.6"), proxies.trusts("cafe.example"), TrustedProxies(None).trusts("::1")
    (False, False, False)
    >>> TrustedProxies("::ffff:10.0.0.5").trusts("10.0.0.5")  # (an IPv4 address written as IPv6)
    True

    A network with host bits set is refused rather than widened (``10.0.0.5/8`` is not
    ``10.0.0.0/8``): this setting says whom to believe.

    >>> TrustedProxies("10.0.0.5/8")
    Traceback (most recent call last):
    ValueError: 10.0.0.5/8 has host bits set
    """

    def __init__(self, spec: str | None) -> None:
        parts = [part.strip() for part in (spec or "").split(",")]
        #: raises ``ValueError`` for a part that is neither an address nor a network
        self.networks = [_ipv4_if_mapped(ipaddress.ip_network(part)) for part in parts if part]

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, host: str) -> bool:
        """Whether ``host`` (an address without its port) is one of the proxies."""
        address = ip(host)
        return address is not None and any(_unmapped(address) in net for net in self.networks)


def _ipv4_if_mapped(
    net: ipaddress.IPv4Network | ipaddress.IPv6Network,
) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """``net`` as IPv4 when it is IPv4 written as IPv6 (``::ffff:10.0.0.5``), as peers are compared."""
    mapped = net.network_address.ipv4_mapped if isinstance(net, ipaddress.IPv6Network) else None
    if mapped is None or net.prefixlen < 96:
        return net
    return ipaddress.IPv4Network((mapped, net.prefixlen - 96))


def forwarded_for(values: list[str]) -> str | None:
    """The client address a proxy added to ``X-Forwarded-For`` (every value of the header, in
    order): the last one, which the proxy itself appended. What came before it the client may have
    written, and is not read. ``None`` when the last one is no address.

    >>> forwarded_for(["203.0.113.7"]), forwarded_for(["1.2.3.4, 5.6.7.8", "2001:db8::1"])
    ('203.0.113.7', '2001:db8::1')
    >>> forwarded_for([]), forwarded_for(["1.2.3.4, evil"])
    (None, None)
    """
    if not values:
        return None
    last = values[-1].rsplit(",", 1)[-1].strip()
    address = ip(last)
    return None if address is None else str(_unmapped(address))


def http_client(peer: tuple[Any, ...] | None, forwarded: list[str], proxies: TrustedProxies) -> str:
    """The client (``HOST:PORT``) of an HTTP request from ``peer`` whose ``X-Forwarded-For``
    values are ``forwarded``: the address a trusted proxy names (with the proxy's port, the
    client's being unknown), else the peer's own.

    >>> proxies = TrustedProxies("127.0.0.1")
    >>> http_client(("127.0.0.1", 5000), ["203.0.113.7"], proxies)
    '203.0.113.7:5000'
    >>> http_client(("127.0.0.2", 5000), ["203.0.113.7"], proxies), http_client(None, [], proxies)
    ('127.0.0.2:5000', '')
    """
    if peer and proxies.trusts(str(peer[0])) and (client := forwarded_for(forwarded)) is not None:
        return f"{client}:{peer[1]}"
    return peer_text(peer)


#: the longest header of the PROXY protocol's version 1, its CRLF included
PROXY_V1_MAX = 107


def proxy_v1(line: bytes) -> str | None:
    """The client (``HOST:PORT``) a PROXY protocol v1 header names (what HAProxy's ``send-proxy``
    writes before a connection's first byte); ``""`` for ``UNKNOWN`` (the proxy's own connection,
    a health check); ``None`` when ``line`` is no such header.

    >>> proxy_v1(b"PROXY TCP4 203.0.113.7 10.0.0.2 51000 2323\\r\\n")
    '203.0.113.7:51000'
    >>> proxy_v1(b"PROXY TCP6 2001:db8::7 2001:db8::1 51000 2323\\r\\n"), proxy_v1(b"PROXY UNKNOWN\\r\\n")
    ('2001:db8::7:51000', '')
    >>> proxy_v1(b"/join\\r\\n"), proxy_v1(b"PROXY TCP4 2001:db8::7 10.0.0.2 51000 2323\\r\\n")
    (None, None)
    """
    if len(line) > PROXY_V1_MAX or not line.endswith(b"\r\n"):
        return None
    parts = line[:-2].decode("ascii", errors="replace").split(" ")
    if parts[0] != "PROXY" or len(parts) < 2:
        return None
    if parts[1] == "UNKNOWN":
        return ""
    if len(parts) != 6 or parts[1] not in ("TCP4", "TCP6"):
        return None
    source, port = ip(parts[2]), parts[4]
    version = 4 if parts[1] == "TCP4" else 6
    if (
        source is None
        or source.version != version
        or "[" in parts[2]
        or not port.isdigit()
        or int(port) > 65535
    ):
        return None
    return f"{_unmapped(source)}:{int(port)}"

"""Reports are limited per reporter and per address, never for everyone at once: however many
reports are open, a new reporter is heard; an address is counted only once a report from it is
accepted; an IPv6 address is counted by its /64, as every per-address limit counts it."""

from __future__ import annotations

from server.app import Server
from server.peers import address_key
from tests.server.clients import WsClient


async def test_many_open_reports_refuse_nobody_else(server: Server) -> None:
    """With 1,000 reports open (a flood from many names), another person's report is thanked
    and stored; its own hourly limit still holds."""
    for n in range(1000):
        await server.store.report_added(f"flood{n}", "mona", "spam", [])
    ann = await WsClient.connect(server.port, "ann")
    answer = await ann.command("/report hank insults")
    assert answer["type"] == "ack", answer
    assert await server.store.reports_open() == 1001


async def test_a_refused_report_leaves_no_address_behind(server: Server) -> None:
    """A report refused by the reporter's own limit (five this hour, in the store) enters
    nothing for its address: the node keeps addresses only of accepted reports."""
    ann = await WsClient.connect(server.port, "ann")
    identity = server.lobby.directory.session("ann").identity  # type: ignore[union-attr]
    for n in range(5):
        await server.store.report_added("ann", f"p{n}", "spam", [], key=identity)
    assert (await ann.command("/report hank insults"))["code"] == "rate_limited"
    assert server.lobby.moderation._reported == {}
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/report hank insults"))["type"] == "ack"
    assert list(server.lobby.moderation._reported) == ["127.0.0.1"]


async def test_a_persons_reports_are_counted_by_the_player_not_the_name(server: Server) -> None:
    """Five reports, then a new name (``/nick``) keeps the count: ``rate_limited``. Whoever takes
    the freed name next starts with a count of their own."""
    rep = await WsClient.connect(server.port, "rep")
    for n in range(5):
        assert (await rep.command(f"/report p{n} spam"))["type"] == "ack"
    assert (await rep.command("/nick rep2"))["type"] == "welcome"
    refused = await rep.command("/report p9 spam")
    assert (refused["code"], refused["message"]) == (
        "rate_limited",
        "You made 5 reports this hour; the staff read them.",
    )
    newcomer = await WsClient.connect(server.port, "rep")
    assert (await newcomer.command("/report p9 spam"))["type"] == "ack"


def test_an_ipv6_address_is_counted_by_its_64() -> None:
    """Two addresses of one /64 are one address for the limits; another /64 is another; an
    IPv4 address (mapped into IPv6 or not) is itself."""
    one = address_key("2001:db8:0:1:aaaa::1:40000")
    assert one == address_key("2001:db8:0:1:ffff:ffff:ffff:ffff:40001") == "2001:db8:0:1::/64"
    assert address_key("2001:db8:0:2::1:40000") != one
    assert address_key("::ffff:192.0.2.1:40000") == address_key("192.0.2.1:40000") == "192.0.2.1"


async def test_an_address_past_its_reports_is_told_so_not_the_newcomer(server: Server) -> None:
    """Two reporters make the ten reports an address may make in an hour: a third person from it
    is refused (``rate_limited``) with the address's count, not with five of their own."""
    for name in ("ann", "bob"):
        reporter = await WsClient.connect(server.port, name)
        for n in range(5):
            assert (await reporter.command(f"/report p{n} spam"))["type"] == "ack"
    cid = await WsClient.connect(server.port, "cid")
    refused = await cid.command("/report hank insults")
    assert (refused["code"], refused["message"]) == (
        "rate_limited",
        "Your address made 10 reports this hour; the staff read them.",
    )

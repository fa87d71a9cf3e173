"""Prometheus metrics of one server, served at ``/metrics``: what happened, counted; nothing here
talks to a client."""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

#: the buckets of the move latency histogram, in seconds
MOVE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


#: the refusals and closes that protect the server, each a log event and counted by its name
SECURITY_EVENTS = (
    "origin_refused",
    "host_refused",
    "http_on_line",
    "per_ip_cap",
    "opening_cap",
    "hello_timeout",
    "rate_limit_close",
    "rate_limit_http",
    "bad_utf8",
    "method_refused",
    "token_refused",
    "token_expired",
    "proxy_header_refused",
)


class Metrics:
    """The metrics of one server process (each server has its own registry)."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry(auto_describe=True)
        self.connections = Gauge(
            "cafe_connections", "Open client connections", ["transport"], registry=registry
        )
        self.rooms = Gauge("cafe_rooms", "Rooms held in memory", registry=registry)
        self.games_running = Gauge("cafe_games_running", "Games in progress", registry=registry)
        self.games_started = Counter("cafe_games_started", "Games started", registry=registry)
        self.games_finished = Counter("cafe_games_finished", "Games finished", registry=registry)
        self.errors = Counter("cafe_errors", "Errors sent to clients, by code", ["code"], registry=registry)
        self.security_events = Counter(
            "cafe_security_events",
            f"Refusals and closes that protect the server ({', '.join(SECURITY_EVENTS)})",
            ["event"],
            registry=registry,
        )
        self.logins = Counter(
            "cafe_logins",
            "Logins with a password on this node, by result (ok, bad_password, too_many_attempts)",
            ["result"],
            registry=registry,
        )
        self.registrations = Counter(
            "cafe_registrations", "Accounts registered on this node", registry=registry
        )
        self.moderation_actions = Counter(
            "cafe_moderation_actions",
            "Moderation on this node, by action (report, resolve, kick, silence, ban, unban, unsilence,"
            " close, close_tournament, announce, role:moderator, role:none)",
            ["action"],
            registry=registry,
        )
        self.reports_open = Gauge(
            "cafe_reports_open",
            "Reports not resolved yet, those of staff members left out, as this node last read them",
            registry=registry,
        )
        #: the counters of every message and every move
        self.busy = BusyCounters()
        registry.register(self.busy)

    def error_sent(self, code: str) -> None:
        """Count an error sent to a client, by its code."""
        self.errors.labels(code=code).inc()

    def received(self, transport: str) -> None:
        """Count a client message."""
        received = self.busy.received
        received[transport] = received.get(transport, 0) + 1

    def move_logged(self) -> None:
        self.busy.moves += 1

    def move_handled(self, seconds: float) -> None:
        """A move took ``seconds`` from reaching its room to every member's messages being queued."""
        busy = self.busy
        busy.latency[bisect_left(MOVE_BUCKETS, seconds)] += 1
        busy.latency_sum += seconds

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)


class BusyCounters(Collector):
    """The metrics bumped for every client message and every move, as plain numbers that
    ``/metrics`` reads when it is scraped. prometheus_client's metrics take a lock for each
    increment (they may be bumped from any thread), and its histogram searches its buckets in
    Python: about 1 us a move in all, where these cost a tenth of it. They are bumped on the event
    loop alone."""

    def __init__(self) -> None:
        self.moves = 0
        #: messages received, by transport
        self.received: dict[str, int] = {}
        #: moves handled by latency: one count per bucket of ``MOVE_BUCKETS``, and one above them
        self.latency = [0] * (len(MOVE_BUCKETS) + 1)
        self.latency_sum = 0.0

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily("cafe_moves", "Moves accepted", value=self.moves)
        received = CounterMetricFamily(
            "cafe_messages_received", "Client messages received", labels=["transport"]
        )
        for transport, count in self.received.items():
            received.add_metric([transport], count)
        yield received
        bounds = (*map(repr, MOVE_BUCKETS), "+Inf")  # as prometheus_client writes them
        yield HistogramMetricFamily(
            "cafe_move_seconds",
            "Time from a move reaching its room to every member's messages being queued",
            buckets=list(zip(bounds, itertools.accumulate(self.latency), strict=True)),
            sum_value=self.latency_sum,
        )

"""Prometheus metrics of one server, served at ``/metrics``."""

from __future__ import annotations

from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from protocol.messages import ClientId, Error


class Recipient(Protocol):
    def send(self, message: Error) -> None: ...


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
        self.moves = Counter("cafe_moves", "Moves accepted", registry=registry)
        self.errors = Counter("cafe_errors", "Errors sent to clients, by code", ["code"], registry=registry)
        self.security_events = Counter(
            "cafe_security_events",
            "Refusals and closes that protect the server (origin_refused, per_ip_cap, hello_timeout,"
            " rate_limit_close, bad_utf8, method_refused)",
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
        self.messages_in = Counter(
            "cafe_messages_received", "Client messages received", ["transport"], registry=registry
        )
        self._received: dict[str, Counter] = {}
        self.move_latency = Histogram(
            "cafe_move_seconds",
            "Time from a move reaching its room to every member's messages being queued",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=registry,
        )

    def refuse(self, recipient: Recipient, code: str, message: str, msg_id: ClientId = None) -> None:
        """The one way an error reaches a client: counted by its code, sent to that client alone."""
        self.errors.labels(code=code).inc()
        recipient.send(Error(id=msg_id, code=code, message=message))

    def received(self, transport: str) -> None:
        """Count a client message (the per-transport counters are looked up once)."""
        counter = self._received.get(transport)
        if counter is None:
            counter = self._received[transport] = self.messages_in.labels(transport=transport)
        counter.inc()

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)

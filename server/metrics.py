"""Prometheus metrics, served at ``/metrics``."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

REGISTRY = CollectorRegistry(auto_describe=True)

CONNECTIONS = Gauge("cafe_connections", "Open client connections", ["transport"], registry=REGISTRY)
ROOMS = Gauge("cafe_rooms", "Rooms held in memory", registry=REGISTRY)
GAMES_RUNNING = Gauge("cafe_games_running", "Games in progress", registry=REGISTRY)
GAMES_STARTED = Counter("cafe_games_started", "Games started", registry=REGISTRY)
GAMES_FINISHED = Counter("cafe_games_finished", "Games finished", registry=REGISTRY)
MOVES = Counter("cafe_moves", "Moves accepted", registry=REGISTRY)
ERRORS = Counter("cafe_errors", "Errors sent to clients, by code", ["code"], registry=REGISTRY)
MESSAGES_IN = Counter("cafe_messages_received", "Client messages received", ["transport"], registry=REGISTRY)
MOVE_LATENCY = Histogram(
    "cafe_move_seconds",
    "Time from a move reaching its room to every member's message being queued",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)


def render() -> bytes:
    """The Prometheus text exposition of every metric."""
    return generate_latest(REGISTRY)

"""The metrics bumped for every message and move are plain numbers, and ``/metrics`` shows them
exactly as prometheus_client's own counters and histogram would."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from server.limits import security_event
from server.metrics import MOVE_BUCKETS, SECURITY_EVENTS, Metrics


def samples(text: bytes, *names: str) -> list[str]:
    """The exposition's lines of the metrics ``names`` (their ``_created`` times left out)."""
    return [
        line
        for line in text.decode().splitlines()
        if line.split("{")[0].split(" ")[0] in names
        or any(line.startswith(f"# {k} {n} ") for n in names for k in ("HELP", "TYPE"))
    ]


def test_the_busy_counters_read_as_prometheus_clients_own_metrics() -> None:
    """The same moves, messages and latencies, counted by ``Metrics`` and by prometheus_client's
    ``Counter`` and ``Histogram``: the same lines at ``/metrics``, bucket edges included."""
    metrics = Metrics()
    registry = CollectorRegistry()
    moves = Counter("cafe_moves", "Moves accepted", registry=registry)
    received = Counter("cafe_messages_received", "Client messages received", ["transport"], registry=registry)
    latency = Histogram(
        "cafe_move_seconds",
        "Time from a move reaching its room to every member's messages being queued",
        buckets=MOVE_BUCKETS,
        registry=registry,
    )
    for transport in ("ws", "line", "ws", "ws"):
        metrics.received(transport)
        received.labels(transport=transport).inc()
    # below the first edge, on edges (a bucket holds what is at most its edge), between, above all
    for seconds in (0.0001, 0.0005, 0.0007, 0.001, 0.003, 0.05, 0.2, 1.0, 2.5):
        metrics.move_logged()
        moves.inc()
        metrics.move_handled(seconds)
        latency.observe(seconds)
    names = [
        "cafe_moves_total",
        "cafe_messages_received_total",
        "cafe_move_seconds_bucket",
        "cafe_move_seconds_sum",
        "cafe_move_seconds_count",
    ]
    ours = samples(metrics.render(), *names)
    theirs = samples(generate_latest(registry), *names)
    assert ours == theirs
    assert 'cafe_move_seconds_bucket{le="0.0005"} 2.0' in ours
    assert 'cafe_move_seconds_bucket{le="+Inf"} 9.0' in ours
    assert 'cafe_messages_received_total{transport="ws"} 3.0' in ours


def test_the_security_events_are_the_ones_readme_lists_and_metrics_describes() -> None:
    """README's list of the counted refusals, the counter's help text and the names the server
    reports (``security_event`` takes no other) are one list."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    listed = re.search(r"\*\*Seen by the operator\.\*\* Each refusal is a log event \(([^)]*)\)", readme)
    assert listed is not None
    assert re.findall(r"`([a-z0-9_]+)`", listed.group(1)) == list(SECURITY_EVENTS)
    exposition = Metrics().render().decode().splitlines()
    help_line = next(line for line in exposition if line.startswith("# HELP cafe_security_events"))
    assert all(event in help_line for event in SECURITY_EVENTS)
    with pytest.raises(AssertionError):
        security_event(Metrics(), "not_an_event")

"""The figures: the workers' counts merged, percentiles, and each phase's figures for the report."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from bench.loadgen.plan import SEATS


@dataclass
class Phase:
    """The figures of one phase."""

    name: str
    connections: int
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, int] = field(default_factory=dict)
    server_cpu: float | None = None
    #: ``--cluster``: the cores each process under load used (the nodes, Redis, PostgreSQL)
    cpu_parts: dict[str, float] = field(default_factory=dict)
    machine_cpu: float = 0.0
    failures: int = 0
    log_rows: int | None = None
    log_warnings: list[str] = field(default_factory=list)


def merge(stats: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"latencies": [], "error_samples": [], "cpu_by_worker": [], "moves_by_room": []}
    for s in stats:
        out["latencies"].extend(s["latencies"])
        out["moves_by_room"].extend(s["moves_by_room"])
        out["error_samples"].extend(s["error_samples"])
        out["cpu_by_worker"].append(s["cpu"])
        for key in (
            "sent", "sent_total", "completed_total", "errors", "frames", "patches",
            "patch_bytes", "acks", "ack_bytes", "events", "event_bytes", "move_bytes", "games", "cpu",
            "line_moves_out", "line_move_bytes", "line_moves", "line_bytes", "join_retries",
        ):  # fmt: skip
            out[key] = out.get(key, 0) + s.get(key, 0)
    return out


def percentile(data: list[float], p: int) -> float:
    if len(data) < 2:
        return data[0] if data else float("nan")
    return statistics.quantiles(data, n=100, method="inclusive")[p - 1]


def figures(phase: Phase) -> dict[str, Any]:
    s = phase.stats
    lat = [x * 1000 for x in s["latencies"]]
    mem = phase.memory
    rooms = phase.connections // SEATS
    out: dict[str, Any] = {
        "connections": phase.connections,
        "moves_per_s": len(lat) / phase.seconds,
        "sent_per_s": s["sent"] / phase.seconds,
        "frames_in_per_s": s["frames"] / phase.seconds,
        "latency_ms": {p: percentile(lat, p) for p in (50, 95, 99)},
        "latency_max_ms": max(lat) if lat else float("nan"),
        "server_cpu": phase.server_cpu,
        "generator_cpu": s["cpu"] / phase.seconds,
        "other_cpu": phase.machine_cpu - (phase.server_cpu or 0.0) - s["cpu"] / phase.seconds,
        "server_cpu_us_per_move": (phase.server_cpu or 0.0) * 1e6 / max(1.0, len(lat) / phase.seconds),
        "cpu_us_per_move_by_part": {
            k: v * 1e6 / max(1.0, len(lat) / phase.seconds) for k, v in phase.cpu_parts.items()
        },
        "generator_cpu_by_worker": [c / phase.seconds for c in s["cpu_by_worker"]],
        "rss_mb": {k: v / 2**20 for k, v in mem.items()},
        "per_connection_kb": (mem.get("connected", 0) - mem.get("idle", 0)) / phase.connections / 1024,
        "per_room_kb": (mem.get("playing", 0) - mem.get("connected", 0)) / max(1, rooms) / 1024,
        "errors": s["errors"] + phase.failures,
        "error_samples": s["error_samples"],
        "games_finished": s["games"],
        "join_retries": s["join_retries"],
        "moves_by_room": _spread(s["moves_by_room"]),
        "mean_patch_bytes": s["patch_bytes"] / max(1, s["patches"]),
        "mean_ack_bytes": s["ack_bytes"] / max(1, s["acks"]),
        "mean_event_bytes": s["event_bytes"] / max(1, s["events"]),
        "mean_move_bytes": s["move_bytes"] / max(1, s["sent_total"] - s["line_moves_out"]),
        "mean_line_move_bytes": s["line_move_bytes"] / max(1, s["line_moves_out"]),
        "mean_line_bytes": s["line_bytes"] / max(1, s["line_moves"]),
        "moves_sent": s["sent_total"],
        "moves_received": s["completed_total"],
        "log_rows": phase.log_rows,
        "server_log_lines": len(phase.log_warnings),
        "server_log_samples": phase.log_warnings[:5],
    }
    return out


def _spread(values: list[int]) -> dict[str, float]:
    """The least, median and most of the moves each room sent (a fair server keeps them close)."""
    if not values:
        return {"min": 0, "median": 0, "max": 0}
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}

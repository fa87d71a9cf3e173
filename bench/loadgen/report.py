"""The report ``bench/load.py`` prints: the game server beside the bare relay, and the server's profile."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any

from bench.loadgen.plan import SEATS


def report(
    args: argparse.Namespace,
    game: dict[str, Any] | None,
    relay: dict[str, Any] | None,
    names: tuple[str, str] = ("game server", "bare relay"),
) -> None:
    """The figures side by side (``game`` is ``None`` with ``--relay-only``; with ``--cluster``,
    ``relay`` is the cluster's, and ``names`` say so)."""
    cols = ([(names[0], game)] if game else []) + ([(names[1], relay)] if relay else [])

    def row(label: str, fmt: Any) -> None:
        cells = []
        for _, f in cols:
            try:
                cells.append(fmt(f))
            except (TypeError, KeyError, ValueError):
                cells.append("n/a")
        print(f"{label:<34}" + "".join(f"{c:>22}" for c in cells))

    rate = "as fast as answered" if args.rate == 0 else f"capped at {args.rate:g} moves/s"
    print(
        f"\nrooms {args.rooms} x {SEATS} = {args.rooms * SEATS} connections"
        f" (line share {args.line_share:g}), {args.seconds:g} s measured after {args.warmup:g} s,"
        f" {rate}; {os.cpu_count()} cores, generator on the same machine ({args.workers} processes)"
    )
    print(f"{'':<34}" + "".join(f"{name:>22}" for name, _ in cols))
    row("moves (relayed frames) /s", lambda f: f"{f['moves_per_s']:,.0f}")
    row("frames to clients /s", lambda f: f"{f['frames_in_per_s']:,.0f}")
    row(
        "latency p50 / p95 / p99 ms",
        lambda f: "{:.1f} / {:.1f} / {:.1f}".format(*f["latency_ms"].values()),
    )
    row("latency max ms", lambda f: f"{f['latency_max_ms']:.1f}")
    row("server CPU (cores)", lambda f: f"{f['server_cpu']:.2f}")
    row("server CPU per move us", lambda f: f"{f['server_cpu_us_per_move']:.0f}")
    row("generator CPU (cores)", lambda f: f"{f['generator_cpu']:.2f}")
    row("other processes' CPU (cores)", lambda f: f"{f['other_cpu']:.2f}")
    row(
        "RSS idle / connected MB",
        lambda f: "{:.0f} / {:.0f}".format(f["rss_mb"]["idle"], f["rss_mb"]["connected"]),
    )
    row(
        "RSS seated / playing MB",
        lambda f: "{:.0f} / {:.0f}".format(f["rss_mb"]["seated"], f["rss_mb"]["playing"]),
    )
    row("peak RSS (VmHWM) MB", lambda f: f"{f['rss_mb']['peak']:.0f}")
    row("memory per connection KB", lambda f: f"{f['per_connection_kb']:.1f}")
    row("memory per room KB", lambda f: f"{f['per_room_kb']:.1f}")
    row(
        "frame bytes: move / ack, patch, played",
        lambda f: "{:.0f} / {:.0f}, {:.0f}, {:.0f}".format(
            f["mean_move_bytes"], f["mean_ack_bytes"], f["mean_patch_bytes"], f["mean_event_bytes"]
        ),
    )
    if args.line_share and not args.relay_only:
        row(
            "line bytes: move / text a move",
            lambda f: "{:.0f} / {:.0f}".format(f["mean_line_move_bytes"], f["mean_line_bytes"]),
        )
    row("games finished", lambda f: f"{f['games_finished']}")
    row(
        "moves per room min / median / max",
        lambda f: "{min:.0f} / {median:.0f} / {max:.0f}".format(**f["moves_by_room"]),
    )
    row("errors", lambda f: f"{f['errors']}")
    row("seats asked again (unavailable)", lambda f: f"{f['join_retries']}")
    if game and game["log_rows"] is not None:
        print(
            f"moves in the server's log: {game['log_rows']:,} (clients saw {game['moves_received']:,} played)"
        )
    if game and relay and names[1] == "bare relay":
        ratio = game["moves_per_s"] / relay["moves_per_s"] if relay["moves_per_s"] else float("nan")
        print(f"game server / bare relay message rate: {ratio:.2f}")
    for name, f in cols:
        for sample in f["error_samples"]:
            print(f"  {name} error: {sample}")
    for name, f in cols:
        if f.get("server_log_lines"):
            print(f"  {name}: the server logged {f['server_log_lines']} lines at warning or above, as")
            for line in f["server_log_samples"]:
                print(f"    {line[:300]}")


def report_cluster(one: dict[str, Any], cluster: dict[str, Any], again: dict[str, Any]) -> None:
    """What a move costs the cluster (its nodes, Redis and PostgreSQL together) against one node
    at the same rate, measured before the cluster (``one``) and after it (``again``), and where
    the cluster's CPU goes."""
    print("\nCPU a move, us (summed over the processes under load):")
    for name, part in cluster["cpu_us_per_move_by_part"].items():
        print(f"  {name:<12}{part:8.0f}")
    before, after = one["server_cpu_us_per_move"], again["server_cpu_us_per_move"]
    single, summed = (before + after) / 2, cluster["server_cpu_us_per_move"]
    print(f"  {'cluster':<12}{summed:8.0f}   one node: {single:.0f} ({before:.0f} before, {after:.0f} after)")
    ratio = summed / single if single else float("nan")
    p99 = cluster["latency_ms"][99]
    print(f"cluster / one node, CPU a move: {ratio:.2f} (target <= 1.5)")
    print(f"cluster p99 {p99:.1f} ms at {cluster['moves_per_s']:,.0f} moves/s (target <= 50 ms at 1,000)")
    if again["errors"]:
        print(f"one node again: {again['errors']} errors")


def summarise_profile(path: str, top: int = 40) -> None:
    """The functions the server spent its samples in: inclusive and own share, from py-spy's raw
    (collapsed) stacks; a function that recurses is counted once per stack."""
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        total += n
        frames = [re.sub(r":\d+\)$", ")", f) for f in stack.split(";")]
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + n
        own[frames[-1]] = own.get(frames[-1], 0) + n
    print(f"\nserver profile: {total} samples (busy only); inclusive % / own %")
    for frame, n in sorted(inclusive.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{100 * n / total:6.1f} {100 * own.get(frame, 0) / total:6.1f}  {frame}")

"""What one generator process counts while its clients play: moves sent and completed, frames and
their sizes, errors. The clients add to it; the worker reports it to the main process."""

from __future__ import annotations

from collections import deque
from typing import Any

from bench.loadgen.plan import WorkerSpec


class Tally:
    """The counters of one generator process, and whether its clients may move now."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.moving = False
        #: clients (``bench.loadgen.clients.Client``) whose turn came, with the move number
        self.ready: deque[tuple[Any, int]] = deque()
        self.window = (float("inf"), float("inf"))
        self.latencies: list[float] = []
        self.sent_in_window = 0
        self.sent_total = 0
        self.completed_total = 0
        self.errors = 0
        self.error_samples: list[str] = []
        self.frames = 0
        self.patches = 0
        self.patch_bytes = 0
        self.acks = 0
        self.ack_bytes = 0
        self.events = 0
        self.event_bytes = 0
        self.move_bytes = 0
        #: line clients: moves sent and their bytes, moves received and the bytes of text they came with
        self.line_moves_out = 0
        self.line_move_bytes = 0
        self.line_moves = 0
        self.line_bytes = 0
        self.games = 0
        #: seats asked for again after an ``unavailable`` (a cluster taking up many rooms at once)
        self.join_retries = 0

    def error(self, what: str, count: int = 1) -> None:
        self.errors += count
        if len(self.error_samples) < 10:
            self.error_samples.append(what)

    def count_sent(self, t0: float) -> None:
        self.sent_total += 1
        if self.window[0] <= t0 < self.window[1]:
            self.sent_in_window += 1

    def completed(self, t0: float, t1: float) -> None:
        self.completed_total += 1
        if self.window[0] <= t0 < self.window[1]:
            self.latencies.append(t1 - t0)

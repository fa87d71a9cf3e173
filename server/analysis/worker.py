"""What runs in an analysis worker process (:mod:`server.analysis.desk`): kept apart, so that a
worker imports the analysis and the rules, not the server."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from bots.analysis import analyse_record
from engine import record_from_dict

#: the priority the workers run at: below the server's and its bots'
NICENESS = 10


def run_analysis(
    record: dict[str, Any], budget: float, seed: int, auto: dict[int, str] | None = None
) -> dict[str, Any]:
    """The analysis of a game's record, as JSON; ``auto``: the moves the server played for their
    player (not judged)."""
    return analyse_record(record_from_dict(record), budget=budget, seed=seed, auto=auto).to_dict()


def worker_started() -> None:
    """Yield the processor to the server and its bots."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)

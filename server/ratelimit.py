"""A token bucket: ``rate`` tokens a second, at most ``burst`` saved up."""

from __future__ import annotations

import time


class TokenBucket:
    __slots__ = ("_burst", "_last", "_rate", "_tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._last = time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

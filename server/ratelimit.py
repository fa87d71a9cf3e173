"""A token bucket: ``rate`` tokens a second, at most ``burst`` saved up; and one for each address."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class TokenBucket:
    """Starts full; ``clock`` (seconds, monotonic) is there so tests can drive time by hand."""

    __slots__ = ("_burst", "_clock", "_last", "_rate", "_tokens")

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        # one float object for both until the first take (every connection has two buckets)
        self._burst = self._tokens = float(burst)
        self._clock = clock
        self._last = clock()

    def _refill(self) -> None:
        """Add the tokens earned since the last look, up to the burst."""
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now

    def take(self, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens (one, or a part of one) if there are as many."""
        self._refill()
        if self._tokens >= cost:
            self._tokens -= cost
            return True
        return False

    def take_costly(self, cost: int) -> bool:
        """Take one token if there is one, and then the rest of ``cost`` into debt (``spend``): a
        costly question passes when a message would, and the next ones wait."""
        if not self.take():
            return False
        self.spend(cost - 1)
        return True

    def spend(self, count: int) -> None:
        """Spend ``count`` more tokens for what a message taken cost beyond one, into debt if
        need be (at most a burst's): the next messages wait until it is paid back."""
        self._refill()
        self._tokens = max(-self._burst, self._tokens - count)


class AddressBuckets:
    """A bucket for each address (``rate`` and ``burst`` each), made when first asked for; the
    addresses heard from least lately are forgotten past ``most`` of them."""

    def __init__(
        self, rate: float, burst: int, most: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate, self._burst, self._most, self._clock = rate, burst, most, clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def of(self, address: str) -> TokenBucket:
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = TokenBucket(self._rate, self._burst, self._clock)
            if len(self._buckets) > self._most:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        return bucket

"""The names of the server's bots, one grammar for writing and reading them: a strategy's bots
are ``STRATEGY-botN`` in the seats they take (``strong-bot1``), and ``STRATEGY-bot`` as the one
rated player the strategy is (``strong-bot``, on the leaderboard, in ``/rating`` and profiles).

>>> bot_name("strong"), bot_name("strong", 1)
('strong-bot', 'strong-bot1')
>>> names = bot_names(("random", "greedy", "strong"))
>>> [bot_strategy(names, n) for n in ("Strong", "strong-bot", "STRONG-bot12", "strongbot", "ann")]
['strong', 'strong', 'strong', None, None]
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

#: the word after a strategy's name in its bots' names (``strong-bot``)
BOT_WORD: Final = "bot"


def bot_name(strategy: str, number: int | None = None) -> str:
    """The one name of the server's bot of ``strategy``: ``strong-bot`` for the strategy as a
    rated player (the leaderboard, ``/rating``, profiles), ``strong-bot1``, ``strong-bot2``... for
    each seat one of its bots takes."""
    return f"{strategy}-{BOT_WORD}" if number is None else f"{strategy}-{BOT_WORD}{number}"


def bot_names(strategies: Iterable[str]) -> re.Pattern[str]:
    """Every name that stands for one of ``strategies`` (in any case, for ``fullmatch``): the
    strategy itself (``strong``), its rated name (``strong-bot``) and a seat's (``strong-bot1``);
    group 1 is the strategy."""
    alternatives = "|".join(map(re.escape, strategies))
    return re.compile(rf"({alternatives})(?:-{BOT_WORD}[0-9]*)?", re.IGNORECASE)


def bot_strategy(names: re.Pattern[str], name: str) -> str | None:
    """The strategy (in lower case) that ``name`` stands for, as ``names`` (:func:`bot_names`)
    reads it; ``None`` when it is no bot's name."""
    found = names.fullmatch(name)
    return found[1].lower() if found else None


__all__ = ["BOT_WORD", "bot_name", "bot_names", "bot_strategy"]

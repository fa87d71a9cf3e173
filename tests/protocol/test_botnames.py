"""The server's bots' names: written and read by one grammar."""

from __future__ import annotations

import protocol.botnames
from bots.strategy import STRATEGIES
from protocol.botnames import bot_name, bot_names, bot_strategy
from tests.examples import run_examples


def test_the_module_s_examples_hold() -> None:
    """The examples in ``protocol.botnames`` run as written."""
    found = run_examples(protocol.botnames)
    assert found.attempted > 0 and found.failed == 0


def test_every_name_the_server_gives_a_bot_reads_back_as_its_strategy() -> None:
    """A strategy's rated name and each seat's bot name, in any case, read back as the strategy."""
    names = bot_names(STRATEGIES)
    for strategy in STRATEGIES:
        for name in (strategy, bot_name(strategy), bot_name(strategy, 1), bot_name(strategy, 12)):
            assert bot_strategy(names, name) == strategy, name
            assert bot_strategy(names, name.upper()) == strategy, name


def test_other_names_are_no_bot_s() -> None:
    """Names that only look like a bot's (no hyphen, another word, a strategy inside another word)
    stand for no strategy."""
    names = bot_names(STRATEGIES)
    for name in ("strongbot", "strong-bots", "strong_bot1", "robot", "greedy-bot-1", "ann", "xstrong"):
        assert bot_strategy(names, name) is None, name

"""Every docstring example runs and holds: each module with one is found from its source, so an
example written anywhere is run without a test naming it (tests/examples.py)."""

from __future__ import annotations

import importlib

import pytest

from tests.examples import modules_with_examples, run_examples


@pytest.mark.parametrize("name", modules_with_examples())
def test_the_examples_hold(name: str) -> None:
    """The examples in the module's docstrings run and give what they show."""
    found = run_examples(importlib.import_module(name))
    assert found.attempted > 0, f"{name}: no example found, though its source shows one"
    assert found.failed == 0, f"{name}: {found.failed} of {found.attempted} examples failed (see the output)"


def test_the_search_finds_examples_in_every_kind_of_docstring() -> None:
    """A module's, a class's and a function's examples count; a `>>>` outside a docstring does not;
    packages are named without their __init__."""
    found = set(modules_with_examples())
    # a function's (server.ratings.bot_name), a module's (protocol.validation), a test helper's
    assert {"server.ratings", "protocol.validation", "protocol.options", "tests.protocol.english"} <= found
    assert {"engine", "bots.strategy"} <= found  # package docstrings
    assert not [name for name in found if name.endswith("__main__") or name.endswith("__init__")]

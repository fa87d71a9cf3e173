"""Numbered schema steps: each database's changes after its first version are files
``NNN_what.sql`` in a folder of their own, applied in the order of their numbers when the server
starts, each once. A database records the number of the last step it took; the code's version is
the highest number it has a file for, and a database of a higher number was written by newer code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources.abc import Traversable

_NAME = re.compile(r"(\d{3})_[a-z0-9_]+\.sql")


@dataclass(frozen=True, slots=True)
class Step:
    """One schema step: its number, its file's name and the SQL it runs."""

    number: int
    name: str
    sql: str


def steps(folder: Traversable, *, after: int = 0) -> tuple[Step, ...]:
    """The steps in ``folder``, in order; their numbers run on from ``after`` + 1 without a gap
    or a repeat (a :class:`ValueError` otherwise: a misnamed file is never skipped)."""
    found: list[Step] = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            named = _NAME.fullmatch(entry.name)
            if named is None:
                raise ValueError(f"{entry.name}: a schema step is named NNN_what.sql")
            found.append(Step(int(named[1]), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda step: step.number)
    for expected, step in enumerate(found, start=after + 1):
        if step.number != expected:
            raise ValueError(f"{step.name}: schema step {expected} was expected here")
    return tuple(found)


def version(all_steps: tuple[Step, ...], *, base: int) -> int:
    """The version the steps bring a database to: the last one's number, or ``base``."""
    return all_steps[-1].number if all_steps else base

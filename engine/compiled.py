"""The modules that run compiled to C, and the guard that keeps a stale build from running.

The rules, the views, their diff, the line clients' text, the room core that drives them and the
way out of a message (its text, each session's outbox) are where the server spends most of its
Python time a move. ``setup.py`` compiles them with mypyc
(from the same type-checked source, no other code) when the package is installed, and leaves
them as Python where it cannot (no C compiler): each is the same module either way, only faster
compiled.

A compiled module sits beside its source (``rules.cpython-311-x86_64-linux-gnu.so`` beside
``rules.py``) and Python imports it first. Once a source is edited after the build, that build
is stale: ``guard()`` then has every one of these modules imported from its source (all of them,
since compiled modules call each other directly, not through the imports), until the next build
(``make`` rebuilds on its own when a source changed). ``CAFE_PURE=1`` in the environment does
the same with a fresh build.

This module imports nothing of the engine: ``setup.py`` reads it before anything is built.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: the modules compiled, in the order they are given to mypyc: pure modules of ``engine`` and
#: ``protocol`` (no pydantic model defined, no asyncio; ``protocol.outgoing`` builds messages),
#: the room core of ``server.room`` (no I/O; it builds messages too) and its actor (an asyncio
#: task: mypyc's coroutines run on the event loop as Python's do), and the sessions' outboxes,
#: which every message to a member goes through (the transports derive from ``Session`` as
#: Python, which its class allows).
#: (Positions go to the bots' processes: their classes say how they are pickled, which a compiled
#: frozen dataclass does not on its own.)
MODULES = (
    "engine.board",
    "engine.cards",
    "engine.errors",
    "engine.notation",
    "engine.position",
    "engine.rules",
    "protocol.diff",
    "protocol.view",
    "protocol.outgoing",
    "protocol.text._common",
    "protocol.text.board",
    "protocol.text.events",
    "protocol.text.lines",
    "server.room.effects",
    "server.room.state",
    "server.room.publish",
    "server.room.members",
    "server.room.seats",
    "server.room.clock",
    "server.room.play",
    "server.room.votes",
    "server.room.door",
    "server.room.asks",
    "server.room.core",
    "server.room.actor",
    "server.session",
)

#: the folder that holds ``engine`` and ``protocol``
ROOT = Path(__file__).resolve().parent.parent


def source(module: str, root: Path = ROOT) -> Path:
    """The source file of ``module``."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def built(module: str, root: Path = ROOT) -> Path | None:
    """The compiled file of ``module`` for this interpreter, if there is one."""
    path = source(module, root)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = path.with_name(path.stem + suffix)
        if candidate.exists():
            return candidate
    return None


def state(modules: Sequence[str] = MODULES, root: Path = ROOT) -> str:
    """``"compiled"`` when every module has a build at least as new as its source, ``"stale"``
    when one is missing or older, ``"source"`` when none was built."""
    builds = [(source(name, root), built(name, root)) for name in modules]
    if all(b is None for _, b in builds):
        return "source"
    fresh = all(b is not None and b.stat().st_mtime >= s.stat().st_mtime for s, b in builds)
    return "compiled" if fresh else "stale"


class _FromSource(importlib.abc.MetaPathFinder):
    """Finds the listed modules' sources, ahead of the compiled files beside them."""

    def __init__(self, modules: Sequence[str], root: Path) -> None:
        self.modules = frozenset(modules)
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.modules:
            return None
        return importlib.util.spec_from_file_location(fullname, source(fullname, self.root))


def guard() -> None:
    """Have the listed modules imported from their sources if their build is stale, or if
    ``CAFE_PURE=1`` asks for them as Python (to profile them, or to test a changed source);
    before any of them is imported."""
    if any(isinstance(finder, _FromSource) for finder in sys.meta_path):
        return
    # only a checkout's sources change after their build: an installed package (no setup.py
    # beside it) is as it was installed, its files written in any order
    stale = (ROOT / "setup.py").is_file() and state() == "stale"
    if stale or os.environ.get("CAFE_PURE") == "1":
        sys.meta_path.insert(0, _FromSource(MODULES, ROOT))


def summary() -> str:
    """What runs, as ``make`` and the test run say it: the build's state, and whether
    ``CAFE_PURE=1`` runs a build as Python anyway."""
    now = state()
    return f"{now}, run as Python (CAFE_PURE=1)" if os.environ.get("CAFE_PURE") == "1" else now


def active() -> bool:
    """Whether the listed modules imported so far run compiled."""
    loaded = [sys.modules[name] for name in MODULES if name in sys.modules]
    return bool(loaded) and all(
        isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
        for module in loaded
    )

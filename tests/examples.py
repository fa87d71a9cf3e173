"""Running a module's docstring examples, compiled or not, and finding every module that has some."""

from __future__ import annotations

import ast
import doctest
import importlib.machinery
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from unittest import mock

from compiled import source

#: the folder that holds the packages
ROOT = Path(__file__).resolve().parent.parent
#: the packages whose modules' examples run (the tests' helpers hold examples too)
PACKAGES = ("compiled", "engine", "protocol", "server", "bots", "tests")


def run_examples(module: ModuleType) -> doctest.TestResults:
    """``doctest.testmod`` of ``module``; of its source when it runs compiled (compiled/__init__.py),
    since a compiled module keeps no docstrings to find examples in."""
    if isinstance(
        module.__spec__.loader if module.__spec__ else None, importlib.machinery.ExtensionFileLoader
    ):
        spec = importlib.util.spec_from_file_location(module.__name__, source(module.__name__))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        # (doctest finds a function's examples only in the module sys.modules holds under its name)
        with mock.patch.dict(sys.modules, {module.__name__: module}):
            return doctest.testmod(module)
    return doctest.testmod(module)


#: a line of a docstring that starts an example, as doctest reads it
_PROMPT = re.compile(r"^\s*>>>", re.MULTILINE)


def _has_examples(path: Path) -> bool:
    """Whether a docstring in the file (the module's, a class's or a function's) has a line that
    starts with ``>>>``."""
    kinds = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
    tree = ast.parse(path.read_text())
    return any(
        _PROMPT.search(ast.get_docstring(node, clean=False) or "")
        for node in ast.walk(tree)
        if isinstance(node, kinds)
    )


def modules_with_examples(root: Path = ROOT) -> list[str]:
    """The name of every module of ``PACKAGES`` under ``root`` with a docstring example, but the
    ``__main__`` ones (importing them runs them)."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if path.name != "__main__.py" and _has_examples(path):
                parts = path.relative_to(root).with_suffix("").parts
                found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found

"""Running a module's docstring examples, compiled or not."""

from __future__ import annotations

import doctest
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from unittest import mock

from compiled import source


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

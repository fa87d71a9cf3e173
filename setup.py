"""The package's compiled modules: everything else is in pyproject.toml.

The modules ``engine/compiled.py`` lists are compiled with mypyc when the package is installed
(``pip install .``, or ``pip install -e .`` beside the sources). Where that fails (no C compiler
or Python headers), the install goes on without them and the same modules run as Python.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


def _listed() -> list[str]:
    """The source files of the modules to compile (engine/compiled.py, read without importing
    the engine)."""
    spec = importlib.util.spec_from_file_location("_cafe_compiled", HERE / "engine" / "compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [str(module.source(name, HERE).relative_to(HERE)) for name in module.MODULES]


def _warn(what: str, error: BaseException) -> None:
    print(f"setup.py: {what} ({type(error).__name__}: {error}); the modules run as Python", file=sys.stderr)


class _Optional(build_ext):
    """Build what compiles, and nothing after the first that does not: the modules' shared library
    comes first, and a module without it would not import (engine/compiled.py has the modules
    of a checkout with a build missing imported from their sources)."""

    failed = False

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # a missing compiler fails here
            _warn("the compiled modules were not built", e)

    def build_extension(self, ext: Any) -> None:
        if self.failed:
            return
        try:
            super().build_extension(ext)
        except Exception as e:
            self.failed = True
            _warn(f"{ext.name} was not built, nor those after it", e)


def _extensions() -> list[Any]:
    try:
        from mypyc.build import mypycify

        # the settings of pyproject.toml's [tool.mypy] are for checking; here mypy only reads
        # types, in a build environment without the dependencies (pydantic's types are Any here)
        options = ["--config-file", os.devnull, "--ignore-missing-imports"]
        return list(
            mypycify(
                [*options, "--cache-dir", "build/native/mypy", *_listed()],
                opt_level="3",
                target_dir="build/native",
                group_name="cafe_compiled",
            )
        )
    except (Exception, SystemExit) as e:  # mypy not installed, or its compiler refused a module
        _warn("mypyc did not translate the modules", e)
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": _Optional})

"""The lowest version of a dependency that pyproject.toml allows: ``python tests/lowest.py websockets``.

Prints the version of the dependency's ``>=`` bound (``17.0`` for ``"websockets>=17.0,<18"``). A
dependency that is not listed, or listed without exactly one ``>=`` bound, is an error: it says
so and exits 1, so that ``make test-lowest`` never runs against a version it did not mean.

>>> lowest("websockets", ["pydantic>=2.7", "Websockets >= 17.0, <18 ; python_version >= '3.11'"])
'17.0'
>>> lowest("redis", ["redis<6"])
Traceback (most recent call last):
...
ValueError: redis: no lower bound (>=) in pyproject.toml's dependencies
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
#: a requirement's name, its extras and its versions, up to its environment marker (PEP 508)
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;]*)")
_AT_LEAST = re.compile(r">=\s*([0-9][0-9A-Za-z.+!-]*)")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lowest(name: str, dependencies: list[str]) -> str:
    """The version of ``name``'s one ``>=`` bound among ``dependencies`` (PEP 508 strings)."""
    bounds = []
    for dependency in dependencies:
        found = _REQUIREMENT.match(dependency)
        if found is not None and _normalized(found.group(1)) == _normalized(name):
            for part in found.group(2).split(","):
                bound = _AT_LEAST.fullmatch(part.strip())
                if bound is not None:
                    bounds.append(bound.group(1))
    if len(bounds) != 1:
        what = "no lower bound (>=)" if not bounds else f"{len(bounds)} lower bounds (>=)"
        raise ValueError(f"{name}: {what} in pyproject.toml's dependencies")
    return bounds[0]


def main(argv: list[str]) -> int:
    (name,) = argv
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    try:
        print(lowest(name, dependencies))
    except ValueError as e:
        print(f"tests/lowest.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""``tests/lowest.py``, which tells ``make test-lowest`` the websockets version to test against."""

from __future__ import annotations

import re

import pytest

from tests import lowest


def test_pyproject_gives_websockets_one_lower_bound(capsys: pytest.CaptureFixture[str]) -> None:
    """pyproject.toml bounds websockets from below exactly once: the script prints that version."""
    assert lowest.main(["websockets"]) == 0
    assert re.fullmatch(r"[0-9]+(\.[0-9]+)*\n", capsys.readouterr().out)


@pytest.mark.parametrize(
    ("dependencies", "error"),
    [
        (["websockets"], "no lower bound"),
        (["websockets>17"], "no lower bound"),
        (["websocket>=1.0"], "no lower bound"),
        (["websockets>=14", "websockets>=15; sys_platform == 'win32'"], "2 lower bounds"),
    ],
)
def test_no_single_lower_bound_is_an_error(dependencies: list[str], error: str) -> None:
    """A missing bound, a strict one, another package's or two bounds stop the run with a reason."""
    with pytest.raises(ValueError, match=error):
        lowest.lowest("websockets", dependencies)


def test_a_missing_bound_exits_1_saying_why(capsys: pytest.CaptureFixture[str]) -> None:
    """Asked for a dependency pyproject.toml does not bound, the script prints nothing and exits 1."""
    assert lowest.main(["no-such-package"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no-such-package: no lower bound (>=)" in captured.err

"""Log lines: text a client sent can never forge a line of the log."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator

import pytest
import structlog

from server import logs

FORGED = 'ann\n{"event": "hello", "player": "root"}\r* x\u2028y\u001b[2J\u0085z'


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    yield
    logs.configure("warning", "console")


def test_json_log_keeps_person_text_on_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    """In JSON, a field with line breaks and escapes is one line that decodes to the same text."""
    logs.configure("info", "json")
    structlog.get_logger("test").warning("chat", text=FORGED)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["text"] == FORGED


def test_console_log_escapes_controls(capsys: pytest.CaptureFixture[str]) -> None:
    """On the console, line breaks, escapes and separators in a field are written as escapes."""
    logs.configure("info", "console")
    structlog.get_logger("test").warning("chat", text=FORGED)
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "\x1b" not in err and "\r" not in err
    assert "\\u000a" in err and "\\u2028" in err and "\\u001b[2J" in err


def test_a_line_goes_to_the_stderr_of_the_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Logging set up while one stderr was in place writes to the one in place now, and never to
    a stream that was swapped out and closed since (a server started inside a test runner)."""
    before = io.StringIO()
    monkeypatch.setattr(sys, "stderr", before)
    logs.configure("info", "json")
    before.close()
    now = io.StringIO()
    monkeypatch.setattr(sys, "stderr", now)
    structlog.get_logger("test").warning("after_the_swap")
    logging.getLogger("lib").warning("from a library")
    written = now.getvalue()
    assert "after_the_swap" in written and "from a library" in written


def test_a_librarys_line_has_one_event_name_and_its_text_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a library logs (psycopg's pool waiting for PostgreSQL, say) is the event ``library``,
    with its text in ``message`` and its logger in ``logger``: its text is no event name."""
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    logs.configure("info", "json")
    logging.getLogger("psycopg.pool").warning("error connecting in %r: connection failed", "cafe-records")
    (line,) = [json.loads(text) for text in out.getvalue().splitlines()]
    assert (line["event"], line["logger"], line["level"]) == ("library", "psycopg.pool", "warning")
    assert line["message"] == "error connecting in 'cafe-records': connection failed"

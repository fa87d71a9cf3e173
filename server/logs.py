"""structlog set-up: one JSON object a line (or readable console lines), with context fields."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

from protocol.sanitize import BIDI_CONTROLS, LINE_BREAKS

# everything that could end a console log line early, or steer the terminal that shows it
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f" + BIDI_CONTROLS + LINE_BREAKS + "]")


def escape_controls(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Write control and line-breaking characters in string fields as ``\\uXXXX`` escapes, so that
    text a client sent cannot forge a log line (the JSON renderer escapes them itself). A
    traceback keeps its lines: it is the server's own text."""
    for key, value in event.items():
        if key != "exception" and isinstance(value, str) and _UNSAFE.search(value):
            event[key] = _UNSAFE.sub(lambda c: f"\\u{ord(c[0]):04x}", value)
    return event


def library_event(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """A line a library logged through the standard library (psycopg's pool, websockets, asyncio):
    its text is no event name. The event is ``library``, the text ``message``, and ``logger`` the
    library's logger, so that whoever reads the log by event finds one name for all of them."""
    record = event.get("_record")
    event["message"] = event.pop("event", "")
    event["event"] = "library"
    if isinstance(record, logging.LogRecord):
        event["logger"] = record.name
    return event


_HANDLER = "cafe"


class _Stderr:
    """Whatever ``sys.stderr`` is when a line is written, not when logging was set up: a line
    never goes to a stream that was swapped out and closed since (a test runner's capture)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure(level: str = "info", fmt: str = "json") -> None:
    renderer: list[structlog.types.Processor] = (
        [structlog.processors.JSONRenderer()]
        if fmt == "json"
        else [escape_controls, structlog.dev.ConsoleRenderer(colors=False)]
    )
    shared: list[structlog.types.Processor] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
    ]
    # what libraries log through the standard library (websockets, asyncio: a task that failed)
    # comes out in the same form, a traceback inside one JSON line rather than lines of its own
    handler = logging.StreamHandler(_Stderr())
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[library_event, *shared],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *renderer],
        )
    )
    handler.set_name(_HANDLER)
    root = logging.getLogger()
    # a handler of an earlier configure() goes; handlers others added (a test runner's) stay
    root.handlers[:] = [h for h in root.handlers if h.get_name() != _HANDLER] + [handler]
    root.setLevel(max(logging.getLevelNamesMapping()[level.upper()], logging.WARNING))  # not their chatter
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, *shared, *renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(file=_Stderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )

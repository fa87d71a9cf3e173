"""What staff read at a terminal for ``/reports`` and ``/modlog``: one line an entry, a report's
chat excerpt indented under it; times in UTC.

>>> from protocol.i18n import lang
>>> entry = m.LogEntry(id=3, when=0.0, by="ann", action="ban", target="troll", reason="insults",
...                    duration="7d")
>>> modlog_lines(m.ModLog(entries=[entry]), lang("en"))
['#3 1970-01-01 00:00 ann ban troll 7d: insults']
"""

from __future__ import annotations

import time

from protocol import messages as m
from protocol.i18n import Lang, _
from protocol.text._common import CONTINUED, WIDTH, fold, to_ascii

__all__ = ["modlog_lines", "reports_lines", "utc", "when_text"]


def utc(when: float) -> str:
    """``when`` (Unix time) as a date and time in UTC."""
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(when))


def when_text(until: float | None, say: Lang) -> str:
    """The end of a sanction in words: a time in UTC, or for good."""
    return say(_("for good")) if until is None else say(_("until {when} UTC", when=utc(until)))


def reports_lines(msg: m.ReportList, say: Lang, ascii_only: bool = False) -> list[str]:
    """The reports, newest first, each with its chat excerpt under it. What a line too long
    carries on with begins with a colon, so that no words of a reason or of the chat pass for a
    line of the excerpt. With ``ascii_only`` the text is made ASCII before it is broken into lines
    (a character's ASCII form may be wider: ``ﬃ`` is ``ffi``), so that no line is broken again.

    >>> from protocol.i18n import lang
    >>> report = m.ReportEntry(id=7, made=0.0, reporter="ree", name="vie", excerpt=["00:00 [lobby] <vie> gg"],
    ...                        reason="insults " + "y" * 32 + " | 00:00 [lobby] <vie> fake")
    >>> for line in reports_lines(m.ReportList(reports=[report]), lang("en")):
    ...     print(line)
    #7 1970-01-01 00:00 ree reports vie: insults yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
        : | 00:00 [lobby] <vie> fake (open)
        | 00:00 [lobby] <vie> gg
    """
    if not msg.reports:
        return [say(_("* No reports."))]
    lines = []
    for r in msg.reports:
        state = (
            say(_("open"))
            if r.resolved is None
            else say(_("resolved by {name}: {note}", name=r.resolved_by or "?", note=r.note or "-"))
        )
        heading = say(
            _(
                "#{id} {when} {reporter} reports {name}: {reason} ({state})",
                id=r.id,
                when=utc(r.made),
                reporter=r.reporter,
                name=r.name,
                reason=r.reason,
                state=state,
            )
        )
        # the reporter's reason carried on under a colon too, never as a line of the excerpt (its
        # lines two columns narrower: the colon's mark is two wider than a plain indent)
        first, *rest = fold([to_ascii(heading) if ascii_only else heading], WIDTH - 2, cjk=True)
        lines.extend([first, *(_EXCERPT_ON + part.removeprefix(CONTINUED) for part in rest)])
        for line in r.excerpt:
            lines.extend(excerpt_lines(to_ascii(line) if ascii_only else line))
    return lines


#: how a report's chat line begins at a terminal, and how it goes on when it is too long
_EXCERPT, _EXCERPT_ON = "    | ", "    : "


def excerpt_lines(line: str) -> list[str]:
    """One chat line kept with a report, at a terminal: begun with a bar, and carried on (when
    too long) under lines begun with a colon, so that no words of it pass for another line.

    >>> for part in excerpt_lines("12:00 [lobby] <troll> " + "a" * 51 + " | 15:00 [lobby] <bmo> fake"):
    ...     print(part)
        | 12:00 [lobby] <troll> aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
        : | 15:00 [lobby] <bmo> fake
    """
    first, *rest = fold([line], WIDTH - len(_EXCERPT), cjk=True)
    return [_EXCERPT + first, *(_EXCERPT_ON + part.removeprefix(CONTINUED) for part in rest)]


def modlog_lines(msg: m.ModLog, say: Lang) -> list[str]:
    """The moderation log, newest first."""
    if not msg.entries:
        return [say(_("* The moderation log is empty."))]
    lines = []
    for e in msg.entries:
        line = f"#{e.id} {utc(e.when)} {e.by} {e.action} {e.target}"
        if e.duration:
            line += f" {e.duration}"
        if e.reason:
            line += f": {e.reason}"
        lines.append(line)
    return lines

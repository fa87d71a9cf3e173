"""Text for line clients (telnet, nc), and the readers of that text, in one place.

- ``board``: the room as a picture (the café, the bar, the scores, the hand);
- ``events``: one line for a move or an engine event;
- ``lines``: what a line connection reads for each server message, the prompt and the greeting;
- ``read``: reading those lines back, for programs on the line endpoint (bots, the load
  generator); a line and its reader change together, and ``tests/protocol/test_text_read.py``
  renders and reads back each one.

Every line fits 80 columns. ``ascii_only=True`` gives the same text in ASCII only, for terminals
that cannot show anything else; ``to_ascii`` folds any text (a person's name, a chat line) to ASCII.

>>> render_event({"type": "bar", "player": "bob", "card": "ITm", "place": 3, "points": 3})
'bob sends ITm to the bar (place 3): +3'
"""

from protocol.text._common import WIDTH, display_width, to_ascii
from protocol.text.board import render_board, render_hand, render_scores
from protocol.text.events import render_event, render_played
from protocol.text.lines import LineText

__all__ = [
    "WIDTH",
    "LineText",
    "display_width",
    "render_board",
    "render_event",
    "render_hand",
    "render_played",
    "render_scores",
    "to_ascii",
]

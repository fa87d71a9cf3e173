"""``cafe-bot``: a bot that plays on a Café International server through its public endpoints.

Over WebSocket (``--url ws://HOST:8765/ws``, ``bots.client.ws``) the bot speaks the JSON protocol
of ``protocol.messages``: ``hello`` (the server answers ``welcome`` with a resume token), ``join``
the room, then it keeps the room's view up to date from the ``snapshot`` and each ``patch`` and,
whenever the view says it is to move, decides from that view alone and sends ``move``. Every
strategy works here (``first``, ``random``, ``greedy``, ``strong``).

Over the line endpoint (``--line HOST:2323``, ``bots.client.line``) the server writes text for
people. The bot answers the name prompt, types ``/join ROOM``, and on its turn types ``/moves`` and
plays one of the moves listed. The text does not carry the whole game in a form a program can
read back, so only the strategies that decide from the list of legal moves work there: ``first``
and ``random``.

The bot reconnects with its resume token when the connection drops (with a bounded, growing
pause between attempts, ``bots.client.runner``), and takes its seat back. ``--start N`` makes it
start the game once N seats are taken, ``--games N`` makes it leave after N games (0: keep
playing). The command line is ``bots.client.cli``.

    cafe-bot --url ws://127.0.0.1:8765/ws --room cafe --strategy strong --name robo --budget 0.5
    cafe-bot --line 127.0.0.1:2323 --room cafe --strategy random --name telly
"""

from bots.client.cli import main, run_bot
from bots.client.line import LineBot
from bots.client.runner import (
    LINE_STRATEGIES,
    STRATEGIES,
    BotError,
    BotSettings,
    FirstStrategy,
    GameResult,
    ServerUnreachable,
    make_strategy,
)
from bots.client.ws import WsBot, bot_view_from_room
from protocol.text.read import parse_move_list

__all__ = [
    "LINE_STRATEGIES",
    "STRATEGIES",
    "BotError",
    "BotSettings",
    "FirstStrategy",
    "GameResult",
    "LineBot",
    "ServerUnreachable",
    "WsBot",
    "bot_view_from_room",
    "main",
    "make_strategy",
    "parse_move_list",
    "run_bot",
]

"""Rooms: a pure core that decides (:mod:`server.room.core`) inside an asyncio actor that carries
out (:mod:`server.room.actor`).

========================  ===============================================================
``world``                 what a core knows of the world: members, bot names, settings
``items``                 what an inbox holds beside client messages
``state``                 a seat and a game
``effects``               what the core asks for: messages, timers, bots, log entries
``publish``               what each member was last sent, and its patches
``members``               who is in the room; the effects gathered for them
``seats``                 the seats, who plays each, the host
``clock``                 the turn's timer or bot, resume windows
``sight``                 what members see: the options shown, the views, rated or not
``start``                 whether a game may start: the checks of ``start``
``play``                  the game: its options, start, moves, end, and its sight
``votes``                 votes on seats: ``/remove`` and ``/join N``
``door``                  entering, leaving, sitting down, coming back
``asks``                  what a room answers without changing: moves, hints, ``/info``
``core``                  ``RoomCore``: the state machine owning those parts; no I/O
``actor``                 ``Room``: the inbox, the log writes, timers and bot threads
========================  ===============================================================
"""

from server.room.actor import Room, RoomHost
from server.room.core import RoomCore, not_invited
from server.room.items import Enter, Expired, Leave, Returned
from server.room.start import too_many_bot_games
from server.room.state import Seat
from server.room.world import BotNameList, BotNames, Member, RoomSettings

__all__ = [
    "BotNameList",
    "BotNames",
    "Enter",
    "Expired",
    "Leave",
    "Member",
    "Returned",
    "Room",
    "RoomCore",
    "RoomHost",
    "RoomSettings",
    "Seat",
    "not_invited",
    "too_many_bot_games",
]

"""Protocol errors and the catalogue of every error code a client can receive.

Rule codes (docs/rules.md section 13) come from the engine; protocol and server codes are listed here.
Each code keeps its meaning; new codes may be added.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from engine.errors import RULE_ERROR_CODES
from protocol.i18n import _
from protocol.limits import LIST_MAX
from protocol.names import NAME_RULE, ROOM_RULE

PROTOCOL_ERROR_CODES: Final[dict[str, str]] = {
    "bad_json": "the frame is not a JSON object",
    "unknown_type": "the message's 'type' is missing or not a known message type",
    "bad_field": "a field is missing, of the wrong type, out of range or not expected",
    "unknown_command": "a chat command that does not exist (the answer names the closest one)",
    "bad_arguments": "a chat command with missing or wrong arguments",
    "too_large": "a line longer than the server accepts (the connection then closes)",
    "rate_limited": "too many messages too fast",
    "bad_option": "an option's value that is not allowed",
    "empty_message": "a chat message with nothing left once control characters are removed",
    "bad_utf8": "a line that is not valid UTF-8",
    "bad_language": "a language the server does not speak (it speaks en and de)",
}

SERVER_ERROR_CODES: Final[dict[str, str]] = {
    "hello_first": "the first message of a connection must be hello",
    "already_welcome": "hello was already accepted on this connection",
    "bad_name": f"a name must be {NAME_RULE}",
    "name_taken": "someone connected (or a seat held for them) has that name, or one that looks like it",
    "bad_token": "the resume token is unknown or has expired",
    "not_in_room": "the command needs you to be in a room",
    "bad_room": f"a room name must be {ROOM_RULE}",
    "room_full": "all four seats are taken",
    "already_seated": "you already have a seat in this room",
    "not_seated": "the command needs a seat in this room's game",
    "game_running": "the game has started; seats and options are fixed until it ends",
    "no_game": "no game is running in this room",
    "not_enough_players": "a game needs 2 to 4 seated players",
    "too_many_bot_games": "the player has as many games against the server's bots running as allowed",
    "no_such_bot": "no bot of that name sits in this room",
    "too_many_rooms": "the server holds its maximum number of rooms",
    "server_full": "the server holds its maximum number of connections",
    "shutting_down": "the server is stopping",
    "unavailable": "the game data (log, names, rooms) cannot be reached just now; nothing changed, try again",
    "not_in_lobby": "the command works only in the lobby (/leave the room first)",
    "weak_password": "a new password has 8 to 200 characters, no space at either end, no tab, control or"
    " invisible character",
    "name_registered": "the name, or one that looks like it, belongs to a registered account (log in with its"
    " password)",
    "name_reserved": "the name, or one that looks like it, is kept for the server, its staff and its bots",
    "bad_password": "the password is not the account's",
    "too_many_attempts": "too many failed logins of the name or address; the message says how long to wait",
    "not_registered": "the command needs a registered account (/register first)",
    "no_such_player": "no account or rated player of that name",
    "not_connected": "nobody of that name is connected (the message says whether the name exists)",
    "no_reply": "nobody has told you anything to reply to",
    "bad_target": "the command cannot name yourself",
    "list_full": f"your friends or mute list holds as many names as it may ({LIST_MAX} each)",
    "not_host": "only the room's host may do that (the option host is on)",
    "no_vote": "no vote is running here that you may answer",
    "vote_running": "a vote is already running in this room",
    "bad_seat": "no such seat in this game, or its player is out of the game",
    "seat_taken": "the seat is played by someone connected, or by one of the server's bots, or is a"
    " tournament player's",
    "no_voters": "nobody seated is connected to accept you into the seat",
    "voted_out": "you were voted out of (or replaced in) this game; you may watch it",
    "not_invited": (
        "the room is private: only its guests (invited by someone in it, or in it when it became private) "
        "and its players may enter"
    ),
    "too_soon": "the player has not had the turn for a minute yet, and is connected",
    "no_hints": "hints are for practice and casual games, not for a rated one",
    "no_such_game": "no game of that id that you may read",
    "not_finished": "the game is still running: only a finished game is analysed",
    "analysis_busy": "the server's queue of analyses is full; try again later",
    "analysis_pending": "an analysis you asked for still waits (one at a time; three an address)",
    "too_many_analyses": "you (or your address) asked for as many new analyses this hour as allowed",
    "no_such_tournament": "no tournament of that name",
    "tournament_exists": "a tournament of that name is upcoming or running",
    "tournament_closed": "the tournament takes no more players now (it is over, or its last round or minute"
    " runs)",
    "not_entered": "you are not in that tournament",
    "not_organizer": "only the tournament's creator (or staff) may close it",
    "too_many_tournaments": "as many tournaments are upcoming or running as allowed (yours, your"
    " address's, or in all)",
    "tournament_full": "the tournament has as many players as it takes",
    "not_staff": "the command is for the server's staff (moderators and admins), or for admins only",
    "staff_protected": "a moderator cannot act on staff, nor an admin on another admin",
    "bad_duration": "a duration is minutes, hours or days (30m, 2h, 7d), or perm",
    "banned": "the name or address is banned; the message says why and until when",
    "kicked": "the name was kicked by staff a moment ago; the message says when it may come back",
    "silenced": "you are silenced (no chat, tells or invitations); the message says until when",
    "no_such_report": "no open report of that id",
    "no_such_room": "no room of that name",
    "already_playing": "you have a seat in a running game, or are in a tournament: play or leave it first",
    "queue_full": "as many people are seeking a game as the server allows; try again shortly",
    "not_seeking": "you are not seeking a game",
    "internal": "the server failed to handle the message (it is logged)",
}

ERROR_CODES: Final[dict[str, str]] = {
    **{code: "a rule of the game refused the move (docs/rules.md section 13)" for code in RULE_ERROR_CODES},
    **PROTOCOL_ERROR_CODES,
    **SERVER_ERROR_CODES,
}


#: what a client hears (code ``unavailable``) whenever its answer needs the game log, the names or
#: another node, and they cannot be reached just now: one sentence for one condition
UNAVAILABLE: Final = _("The game data is out of reach; nothing changed, try again.")


class ProtocolError(ValueError):
    """A client message the server cannot accept, with a stable ``code`` and a sentence.

    ``id`` is the client's message id when it could be read, so the answer can echo it."""

    def __init__(self, code: str, message: str, id: int | str | None = None) -> None:
        super().__init__(message)
        assert code in ERROR_CODES, code
        self.code = code
        self.message = message
        self.id = id


class Close(IntEnum):
    """The WebSocket close codes the server sends (RFC 6455, section 7.4.1); a line client is told
    the same reasons in a line before its connection ends."""

    #: the client said /quit
    NORMAL = 1000
    #: the server is stopping
    GOING_AWAY = 1001
    #: the client broke a rule: flooding, no hello in time, a line too long, or replaced by a
    #: newer connection of the same name; or the staff kicked or banned its player
    POLICY = 1008
    #: try again later: the server is full, the address has its share, or the client fell behind
    TRY_AGAIN = 1013

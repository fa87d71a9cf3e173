"""Chat commands: the line a person types, turned into the same client messages a program sends.

``parse_command`` reads one line: plain text is chat, a line starting with ``/`` is a command
(case-insensitive name, arguments split on whitespace). Commands that only show something
(``/board``, ``/hand``, ``/help``...) become a ``ShowRequest`` that the server answers from the
room's current view; ``/quit`` becomes ``Quit`` for the line client. The help texts live here,
once, in ``COMMANDS``; ``help_text`` renders them for every client.

>>> parse_command("/play frf@fr1s ESm@ES1e", id=3)
PlayMove(id=3, type='move', move='frf@fr1s ESm@ES1e')
>>> parse_command("/BAR ITm").move
'ITm@bar'
>>> parse_command("hello all")
Say(id=None, type='say', text='hello all')
>>> parse_command("/jion cafe")
Traceback (most recent call last):
...
protocol.errors.ProtocolError: Unknown command /jion — did you mean /join? Usage: /join [ROOM or N]
"""

from __future__ import annotations

import difflib
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple, TypeAlias, TypeVar, cast, get_args

from pydantic import BaseModel, ValidationError

from protocol import options
from protocol.errors import ERROR_CODES, ProtocolError
from protocol.i18n import Lang, Msg, _, _n, lazy
from protocol.limits import TOURNAMENT_AHEAD_MINUTES
from protocol.messages import (
    DURATION_PATTERN,
    DURATION_RULE,
    AddBot,
    Analyse,
    Announce,
    ChangePassword,
    ClientId,
    ClientMessage,
    CloseRoom,
    EnterRoom,
    GetFriends,
    GetHint,
    GetLegalMoves,
    GetModLog,
    Invite,
    Join,
    LeaveGame,
    LeaveRoom,
    ListEdit,
    ListReports,
    ListRooms,
    ListTournaments,
    Moderate,
    Nick,
    Ping,
    PlayMove,
    Register,
    RemoveBot,
    ReportPlayer,
    Reset,
    ResolveReport,
    Resync,
    Say,
    Seek,
    SetLang,
    SetOption,
    SetRole,
    Start,
    Strategy,
    Tell,
    TellReply,
    TournamentRequest,
    Unregister,
    Unseek,
    VoteAnswer,
    VoteRemove,
    Watch,
    WhereIs,
    Who,
)
from protocol.names import ROOM_RULE, is_room_name
from protocol.text._common import to_ascii
from protocol.validation import field_problem, refusal_text

__all__ = [
    "ALIASES",
    "COMMANDS",
    "AsciiMode",
    "AskSecret",
    "CommandInfo",
    "Quit",
    "ShowRequest",
    "help_text",
    "parse_command",
    "parse_terminal_command",
]

#: the longest leaderboard ``/top`` (and ``GET /api/leaderboard``) shows
TOP_MOST = 100

ShowWhat = Literal["board", "hand", "score", "help", "history", "rating", "top", "finger", "info"]
SecretWhat = Literal["register", "password", "unregister"]


@dataclass(frozen=True, slots=True)
class ShowRequest:
    """A request to be shown something; the server answers it from the room's current view
    with a ``text`` message (``topic`` names the command for ``/help COMMAND``)."""

    what: ShowWhat
    topic: str | None = None
    #: the id of the command message that asked, echoed by the answer
    id: ClientId = None


@dataclass(frozen=True, slots=True)
class Quit:
    """``/quit``: the line client closes the connection."""


@dataclass(frozen=True, slots=True)
class AskSecret:
    """``/register``, ``/password`` or ``/unregister`` typed without passwords: the line endpoint
    asks for them with the terminal's echo off. A program sends the message itself instead."""

    what: SecretWhat
    id: ClientId = None


@dataclass(frozen=True, slots=True)
class AsciiMode:
    """``/ascii on/off``: the line client asks for text in plain ASCII, or for UTF-8 again. Only the
    line endpoint writes text; elsewhere the command changes nothing."""

    on: bool


class CommandInfo(NamedTuple):
    """The help of one command: its usage line (marked for translation where its placeholders are
    words: ``/join [ROOM or N]``), a summary for the list, the longer help, and examples (each of
    which parses; one that says something is marked for translation too)."""

    usage: str
    summary: str
    details: str
    examples: tuple[str, ...]


#: Every command, by name, in the order the help list shows them.
COMMANDS: Final[dict[str, CommandInfo]] = {
    # rooms and people
    "rooms": CommandInfo(
        "/rooms", _("list the rooms"), _("Lists every room: its state, seats and spectators."), ("/rooms",)
    ),
    "room": CommandInfo(
        "/room NAME",
        _("enter room NAME to watch (a new name opens a room)"),
        _(
            "Enters the room as a spectator, leaving the room you were in. A room that does\n"
            "not exist yet is opened. Use /join to take a seat there."
        ),
        ("/room cafe",),
    ),
    "watch": CommandInfo(
        _("/watch ROOM"),
        _("watch ROOM as a spectator"),
        _("The same as /room: enters ROOM as a spectator. You see the board and the\nscores, no hands."),
        ("/watch cafe",),
    ),
    "leave": CommandInfo(
        "/leave",
        _("leave the room for the lobby"),
        _(
            "Leaves the room for the lobby. Before the start this gives up your seat; in a\n"
            "running game a bot plays your seat from then on, or, with the option absent\n"
            "drop, you leave the game (ranked as eliminated). With nobody in the room, its\n"
            "bots wait for someone to come."
        ),
        ("/leave",),
    ),
    "who": CommandInfo(
        "/who",
        _("list who is connected, and where"),
        _("Lists everyone connected and the room each is in."),
        ("/who",),
    ),
    "tell": CommandInfo(
        "/tell NAME TEXT",
        _("say TEXT to NAME alone, wherever they are"),
        _(
            "Says TEXT to NAME alone, in any room or the lobby. Refused when nobody of\n"
            "that name is connected. /reply answers the last tell you got."
        ),
        (_("/tell ann good game!"),),
    ),
    "reply": CommandInfo(
        "/reply TEXT",
        _("answer the last tell you got"),
        _("Says TEXT to the last person who told you something with /tell."),
        (_("/reply thanks!"),),
    ),
    "whereis": CommandInfo(
        "/whereis NAME",
        _("say which room NAME is in"),
        _("Says which room NAME is in, or that they are in the lobby."),
        ("/whereis ann",),
    ),
    "mute": CommandInfo(
        "/mute NAME",
        _("never see NAME's chat or tells"),
        _(
            "From now on NAME's chat and tells never reach you; NAME is not told.\n"
            "/unmute NAME undoes it. A registered name keeps the list."
        ),
        ("/mute bob",),
    ),
    "unmute": CommandInfo(
        "/unmute NAME", _("see NAME's chat and tells again"), _("Undoes /mute NAME."), ("/unmute bob",)
    ),
    "friend": CommandInfo(
        "/friend NAME",
        _("add NAME to your friends"),
        _(
            "Adds NAME to your friends: you get a notice when they connect or start a\n"
            "game, and /friends shows where they are."
        ),
        ("/friend ann",),
    ),
    "unfriend": CommandInfo(
        "/unfriend NAME",
        _("take NAME off your friends"),
        _("Takes NAME off your friends."),
        ("/unfriend ann",),
    ),
    "friends": CommandInfo(
        "/friends",
        _("list your friends and where they are"),
        _("Lists your friends, who is online, and where."),
        ("/friends",),
    ),
    "nick": CommandInfo(
        "/nick NAME",
        _("change your name"),
        _(
            "Changes your name: 1 to 16 letters A to Z (no accents), digits, '_' or '-',\n"
            "starting with a letter. Only in the lobby (/leave the room first). You get a\n"
            "new resume token."
        ),
        ("/nick ann",),
    ),
    "say": CommandInfo(
        "/say TEXT",
        _("chat to the room (plain text does the same)"),
        _(
            "Says TEXT to everyone in the room. A line that does not start with / is said\n"
            "as it is; /say is for text that starts with /."
        ),
        (_("/say good game!"), _("/say /play is how you move")),
    ),
    # seats and the game
    "join": CommandInfo(
        _("/join [ROOM or N]"),
        _("take a seat here, or in ROOM; /join N: take over seat N"),
        _(
            "Takes a seat in the room you are in, or enters ROOM first. A game has 2 to 4\n"
            "seats, taken before it starts.\n"
            "While a game runs, /join N (1 to 4) asks to take over seat N of a player who\n"
            "is gone (a bot plays it, or it waits for them): the seated players answer\n"
            "with /accept or /refuse, the first answer of a majority decides, and the vote\n"
            "ends after a minute. Your own seat you take back at once. (A room called 1\n"
            "to 4: /room 1, then /join.)"
        ),
        ("/join", "/join cafe", "/join 2"),
    ),
    "invite": CommandInfo(
        "/invite NAME",
        _("invite NAME to this room"),
        _(
            "Sends NAME an invitation to the room you are in: the way into a private\n"
            "room, which only those invited by someone in it and its players enter."
        ),
        ("/invite ann",),
    ),
    "info": CommandInfo(
        "/info",
        _("the game's options, clock, host, whether it is rated"),
        _("Shows the room's options, whether its game is rated, the clock and the host."),
        ("/info",),
    ),
    "reset": CommandInfo(
        "/reset",
        _("after a game: a fresh board, the same seats"),
        _("After a game has ended, clears the board for a new game with the same seats."),
        ("/reset",),
    ),
    "remove": CommandInfo(
        "/remove NAME",
        _("vote to take NAME out of the game"),
        _(
            "Asks the other seated players to take NAME out of the running game: NAME is\n"
            "gone, or has had the turn for a minute without moving. A majority decides\n"
            "(one other player alone); the seat then goes by the option absent. A vote\n"
            "ends after a minute."
        ),
        ("/remove bob",),
    ),
    "accept": CommandInfo(
        "/accept",
        _("vote yes in the room's vote"),
        _(
            "Answers yes to the vote running in your room: /remove NAME, or /join N (a\n"
            "player asks to take over a seat)."
        ),
        ("/accept",),
    ),
    "refuse": CommandInfo(
        "/refuse",
        _("vote no in the room's vote"),
        _("Answers no to the vote running in your room: /remove NAME, or /join N."),
        ("/refuse",),
    ),
    "stand": CommandInfo(
        "/stand",
        _("give up your seat before the start; stay to watch"),
        _(
            "Gives up your seat before the game starts; you stay in the room as a spectator.\n"
            "During a game only with the option absent drop: you leave the game (ranked\n"
            "as eliminated) and watch it to the end."
        ),
        ("/stand",),
    ),
    "option": CommandInfo(
        _("/option KEY VALUE"),
        _("set a room option (seed, clock, host, private...)"),
        _(
            "Sets a room option before the start:\n"
            "  seed N, seed random       the shuffle's seed (the same seed, the same game)\n"
            "  stammtisch on, off        3 or 4 guests may complete a table of one gender\n"
            "  clock SECONDS, clock off  seconds per turn (5 to 3600), or no clock; when\n"
            "                            time runs out, the server plays for you\n"
            "  absent bot, absent drop   when a lost player does not come back in time:\n"
            "                            a bot plays the seat (the default), or the\n"
            "                            player leaves the game, ranked as eliminated;\n"
            "                            with drop, /leave and /stand during the game\n"
            "                            leave it at once too\n"
            "  host on, off              on: only the host (the first seated person) sets\n"
            "                            options, seats bots and starts; off: any player\n"
            "  private on, off           on: /rooms does not list the room, and only those\n"
            "                            invited (/invite) and its players enter\n"
            "  drawseat on, off          on: the seats are shuffled at the start\n"
            "  start N, start random     seat N (1 to 4) begins, or the shuffle draws\n"
            "A game keeps its options to the end, across a server restart; host and\n"
            "private may change during a game."
        ),
        (
            "/option seed 42",
            "/option host off",
            "/option private on",
            "/option drawseat on",
            "/option start 2",
            "/option stammtisch on",
            "/option clock 60",
            "/option clock off",
            "/option absent drop",
        ),
    ),
    "addbot": CommandInfo(
        _("/addbot [STRATEGY]"),
        _("seat a bot: random, greedy (the default) or strong"),
        _(
            "Seats a bot player in this room before the start. STRATEGY is random, greedy\n"
            "(the default) or strong."
        ),
        ("/addbot", "/addbot strong"),
    ),
    "removebot": CommandInfo(
        "/removebot NAME",
        _("take the bot NAME off its seat"),
        _("Takes the bot called NAME (as /addbot named it) off its seat before the start."),
        ("/removebot greedy-bot1",),
    ),
    "start": CommandInfo(
        "/start",
        _("start the game (2 to 4 seated players)"),
        _(
            "Starts the game with the seated players, 2 to 4. Seats and options are fixed\n"
            "until the game ends."
        ),
        ("/start",),
    ),
    # playing
    "play": CommandInfo(
        _("/play MOVE"),
        _("seat one or two guests, e.g. /play FRf@FR1s (alias /p)"),
        _(
            "Plays a move in the notation CARD@CHAIR. Seat one or two guests, in order:\n"
            "  /play FRf@FR1s ESm@ES1e\n"
            "A joker between two nations names its nation: /play Jf=FR@FR1s. A card is a\n"
            "nation and m or f (FRf, ESm) or a joker (Jm, Jf); a chair is a table and a\n"
            "side n, e, s, w (FR1s). /play also takes FRf@bar and swap FRf@FR1s. Alias: /p."
        ),
        ("/play FRf@FR1s", "/play FRf@FR1s ESm@ES1e", "/play Jf=FR@FR1s", "/p ITm@IT1n"),
    ),
    "bar": CommandInfo(
        _("/bar CARD"),
        _("put one guest on the next bar place"),
        _(
            "Puts CARD from your hand on the next free bar place and scores its value: +1 to\n"
            "+5 for the first five places, then -2, -4, ... A joker goes to the bar only\n"
            "when nothing else is possible."
        ),
        ("/bar ITm",),
    ),
    "swap": CommandInfo(
        _("/swap CARD@CHAIR"),
        _("take back the joker on CHAIR, seating CARD"),
        _(
            "Exchanges the joker on CHAIR for CARD from your hand (same gender, the joker's\n"
            "nation); the joker goes to your hand. No points, no drawing."
        ),
        ("/swap FRf@FR1s",),
    ),
    "moves": CommandInfo(
        "/moves", _("list your legal moves"), _("Lists every legal move you have now."), ("/moves",)
    ),
    "hint": CommandInfo(
        "/hint",
        _("suggest a move"),
        _(
            "Suggests a move and the points it scores, in a practice or casual game;\n"
            "a rated game gives no hints."
        ),
        ("/hint",),
    ),
    # looking
    "board": CommandInfo(
        "/board",
        _("show the cafe: tables, bar, scores, whose turn (alias /b)"),
        _(
            "Shows the cafe: the tables with their guests, the bar, the scores, your hand\n"
            "and whose turn it is. Alias: /b."
        ),
        ("/board", "/b"),
    ),
    "hand": CommandInfo("/hand", _("show your hand"), _("Shows the cards in your hand."), ("/hand",)),
    "score": CommandInfo(
        "/score", _("show the scores"), _("Shows every player's score and hand size."), ("/score",)
    ),
    "history": CommandInfo(
        "/history [NAME]",
        _("list your recent games, or a registered player's"),
        _(
            "Lists your recent games (or those of the registered player NAME) with their\n"
            "ids and results; a finished game's record is at /games/ID on the web port."
        ),
        ("/history", "/history ann"),
    ),
    # accounts and ratings
    "register": CommandInfo(
        "/register",
        _("make your name a registered account (asks a password)"),
        _(
            "Registers your name: nobody else can use it, and your rated games count. The\n"
            "server asks for a password twice, with your terminal's echo off; it has at\n"
            "least 8 characters. After that, the name prompt asks for it."
        ),
        ("/register",),
    ),
    "password": CommandInfo(
        "/password",
        _("change your account's password"),
        _("Asks for your current password, then the new one twice (echo off)."),
        ("/password",),
    ),
    "unregister": CommandInfo(
        "/unregister",
        _("delete your account and its rating"),
        _(
            "Asks for your password, then deletes your account, its rating and its rating\n"
            "history. Your games stay, under your name; the name is free again."
        ),
        ("/unregister",),
    ),
    "rating": CommandInfo(
        "/rating [NAME]",
        _("your rating, or NAME's (bots: random, greedy, strong)"),
        _(
            "Shows a rating: 1000 + 40 x (mu - 3 sigma) of the Plackett-Luce model, so it\n"
            "starts at 1000 and grows as games make it surer; a ? marks it provisional.\n"
            "A game is rated when two or more registered people play it without a chosen\n"
            "seed. The server's bots are rated per strategy: /rating strong-bot."
        ),
        ("/rating", "/rating ann", "/rating greedy-bot"),
    ),
    "top": CommandInfo(
        "/top [N]",
        _("the leaderboard: the N best ratings (10 by default)"),
        _("Lists the best ratings, bots included, with games and wins."),
        ("/top", "/top 25"),
    ),
    "finger": CommandInfo(
        "/finger NAME",
        _("a registered player's profile"),
        _(
            "Shows NAME's profile: registered since, games, wins, rating, last seen, where\n"
            "they are now and their recent games."
        ),
        ("/finger ann",),
    ),
    "analyse": CommandInfo(
        _("/analyse GAME"),
        _("an analysis of a finished game: what each move cost"),
        _(
            "Asks the server's bot to judge every move of the finished game GAME (its id,\n"
            "as /history shows it): what each move cost its player in points, marked good,\n"
            "inaccurate, mistake or blunder, and each player's accuracy. It is queued; you\n"
            "are told when it is ready, and /games/GAME shows it beside the replay."
        ),
        ("/analyse 0123456789abcdef",),
    ),
    "tournament": CommandInfo(
        _("/tournament [ACTION] NAME ..."),
        _("make, join, leave, close or show a tournament"),
        _(
            "/tournament NAME shows its standings and tables. /tournament new NAME swiss\n"
            "ROUNDS or arena MINUTES [size 2|3|4] [clock SECONDS] [start +10m|HH:MM]\n"
            "makes one (registered players; the start in minutes from now or at a UTC\n"
            "time, in 5 minutes if not said). /tournament join NAME and leave NAME enter\n"
            "and leave it; who leaves keeps their points. Its creator (or staff) may\n"
            "/tournament close NAME. Each game places you: at a table of four 3, 2, 1 or\n"
            "0 points, ties shared."
        ),
        ("/tournament new cup swiss 5 size 4 clock 60 start +10m", "/tournament join cup", "/tournament cup"),
    ),
    "tournaments": CommandInfo(
        "/tournaments",
        _("the tournaments upcoming, running and over"),
        _("Lists the tournaments upcoming, running and recently over."),
        ("/tournaments",),
    ),
    "seek": CommandInfo(
        _("/seek [OPTIONS]"),
        _("quick pairing"),
        _(
            "OPTIONS, in any order: 2, 3, 4 or any (the table's size), rated or casual,\n"
            "clock SECONDS, bots. Puts you in the queue for a game: the server seats you at\n"
            "a new table as soon as enough people wait, closest ratings first (the reach\n"
            "widens as you wait), and a table of 3 or 4 when that many come within a few\n"
            "seconds. Defaults: any size, rated if you are registered, 60 seconds a turn.\n"
            "A casual game is a practice game (the server draws its seed). With bots, a\n"
            "game with the server's bots is offered after 30 seconds. A new /seek replaces\n"
            "the last; /join, /nick or leaving ends it."
        ),
        ("/seek", "/seek 4 casual clock 30", "/seek 2 bots"),
    ),
    "unseek": CommandInfo(
        "/unseek",
        _("stop waiting for a game"),
        _("Takes you out of the queue /seek put you in."),
        ("/unseek",),
    ),
    "help": CommandInfo(
        _("/help [COMMAND]"),
        _("this list, or the help of one command"),
        _("Shows the list of commands, or the help of one command."),
        ("/help", "/help play"),
    ),
    # the connection
    "resync": CommandInfo(
        "/resync",
        _("get a fresh copy of the room"),
        _("Asks the server for the whole room again, if your picture seems out of date."),
        ("/resync",),
    ),
    "ping": CommandInfo("/ping", _("check the connection"), _("The server answers pong."), ("/ping",)),
    "ascii": CommandInfo(
        "/ascii on/off",
        _("plain ASCII text on a terminal that shows nothing else"),
        _(
            "With on, everything the line endpoint writes to you is plain ASCII: the\n"
            "picture's marks, accents dropped from names and chat. Off is the default\n"
            "(UTF-8). It can also be typed at the name prompt. Only terminals need it;\n"
            "after the name, a registered name keeps the choice."
        ),
        ("/ascii on", "/ascii off"),
    ),
    "lang": CommandInfo(
        "/lang de/en",
        _("read the server's texts in German (de) or English (en)"),
        _(
            "Every text for people from then on is in that language: errors, notices,\n"
            "help and the pictures. Commands, moves and names stay as they are. It can also\n"
            "be typed at the name prompt; a registered name keeps the choice."
        ),
        ("/lang de", "/lang en"),
    ),
    "quit": CommandInfo(
        "/quit",
        _("close the connection"),
        _(
            "Closes the connection and gives up your resume token: a seat in a running game\n"
            "goes to a bot at once (with absent drop, you leave the game). A guest's game\n"
            "against the server's bots alone, with nobody else in the room, ends."
        ),
        ("/quit",),
    ),
    # moderation
    "report": CommandInfo(
        _("/report NAME REASON"),
        _("report NAME to the moderators"),
        _(
            "Sends the moderators a report of NAME, with your REASON and the last chat lines\n"
            "you read where NAME spoke or is now (no tells). NAME is not told. Five reports\n"
            "an hour at most."
        ),
        (_("/report troll insults in the lobby"),),
    ),
    "reports": CommandInfo(
        "/reports [all]",
        _("staff: the open reports (all: resolved ones too)"),
        _("Lists the open reports, newest first, with their ids; /reports all lists\nevery one."),
        ("/reports", "/reports all"),
    ),
    "resolve": CommandInfo(
        _("/resolve ID [NOTE]"),
        _("staff: close report ID"),
        _("Closes the report ID (as /reports shows it), with a NOTE for the log."),
        (_("/resolve 48213907 warned"),),
    ),
    "kick": CommandInfo(
        _("/kick NAME [REASON]"),
        _("staff: close NAME's connections for 10 minutes"),
        _(
            "Closes NAME's connections; NAME cannot come back for 10 minutes (a guest's\n"
            "address neither). A seat in a running game is held as for a lost connection."
        ),
        (_("/kick troll flooding"),),
    ),
    "silence": CommandInfo(
        _("/silence NAME TIME [REASON]"),
        _("staff: NAME may play but not chat, tell or invite"),
        _(
            "NAME may play but not chat, tell or invite for TIME: minutes, hours or days\n"
            "(30m, 2h, 7d) or perm; nor take another name, register, open a new room\n"
            "or make a tournament. A guest's address is silenced with the name."
        ),
        (_("/silence troll 2h insults"),),
    ),
    "ban": CommandInfo(
        _("/ban NAME TIME [REASON]"),
        _("staff: NAME may not log in"),
        _(
            "NAME may not log in for TIME (30m, 2h, 7d or perm); NAME's connections\n"
            "close, and a seat is held as for a lost connection. A guest's address is\n"
            "banned with the name."
        ),
        (_("/ban troll 7d insults"),),
    ),
    "unban": CommandInfo(
        "/unban NAME", _("staff: lift NAME's ban or kick"), _("Lifts NAME's bans and kicks."), ("/unban ann",)
    ),
    "unsilence": CommandInfo(
        "/unsilence NAME", _("staff: lift NAME's silence"), _("Lifts NAME's silences."), ("/unsilence ann",)
    ),
    "close": CommandInfo(
        _("/close ROOM [REASON]"),
        _("staff: end a room"),
        _(
            "Ends ROOM: everyone in it goes to the lobby and is told why; a running game\n"
            "ends, unrated."
        ),
        (_("/close cafe spam"),),
    ),
    "announce": CommandInfo(
        _("/announce TEXT"),
        _("admin: a notice to everyone connected"),
        _("Sends TEXT to everyone connected, on every node of the server."),
        (_("/announce The server restarts at 22:00 UTC."),),
    ),
    "role": CommandInfo(
        "/role NAME moderator/none",
        _("admin: give or take the moderator role"),
        _(
            "Makes the registered player NAME a moderator, or takes the role (none). The\n"
            "first admin is made on the command line: cafe-admin role NAME admin."
        ),
        ("/role ann moderator", "/role ann none"),
    ),
    "modlog": CommandInfo(
        "/modlog [NAME]",
        _("staff: the moderation log, newest first"),
        _("Lists the moderation log, newest first; with NAME, only what NAME did or had\ndone."),
        ("/modlog", "/modlog troll"),
    ),
}

#: Short names for the commands typed most often.
ALIASES: Final[dict[str, str]] = {"p": "play", "b": "board"}

_HELP_GROUPS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (_("Rooms and people"), ("rooms", "room", "watch", "leave", "who", "whereis", "nick", "say", "invite")),
    (_("Talking and lists"), ("tell", "reply", "mute", "unmute", "friend", "unfriend", "friends")),
    (
        _("Seats and the game"),
        ("seek", "unseek", "join", "stand", "option", "addbot", "removebot", "start", "info", "reset"),
    ),
    (_("Votes"), ("remove", "accept", "refuse")),
    (_("Playing"), ("play", "bar", "swap", "moves", "hint")),
    (_("Looking"), ("board", "hand", "score", "history", "analyse", "help")),
    (_("Accounts and ratings"), ("register", "password", "unregister", "rating", "top", "finger")),
    (_("Tournaments"), ("tournament", "tournaments")),
    (_("The connection"), ("resync", "ping", "ascii", "lang", "quit")),
    (
        _("Moderation"),
        (
            *("report", "reports", "resolve", "kick", "silence", "ban"),
            *("unban", "unsilence", "close", "announce", "role", "modlog"),
        ),
    ),
)

_M = TypeVar("_M", bound=BaseModel)
# a BaseModel here is always a ClientMessage
_Parsed: TypeAlias = BaseModel | ShowRequest | Quit | AsciiMode | AskSecret
_Handler: TypeAlias = Callable[[str, list[str], str, ClientId], _Parsed]
# ASCII digits only: int() and float() would also take other scripts' digits
_SHOWN_NAME = 24  # how much of an unknown command name an error repeats


def _bad(name: str, problem: Msg, id: ClientId) -> ProtocolError:
    return ProtocolError(
        "bad_arguments", _("{problem} Usage: {usage}", problem=problem, usage=COMMANDS[name].usage), id
    )


def _build(name: str, cls: type[_M], id: ClientId, /, **fields: Any) -> _M:
    """The message ``cls`` with ``fields``; what the model refuses becomes ``bad_arguments``."""
    try:
        return cls(id=id, **fields)
    except ValidationError as e:
        error = e.errors()[0]
        if error["type"] in ERROR_CODES:  # a validator's own refusal carries its code
            raise ProtocolError(error["type"], refusal_text(error), id) from None
        where = ".".join(str(p) for p in error["loc"])
        raise _bad(
            name, _("{field}: {problem}.", field=_argument(where), problem=field_problem(error)), id
        ) from None


#: the words for the arguments a command's message model may refuse (any other is "Argument": a
#: field's own name would be an English word to a German reader)
_ARGUMENT_WORDS: Final[dict[str, Msg]] = {
    "room": _("Room"),
    "move": _("Move"),
    "password": _("Password"),
    "old": _("Password"),
    "new": _("Password"),
    "game": _("Game"),
    "name": _("Name"),
    "text": _("Text"),
    "reason": _("Reason"),
    "rounds": _("Rounds"),
    "minutes": _("Minutes"),
    "size": _("Size"),
    "clock": _("Clock"),
}


def _argument(field: str) -> str:
    """The name of a command's argument that the message model refused, as a word."""
    return _ARGUMENT_WORDS.get(field, _("Argument"))


def _arguments(name: str, args: list[str], id: ClientId, least: int, most: int) -> None:
    command = f"/{name}"
    if len(args) < least:
        needs = (
            _("{command} needs an argument.", command=command)
            if least == 1
            else _("{command} needs {n} arguments.", command=command, n=least)
        )
        raise _bad(name, needs, id)
    if len(args) > most:
        if most == 0:
            takes = _("{command} takes no arguments.", command=command)
        elif most == 1:
            takes = _("{command} takes one argument.", command=command)
        else:
            takes = _("{command} takes at most {n} arguments.", command=command, n=most)
        raise _bad(name, takes, id)


def _simple(cls: type[BaseModel]) -> _Handler:
    """A command without arguments that becomes ``cls``."""

    def handle(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
        _arguments(name, args, id, 0, 0)
        return _build(name, cls, id)

    return handle


def _one(cls: type[BaseModel], field: str, optional: bool = False) -> _Handler:
    """A command with one argument (or none, if ``optional``) that becomes ``cls(field=arg)``."""

    def handle(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
        _arguments(name, args, id, 0 if optional else 1, 1)
        return _build(name, cls, id, **({field: args[0]} if args else {}))

    return handle


def _show(what: ShowWhat) -> _Handler:
    def handle(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
        _arguments(name, args, id, 0, 0)
        return ShowRequest(what, id=id)

    return handle


def _play(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, 1000)
    return _build(name, PlayMove, id, move=" ".join(args))


def _bar(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, 1)
    if "@" in args[0]:
        raise _bad(name, _("/bar takes a card only; the bar place is the next free one."), id)
    return _build(name, PlayMove, id, move=f"{args[0]}@bar")


def _swap(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, 1)
    if "@" not in args[0]:
        raise _bad(name, _("/swap needs the card and the joker's chair, as CARD@CHAIR."), id)
    return _build(name, PlayMove, id, move=f"swap {args[0]}")


def _say(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, len(args))
    return _build(name, Say, id, text=rest)


def _option(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 2, 2)
    try:
        key, value = options.parse_text(args[0], args[1])
    except options.OptionError as e:
        raise _bad(name, e.text, id) from None
    try:
        options.check_json(key, value)
    except options.OptionError:  # a value of the right form, out of range: said as it is typed
        raise ProtocolError("bad_option", options.typed_rule(key), id) from None
    return _build(name, SetOption, id, key=key, value=value)


def _addbot(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 1)
    strategies = get_args(Strategy)
    if not args:
        return _build(name, AddBot, id)
    strategy = args[0].lower()
    if strategy not in strategies:
        raise _bad(name, _("A bot's strategy is one of {strategies}.", strategies=", ".join(strategies)), id)
    return _build(name, AddBot, id, strategy=strategy)


def _help(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 1)
    return ShowRequest("help", args[0].lstrip("/").lower() if args else None, id)


def _show_named(what: ShowWhat, least: int) -> _Handler:
    """A ``ShowRequest`` with an optional (or, with ``least`` 1, required) name or number."""

    def handle(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
        _arguments(name, args, id, least, 1)
        counted = args and args[0].isascii() and args[0].isdigit() and 0 < int(args[0]) <= TOP_MOST
        if what == "top" and args and not counted:
            raise _bad(name, _("/top takes a number from 1 to {most}.", most=TOP_MOST), id)
        return ShowRequest(what, args[0] if args else None, id)

    return handle


def _register(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 2)
    if not args:
        return AskSecret("register", id)
    if len(args) != 2 or args[0] != args[1]:
        raise _bad(name, _("The password twice, the same both times."), id)
    return _build(name, Register, id, password=args[0])


def _password(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 3)
    if not args:
        return AskSecret("password", id)
    if len(args) != 3 or args[1] != args[2]:
        raise _bad(name, _("The old password, then the new one twice."), id)
    return _build(name, ChangePassword, id, old=args[0], new=args[1])


def _unregister(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 1)
    if not args:
        return AskSecret("unregister", id)
    return _build(name, Unregister, id, password=args[0])


def _ascii(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, 1)
    value = args[0].lower()
    if value not in ("on", "off"):
        raise _bad(name, _("/ascii takes on or off."), id)
    return AsciiMode(value == "on")


def _lang(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, 1)
    return _build(name, SetLang, id, lang=args[0].lower())


def _tell(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 2, len(args))
    return _build(name, Tell, id, name=args[0], text=rest.split(maxsplit=1)[1])


def _reply(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, len(args))
    return _build(name, TellReply, id, text=rest)


def _list_edit(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, 1)
    return _build(name, ListEdit, id, action=name, name=args[0])


def _join(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 1)
    if args and args[0] in ("1", "2", "3", "4"):
        return _build(name, Join, id, seat=int(args[0]))
    return _build(name, Join, id, **({"room": args[0]} if args else {}))


def _answer(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 0)
    return _build(name, VoteAnswer, id, yes=name == "accept")


def _quit(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 0)
    return Quit()


_TOURNAMENT_ACTIONS: Final = ("new", "join", "leave", "close", "show")
_TOURNAMENT_OPTIONS: Final = ("size", "clock", "start")
#: a tournament's start as typed: minutes ahead (their bound is checked apart), or a time of day
_START: Final = re.compile(r"\+[0-9]{1,4}m|([01]?[0-9]|2[0-3]):[0-5][0-9]")


def _tournament(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    """``/tournament NAME``, ``/tournament join|leave|close NAME``, ``/tournament new NAME swiss
    ROUNDS|arena MINUTES [size N] [clock SECONDS] [start +10m|HH:MM]``."""
    _arguments(name, args, id, 1, 10)
    action = args[0].lower()
    if len(args) == 1:
        return _build(name, TournamentRequest, id, name=args[0])
    if action not in _TOURNAMENT_ACTIONS:
        raise _bad(name, _("Say what to do: new, join, leave, close or show."), id)
    if action != "new":
        _arguments(name, args, id, 2, 2)
        return _build(name, TournamentRequest, id, action=action, name=args[1])
    if len(args) < 4 or args[2].lower() not in ("swiss", "arena") or not _digits(args[3]):
        raise _bad(name, _("A new tournament is swiss with its rounds, or arena with its minutes."), id)
    if not is_room_name(args[1]):
        raise _bad(name, _("A tournament's name is {rule}.", rule=ROOM_RULE), id)
    kind = args[2].lower()
    fields: dict[str, Any] = {"kind": kind, "rounds" if kind == "swiss" else "minutes": int(args[3])}
    rest_args = args[4:]
    if len(rest_args) % 2:
        raise _bad(name, _("Each of size, clock and start takes a value."), id)
    for key, value in zip(rest_args[::2], rest_args[1::2], strict=True):
        key = key.lower()
        if key not in _TOURNAMENT_OPTIONS or key in fields:
            raise _bad(name, _("After the kind come size, clock and start, each once."), id)
        if key != "start" and not _digits(value):
            raise _bad(name, _("The size and the clock are numbers."), id)
        shaped = _START.fullmatch(value) is not None
        ahead = int(value[1:-1]) if shaped and value.startswith("+") else 0
        if key == "start" and (not shaped or ahead > TOURNAMENT_AHEAD_MINUTES):
            raise _bad(
                name,
                _(
                    "The start is +MINUTESm (from now, at most +{most}m) or HH:MM (UTC).",
                    most=TOURNAMENT_AHEAD_MINUTES,
                ),
                id,
            )
        fields[key] = value if key == "start" else int(value)
    return _build(name, TournamentRequest, id, action="new", name=args[1], **fields)


def _digits(text: str, most: int = 6) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= most


def _after(rest: str, n: int) -> str:
    """What ``rest`` says after its first ``n`` words (a reason: as it was typed)."""
    parts = rest.split(maxsplit=n)
    return parts[n] if len(parts) > n else ""


def _report(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 2, len(args))
    return _build(name, ReportPlayer, id, name=args[0], reason=_after(rest, 1))


def _reports(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 0, 1)
    if args and args[0].lower() != "all":
        raise _bad(name, _("/reports takes all, or nothing."), id)
    return _build(name, ListReports, id, all=bool(args))


def _resolve(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, len(args))
    if not _digits(args[0], 18) or int(args[0]) < 1:  # (eight digits: server.log.contract.DRAWN_IDS)
        raise _bad(name, _("A report's id is a number, as /reports shows it."), id)
    return _build(name, ResolveReport, id, report=int(args[0]), note=_after(rest, 1))


def _moderate(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    """``/kick NAME [REASON]``, ``/silence`` and ``/ban NAME TIME [REASON]``, ``/unban NAME`` and
    ``/unsilence NAME``."""
    timed = name in ("silence", "ban")
    _arguments(name, args, id, 2 if timed else 1, len(args) if name == "kick" or timed else 1)
    if timed:
        duration = args[1].lower()
        if re.fullmatch(DURATION_PATTERN, duration) is None:
            raise _bad(name, DURATION_RULE, id)
        reason = _after(rest, 2)
        return _build(name, Moderate, id, action=name, name=args[0], duration=duration, reason=reason)
    return _build(name, Moderate, id, action=name, name=args[0], reason=_after(rest, 1))


def _close(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, len(args))
    return _build(name, CloseRoom, id, room=args[0], reason=_after(rest, 1))


def _announce(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 1, len(args))
    return _build(name, Announce, id, text=rest)


def _role(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    _arguments(name, args, id, 2, 2)
    role = args[1].lower()
    if role not in ("moderator", "none"):
        raise _bad(name, _("A role is moderator, or none to take it."), id)
    return _build(name, SetRole, id, name=args[0], role=role)


_SEEK_SIZES: Final = {"2": 2, "3": 3, "4": 4, "any": None}


def _seek(name: str, args: list[str], rest: str, id: ClientId) -> _Parsed:
    """``/seek [2/3/4/any] [rated/casual] [clock SECONDS] [bots]``, in any order."""
    _arguments(name, args, id, 0, 6)
    fields: dict[str, Any] = {}
    words = [a.lower() for a in args]
    while words:
        word = words.pop(0)
        if word in _SEEK_SIZES and "size" not in fields:
            fields["size"] = _SEEK_SIZES[word]
        elif word in ("rated", "casual") and "rated" not in fields:
            fields["rated"] = word == "rated"
        elif word == "bots" and "bots" not in fields:
            fields["bots"] = True
        elif word == "clock" and "clock" not in fields and words and _digits(words[0]):
            fields["clock"] = int(words.pop(0))
        else:
            raise _bad(name, _("Say a size (2, 3, 4 or any), rated or casual, clock SECONDS, or bots."), id)
    return _build(name, Seek, id, **fields)


_HANDLERS: Final[dict[str, _Handler]] = {
    "join": _join,
    "seek": _seek,
    "unseek": _simple(Unseek),
    "start": _simple(Start),
    "play": _play,
    "bar": _bar,
    "swap": _swap,
    "say": _say,
    "room": _one(EnterRoom, "room"),
    "rooms": _simple(ListRooms),
    "who": _simple(Who),
    "leave": _simple(LeaveRoom),
    "stand": _simple(LeaveGame),
    "watch": _one(Watch, "room"),
    "nick": _one(Nick, "name"),
    "option": _option,
    "addbot": _addbot,
    "removebot": _one(RemoveBot, "name"),
    "moves": _simple(GetLegalMoves),
    "hint": _simple(GetHint),
    "hand": _show("hand"),
    "board": _show("board"),
    "score": _show("score"),
    "history": _show_named("history", 0),
    "register": _register,
    "password": _password,
    "unregister": _unregister,
    "rating": _show_named("rating", 0),
    "top": _show_named("top", 0),
    "finger": _show_named("finger", 1),
    "analyse": _one(Analyse, "game"),
    "tournament": _tournament,
    "tournaments": _simple(ListTournaments),
    "help": _help,
    "resync": _simple(Resync),
    "ping": _simple(Ping),
    "ascii": _ascii,
    "lang": _lang,
    "quit": _quit,
    "tell": _tell,
    "reply": _reply,
    "whereis": _one(WhereIs, "name"),
    "mute": _list_edit,
    "unmute": _list_edit,
    "friend": _list_edit,
    "unfriend": _list_edit,
    "friends": _simple(GetFriends),
    "invite": _one(Invite, "name"),
    "info": _show("info"),
    "reset": _simple(Reset),
    "remove": _one(VoteRemove, "name"),
    "accept": _answer,
    "refuse": _answer,
    "report": _report,
    "reports": _reports,
    "resolve": _resolve,
    "kick": _moderate,
    "silence": _moderate,
    "ban": _moderate,
    "unban": _moderate,
    "unsilence": _moderate,
    "close": _close,
    "announce": _announce,
    "role": _role,
    "modlog": _one(GetModLog, "name", optional=True),
}
assert _HANDLERS.keys() == COMMANDS.keys()


def _closest(name: str) -> str | None:
    """The known command closest to a mistyped ``name``, if any is close enough."""
    matches = difflib.get_close_matches(name, COMMANDS, n=1)
    return matches[0] if matches else None


def parse_command(
    line: str, *, id: ClientId = None
) -> ClientMessage | ShowRequest | Quit | AsciiMode | AskSecret | None:
    """The message a typed line asks for: ``None`` for an empty line, ``Say`` for plain text,
    the command's message for ``/name args``. Raises ``ProtocolError`` with ``unknown_command``
    (naming the closest command) or ``bad_arguments`` (with the usage); ``id`` goes into the
    message or the error."""
    line = line.strip()
    if not line:
        return None
    if not line.startswith("/"):
        return _build("say", Say, id, text=line)
    # "/ join" is not "/join": the name starts right after the slash
    parts = [] if line[1:2].isspace() else line[1:].split(maxsplit=1)
    name = parts[0].lower() if parts else ""
    name = ALIASES.get(name, name)
    handler = _HANDLERS.get(name)
    if handler is None:
        raise _unknown_command(name, id)
    rest = parts[1].strip() if len(parts) > 1 else ""
    return cast(
        "ClientMessage | ShowRequest | Quit | AsciiMode | AskSecret", handler(name, rest.split(), rest, id)
    )


def parse_terminal_command(line: str) -> AsciiMode | None:
    """The ``/ascii`` command a line client typed, which its connection answers itself (also at
    the name prompt); ``None`` for any other line. Raises ``ProtocolError`` (``bad_arguments``)
    for ``/ascii`` with a wrong argument.

    >>> parse_terminal_command("/ASCII on"), parse_terminal_command("/play FRf@FR1s")
    (AsciiMode(on=True), None)
    """
    head = line.lstrip()[:7].lower()
    if head != "/ascii" and not head.startswith("/ascii "):
        return None
    command = parse_command(line)
    return command if isinstance(command, AsciiMode) else None


def _unknown_command(name: str, id: ClientId) -> ProtocolError:
    shown = name if len(name) <= _SHOWN_NAME else name[:_SHOWN_NAME] + "…"
    closest = _closest(name)
    if closest is None:
        return ProtocolError(
            "unknown_command",
            _("Unknown command /{shown}. Type /help for the list of commands.", shown=shown),
            id,
        )
    return ProtocolError(
        "unknown_command",
        _(
            "Unknown command /{shown} — did you mean /{closest}? Usage: {usage}",
            shown=shown,
            closest=closest,
            usage=COMMANDS[closest].usage,
        ),
        id,
    )


def help_text(topic: str | None = None) -> str:
    """The list of every command (``topic`` None), or the help of one command or alias; an
    unknown topic names the closest command. Every line fits 80 columns. The text is drawn in
    each reader's language when it is sent (``protocol.i18n.lazy``)."""
    return lazy(lambda say: _help_of(topic, say))


def _help_of(topic: str | None, say: Lang) -> str:
    if topic is None or not topic.strip():
        return _help_list(say)
    name = topic.strip().lstrip("/").lower()
    name = ALIASES.get(name, name)
    info = COMMANDS.get(name)
    if info is None:
        closest = _closest(name)
        shown = name if len(name) <= _SHOWN_NAME else name[:_SHOWN_NAME] + "…"
        if closest:
            return say(
                _(
                    "No command /{shown}. Did you mean /{closest}? /help lists the commands.",
                    shown=shown,
                    closest=closest,
                )
            )
        return say(_("No command /{shown}. /help lists the commands.", shown=shown))
    examples = "\n".join(f"  {say(example)}" for example in info.examples)
    heading = say(_n("Example:", "Examples:", len(info.examples)))
    first = "\n".join(_wrapped(f"{say(info.usage)} — {say(info.summary)}", "    "))
    return f"{first}\n\n{_fitted(say(info.details))}\n\n{heading}\n{examples}"


#: the columns of a terminal that a help text fits
_HELP_WIDTH: Final = 80

#: while a help text is wrapped, the columns a letter takes beyond its own in ASCII (``ä`` is
#: ``ae``): a line fits a terminal in either form
_WIDER: Final = "\ue000"


def _wrapped(line: str, indent: str) -> list[str]:
    """``line`` broken at spaces into lines of at most ``_HELP_WIDTH`` columns, in UTF-8 and in
    ASCII (``/ascii on``) alike, each part after the first indented by ``indent``.

    >>> [(len(part), len(to_ascii(part))) for part in _wrapped("Gäste " * 14, "")]
    [(65, 76), (17, 20)]
    """
    wide = "".join(ch if ch.isascii() else ch + _WIDER * (len(to_ascii(ch)) - 1) for ch in line)
    parts = textwrap.wrap(wide, _HELP_WIDTH, subsequent_indent=indent, break_on_hyphens=False)
    return [part.replace(_WIDER, "") for part in parts]


def _fitted(text: str) -> str:
    """``text`` with each line broken at spaces to fit a terminal, its indent kept on each part (a
    translation is written as paragraphs; the English lines fit already)."""
    lines = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")))
        lines.extend(_wrapped(line, indent) or [""])
    return "\n".join(lines)


def _help_list(say: Lang) -> str:
    # each group's summaries line up after its widest usage: a long usage of one group (the
    # staff's) does not push every other line past 80 columns
    lines = [
        say(_("Commands (/help COMMAND for more). A line without / is said to the room.")),
        say(_("The rules of the game: /rules on the web port (docs/rules.md).")),
    ]
    for heading, names in _HELP_GROUPS:
        lines.append("")
        lines.append(f"{say(heading)}:")
        width = max(len(say(COMMANDS[n].usage)) for n in names)
        under = " " * (width + 4)  # (a summary too long for its line goes on under itself)
        for n in names:
            line = f"  {say(COMMANDS[n].usage):<{width}}  {say(COMMANDS[n].summary)}"
            lines.extend(_wrapped(line, under))
    return "\n".join(lines)

"""Chat commands: every line a person types becomes the message a program would send, or a clear error."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

import protocol.commands
from protocol.commands import (
    ALIASES,
    COMMANDS,
    AsciiMode,
    AskSecret,
    Quit,
    ShowRequest,
    help_text,
    parse_command,
    parse_terminal_command,
)
from protocol.errors import ProtocolError
from protocol.i18n import lang
from protocol.messages import (
    CLIENT_ADAPTER,
    AddBot,
    Analyse,
    Announce,
    ChangePassword,
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
from protocol.names import NAME_RULE
from protocol.text import to_ascii

Parsed = BaseModel | ShowRequest | Quit | AsciiMode | None

# One line per command form, with the message it must become.
CASES: list[tuple[str, Parsed]] = [
    ("/report troll  insults all day", ReportPlayer(name="troll", reason="insults all day")),
    ("/reports", ListReports()),
    ("/reports ALL", ListReports(all=True)),
    ("/resolve 12 warned twice", ResolveReport(report=12, note="warned twice")),
    ("/kick troll flooding", Moderate(action="kick", name="troll", reason="flooding")),
    ("/silence troll 2H", Moderate(action="silence", name="troll", duration="2h")),
    ("/ban troll perm insults", Moderate(action="ban", name="troll", duration="perm", reason="insults")),
    ("/unban troll", Moderate(action="unban", name="troll")),
    ("/unsilence troll", Moderate(action="unsilence", name="troll")),
    ("/close cafe spam", CloseRoom(room="cafe", reason="spam")),
    ("/announce Restart at 22:00", Announce(text="Restart at 22:00")),
    ("/role ann Moderator", SetRole(name="ann", role="moderator")),
    ("/modlog", GetModLog()),
    ("/modlog troll", GetModLog(name="troll")),
    ("/join", Join()),
    ("/join cafe", Join(room="cafe")),
    ("/start", Start()),
    ("/play FRf@FR1s", PlayMove(move="FRf@FR1s")),
    ("/play FRf@FR1s   ESm@ES1e", PlayMove(move="FRf@FR1s ESm@ES1e")),
    ("/play Jf=FR@FR1s", PlayMove(move="Jf=FR@FR1s")),
    ("/p frf@fr1s", PlayMove(move="frf@fr1s")),
    ("/bar ITm", PlayMove(move="ITm@bar")),
    ("/swap FRf@FR1s", PlayMove(move="swap FRf@FR1s")),
    ("/say good  game!", Say(text="good  game!")),
    ("/say /play is how you move", Say(text="/play is how you move")),
    ("/room cafe", EnterRoom(room="cafe")),
    ("/rooms", ListRooms()),
    ("/who", Who()),
    ("/leave", LeaveRoom()),
    ("/stand", LeaveGame()),
    ("/watch cafe", Watch(room="cafe")),
    ("/nick ann", Nick(name="ann")),
    ("/option seed 42", SetOption(key="seed", value=42)),
    ("/option seed random", SetOption(key="seed", value=None)),
    ("/option stammtisch on", SetOption(key="stammtisch", value=True)),
    ("/option stammtisch off", SetOption(key="stammtisch", value=False)),
    ("/option clock 60", SetOption(key="clock", value=60)),
    ("/option clock off", SetOption(key="clock", value=None)),
    ("/option clock 7.5", SetOption(key="clock", value=7.5)),
    ("/option absent drop", SetOption(key="absent", value="drop")),
    ("/option absent bot", SetOption(key="absent", value="bot")),
    ("/addbot", AddBot()),
    ("/addbot random", AddBot(strategy="random")),
    ("/addbot strong", AddBot(strategy="strong")),
    ("/removebot greedy-bot1", RemoveBot(name="greedy-bot1")),
    ("/moves", GetLegalMoves()),
    ("/hint", GetHint()),
    ("/hand", ShowRequest("hand")),
    ("/board", ShowRequest("board")),
    ("/b", ShowRequest("board")),
    ("/score", ShowRequest("score")),
    ("/history", ShowRequest("history")),
    ("/history ann", ShowRequest("history", "ann")),
    ("/register", AskSecret("register")),
    ("/register secret99 secret99", Register(password="secret99")),
    ("/password", AskSecret("password")),
    ("/password old12345 new12345 new12345", ChangePassword(old="old12345", new="new12345")),
    ("/unregister", AskSecret("unregister")),
    ("/unregister secret99", Unregister(password="secret99")),
    ("/rating", ShowRequest("rating")),
    ("/rating ann", ShowRequest("rating", "ann")),
    ("/top", ShowRequest("top")),
    ("/top 25", ShowRequest("top", "25")),
    ("/top 100", ShowRequest("top", "100")),
    ("/finger ann", ShowRequest("finger", "ann")),
    ("/analyse 0123456789abcdef", Analyse(game="0123456789abcdef")),
    ("/help", ShowRequest("help")),
    ("/help play", ShowRequest("help", "play")),
    ("/help /PLAY", ShowRequest("help", "play")),
    ("/resync", Resync()),
    ("/ping", Ping()),
    ("/quit", Quit()),
    ("/ascii on", AsciiMode(on=True)),
    ("/lang de", SetLang(lang="de")),
    ("/lang EN", SetLang(lang="en")),
    ("/ascii Off", AsciiMode(on=False)),
    ("/join 2", Join(seat=2)),
    ("/join 5", Join(room="5")),
    ("/join 02", Join(room="02")),
    ("/tell ann good  game!", Tell(name="ann", text="good  game!")),
    ("/reply thanks", TellReply(text="thanks")),
    ("/whereis ann", WhereIs(name="ann")),
    ("/mute bob", ListEdit(action="mute", name="bob")),
    ("/unmute bob", ListEdit(action="unmute", name="bob")),
    ("/friend ann", ListEdit(action="friend", name="ann")),
    ("/unfriend ann", ListEdit(action="unfriend", name="ann")),
    ("/friends", GetFriends()),
    ("/invite ann", Invite(name="ann")),
    ("/info", ShowRequest("info")),
    ("/reset", Reset()),
    ("/remove bob", VoteRemove(name="bob")),
    ("/accept", VoteAnswer(yes=True)),
    ("/refuse", VoteAnswer(yes=False)),
    ("/option host off", SetOption(key="host", value=False)),
    ("/option private on", SetOption(key="private", value=True)),
    ("/option drawseat on", SetOption(key="drawseat", value=True)),
    ("/option start 3", SetOption(key="start", value=3)),
    ("/option start random", SetOption(key="start", value=None)),
    ("/tournaments", ListTournaments()),
    ("/tournament cup", TournamentRequest(name="cup")),
    ("/tournament JOIN cup", TournamentRequest(action="join", name="cup")),
    ("/tournament leave cup", TournamentRequest(action="leave", name="cup")),
    ("/tournament close cup", TournamentRequest(action="close", name="cup")),
    ("/tournament show cup", TournamentRequest(action="show", name="cup")),  # (as /help says)
    (
        "/tournament new cup swiss 5 size 3 clock 30 start +10m",
        TournamentRequest(action="new", name="cup", kind="swiss", rounds=5, size=3, clock=30, start="+10m"),
    ),
    (
        "/tournament new blitz ARENA 45 start 14:30",
        TournamentRequest(action="new", name="blitz", kind="arena", minutes=45, start="14:30"),
    ),
    ("/seek", Seek()),
    ("/seek 2", Seek(size=2)),
    ("/seek casual ANY clock 30 bots", Seek(rated=False, clock=30, bots=True)),
    ("/seek bots 4 rated", Seek(size=4, rated=True, bots=True)),
    ("/unseek", Unseek()),
]


@pytest.mark.parametrize(("line", "expected"), CASES, ids=[line for line, _ in CASES])
def test_command_becomes_its_message(line: str, expected: Parsed) -> None:
    """Each command form parses to exactly its message."""
    assert parse_command(line) == expected


def test_every_command_and_alias_has_a_case() -> None:
    """The cases above cover every command and every alias (a new command needs a case)."""
    covered = {line.split()[0][1:] for line, _ in CASES}
    assert covered == set(COMMANDS) | set(ALIASES)


def test_aliases_name_commands() -> None:
    """Every alias stands for a command and is not itself a command name."""
    assert set(ALIASES.values()) <= set(COMMANDS)
    assert not set(ALIASES) & set(COMMANDS)


@pytest.mark.parametrize("line", ["", "   ", "\t\n"])
def test_empty_line_is_nothing(line: str) -> None:
    """An empty or blank line asks for nothing."""
    assert parse_command(line) is None


def test_plain_text_is_said() -> None:
    """A line without a leading slash is chat, without its surrounding blanks."""
    assert parse_command("  hello, anyone for a game?  ") == Say(text="hello, anyone for a game?")


def test_id_goes_into_the_message() -> None:
    """The id given travels in the message built, so that its answer echoes it."""
    message = parse_command("/play FRf@FR1s", id="m7")
    assert isinstance(message, PlayMove)
    assert message.id == "m7"
    said = parse_command("hi", id=3)
    assert isinstance(said, Say)
    assert said.id == 3


@pytest.mark.parametrize(("line", "expected"), [c for c in CASES if c[0] != "/say /play is how you move"])
def test_command_names_are_case_insensitive(line: str, expected: Parsed) -> None:
    """A command name in any case is the same command (arguments keep their case)."""
    name, _, rest = line.partition(" ")
    assert parse_command(f"{name.upper()} {rest}") == expected
    assert parse_command(f"{name.title()} {rest}") == expected


def test_arguments_keep_their_case() -> None:
    """Room and player names are passed on as typed."""
    assert parse_command("/JOIN Cafe") == Join(room="Cafe")
    assert parse_command("/NICK Ann") == Nick(name="Ann")


def test_whole_clock_seconds_stay_integers() -> None:
    """A whole number of seconds is sent as an integer, a decimal one as a number with a fraction."""
    whole = parse_command("/option clock 60")
    assert isinstance(whole, SetOption) and type(whole.value) is int


def test_keywords_of_option_and_addbot_are_case_insensitive() -> None:
    """Option keys, their on/off/random words and bot strategies are read in any case."""
    assert parse_command("/option STAMMTISCH On") == SetOption(key="stammtisch", value=True)
    assert parse_command("/option Seed RANDOM") == SetOption(key="seed", value=None)
    assert parse_command("/option clock OFF") == SetOption(key="clock", value=None)
    assert parse_command("/option Absent DROP") == SetOption(key="absent", value="drop")
    assert parse_command("/addbot Strong") == AddBot(strategy="strong")


def test_tabs_separate_arguments() -> None:
    """Any whitespace separates a command from its arguments."""
    assert parse_command("/join\tcafe") == Join(room="cafe")
    assert parse_command("/play\tFRf@FR1s\tESm@ES1e") == PlayMove(move="FRf@FR1s ESm@ES1e")


BAD_ARGUMENTS = [
    ("/report troll", "/report NAME REASON"),
    ("/reports open", "/reports [all]"),
    ("/resolve x", "/resolve ID [NOTE]"),
    ("/kick", "/kick NAME [REASON]"),
    ("/silence troll", "/silence NAME TIME [REASON]"),
    ("/ban", "/ban NAME TIME [REASON]"),
    ("/unban a b", "/unban NAME"),
    ("/unsilence", "/unsilence NAME"),
    ("/close", "/close ROOM [REASON]"),
    ("/announce", "/announce TEXT"),
    ("/role ann admin", "/role NAME moderator/none"),
    ("/modlog a b", "/modlog [NAME]"),
    ("/join a b", "/join [ROOM or N]"),
    ("/start now", "/start"),
    ("/play", "/play MOVE"),
    ("/bar", "/bar CARD"),
    ("/bar FRf ESm", "/bar CARD"),
    ("/bar FRf@bar", "/bar CARD"),
    ("/swap", "/swap CARD@CHAIR"),
    ("/swap FRf", "/swap CARD@CHAIR"),
    ("/swap FRf@FR1s ESm@ES1e", "/swap CARD@CHAIR"),
    ("/say", "/say TEXT"),
    ("/room", "/room NAME"),
    ("/room a b", "/room NAME"),
    ("/room " + "r" * 65, "/room NAME"),
    ("/rooms all", "/rooms"),
    ("/who me", "/who"),
    ("/leave now", "/leave"),
    ("/stand up", "/stand"),
    ("/watch", "/watch ROOM"),
    ("/nick", "/nick NAME"),
    ("/nick " + "n" * 65, "/nick NAME"),
    ("/option", "/option KEY VALUE"),
    ("/option seed", "/option KEY VALUE"),
    ("/option seed 1 2", "/option KEY VALUE"),
    ("/option seed x", "/option KEY VALUE"),
    ("/option seed -1", "/option KEY VALUE"),
    ("/option seed ٤٢", "/option KEY VALUE"),
    ("/option seed " + "9" * 5000, "/option KEY VALUE"),
    ("/option stammtisch yes", "/option KEY VALUE"),
    ("/option clock -5", "/option KEY VALUE"),
    ("/option clock soon", "/option KEY VALUE"),
    ("/option clock 1.", "/option KEY VALUE"),
    ("/option clock 1e3", "/option KEY VALUE"),
    ("/option colour red", "/option KEY VALUE"),
    ("/option absent maybe", "/option KEY VALUE"),
    ("/option absent off", "/option KEY VALUE"),
    ("/addbot clever", "/addbot [STRATEGY]"),
    ("/addbot random greedy", "/addbot [STRATEGY]"),
    ("/removebot", "/removebot NAME"),
    ("/moves all", "/moves"),
    ("/hint please", "/hint"),
    ("/hand 1", "/hand"),
    ("/board big", "/board"),
    ("/b big", "/board"),
    ("/score all", "/score"),
    ("/history ann bob", "/history [NAME]"),
    ("/register secret99 other999", "/register"),
    ("/register a b c", "/register"),
    ("/password old12345 new12345", "/password"),
    ("/password old12345 new12345 other999", "/password"),
    ("/unregister a b", "/unregister"),
    ("/rating ann bob", "/rating [NAME]"),
    ("/top ten", "/top [N]"),
    ("/top 0", "/top [N]"),
    ("/top 101", "/top [N]"),
    ("/finger", "/finger NAME"),
    ("/analyse", "/analyse GAME"),
    ("/analyse one two", "/analyse GAME"),
    ("/analyse bad!id", "/analyse GAME"),
    ("/help play bar", "/help [COMMAND]"),
    ("/resync now", "/resync"),
    ("/ping 1", "/ping"),
    ("/quit now", "/quit"),
    ("/ascii maybe", "/ascii on/off"),
    ("/lang", "/lang de/en"),
    ("/lang de en", "/lang de/en"),
    ("x" * 501, "/say TEXT"),
    ("/tell ann", "/tell NAME TEXT"),
    ("/reply", "/reply TEXT"),
    ("/whereis", "/whereis NAME"),
    ("/mute", "/mute NAME"),
    ("/unmute a b", "/unmute NAME"),
    ("/friend", "/friend NAME"),
    ("/unfriend", "/unfriend NAME"),
    ("/friends all", "/friends"),
    ("/invite", "/invite NAME"),
    ("/info now", "/info"),
    ("/reset now", "/reset"),
    ("/remove", "/remove NAME"),
    ("/accept yes", "/accept"),
    ("/refuse no", "/refuse"),
    ("/tournaments all", "/tournaments"),
    ("/tournament", "/tournament [ACTION] NAME ..."),
    ("/tournament shows cup", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup arena 0", "/tournament [ACTION] NAME ..."),
    ("/tournament join a b", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup knockout 3", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup swiss x", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup swiss 3 size", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup swiss 3 size 5", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup swiss 3 size 3 size 2", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup swiss 3 colour red", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup arena 30 clock soon", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup arena 30 start noon", "/tournament [ACTION] NAME ..."),
    ("/tournament new cup arena 2", "/tournament [ACTION] NAME ..."),
    ("/seek 5", "/seek [OPTIONS]"),
    ("/seek 2 3", "/seek [OPTIONS]"),
    ("/seek rated casual", "/seek [OPTIONS]"),
    ("/seek clock", "/seek [OPTIONS]"),
    ("/seek clock soon", "/seek [OPTIONS]"),
    ("/seek bots bots", "/seek [OPTIONS]"),
    ("/unseek now", "/unseek"),
    ("/option host maybe", "/option KEY VALUE"),
    ("/option start 1.5", "/option KEY VALUE"),
    ("/play " + "FRf@FR1s " * 30, "/play MOVE"),
]


@pytest.mark.parametrize(("line", "usage"), BAD_ARGUMENTS, ids=[line[:30] for line, _ in BAD_ARGUMENTS])
def test_bad_arguments_are_refused_with_the_usage(line: str, usage: str) -> None:
    """Missing, extra or wrong arguments raise bad_arguments; the message ends with the usage."""
    with pytest.raises(ProtocolError) as caught:
        parse_command(line, id=5)
    assert caught.value.code == "bad_arguments"
    assert caught.value.message.endswith(f"Usage: {usage}")
    assert caught.value.id == 5


def test_every_command_with_arguments_has_a_bad_arguments_case() -> None:
    """Every command can be given wrong arguments, and each has a case above."""
    covered = {line.split()[0][1:] for line, _ in BAD_ARGUMENTS if line.startswith("/")}
    assert set(COMMANDS) <= covered


def test_a_model_refusal_says_which_field() -> None:
    """What the message models refuse (here a too long room name) is explained, not swallowed."""
    with pytest.raises(ProtocolError, match=r"Room: String should have at most 64 characters"):
        parse_command("/join " + "r" * 65)


@pytest.mark.parametrize(
    ("line", "closest"),
    [("/jion cafe", "join"), ("/strat", "start"), ("/plya FRf@FR1s", "play"), ("/borad", "board"),
     ("/hlep", "help"), ("/JION", "join"), ("/removebots x", "removebot"), ("/histroy", "history")],
)  # fmt: skip
def test_unknown_command_names_the_closest(line: str, closest: str) -> None:
    """A mistyped command raises unknown_command, naming the closest command and its usage."""
    with pytest.raises(ProtocolError) as caught:
        parse_command(line, id=9)
    assert caught.value.code == "unknown_command"
    assert f"did you mean /{closest}?" in caught.value.message
    assert caught.value.message.endswith(f"Usage: {COMMANDS[closest].usage}")
    assert caught.value.id == 9


@pytest.mark.parametrize("line", ["/xyzzy", "/", "/ join", "/12345", "/" + "q" * 3000])
def test_unknown_command_without_a_close_one_points_to_help(line: str) -> None:
    """A command like no other is refused with a pointer to /help and no guess."""
    with pytest.raises(ProtocolError) as caught:
        parse_command(line)
    assert caught.value.code == "unknown_command"
    assert "did you mean" not in caught.value.message
    assert "/help" in caught.value.message
    assert len(caught.value.message) < 120


def test_an_unknown_command_is_quoted_as_typed_in_lower_case() -> None:
    """The error repeats the unknown name, so the person sees what was read."""
    with pytest.raises(ProtocolError, match=r"Unknown command /jion\b"):
        parse_command("/JION")


# --- help --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_has_its_help(name: str) -> None:
    """Each command has a usage starting with its name, a summary, longer help and examples."""
    info = COMMANDS[name]
    assert info.usage.split()[0] == f"/{name}"
    assert info.summary and info.details and info.examples
    assert all(len(line) <= 80 for line in info.details.splitlines())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_help_example_parses_as_its_command(name: str) -> None:
    """Every example in the help is a line the parser accepts, of the command it illustrates."""
    for example in COMMANDS[name].examples:
        word = example.split()[0][1:]
        assert ALIASES.get(word, word) == name
        parse_command(example)  # raises if the example is wrong


def test_help_list_names_every_command_once_and_fits_80_columns() -> None:
    """/help lists every command's usage exactly once, on lines of at most 80 columns, in every
    language (a summary too long for its line goes on under itself)."""
    text = help_text(None)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    for name, info in COMMANDS.items():
        listed = [line for line in lines if line.strip().startswith(f"{info.usage} ")]
        assert len(listed) == 1, name
        assert info.summary in listed[0]
    german = lang("de")(help_text(None)).splitlines()
    assert all(len(line) <= 80 for line in german), max(german, key=len)
    assert all(len(to_ascii(line)) <= 80 for line in german), max(german, key=lambda x: len(to_ascii(x)))
    kick = german.index(next(line for line in german if line.startswith("  /kick ")))
    assert german[kick + 1].startswith(" " * 20) and german[kick + 1].strip(), german[kick : kick + 2]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_help_of_one_command(name: str) -> None:
    """/help COMMAND shows its usage, its longer help and its examples, in 80 columns."""
    info = COMMANDS[name]
    text = help_text(name)
    assert text.startswith(info.usage)
    assert info.details in text
    assert all(example in text for example in info.examples)
    assert all(len(line) <= 80 for line in text.splitlines())


def test_help_topic_in_any_form() -> None:
    """A topic may be written with a slash, in any case, or as an alias."""
    assert help_text("/PLAY") == help_text("play") == help_text("p")
    assert help_text("  ") == help_text(None)


def test_help_of_an_unknown_topic_suggests_the_closest() -> None:
    """An unknown topic is named, with the closest command, not an error."""
    text = help_text("jion")
    assert "/jion" in text
    assert "/join" in text
    assert "did you mean" not in help_text("xyzzy").lower()


def test_doctests() -> None:
    """The examples in the module's docstring hold."""
    assert doctest.testmod(protocol.commands).failed == 0


# --- fuzz --------------------------------------------------------------------------------------

_NAMES = sorted([*COMMANDS, *ALIASES])


@given(st.text(max_size=300))
def test_any_line_parses_or_raises_protocol_error(line: str) -> None:
    """Any text is a message, a show request, quit, /ascii or nothing, or raises ProtocolError."""
    _check_line(line)


@given(
    st.sampled_from(_NAMES),
    st.lists(st.text(min_size=1, max_size=40), max_size=4),
    st.sampled_from([" ", "\t", "  "]),
)
def test_any_arguments_parse_or_raise_protocol_error(name: str, args: list[str], sep: str) -> None:
    """A known command with arbitrary arguments never fails other than with ProtocolError."""
    _check_line(sep.join([f"/{name}", *args]))


#: the commands whose words are chat, which may be nothing once control characters are removed
_CHAT_COMMANDS = {"/say", "/tell", "/reply", "/report", "/announce"}


def _check_line(line: str) -> None:
    try:
        result = parse_command(line, id=1)
    except ProtocolError as e:
        if e.code == "empty_message":  # chat of control characters only: said, told or replied
            assert not line.lstrip().startswith("/") or line.split()[0].lower() in _CHAT_COMMANDS, line
            return
        if e.code == "bad_language":  # a language the server does not speak
            assert line.lstrip().lower().startswith("/lang")
            return
        assert e.code in ("bad_arguments", "unknown_command")
        assert "Usage: " in e.message or "/help" in e.message
        return
    if isinstance(result, BaseModel):
        # what the parser builds is a valid wire message: it survives the trip through JSON
        assert CLIENT_ADAPTER.validate_json(CLIENT_ADAPTER.dump_json(result)) == result
        assert result.id == 1
    else:
        assert result is None or isinstance(result, ShowRequest | Quit | AsciiMode | AskSecret)


def test_terminal_command_is_only_ascii() -> None:
    """parse_terminal_command takes /ascii on/off and leaves every other line (and chat) alone."""
    assert parse_terminal_command("/ascii on") == AsciiMode(on=True)
    assert parse_terminal_command("  /ascii OFF") == AsciiMode(on=False)
    for line in ("/asciiart", "/ask", "ascii on", "/play FRf@FR1s", "/a"):
        assert parse_terminal_command(line) is None


def test_typed_chat_is_sanitized() -> None:
    """A typed line of chat loses its control and reordering characters; /say too."""
    assert parse_command("a\x07b\x1b]0;title\x07c") == Say(text="ab]0;titlec")
    assert parse_command("/say x\u202ey\x9bz") == Say(text="xyz")


def test_typed_chat_of_controls_only_is_refused() -> None:
    """A typed line of nothing but control characters is refused with empty_message."""
    with pytest.raises(ProtocolError) as caught:
        parse_command("\x1b\x07", id=3)
    assert (caught.value.code, caught.value.id) == ("empty_message", 3)


def test_option_words_are_matched_without_regard_to_case() -> None:
    """/option absent DROP and /option stammtisch ON convert like their lower-case forms."""
    assert parse_command("/option absent DROP") == SetOption(key="absent", value="drop")
    assert parse_command("/option STAMMTISCH On") == SetOption(key="stammtisch", value=True)
    assert parse_command("/option seed 42") == SetOption(key="seed", value=42)


def test_lang_with_an_unknown_language_is_bad_language() -> None:
    """/lang fr is refused with bad_language, which names the languages there are."""
    with pytest.raises(ProtocolError) as e:
        parse_command("/lang fr")
    assert e.value.code == "bad_language"
    assert "en, de" in e.value.message


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_of_a_command_reads_german_and_fits_80_columns(name: str) -> None:
    """/help COMMAND's longer text is German for a German reader, every line within 80 columns, in
    ASCII too (``/ascii on``: ``ä`` is ``ae``), where no line may be carried on by a word alone."""
    german = lang("de")(help_text(name))
    details = german.split("\n\n")[1]
    assert details != COMMANDS[name].details
    assert all(len(line) <= 80 for line in german.splitlines())
    assert all(len(to_ascii(line)) <= 80 for line in german.splitlines())
    assert all(len(line) <= 80 for line in help_text(name).splitlines())


def test_the_nick_help_states_the_name_rule() -> None:
    """The /nick help says the name rule as protocol.names has it."""
    assert f"Changes your name: {NAME_RULE}." in " ".join(COMMANDS["nick"].details.split())


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_german_help_in_ascii_has_no_word_alone_on_a_line(name: str) -> None:
    """A translation's line written to fit 80 columns fits them in ASCII too (``ä`` is ``ae``):
    no line of its help is carried on by a last word alone. (A longer line is a paragraph, which
    is wrapped for the terminal in either form.)"""
    for line in lang("de")(COMMANDS[name].details).splitlines():
        assert not len(line) <= 80 < len(to_ascii(line)), line

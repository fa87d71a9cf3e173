"""``cafe-bot`` on the line endpoint, where the server writes text for people. The bot answers the
name prompt, types ``/join ROOM``, and on its turn types ``/moves`` and plays one of the moves
listed. The text does not carry the whole game in a form a program can read back, so only the
strategies that decide from the list of legal moves work here: ``first`` and ``random``. Every
line is read with ``protocol.text.read``, next to the code that writes it."""

from __future__ import annotations

import asyncio
import contextlib

from bots.client.runner import (
    LINE_STRATEGIES,
    MOVE_FAULTS,
    TRY_AGAIN,
    Bot,
    BotError,
    BotSettings,
    ConnectionLost,
    GameResult,
    log,
)
from engine.position import MAX_PLAYERS
from protocol.text import read

__all__ = ["LineBot"]


class _Lines:
    """Lines from the line endpoint (CRLF-terminated), and the name prompt (which has no end)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.buffer = bytearray()

    async def _more(self) -> None:
        chunk = await self.reader.read(65536)
        if not chunk:
            raise ConnectionLost("the server closed the connection")
        self.buffer += chunk

    async def prompt(self) -> list[str]:
        """Read up to the name prompt; returns the lines before it."""
        while True:
            at = self.buffer.find(read.PROMPT_START)
            end = self.buffer.find(read.PROMPT_END, at) if at >= 0 else -1
            if end >= 0:
                before = self.buffer[:at].decode("utf-8", "replace")
                del self.buffer[: end + len(read.PROMPT_END)]
                return [line.strip("\r") for line in before.split("\n") if line.strip()]
            await self._more()

    async def line(self, *, or_prompt: bool = False) -> str | None:
        """The next line; with ``or_prompt``, ``None`` when the name prompt comes instead."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                raw = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                return raw.decode("utf-8", "replace").rstrip("\r")
            if or_prompt and self.buffer.startswith(read.PROMPT_START) and read.PROMPT_END in self.buffer:
                await self.prompt()
                return None
            await self._more()


class LineBot(Bot):
    """A bot on the line endpoint: it reads the text a person would and types commands.

    On its turn (the board picture ends with "It is your turn.", or the game starts with it) it
    types ``/moves`` and plays ``first`` or ``random`` from the list.
    """

    transport = "line"

    def __init__(self, settings: BotSettings) -> None:
        super().__init__(settings)
        if settings.strategy not in LINE_STRATEGIES:
            raise BotError(
                f"over the line endpoint the bot sees only the list of legal moves, so it plays "
                f"{' or '.join(LINE_STRATEGIES)}; {settings.strategy!r} needs the whole view: use --url"
            )
        host, _, port = (settings.line or "").rpartition(":")
        if not host or not port.isdigit():
            raise BotError(f"--line takes HOST:PORT, not {settings.line!r}")
        self.host, self.port = host, int(port)
        self.strategy_name = settings.strategy
        self.writer: asyncio.StreamWriter | None = None
        self._in_game = False
        self._asking = False  # a /moves is unanswered
        self._collecting: tuple[int, list[str]] | None = None
        self._last_move: str | None = None
        self._refused: set[str] = set()
        self._finished_picture = False  # the board picture being read shows a finished game
        # the result table of a game the bot played that ended while it was away: (reason, rows)
        self._missed: tuple[str, list[tuple[str, int]]] | None = None
        self._rooms_asked = False  # a /rooms is unanswered
        self._rooms_again = False  # the seats changed since that /rooms was typed
        self._host_off_asked = False  # a /option host off is typed and not seen done
        # the /join typed and not answered yet: typed again if an `unavailable` may have been its answer
        self._joining: str | None = None
        self._errors = read.ErrorJoin()

    async def _connection(self) -> None:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), 10)
        self.writer = writer
        self._asking, self._collecting, self._rooms_asked = False, None, False
        self._joining = None
        try:
            lines = _Lines(reader)
            await lines.prompt()
            await self._hello(lines)
            await self._type(f"/join {self.settings.room}")
            while not self.done:
                line = await lines.line()
                assert line is not None
                await self._receive(line)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _type(self, text: str) -> None:
        assert self.writer is not None
        if text.startswith("/join"):
            self._joining = text
        await self._pacer.wait()
        self.writer.write(text.encode() + b"\r\n")
        await self.writer.drain()

    async def _hello(self, lines: _Lines) -> None:
        for token in (self.token, None) if self.token else (None,):
            await self._type(f"{self.name} {token}" if token else self.name)
            refused: str | None = None
            while (line := await lines.line(or_prompt=True)) is not None:
                if read.read_hello(line) is not None:
                    found = read.read_token(await lines.line() or "")
                    if found is None:
                        raise BotError("the server's welcome carries no resume token")
                    (self.name, self.token), self._welcomed = found, True
                    log.info("welcome", transport=self.transport, player=self.name, resumed=token is not None)
                    return
                refused = read.read_refusal(line) or refused
            if token is not None:
                log.warning("token_refused", player=self.name, message=refused)
                continue
            raise BotError(f"the server refused the name {self.name!r}: {refused}")
        raise BotError(f"the server refused the name {self.name!r}")

    async def _receive(self, received: str) -> None:
        log.debug("line", text=received)
        line = self._errors.feed(received)
        if line is None:
            return
        if line == f"* {self.name} takes a seat":
            self._joining = None  # the seat is the bot's: the /join was answered
        if self._missed is not None and self._missed[1] and read.read_result_row(line) is None:
            reason, rows = self._missed
            self._missed = None
            # names as the picture shows them (a long one is shortened there)
            await self._over(
                GameResult(reason=reason, ranking=tuple(n for n, _ in rows), final_scores=dict(rows))
            )
        if self._collecting is not None:
            count, collected = self._collecting
            if read.is_move_line(line):
                collected.append(line)
                if line.endswith(","):
                    return  # the list goes on
                line = ""
            self._collecting = None
            moves = read.parse_move_list(collected)
            if len(moves) != count:
                log.warning("move_list_misread", listed=count, read=len(moves))
            await self._choose(moves)
        if (listed := read.read_move_count(line)) is not None and self._asking:
            self._asking = False
            self._collecting = (listed, [])
        elif line == read.NO_MOVES:
            self._asking = False
        elif error := read.read_error(line):
            await self._refusal(error.code, error.message)
        elif started := read.read_game_started(line):
            self._in_game = self.name in started.players
            if self._in_game:
                self._joining = None
            self._refused.clear()
            if started.start_player == self.name:
                await self._ask_moves()
        elif line == read.YOUR_TURN:  # the last line of a board picture, on the reader's turn
            self._refused.clear()
            await self._ask_moves()
        elif read.is_hand_line(line) and not self._finished_picture:
            self._in_game = True
        elif over := read.read_game_over(line):
            await self._over(
                GameResult(reason=over.reason, ranking=tuple(over.scores), final_scores=over.scores)
            )
        elif (finished := read.read_picture_title(line)) is not None:
            self._finished_picture = finished
        elif (entered := read.read_entered(line)) and entered[1] == "over" and self._in_game:
            # Back after the game it played ended: no "Game over" line comes, the picture has the result.
            self._missed = ("over", [])
        elif self._missed is not None and (head := read.read_result_head(line)) is not None:
            self._missed = (head, [])
        elif self._missed is not None and (row := read.read_result_row(line)):
            self._missed[1].append(row)
        elif room := read.read_room(line):
            await self._room_line(room)
        elif self.settings.start is not None and line == f"* {self.name} takes a seat":
            # a bot that starts games opens the start to every player (as host; else refused)
            self._host_off_asked = True
            await self._type("/option host off")
            await self._ask_rooms()
        elif line.startswith("* ") and " turned host off: " in line:
            self._host_off_asked = False
        elif self.settings.start is not None and read.is_seat_taken(line):
            await self._ask_rooms()

    async def _ask_moves(self) -> None:
        if self._asking or self._collecting is not None:
            return
        self._asking = True
        await self._type("/moves")

    async def _choose(self, moves: list[str]) -> None:
        moves = [mv for mv in moves if mv not in self._refused]
        if not moves:
            log.warning("no_readable_move")
            return
        move = moves[0] if self.strategy_name == "first" else self.rng.choice(moves)
        self._last_move = move
        self.moves_sent += 1
        log.info("move", room=self.settings.room, player=self.name, move=move, strategy=self.strategy_name)
        await self._type(f"/play {move}")

    async def _refusal(self, code: str, message: str) -> None:
        if code in MOVE_FAULTS and self._last_move is not None:
            log.warning("move_refused", move=self._last_move, code=code, message=message)
            self._refused.add(self._last_move)
            self._last_move = None
            await self._ask_moves()
            return
        if code in TRY_AGAIN:
            # which command was dropped is not said: a /join not answered yet is typed again
            # (its answer, a seat or already_seated, leads on), else the bot asks whether it is
            # its turn; one command for each refusal, so that refusals do not multiply while the
            # room is out of reach
            log.warning(code, player=self.name, joining=self._joining)
            if code == "rate_limited":
                self._pacer.slow_down()
            await asyncio.sleep(1.0)
            self._asking = False
            if self._joining is not None:
                await self._type(self._joining)
                return
            # what a bot that starts games waits for the answer of is typed again too
            if self._host_off_asked:
                await self._type("/option host off")
            if self._rooms_asked:
                self._rooms_asked = self._rooms_again = False
                await self._ask_rooms()
            await self._ask_moves()
        elif code in ("not_your_turn", "no_game", "game_over", "not_seated"):
            self._asking = False
        elif code in ("room_full", "bad_room", "too_many_rooms"):
            raise BotError(f"cannot join room {self.settings.room!r}: {message}")
        elif code == "game_running":
            self._joining = None
            log.info("waiting_for_game_end", room=self.settings.room)
        elif code == "already_seated":
            self._joining = None
            await self._ask_moves()  # seated already (its seat kept while it was away): its turn?
        elif code == "not_host":
            self._host_off_asked = False  # (not the host: the host decides, and a start waits)
        elif code != "not_enough_players":
            log.warning("refused", code=code, message=message)

    async def _over(self, result: GameResult) -> None:
        if self._in_game:
            self._in_game = False
            self._game_over(result)
        if self.done:
            return
        await self._type("/join")  # a seat for the next game (refused harmlessly if it is kept)
        await self._ask_rooms()

    async def _ask_rooms(self) -> None:
        if self.settings.start is None:
            return
        if self._rooms_asked:
            self._rooms_again = True
            return
        self._rooms_asked = True
        await self._type("/rooms")

    async def _room_line(self, room: read.RoomLine) -> None:
        if room.name.casefold() != self.settings.room.casefold():
            return
        self._rooms_asked = False
        if self._rooms_again:
            self._rooms_again = False
            await self._ask_rooms()
            return
        names = list(room.seats)
        if room.state != "playing" and self.name not in names and len(names) < MAX_PLAYERS:
            # not seated between games (a seat given up while the bot was away, or a /join
            # the server could not pass on): a seat for the next game
            log.info("not_seated", room=room.name, players=names)
            await self._type("/join")
            return
        start = self.settings.start
        if start is not None and room.state != "playing" and self.name in names and len(names) >= start:
            log.info("start", room=room.name, players=names)
            await self._type("/start")

"""``cafe-bot`` on the WebSocket endpoint: the JSON protocol of ``protocol.messages``. The bot keeps
the room's view up to date from the ``snapshot`` and each ``patch`` and, whenever the view says it
is to move, decides from that view alone; every strategy works here."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Mapping
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from bots.client.runner import (
    MOVE_FAULTS,
    TRY_AGAIN,
    Bot,
    BotError,
    BotSettings,
    ConnectionLost,
    GameResult,
    log,
    make_strategy,
)
from bots.strategy import BotView, view_from_dict
from protocol import messages as m
from protocol.diff import PatchError, apply_patch

__all__ = ["WsBot", "bot_view_from_room"]


def bot_view_from_room(view: Mapping[str, Any]) -> BotView:
    """The ``BotView`` of the player who received the room ``view`` (``protocol.view``'s shape).

    Only what the recipient may see is read: its hand, the board, the bar, every player's score,
    hand limit and hand size, and the deck's size. A room view marks eliminated players but not
    the order they left in, so the view lists them in seating order.
    """
    game = view.get("game")
    if game is None:
        raise ValueError("the room has no game")
    players = game["players"]
    names = [p["name"] for p in players]
    me = view.get("you")
    if me not in names or "hand" not in game:
        raise ValueError("the view is not a player's: it has no hand")
    seat = names.index(me)
    entries = []
    for i, p in enumerate(players):
        entry = {k: p[k] for k in ("name", "hand_size", "score", "hand_limit")}
        if i == seat:
            entry["hand"] = game["hand"]
        entries.append(entry)
    options = view.get("options") or {}
    return view_from_dict(
        {
            "board": "classic",  # the only board rooms play on; a view does not name it
            "options": {"stammtisch": bool(options.get("stammtisch"))},
            "players": entries,
            "you": seat,
            "eliminated": [p["name"] for p in players if p["eliminated"]],
            "to_move": names.index(game["to_move"]),
            "start_player": names.index(game["start_player"]),
            "chairs": game["chairs"],
            "bar": game["bar"],
            "deck_size": game["deck_size"],
        }
    )


class WsBot(Bot):
    """A bot on the WebSocket endpoint: it plays from the room view the server keeps it sent."""

    transport = "ws"

    def __init__(self, settings: BotSettings) -> None:
        super().__init__(settings)
        if settings.url is None:
            raise BotError("a WebSocket bot needs a url")
        self.strategy = make_strategy(settings.strategy, settings.budget)
        self.connection: ClientConnection | None = None
        self.view: dict[str, Any] | None = None
        self._ids = itertools.count(1)
        self._seq = 0
        self._pending: dict[int, str] = {}  # id of a message sent -> what it was
        self._moved_at: int | None = None  # the move number the bot last moved at
        #: a move answered ``unavailable``: no move until a fresh snapshot shows where the game is
        self._stale = False
        self._games = 0  # games seen start in the room: two games may end at one move number
        self._in_game = False
        # the room as it was when the bot last asked for a seat or a start: asked once per change
        self._joined_for: tuple[Any, ...] | None = None
        self._started_for: tuple[Any, ...] | None = None

    async def _connection(self) -> None:
        assert self.settings.url is not None
        async with connect(self.settings.url, open_timeout=10, max_size=2**22) as ws:
            self.connection = ws
            self._seq = 0
            # what was sent on a lost connection may never have arrived, and the old view may be
            # behind (its last patches lost with it): the bot acts on the snapshot that comes now
            self._pending.clear()
            self.view = None
            self._stale = False
            self._moved_at = self._joined_for = self._started_for = None
            await self._hello(ws)
            await self._send(ws, m.Join(room=self.settings.room), "join")
            async for raw in ws:
                await self._receive(ws, raw)
                if self.done:
                    return
        raise ConnectionLost("the server closed the connection")

    async def _send(self, ws: ClientConnection, message: m._ClientMessage, what: str) -> int:
        msg_id = next(self._ids)
        self._pending[msg_id] = what
        await self._pacer.wait()
        await ws.send(message.model_copy(update={"id": msg_id}).model_dump_json(exclude_none=True))
        return msg_id

    async def _hello(self, ws: ClientConnection) -> None:
        for token in (self.token, None) if self.token else (None,):
            await ws.send(m.Hello(name=self.name, token=token, kind="bot").model_dump_json(exclude_none=True))
            answer = m.parse_server_message(await ws.recv())
            self._seq = answer.seq
            if isinstance(answer, m.Welcome):
                self.name, self.token, self._welcomed = answer.name, answer.token, True
                log.info("welcome", transport=self.transport, player=self.name, resumed=answer.resumed)
                return
            if isinstance(answer, m.Error) and answer.code == "bad_token":
                log.warning("token_refused", player=self.name)
                continue
            detail = answer.message if isinstance(answer, m.Error) else answer.type
            raise BotError(f"the server refused the name {self.name!r}: {detail}")
        raise BotError(f"the server refused the name {self.name!r}")

    async def _receive(self, ws: ClientConnection, raw: str | bytes) -> None:
        msg = m.parse_server_message(raw)
        if msg.seq != self._seq + 1:
            log.warning("seq_gap", expected=self._seq + 1, got=msg.seq)
            await self._send(ws, m.Resync(), "resync")
        self._seq = msg.seq
        if isinstance(msg, m.Snapshot):
            self._stale = False
            self._set_view(msg.view)
        elif isinstance(msg, m.Patch):
            if self.view is None:
                return
            try:
                self._set_view(apply_patch(self.view, msg.ops))
            except PatchError as e:
                log.warning("patch_failed", error=str(e))
                self.view = None
                await self._send(ws, m.Resync(), "resync")
                return
        elif isinstance(msg, m.Ack | m.Error | m.LegalMoves):
            await self._answer(ws, msg)
        elif isinstance(msg, m.GameStarted):
            self._games += 1
        elif isinstance(msg, m.Bye):
            log.info("bye", reason=msg.reason)
        if not self.done:
            await self._act(ws)

    def _set_view(self, view: dict[str, Any]) -> None:
        """Take a new view; a game the bot played that it now sees over counts as played."""
        self.view = view
        game = view.get("game")
        names = [p["name"] for p in game["players"]] if game else []
        if view["state"] == "playing" and self.name in names:
            self._in_game = True
        elif view["state"] == "over" and self._in_game and game is not None:
            self._in_game = False
            result = game["result"] or {}
            self._game_over(
                GameResult(
                    reason=str(result.get("reason", game["over"])),
                    ranking=tuple(result.get("ranking", ())),
                    final_scores=dict(result.get("final_scores", {})),
                )
            )

    async def _answer(self, ws: ClientConnection, msg: m.Ack | m.Error | m.LegalMoves) -> None:
        what = self._pending.pop(msg.id, None) if isinstance(msg.id, int) else None
        if isinstance(msg, m.Ack) and what == "join" and self.settings.start is not None:
            # a bot that starts games opens the start to every player (as host; else refused)
            await self._send(ws, m.SetOption(key="host", value=False), "host")
        if isinstance(msg, m.LegalMoves):
            if what == "legal_moves" and msg.moves:
                # the fallback after a refused move: the first move the server offers
                await self._send(ws, m.PlayMove(move=msg.moves[0]), "move")
            return
        if not isinstance(msg, m.Error):
            return
        if msg.code in TRY_AGAIN:
            await self._retry(ws, what, msg.code)
            return
        if what == "join" and msg.code in ("room_full", "bad_room", "too_many_rooms"):
            raise BotError(f"cannot join room {self.settings.room!r}: {msg.message}")
        if what == "move":
            log.warning("move_refused", code=msg.code, message=msg.message)
            if msg.code in MOVE_FAULTS:
                await self._send(ws, m.GetLegalMoves(), "legal_moves")
            return
        if msg.code not in (
            "already_seated",
            "game_running",
            "not_enough_players",
            "not_your_turn",
            "not_host",
        ):
            log.warning("refused", request=what, code=msg.code, message=msg.message)

    async def _retry(self, ws: ClientConnection, what: str | None, code: str) -> None:
        """Send again, after a pause, what the server refused for coming too fast or while its
        log (or, in a cluster, the room's node) was out of reach."""
        log.warning(code, request=what)
        if code == "rate_limited":
            self._pacer.slow_down()
        await asyncio.sleep(1.0)
        # what was refused is asked for again as the view then says (``_receive`` acts next)
        if what == "move":
            self._moved_at = None
            if code == "unavailable":
                # the move may have been played all the same (its answer lost), and the patches of
                # what followed it lost too (in a cluster, with Redis): the bot moves again only
                # from a fresh snapshot, never from a view that may be a round behind
                self._stale = True
                await self._send(ws, m.Resync(), "resync")
        elif what == "resync":
            await self._send(ws, m.Resync(), "resync")
        elif what == "legal_moves":
            await self._send(ws, m.GetLegalMoves(), "legal_moves")
        elif what == "join":
            self._joined_for = None
        elif what == "start":
            self._started_for = None

    async def _act(self, ws: ClientConnection) -> None:
        """Whatever the current view asks of the bot: take a seat, start, or move."""
        view = self.view
        if view is None:
            return
        state = view["state"]
        game = view["game"]
        waiting = set(self._pending.values())
        seats = tuple(s["name"] for s in view["seats"])
        # (a start refused as not the host's is asked for again once the host lets anyone start)
        host = view["options"].get("host")
        moment = (state, seats, game["move_number"] if game else None, host, self._games)
        if view["seat"] is None and state != "playing":
            if "join" not in waiting and self._joined_for != moment:
                self._joined_for = moment
                await self._send(ws, m.Join(), "join")
            return
        start = self.settings.start
        if start is not None and state != "playing" and len(seats) >= start:
            if "start" not in waiting and self._started_for != moment:
                self._started_for = moment
                log.info("start", room=view["room"], players=list(seats))
                await self._send(ws, m.Start(), "start")
            return
        if (
            state == "playing"
            and game is not None
            and game["to_move"] == self.name
            and view["seat"] is not None  # (a seat a bot plays while this one only watches)
            and game["over"] is None
            and self._moved_at != game["move_number"]
            and not self._stale
            and "move" not in waiting
        ):
            self._moved_at = game["move_number"]
            await self._move(ws, view)

    async def _move(self, ws: ClientConnection, view: Mapping[str, Any]) -> None:
        try:
            bot_view = bot_view_from_room(view)
        except ValueError as e:  # a view the strategy cannot read: the server's list still can be
            log.warning("view_unreadable", error=str(e))
            await self._send(ws, m.GetLegalMoves(), "legal_moves")
            return
        began = time.perf_counter()
        # the strong strategy thinks for seconds: off the event loop, so the connection stays alive
        move = await asyncio.to_thread(self.strategy.choose, bot_view, self.rng)
        self.moves_sent += 1
        log.info(
            "move",
            room=view["room"],
            player=self.name,
            number=view["game"]["move_number"] + 1,
            move=move,
            strategy=self.strategy.name,
            ms=round((time.perf_counter() - began) * 1000),
        )
        await self._send(ws, m.PlayMove(move=move), "move")

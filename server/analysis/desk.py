"""Analyses of finished games (``/analyse GAME``, ``GET /api/games/ID/analysis``): queued, run in
worker processes of their own, kept in the store once.

The analysis (:mod:`bots.analysis`) spends ``--analysis-budget`` seconds of one core on each move,
so a game takes about a minute: it never runs on the event loop, nor in the bots' workers (a game in
play would wait for a bot's move behind it). ``--analysis-workers`` processes (one by default) run
analyses one at a time each, at a lower priority (``nice`` 10) than the server and its bots; the
rest wait in a queue of ``--analysis-queue`` places. What one person can make the server spend is
bounded: one analysis queued or running at a time (three one address, however many guests it
holds), ``--analysis-rate`` new ones an hour (three times as many one address; one that failed is
given back), and none when the queue is full. An analysis kept already, or one queued already (the
asker is told when it is ready too), costs nothing and is always answered.

A game's analysis is read by whoever may read the game: a private game's by its players alone;
for everyone else it does not exist, as the game does not (``server.directory.privacy``). Whoever
waits for one is told it is ready only if they may read the game then (an account deleted
meanwhile reads no longer what it alone could); the analysis they wait for, and what they asked for
within the hour, follow them when they register or delete their account.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from engine import GameRecord
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _, _n
from server.analysis.worker import run_analysis, worker_started
from server.config import Config
from server.directory.privacy import Reader
from server.log.contract import GameLog
from server.session import Session
from server.workers import Workers

log = structlog.get_logger("cafe.analyses")

#: the window of ``--analysis-rate``, in seconds
HOUR = 3600.0
#: how many times a person's rate one address may ask for
ADDRESS_FACTOR = 3
#: seconds between two looks at the store for an analysis another node of a cluster runs
THEIRS_EVERY = 1.0


class Claims(Protocol):
    """In a cluster, which node runs a game's analysis (``server.cluster.analyses``)."""

    async def claim(self, game_id: str, seconds: int) -> bool: ...

    async def release(self, game_id: str) -> None: ...


def analysis_seed(game_id: str) -> int:
    """The seed of a game's analysis: the same game is sampled alike on every node.

    >>> analysis_seed("0123abcd") == analysis_seed("0123abcd") != analysis_seed("0123abce")
    True
    """
    return int.from_bytes(hashlib.sha256(game_id.encode()).digest()[:8], "big")


def figures(analysis: dict[str, Any]) -> dict[str, m.AnalysisFigures]:
    """Each player's figures of a kept analysis, as the ``analysis`` message carries them."""
    return {
        name: m.AnalysisFigures(
            moves=f["moves"], total_cost=f["total_cost"], mean_cost=f["mean_cost"], accuracy=f["accuracy"]
        )
        for name, f in analysis["players"].items()
    }


@dataclass(slots=True)
class Job:
    """An analysis queued or running, who asked for it first (identity and address: charged for
    it), and who waits for it (identity -> name)."""

    game_id: str
    record: GameRecord
    #: the moves the server played for their player (``StoredGame.auto``): not judged
    auto: dict[int, str]
    asker: tuple[str, str]
    waiters: dict[str, str] = field(default_factory=dict)
    running: bool = False


class Window:
    """How many times each key asked within the last ``span`` seconds.

    >>> w = Window(10.0)
    >>> w.add("ann", 0.0); w.add("ann", 5.0); w.count("ann", 9.0), w.count("ann", 12.0)
    (2, 1)
    >>> w.add("bob", 13.0); w.give_back("ann"); w.rename("bob", "account:bob"); w.add("cy", 30.0)
    >>> sorted(w._times), w.count("account:bob", 14.0)
    (['cy'], 0)
    """

    def __init__(self, span: float) -> None:
        self.span = span
        self._times: dict[str, deque[float]] = {}

    def count(self, key: str, now: float) -> int:
        times = self._times.get(key)
        if times is None:
            return 0
        while times and times[0] <= now - self.span:
            times.popleft()
        if not times:
            del self._times[key]  # so that the keys kept are only those that asked lately
            return 0
        return len(times)

    def add(self, key: str, now: float) -> None:
        # the keys that asked no more within the span go (a guest's identity asks once, and goes):
        # rare enough, an analysis at most a minute or so, to look at them all
        for stale in [k for k, times in self._times.items() if times[-1] <= now - self.span]:
            del self._times[stale]
        self._times.setdefault(key, deque()).append(now)

    def give_back(self, key: str) -> None:
        """The newest time ``key`` asked does not count."""
        times = self._times.get(key)
        if times:
            times.pop()
            if not times:
                del self._times[key]

    def rename(self, old: str, new: str) -> None:
        """What ``old`` asked counts for ``new`` from now on (in the order asked)."""
        if (times := self._times.pop(old, None)) is not None:
            self._times[new] = deque(sorted((*self._times.get(new, ()), *times)))


class AnalysisDesk:
    """The node's analyses: ``ask`` answers ``analyse``, ``http`` answers
    ``GET /api/games/ID/analysis``; ``close`` ends the workers."""

    def __init__(
        self,
        config: Config,
        store: GameLog,
        sessions: Callable[[], Iterable[Session]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.store = store
        self.sessions = sessions
        self.clock = clock
        #: the analyses queued or running, in the order they were asked for
        self.jobs: dict[str, Job] = {}
        #: the game each person waits for
        self._asking: dict[str, str] = {}
        self._people = Window(HOUR)
        self._addresses = Window(HOUR)
        self._queue: asyncio.Queue[Job] | None = None
        self._runners: list[asyncio.Task[None]] = []
        self._workers = Workers(config.analysis_workers, then=worker_started)
        #: in a cluster, the claims that make one node run a game's analysis (``None``: one node)
        self.claims: Claims | None = None

    # --- asking --------------------------------------------------------------------------------

    async def ask(self, session: Session, msg: m.Analyse) -> None:
        """``analyse``: the analysis if it is kept, else queue it (or wait for the one queued)."""
        identity = session.identity or ""
        game = await self.store.game(msg.game)
        if game is None or not game.readable_by(session.identity):
            raise ProtocolError(
                "no_such_game", _("No game {game} that you may read.", game=msg.game[:24]), msg.id
            )
        if game.result is None:
            raise ProtocolError(
                "not_finished",
                _("Game {game} is still running: it is analysed once it is over.", game=msg.game),
                msg.id,
            )
        kept = await self.store.analyses.analysis(msg.game)
        if kept is not None:
            session.send(
                m.Analysis(id=msg.id, game=msg.game, state="ready", ahead=None, players=figures(kept))
            )
            return
        waiting = self._asking.get(identity)
        if waiting is not None and waiting != msg.game:
            raise ProtocolError(
                "analysis_pending",
                _("Your analysis of game {game} is not ready yet: one at a time.", game=waiting),
                msg.id,
            )
        job = self.jobs.get(msg.game)
        if job is None:
            job = self._queued(session, msg, game.record, game.auto)
        job.waiters[identity] = session.name or ""
        self._asking[identity] = msg.game
        session.send(
            m.Analysis(id=msg.id, game=msg.game, state="queued", ahead=self._ahead(msg.game), players=None)
        )

    def _queued(self, session: Session, msg: m.Analyse, record: GameRecord, auto: dict[int, str]) -> Job:
        """A new analysis, within the asker's and the queue's bounds."""
        now = self.clock()
        identity = session.identity or ""
        if self._people.count(identity, now) >= self.config.analysis_rate:
            raise ProtocolError(
                "too_many_analyses",
                _n(
                    "You asked for {n} new analysis within an hour, the most allowed; try later.",
                    "You asked for {n} new analyses within an hour, the most allowed; try later.",
                    self.config.analysis_rate,
                ),
                msg.id,
            )
        if self._addresses.count(session.address, now) >= ADDRESS_FACTOR * self.config.analysis_rate:
            raise ProtocolError(
                "too_many_analyses",
                _n(
                    "Your address asked for {n} new analysis within an hour, the most allowed; try later.",
                    "Your address asked for {n} new analyses within an hour, the most allowed; try later.",
                    ADDRESS_FACTOR * self.config.analysis_rate,
                ),
                msg.id,
            )
        if len(self.jobs) >= self.config.analysis_queue + self.config.analysis_workers:
            raise ProtocolError(
                "analysis_busy", _("The server has as many analyses queued as it takes; try later."), msg.id
            )
        if sum(1 for job in self.jobs.values() if job.asker[1] == session.address) >= ADDRESS_FACTOR:
            # (each new guest is a new person: without this, one address would fill the queue)
            raise ProtocolError(
                "analysis_pending",
                _(
                    "Your address waits for {n} analyses already, the most at once; ask again when"
                    " one is ready.",
                    n=ADDRESS_FACTOR,
                ),
                msg.id,
            )
        self._people.add(identity, now)
        self._addresses.add(session.address, now)
        job = Job(msg.game, record, dict(auto), (identity, session.address))
        self.jobs[msg.game] = job
        self._start().put_nowait(job)
        log.info("analysis_queued", game=msg.game, player=session.name, queued=len(self.jobs))
        return job

    def _ahead(self, game_id: str) -> int:
        """How many analyses this node runs before ``game_id``'s."""
        return list(self.jobs).index(game_id)

    # --- running -------------------------------------------------------------------------------

    def _start(self) -> asyncio.Queue[Job]:
        if self._queue is None:
            self._queue = asyncio.Queue()
            loop = asyncio.get_running_loop()
            self._runners = [loop.create_task(self._run()) for _ in range(self.config.analysis_workers)]
        return self._queue

    async def _run(self) -> None:
        assert self._queue is not None
        while True:
            job = await self._queue.get()
            job.running = True
            started = time.perf_counter()
            kept: dict[str, Any] | None = None
            try:
                kept = await self._analysed(job)
                log.info("analysis_done", game=job.game_id, seconds=round(time.perf_counter() - started, 2))
            except asyncio.CancelledError:
                raise
            except BrokenProcessPool:
                log.warning("analysis_failed", game=job.game_id, error="worker died")
            except Exception as e:  # the store out of reach, a record the engine refuses
                log.warning("analysis_failed", game=job.game_id, error=repr(e))
            finally:
                del self.jobs[job.game_id]
                for identity in job.waiters:
                    if self._asking.get(identity) == job.game_id:
                        del self._asking[identity]
            if kept is None:  # asked again later, it costs its asker nothing more
                self._people.give_back(job.asker[0])
                self._addresses.give_back(job.asker[1])
            await self._tell(job, kept)

    async def _analysed(self, job: Job) -> dict[str, Any]:
        """Run ``job`` and keep its analysis. A pool whose worker died (between two analyses, or
        killed during this one) fails the call at once, and is made anew for the next: the
        analysis is tried once more, there."""
        claims = self.claims
        if claims is not None:
            # what the analysis may take (each move's budget, and room to spare), and no more: a
            # node that died with the claim holds it no longer
            seconds = int(60 + 3 * self.config.analysis_budget * max(1, len(job.record.moves)))
            while not await claims.claim(job.game_id, seconds):
                # another node runs it: its analysis, once kept, is this one's askers' too
                await asyncio.sleep(THEIRS_EVERY)
                kept = await self.store.analyses.analysis(job.game_id)
                if kept is not None:
                    log.info("analysis_theirs", game=job.game_id)
                    return kept
        try:
            args = (job.record.to_dict(), self.config.analysis_budget, analysis_seed(job.game_id), job.auto)
            try:
                data = await self._workers.run(run_analysis, *args)
            except BrokenProcessPool:
                log.info("analysis_again", game=job.game_id, error="worker died")
                data = await self._workers.run(run_analysis, *args)
            await self.store.analyses.analysis_saved(job.game_id, data)
            return await self.store.analyses.analysis(job.game_id) or data
        finally:
            if claims is not None:
                await claims.release(job.game_id)

    def identity_changed(self, old: str, new: str) -> None:
        """The person ``old`` is ``new`` from now on (they registered, or deleted their account):
        the analysis they wait for, and the analyses they asked for within the hour, are theirs."""
        self._people.rename(old, new)
        for queued in self.jobs.values():  # (a failure is given back to whom it was charged)
            if queued.asker[0] == old:
                queued.asker = (new, queued.asker[1])
        game = self._asking.pop(old, None)
        if game is None:
            return
        self._asking[new] = game
        job = self.jobs.get(game)
        if job is not None and old in job.waiters:
            job.waiters[new] = job.waiters.pop(old)

    async def _tell(self, job: Job, kept: dict[str, Any] | None) -> None:
        """Tell everyone who asked and may read the game now, wherever they are connected on this
        node (an account deleted since reads no longer the private games it alone could)."""
        waiting = [s for s in self.sessions() if s.identity is not None and s.identity in job.waiters]
        if not waiting:
            return
        try:
            game = await self.store.game(job.game_id)
        except Exception as e:  # (the store out of reach: who may read it cannot be told)
            log.warning("analysis_untold", game=job.game_id, error=repr(e))
            return
        for session in waiting:
            if game is None or not game.readable_by(session.identity):
                continue
            if kept is None:
                session.send(
                    m.Notice(text=_("The analysis of game {game} failed; ask again later.", game=job.game_id))
                )
            else:
                session.send(
                    m.Analysis(id=None, game=job.game_id, state="ready", ahead=None, players=figures(kept))
                )

    def close(self) -> None:
        """Stop: the analyses queued or running are dropped (nobody waits for them after a
        restart), their workers ended at once."""
        for task in self._runners:
            task.cancel()
        self._workers.close()

    # --- HTTP ----------------------------------------------------------------------------------

    async def http(self, game_id: str, asking: Reader | None) -> tuple[int, dict[str, Any]]:
        """``GET /api/games/ID/analysis``: 200 and the analysis once it is kept, 202 while it is
        queued or running, 404 for a game that does not exist, is not finished or may not be
        read by ``asking``, and for one nobody asked to analyse yet."""
        game = await self.store.game(game_id)
        if (
            game is None
            or game.result is None
            or not game.readable_by(None if asking is None else asking.identity)
        ):
            return 404, {"error": "no such finished game"}
        kept = await self.store.analyses.analysis(game_id)
        if kept is not None:
            return 200, {"id": game_id, "state": "ready", **kept}
        job = self.jobs.get(game_id)
        if job is not None:
            return 202, {
                "id": game_id,
                "state": "running" if job.running else "queued",
                "ahead": self._ahead(game_id),
            }
        return 404, {"error": "not analysed", "id": game_id, "state": None}

"""Server and ``cafe-admin`` processes forked from one that has already imported them.

A ``python -m server`` spends about 0.22 s of CPU importing its modules before it listens, a
``cafe-admin`` about 0.17 s, and the tests start some 160 servers and 50 ``cafe-admin`` runs. Each
test process keeps one fork server instead: a process that has imported both as the commands do
(the garbage collector off) and then forks a child for each command asked for. The child sets the
arguments, environment and folder it was given, writes its standard error (and output) to the
asker's pipes, and runs the command's own function (``server.__main__.main``,
``server.admin.cli.main``) as ``python -m`` would; only the imports are spared. The asker gets a
:class:`ForkedProcess`, which answers as asyncio's subprocess does (``pid``, ``stdout``,
``stderr``, ``returncode``, ``send_signal``, ``kill``, ``terminate``, ``wait``).

Between the two, a Unix socket: the asker sends a 4-byte length and a JSON request
``{"argv", "env", "cwd", "main", "streams"}``, with the write ends of its pipes beside the first
bytes (``SCM_RIGHTS``); the fork server answers one line with the child's pid, and once the child
has ended, one line with its return code as asyncio gives it (a signal that ended it as its
negative number). The fork server ends when the process that started it does, killing the children
still running.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import gc
import importlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parents[2]

#: what the fork server imports once, as the commands do before they start: the server's modules
#: and cafe-admin's
PRELOADED = ("server.app", "server.admin.cli")


# --- the fork server ---------------------------------------------------------------------------------


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    head, fds, _, _ = socket.recv_fds(conn, 4, 2)
    (size,) = struct.unpack("!I", head)
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise EOFError("the request ended early")
        body += chunk
    return json.loads(body), fds


def _child(request: dict[str, Any], pipes: list[int], keep_out: list[Any], fds: list[int]) -> NoReturn:
    """In the forked child: become the command asked for. It never returns: the ``SystemExit`` it
    ends with leaves the interpreter as the command's own end does (threads joined, then the exit
    functions: a bot pool's workers are told to stop before they are waited for)."""
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for thing in keep_out:
            thing.close()
        for fd in fds:
            os.close(fd)
        for pipe, stream in zip(pipes, request["streams"], strict=True):
            os.dup2(pipe, stream)
            os.close(pipe)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = list(request["argv"])
        module, name = request["main"].split(":")
        command = importlib.import_module(module)
        gc.enable()  # (as in a fresh interpreter; the server's main turns it off for its imports)
        if module.endswith(".__main__"):  # as under ``python -m``: a spawned worker reads this main
            sys.modules["__main__"] = command
        code = getattr(command, name)()
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        raise SystemExit(1) from None
    raise SystemExit(code)


def serve(path: str) -> None:
    """Import the commands' modules, then fork a child for each request on the socket at ``path``."""
    gc.disable()  # (as server.__main__ imports the server)
    for module in PRELOADED:
        importlib.import_module(module)

    parent = os.getppid()
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind(path)
    listening.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(listening, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}
    print("ready", flush=True)
    os.dup2(2, 1)  # (that pipe is read no more: what a server prints goes where this process's errors go)
    while os.getppid() == parent:
        for key, _ in selector.select(timeout=0.5):
            if key.fileobj is listening:
                conn, _ = listening.accept()
                try:
                    request, pipes = _receive(conn)
                except (OSError, EOFError, ValueError, IndexError, struct.error):
                    conn.close()  # (an asker gone before it finished asking)
                    continue
                pid = os.fork()
                if pid == 0:
                    _child(request, pipes, [selector, listening, conn, *children.values()], [wake_r, wake_w])
                for pipe in pipes:
                    os.close(pipe)
                with contextlib.suppress(OSError):  # (an asker gone meanwhile: its child is reaped anyway)
                    conn.sendall(f"{pid}\n".encode())
                children[pid] = conn
            else:
                os.read(wake_r, 4096)
        while children:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                conn = children.pop(pid, None)
                if conn is not None:
                    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
                    with contextlib.suppress(OSError):
                        conn.sendall(f"{code}\n".encode())
                    conn.close()
                continue
            break
    for pid in children:  # the test process is gone: so are the servers it left
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# --- the asking side ---------------------------------------------------------------------------------


class _Pipe(asyncio.StreamReaderProtocol):
    """The read end of a server's standard error, saying when it is closed."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        super().__init__(reader)
        self.closed = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self.closed.done():
            self.closed.set_result(None)


class ForkedProcess:
    """A forked process, seen as asyncio's ``Process`` is."""

    #: seconds its pipes stay open after it ended, for what its own children (a bot pool's
    #: workers, which follow the server within half a second) still write
    LINGER = 1.0

    def __init__(
        self,
        pid: int,
        pipes: dict[int, tuple[asyncio.StreamReader, asyncio.ReadTransport, _Pipe]],
        status: asyncio.StreamReader,
        asking: asyncio.StreamWriter,
    ) -> None:
        self.pid = pid
        self.stdout = pipes[1][0] if 1 in pipes else None
        self.stderr = pipes[2][0]
        self.returncode: int | None = None
        self._pipes = pipes
        self._asking = asking  # (the connection the return code comes on, kept open until then)
        self._ended = asyncio.get_running_loop().create_task(self._status(status))

    async def _status(self, status: asyncio.StreamReader) -> None:
        line = await status.readline()
        self.returncode = int(line) if line.strip() else -signal.SIGKILL  # (the fork server died)
        self._asking.close()
        # as asyncio's own: the pipes are closed once the process has ended, not left to the
        # collector (which would warn of them after the test's loop is gone)
        closed = [asyncio.shield(pipe.closed) for _, _, pipe in self._pipes.values()]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*closed), self.LINGER)
        for _, transport, _ in self._pipes.values():
            transport.close()

    async def wait(self) -> int:
        await asyncio.shield(self._ended)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is not None:  # (as asyncio: the process was reaped)
            raise ProcessLookupError
        with contextlib.suppress(ProcessLookupError):  # (ended, its end not yet read)
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class ForkServer:
    """This test process's fork server, started at the first server asked for."""

    _current: ForkServer | None = None

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.folder = tempfile.mkdtemp(prefix="cafe-fork-")
        self.path = os.path.join(self.folder, "socket")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.server.forkserver", self.path],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline() != b"ready\n":
            raise RuntimeError("the fork server did not start")
        atexit.register(self.stop)

    @classmethod
    def get(cls) -> ForkServer:
        """This process's fork server (a process forked from this one starts its own)."""
        current = cls._current
        if current is None or current.owner != os.getpid() or current.proc.poll() is not None:
            cls._current = current = ForkServer()
        return current

    def stop(self) -> None:
        if self.owner != os.getpid():
            return  # (a copy in a forked process: its owner stops it)
        if self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
        with contextlib.suppress(OSError):
            os.unlink(self.path)
            os.rmdir(self.folder)

    async def start(
        self, argv: list[str], env: dict[str, str], main: str = "server.__main__:main", stdout: bool = False
    ) -> ForkedProcess:
        """The command whose function is ``main`` (``module:function``, by default the server's),
        run as ``python -m`` runs it with ``argv`` and ``env``: its standard error read through a
        pipe, and its standard output too when ``stdout`` (else it goes where the fork server's
        errors go)."""
        loop = asyncio.get_running_loop()
        streams = [1, 2] if stdout else [2]
        pipes = [os.pipe() for _ in streams]
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(self.path)
            request = {"argv": argv, "env": env, "cwd": os.getcwd(), "main": main, "streams": streams}
            body = json.dumps(request).encode()
            socket.send_fds(sock, [struct.pack("!I", len(body))], [write for _, write in pipes])
            sock.sendall(body)
        finally:
            for _, write in pipes:
                os.close(write)
        sock.setblocking(False)
        status, asking = await asyncio.open_unix_connection(sock=sock)
        pid = int(await asyncio.wait_for(status.readline(), 10))
        readers = {}
        for stream, (read, _) in zip(streams, pipes, strict=True):
            reader = asyncio.StreamReader()
            transport, pipe = await loop.connect_read_pipe(
                lambda r=reader: _Pipe(r), os.fdopen(read, "rb", 0)
            )
            readers[stream] = (reader, transport, pipe)
        return ForkedProcess(pid, readers, status, asking)


def forking() -> bool:
    """Whether the tests fork their servers and ``cafe-admin`` runs: yes, unless
    ``CAFE_TEST_FORK=0`` in the environment has them run as the commands themselves."""
    return os.environ.get("CAFE_TEST_FORK") != "0"


def main_path(module: str = "server") -> str:
    """``sys.argv[0]`` of a ``python -m MODULE``."""
    return str(ROOT.joinpath(*module.split("."), "__main__.py"))


if __name__ == "__main__":
    serve(sys.argv[1])

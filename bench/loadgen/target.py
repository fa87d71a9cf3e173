"""The process under load (the game server or the relay, started here or given by ``--url``), and
what ``/proc`` tells of it and of the machine."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.loadgen.plan import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes] | None, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the process exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    """CPU seconds the whole machine has spent busy (every core), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a process in bytes, from /proc/PID/status."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024
    return out


class Target:
    """The process under load: the game server or the relay, started here, or one given by --url."""

    def __init__(
        self,
        argv: list[str] | None,
        port: int,
        line_port: int | None,
        pid: int | None,
        profile: str | None = None,
    ) -> None:
        self.port = port
        self.line_port = line_port
        self.proc: subprocess.Popen[bytes] | None = None
        self.stderr: list[str] = []
        if argv is not None:
            if profile:  # py-spy starts the process and samples it until it exits
                spy = str(Path(sys.executable).parent / "py-spy")
                argv = [spy, "record", "--format", "raw", "--rate", "200", "--output", profile, "--", *argv]
            self.proc = subprocess.Popen(
                argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            threading.Thread(target=self._collect, daemon=True).start()
            pid = self.proc.pid
            if profile:
                pid = self._child(pid)
        self.pid = pid
        wait_listening(port, self.proc)

    @staticmethod
    def _child(pid: int) -> int:
        children = Path(f"/proc/{pid}/task/{pid}/children")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = children.read_text().split()
            if found:
                return int(found[0])
            time.sleep(0.02)
        raise TimeoutError("py-spy did not start the server")

    def _collect(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for line in self.proc.stderr:
            if len(self.stderr) < 10_000:
                self.stderr.append(line.decode(errors="replace").rstrip())

    def cpu(self) -> float | None:
        return None if self.pid is None else cpu_seconds(self.pid)

    def cpu_parts(self) -> dict[str, float]:
        """The CPU of each process under load (here one)."""
        cpu = self.cpu()
        return {} if cpu is None else {"server": cpu}

    def memory(self) -> dict[str, int]:
        return {} if self.pid is None else memory(self.pid)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.pid is not None and self.pid != self.proc.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)  # the profiled server; py-spy then writes and exits
        else:
            self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

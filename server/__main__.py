"""``python -m server`` and ``cafe-server``: the server, its modules loaded with the cyclic garbage
collector off. They make objects that live as long as the process, so a pass during the imports
found nothing to free and cost a sixth of their CPU (0.27 s against 0.22 s a start, measured);
``server.app.main`` freezes those objects out of every pass and turns the collector on."""

import gc
import signal
import sys

#: the stop signals that came while the modules loaded, before the server's own handlers: the
#: server stops as soon as it has started, as for a signal that comes later in its start
early: list[int] = []


def _heard(signum: int, frame: object) -> None:
    early.append(signum)


def main() -> int:
    # (the same as server.app's: SIGHUP too, the terminal it ran in closing; SIGTERM last, which
    # a test waits for)
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, _heard)
    gc.disable()
    from server.app import main as serve

    return serve(early=early)


if __name__ == "__main__":
    sys.exit(main())

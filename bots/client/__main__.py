"""``python -m bots.client``: the same as ``cafe-bot``."""

from bots.client.cli import main

raise SystemExit(main())

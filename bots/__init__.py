"""The bots: their strategies, the socket client, tournaments.

Imported before any of its modules, it has the process run the compiled modules where their
build is fresh (``compiled.use()``): ``cafe-bot`` and a tournament's worker processes.
"""

import compiled

compiled.use()

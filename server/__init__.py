"""The server: the lobby, the rooms, the transports, the log.

Imported before any of its modules, it has the process run the compiled modules where their
build is fresh (``compiled.use()``): the server, the bot pool's worker processes and whatever
else starts from here.
"""

import compiled

compiled.use()

"""The directory: who is connected under which name, the rooms and where they run, for one process
(:class:`LocalDirectory`) or a cluster (``server.cluster``, made of the same parts).

============  ==========================================================================
``local``     ``Directory`` (what the lobby asks) and ``LocalDirectory`` (one process)
``names``     the names held in this process, by name and by look-alike form
``rooms``     the room actors of this process and their host
``roomlist``  the room list as people in the lobby watch it
``guests``    the guest lists of this process's private rooms
``privacy``   what a private room keeps to itself, decided in one place
============  ==========================================================================
"""

from server.directory.local import Directory, LocalDirectory
from server.directory.names import Held, NameTable
from server.directory.roomlist import listed

__all__ = ["Directory", "Held", "LocalDirectory", "NameTable", "listed"]

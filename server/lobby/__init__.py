"""The lobby: connections, names and tokens, accounts, people among people, and the routing of each
command to its room.

====================  ==========================================================================
``lobby``             ``Lobby``: hello, resume, names, and each message sent on to its handler
``account_commands``  register, password, unregister, logging in; ratings and profiles as commands
``accounts``          registered accounts and their passwords
``social``            tells, lobby chat, where someone is, each person's mute and friend lists
``profiles``          ratings, the leaderboard and profiles, as text and as JSON
``language``          the language a connection reads
``choices``           a person's lists and settings, kept in the store
``tables``            ``Tables``: a new room for given people, seats drawn, its game started at once
``seeking``           quick pairing: ``/seek``, ``/unseek``, the queue and the pairing loop
``pairing``           quick pairing's decisions: who sits with whom, at which size, when bots come
====================  ==========================================================================
"""

"""The log in one SQLite file (WAL), for a single node.

==============  ====================================================================================
``store``       ``Store``: the storage contract on one connection, made of the parts below
``schema``      the tables, and a file of an earlier version brought up to them
``migrations``  the numbered schema steps after version 5, one ``NNN_what.sql`` each
``journal``     the running games' moves, in the order they were logged
``batch``       group commit: what rooms log in one turn of the event loop, in one transaction
``games``       the games' and players' rows, and games read back
``tokens``      resume tokens
``accounts``    accounts, ratings and rating history
``lists``       each person's lists (mute, friend)
``moderation``  staff roles, sanctions, reports and the append-only moderation log
``tournaments``  tournaments, each one's state kept whole, written over the version read
``checkpoint``  the WAL copied into the database file, in a thread of its own
==============  ====================================================================================
"""

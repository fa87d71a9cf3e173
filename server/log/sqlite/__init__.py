"""The log in one SQLite file (WAL), for a single node.

============  ======================================================================================
``store``     ``Store``: games, moves, resume tokens and reads
``accounts``  accounts, ratings and rating history
``lists``     each person's lists (mute, friend)
============  ======================================================================================
"""

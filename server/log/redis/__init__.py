"""The log in Redis, shared by the nodes of a cluster.

============  ======================================================================================
``store``     ``RedisStore``: games, moves, resume tokens and reads, each write fenced by a lease
``accounts``  accounts, ratings and rating history
``lists``     each person's lists (mute, friend)
============  ======================================================================================
"""

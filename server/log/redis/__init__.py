"""The log in Redis, shared by the nodes of a cluster.

==============  ====================================================================================
``store``       ``RedisStore``: the storage contract on Redis; games, moves and resume tokens, each
                write to a room's game fenced by its lease
``scripts``     the Lua scripts that write a room's game
``keys``        the names of the keys more than one part reads (leases, games, histories, seats)
``guarded``     Redis out of reach raised as the contract's ``StoreUnavailable``
``accounts``    accounts, ratings and rating history
``lists``       each person's lists (mute, friend)
``moderation``  staff roles, sanctions, reports and the append-only moderation log
``tournaments``  tournaments, each one's state kept whole, written over the version read
==============  ====================================================================================
"""

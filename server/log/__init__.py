"""The game log and every record kept for good: one storage contract, three setups (SQLite alone;
Redis alone; Redis with the records in PostgreSQL).

==============  ====================================================================================
``contract``    what callers ask of a log: the protocols, the values they return, the errors
``migrations``  numbered schema steps, ``NNN_what.sql``, applied in order at start
``front``       ``ModerationFront``: the moderation half of the contract, forwarded once for Redis' and
                PostgreSQL's stores
``rows``        the moderation log's SQL rows read into the contract's values (SQLite, PostgreSQL)
``sqlite``      ``Store``: the log in one SQLite file, for a single node
``redis``       ``RedisStore``: the log in Redis, shared by the nodes of a cluster
``postgres``    ``PostgresStore``: a cluster's records in PostgreSQL, what is live in Redis
==============  ====================================================================================
"""

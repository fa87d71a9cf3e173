"""A cluster's records in PostgreSQL, beside Redis for what is live.

==============  ====================================================================================
``store``       ``PostgresStore``: the storage contract with the records here and the live part
                (running games, tokens, leases) in Redis; a finished game moves here once
``records``     ``Records``: accounts, ratings and their history, accounts' lists, finished games
``schema``      the schema brought up to this code's at start; a newer database refused
``migrations``  the numbered schema steps, one ``NNN_what.sql`` each
==============  ====================================================================================
"""

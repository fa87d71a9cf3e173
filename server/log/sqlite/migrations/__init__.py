"""The SQLite log's schema steps after version 5, one file ``NNN_what.sql`` each
(see :mod:`server.log.migrations`)."""

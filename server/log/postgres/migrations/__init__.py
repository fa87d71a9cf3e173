"""PostgreSQL's schema steps, one file ``NNN_what.sql`` each, from the first
(see :mod:`server.log.migrations`)."""

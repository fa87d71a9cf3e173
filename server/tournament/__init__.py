"""Tournaments: Swiss and arena events of Café International.

The decisions are pure (:mod:`.pairing`, :mod:`.standings`, :mod:`.state`): a tournament's state
and the time in, the tables to seat out. :mod:`.director` carries them out on a running server.
"""

"""The load generator behind ``bench/load.py``, by job: ``plan`` (what the processes share),
``wire`` (the WebSocket and line connections), ``clients`` (each client's state machine),
``worker`` (a generator process), ``target`` (the process under load), ``phases`` (running a
phase), ``stats`` (the figures) and ``report`` (what is printed)."""

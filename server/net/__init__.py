"""The endpoints people and programs connect to; each parses what arrives and hands it to the lobby.

===============  ==========================================================================
``ws``           the WebSocket endpoint: JSON text frames at ``/ws``
``line``         the line endpoint for telnet-like clients: UTF-8 lines in, text out
``http``         plain HTTP beside ``/ws``: health, metrics, replays, the players' API, the page
``pages``        the pages the server makes: the rules as HTML, a finished game's replay steps
``keepalive``    keep-alive pings for every WebSocket connection, from one task
``wsinternals``  what the server uses of websockets beneath its documented API, checked at start
===============  ==========================================================================
"""

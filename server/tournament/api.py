"""``GET /api/tournaments`` (upcoming, running, recently over) and ``GET /api/tournaments/ID``
(one tournament: standings, tables with their rounds and game ids), as JSON."""

from __future__ import annotations

from typing import Any

from server.log.contract import TournamentTable
from server.tournament import views
from server.tournament.state import Tournament

#: how many tournaments over the list gives
RECENT = 20


async def api(
    store: TournamentTable, path: str, asker: tuple[str, str | None] | None = None
) -> tuple[int, Any]:
    """The HTTP status and the JSON of ``path``; the list says to ``asker`` (the name and player
    the request's token names) whether they are in each."""
    if path == "/api/tournaments":
        live = [Tournament.from_dict(s.state) for s in await store.tournaments_live()]
        recent = [Tournament.from_dict(s.state) for s in await store.tournaments_recent(RECENT)]
        return 200, views.listing(live, recent, asker=asker).model_dump(exclude={"type", "id", "seq"})
    number = path.removeprefix("/api/tournaments/")
    stored = (
        await store.tournament(int(number))
        if number.isascii() and number.isdigit() and len(number) < 10
        else None
    )
    if stored is None:
        return 404, {"error": "no_such_tournament"}
    return 200, views.info(Tournament.from_dict(stored.state)).model_dump(exclude={"type", "id", "seq"})

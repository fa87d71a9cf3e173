"""Bounds of what a person keeps, shared by the server that enforces them and the catalogue of
errors that names them."""

from __future__ import annotations

from typing import Final

#: how many names each of a person's lists (friends, mutes) may hold
LIST_MAX: Final = 200

__all__ = ["LIST_MAX"]

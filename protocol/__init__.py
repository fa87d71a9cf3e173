"""protocol package."""

from engine.compiled import guard

guard()  # the compiled modules of protocol are built with the engine's (engine/compiled.py)

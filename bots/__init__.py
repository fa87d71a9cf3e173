"""bots package."""

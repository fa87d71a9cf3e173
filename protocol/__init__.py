"""protocol package."""

import engine  # noqa: F401 - its __init__ guards the compiled modules of both packages (engine/compiled.py)

"""Hot-path fixes for third-party libraries, applied once at import.

httpcore asks ``import sniffio`` on every request to learn the async library; when sniffio is not
installed that failing import scans ``sys.path`` each time (~0.1 ms per upstream request, measured
with cProfile). Recording the absence once makes later imports fail immediately, which is exactly
what they would do anyway.
"""

from __future__ import annotations

import importlib.util
import sys


def apply() -> None:
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]

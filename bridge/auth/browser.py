"""Opening the authorization URL: Python's ``webbrowser`` (so ``BROWSER`` is honoured); where no browser
can be started the URL goes to stderr for the user to open by hand. The URL carries no secret (state and
the PKCE challenge are public by design, RFC 7636 §7.2)."""

from __future__ import annotations

import sys
import webbrowser
from collections.abc import Callable

Opener = Callable[[str], None]


def open_in_browser(url: str) -> None:
    sys.stderr.write(f"mcp-eras: sign in to continue; opening {url}\n")
    try:
        opened = webbrowser.open(url, new=1, autoraise=True)
    except webbrowser.Error:
        opened = False
    if not opened:
        sys.stderr.write(f"mcp-eras: no browser could be started; open this URL to sign in:\n  {url}\n")
    sys.stderr.flush()

#!/usr/bin/env python3
"""A headless "browser" for OAuth sign-in tests: ``BROWSER=<this file>`` makes Python's ``webbrowser``
run ``headless_opener.py URL`` instead of opening a window.

It loads the authorization URL and follows every redirect (cookies kept, as a browser would), so an
authorization server that signs the user in without a page and redirects back (the conformance
harness's mock, or the test authorization server of tests/auth) ends on the client's loopback
redirect URI with ``code`` and ``state`` (RFC 6749 section 4.1.2). Like a desktop opener it returns
at once and browses in a detached child (``webbrowser`` waits for the command, and a client that
opens the URL from the thread serving its redirect listener would otherwise wait on itself; the
child's every hop is bounded). Standard library only: it runs
under whatever ``python3`` is on PATH. Every hop has a deadline; a failure is printed on stderr
and the exit status is 1 (the signing-in client then reports its own timeout).

``HEADLESS_OPENER_LOG``: a file to which each visited URL's scheme, host and path are appended
(never the query: it carries the code), for tests that check where the browser went.
"""

from __future__ import annotations

import http.cookiejar
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

TIMEOUT = 20.0
MAX_HOPS = 15


class _Recorder(urllib.request.HTTPRedirectHandler):
    """Redirects followed as a browser does (302/303 become GET), each hop recorded, bounded."""

    max_redirections = MAX_HOPS

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        _note(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _note(url: str) -> None:
    log = os.environ.get("HEADLESS_OPENER_LOG")
    if not log:
        return
    parts = urllib.parse.urlsplit(url)
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(f"{parts.scheme}://{parts.netloc}{parts.path}\n")


def open_url(url: str) -> int:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _Recorder())
    _note(url)
    try:
        with opener.open(url, timeout=TIMEOUT) as response:
            response.read()
            print(f"headless_opener: {response.status} at {urllib.parse.urlsplit(response.url).netloc}",
                  file=sys.stderr)
            return 0
    except urllib.error.HTTPError as exc:  # the final page answered an error (e.g. a refused code)
        print(f"headless_opener: HTTP {exc.code} at {urllib.parse.urlsplit(exc.url or url).netloc}",
              file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"headless_opener: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--now":
        return open_url(argv[1])
    if len(argv) != 1:
        print("usage: headless_opener.py URL", file=sys.stderr)
        return 2
    subprocess.Popen([sys.executable, os.path.abspath(__file__), "--now", argv[0]], stdin=subprocess.DEVNULL,
                     start_new_session=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

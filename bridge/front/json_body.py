"""A serialized JSON answer as the fronts return it and the HTTP shortcut writes it (``fast_post.write_whole``)."""

from __future__ import annotations

from starlette.responses import Response


class JSONBody(Response):
    """A serialized JSON answer: the same status, headers and body as ``Response(body, media_type=
    "application/json")``, without assembling its headers from the media type on every call."""

    media_type = "application/json"

    def __init__(self, body: bytes, status_code: int = 200) -> None:  # noqa: D107 - see the class
        self.status_code = status_code
        self.body = body
        self.background = None
        self.raw_headers = [(b"content-length", b"%d" % len(body)), (b"content-type", b"application/json")]

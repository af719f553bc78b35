"""A 2025-11-25 MCP server (mcp 1.x ``FastMCP``) protected by OAuth: every request needs a bearer token that the
authorization server ``--issuer`` issued for THIS server (audience) with the scope ``--scope``.

Usage (with the mcp 1.x interpreter)::

    python legacy_protected_server.py --port 8001 --issuer http://127.0.0.1:9000 [--scope mcp:tools]

It serves Streamable HTTP at ``http://127.0.0.1:PORT/mcp`` and, as the SDK does, its protected resource metadata
(RFC 9728) at ``/.well-known/oauth-protected-resource/mcp``; a request without a valid token gets 401 with a
``WWW-Authenticate`` header naming that metadata (2025-11-25 basic/authorization.mdx "Authorization Server
Location"). Tools: ``whoami`` (the signed-in subject) and ``add``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP

sys.path.insert(0, str(Path(__file__).resolve().parent))
from protected_common import JwksTokenVerifier, add_tools, main, resource_url  # noqa: E402


def build(port: int, issuer: str, scope: str) -> FastMCP:
    resource = resource_url(port)
    server = FastMCP("legacy-protected", host="127.0.0.1", port=port,
                     token_verifier=JwksTokenVerifier(issuer, resource),
                     auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=[scope]))
    add_tools(server, "2025-11-25")
    return server


if __name__ == "__main__":
    main(build, __doc__.splitlines()[0])

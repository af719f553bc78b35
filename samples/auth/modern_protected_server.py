"""A 2026-07-28 MCP server (mcp 2.x ``MCPServer``) protected by OAuth: every request needs a bearer token that the
authorization server ``--issuer`` issued for THIS server (audience) with the scope ``--scope``.

Usage (with the project's interpreter, mcp 2.3.0)::

    python modern_protected_server.py --port 8002 --issuer http://127.0.0.1:9000 [--scope mcp:tools]

It serves Streamable HTTP at ``http://127.0.0.1:PORT/mcp`` and, as the SDK does, its protected resource metadata
(RFC 9728) at ``/.well-known/oauth-protected-resource/mcp``; a request without a valid token gets 401 with a
``WWW-Authenticate`` header naming that metadata (2026-07-28 basic/authorization). The SDK's
``validate_token_resource`` also refuses a token whose resource is not this server. Tools: ``whoami`` and ``add``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.auth.settings import AuthSettings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from protected_common import JwksTokenVerifier, add_tools, main, resource_url  # noqa: E402


def build(port: int, issuer: str, scope: str) -> MCPServer:
    resource = resource_url(port)
    server = MCPServer("modern-protected", token_verifier=JwksTokenVerifier(issuer, resource),
                       auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=[scope],
                                         validate_token_resource=True))
    add_tools(server, "2026-07-28")
    return server


if __name__ == "__main__":
    main(build, __doc__.splitlines()[0])

"""``mcp-eras auth``: sign in to an OAuth-protected MCP server ahead of time, see what is stored, sign out.

    mcp-eras auth login https://mcp.example.com/mcp [--oauth-client-id ID] [--oauth-scope "a b"]
    mcp-eras auth status [--json]
    mcp-eras auth logout https://mcp.example.com/mcp

Tokens are never printed. The flags are the bridge's own ``--oauth-*`` flags, so an entry made here is the
one ``mcp-bridge`` finds (same store, same client)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Annotated, Any

import httpx
import typer

from mcp_eras.bridge.translate.oauth import OAuthError
from mcp_eras.bridge.translate.oauth.revoke import revocation_outcome, revocation_requests
from mcp_eras.bridge.translate.oauth.wire import canonical_resource

from .runner import OAuthOptions, SignInRunner
from .store import TokenStore

app = typer.Typer(no_args_is_help=True, add_completion=False, context_settings={"help_option_names": ["-h", "--help"]},
                  help="Sign in to OAuth-protected MCP servers ahead of time, list stored sign-ins, sign out.")

UrlArg = Annotated[str, typer.Argument(metavar="URL", help="The MCP server's URL (its streamable HTTP endpoint).")]
StoreOpt = Annotated[str | None, typer.Option("--oauth-token-store", metavar="DIR", help="Token store dir (default: user config dir).")]
ClientIdOpt = Annotated[str | None, typer.Option("--oauth-client-id", metavar="ID", help="A pre-registered client id.")]
SecretOpt = Annotated[str | None, typer.Option("--oauth-client-secret", metavar="SECRET", envvar="MCP_ERAS_OAUTH_CLIENT_SECRET",
                                               help="The pre-registered client's secret (better: the environment variable).")]
MetadataOpt = Annotated[str | None, typer.Option("--oauth-client-metadata-url", metavar="URL",
                                                 help="This client's metadata document URL (https).")]
ScopeOpt = Annotated[str | None, typer.Option("--oauth-scope", metavar="SCOPES", help="Scopes to request instead of the server's.")]
PortOpt = Annotated[int, typer.Option("--oauth-redirect-port", min=0, max=65535, metavar="PORT",
                                      help="Loopback redirect port (0: any free one).")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", min=1.0, metavar="SECONDS", help="How long to wait for the browser sign-in.")]


def _err(text: str) -> None:
    sys.stderr.write(f"mcp-eras auth: {text}\n")


async def _probe(url: str, timeout: float) -> tuple[int, list[str]]:
    """What the server says to a request without a token: its 401/403 challenge, if it gives one."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
            response = await client.post(url, json=body, headers=headers)
    except httpx.HTTPError as exc:
        raise OAuthError("http_error", f"{url}: {type(exc).__name__}") from None
    if response.status_code in (401, 403):
        return response.status_code, response.headers.get_list("www-authenticate")
    return 401, []  # no challenge: discover from the well-known locations


@app.command()
def login(
    url: UrlArg,
    oauth_client_id: ClientIdOpt = None,
    oauth_client_secret: SecretOpt = None,
    oauth_client_metadata_url: MetadataOpt = None,
    oauth_scope: ScopeOpt = None,
    oauth_redirect_port: PortOpt = 0,
    oauth_token_store: StoreOpt = None,
    timeout: TimeoutOpt = 300.0,
) -> None:
    """Sign in to URL in the browser and store the tokens."""
    options = OAuthOptions(
        client_id=oauth_client_id,
        client_secret=oauth_client_secret,
        client_metadata_url=oauth_client_metadata_url,
        scope=oauth_scope,
        redirect_port=oauth_redirect_port,
        token_store=oauth_token_store,
        sign_in_timeout=timeout,
    )

    async def run() -> None:
        status, challenge = await _probe(url, options.http_timeout)
        runner = SignInRunner(url, options)
        await runner.sign_in(status, challenge)
        tokens = runner.tokens or {}
        _err(f"signed in to {url}{_describe(tokens)}")

    try:
        asyncio.run(run())
    except OAuthError as exc:
        _err(str(exc))
        raise typer.Exit(1) from None


@app.command()
def status(
    oauth_token_store: StoreOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per stored sign-in.")] = False,
) -> None:
    """List stored sign-ins (never the tokens themselves)."""
    store = TokenStore(oauth_token_store)
    entries = store.entries()
    if not entries:
        _err(f"no stored sign-ins in {store.directory}")
        return
    for entry in entries:
        t = entry.tokens
        row: dict[str, Any] = {
            "resource": entry.resource,
            "client": entry.client,
            "issuer": t.get("issuer"),
            "scope": t.get("scope"),
            "expires_at": t.get("expires_at"),
            "refreshable": bool(t.get("refresh_token")),
        }
        if as_json:
            typer.echo(json.dumps(row, sort_keys=True))
        else:
            typer.echo(f"{entry.resource}  client={entry.client}  issuer={row['issuer']}{_describe(t)}")


@app.command()
def logout(url: UrlArg, oauth_token_store: StoreOpt = None,
           revoke: Annotated[bool, typer.Option("--revoke/--no-revoke",
                                                help="Revoke the tokens at the authorization server first (RFC 7009).")] = True,
           timeout: Annotated[float, typer.Option("--timeout", min=1.0, metavar="SECONDS",
                                                  help="How long to wait for the revocation endpoint.")] = 10.0) -> None:
    """Sign out of URL: revoke its stored tokens at the authorization server, then forget them here (every client).

    A sign-in whose revocation fails is kept, so that running the command again can still revoke it; --no-revoke
    only forgets it here (the tokens then stay valid at the server until they expire)."""
    try:
        resource = canonical_resource(url)
    except ValueError as exc:
        _err(str(exc))
        raise typer.Exit(2) from None
    store = TokenStore(oauth_token_store)
    entries = store.entries(resource)
    if not entries:
        _err(f"no stored sign-in for {resource}")
        return
    failed = 0
    for entry in entries:
        problem = _revoke(entry.tokens, timeout) if revoke else "not revoked at the server (--no-revoke)"
        if problem is not None and revoke and not problem.startswith("the authorization server offers no"):
            failed += 1
            _err(f"{resource} (client {entry.client}): revocation failed: {problem}; the sign-in is kept "
                 "(run logout again, or --no-revoke to only forget it here)")
            continue
        store.delete(resource, entry.client)
        done = "revoked at the authorization server and removed" if problem is None else f"removed here; {problem}"
        _err(f"signed out of {resource} (client {entry.client}): {done}")
    if failed:
        raise typer.Exit(1)


def _revoke(tokens: dict[str, Any], timeout: float) -> str | None:
    """Run the RFC 7009 requests of one stored sign-in: None when revoked, else why not (never a token)."""
    plan = revocation_requests(tokens)
    if not plan.requests:
        return plan.reason
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as client:
            for request in plan.requests:
                response = client.request(request.method, request.url, headers=request.headers, data=request.form)
                problem = revocation_outcome(response.status_code, response.content)
                if problem is not None:
                    return f"{request.purpose}: {problem}"
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__} reaching {plan.requests[0].url}"
    return None


def _describe(tokens: dict[str, Any]) -> str:
    parts = []
    if tokens.get("scope"):
        parts.append(f"scope={tokens['scope']!r}")
    expires = tokens.get("expires_at")
    if expires is not None:
        left = float(expires) - time.time()
        parts.append(f"expires in {int(left)}s" if left > 0 else f"expired {int(-left)}s ago")
    if tokens.get("refresh_token"):
        parts.append("refreshable")
    return ("  " + "  ".join(parts)) if parts else ""

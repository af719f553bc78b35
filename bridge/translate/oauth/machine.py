"""The sign-in machine for one upstream resource: the MCP authorization client's decisions, pure.

Feed it events (the upstream's 401/403, each HTTP answer, the redirect's query, a refresh request); it
returns the actions the shell performs. Order of work, as the spec orders it:

1. protected resource metadata (MCP 2025-11-25 / 2026-07-28 "Protected Resource Metadata Discovery
   Requirements", RFC 9728): the challenge's ``resource_metadata``, then path-inserted, then root
   well-known URL; ``resource`` must name this server (RFC 9728 §3.3). None found: the 2025-03-26
   fallback (the server's origin is the authorization server, default endpoints).
2. authorization server metadata ("Authorization Server Metadata Discovery", RFC 8414 §3 and §5): the
   issuer must equal the one the URL was built from; PKCE S256 must be supported.
3. client identity ("Client Registration", in its priority order): pre-registered, client ID metadata
   document, dynamic registration (RFC 7591).
4. authorization code + PKCE S256 with ``resource`` (RFC 8707) and the selected scope ("Scope Selection
   Strategy"); the response checked for ``state`` and ``iss`` (2026-07-28 "Authorization Response
   Validation", RFC 9207 §2.4) before the code goes anywhere.
5. token request with ``code_verifier`` and ``resource``; refresh with the refresh_token grant.
"""

from __future__ import annotations

import hmac
from typing import Any

from .model import (
    Action,
    AwaitRedirect,
    Done,
    Event,
    Fail,
    HttpRequest,
    HttpResponse,
    OpenBrowser,
    Redirected,
    RefreshNow,
    SignInState,
    Store,
    Succeeded,
    Unauthorized,
)
from .wire import (
    OAUTH_AS_SUFFIX,
    as_metadata_urls,
    b64url,
    bearer_challenge,
    canonical_resource,
    client_auth,
    is_cimd_url,
    is_loopback_redirect,
    issuer_matches,
    json_object,
    origin,
    pkce_pair,
    prm_urls,
    resource_covers,
    s256,
    secure_endpoint,
    union_scopes,
    with_query,
)

KNOWN_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
_GET_HEADERS = {"Accept": "application/json"}
_PRM, _ASM = "protected resource metadata", "authorization server metadata"
_FORM_HEADERS = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}


class _Failed(Exception):
    def __init__(self, error: str, detail: str = "") -> None:
        self.error, self.detail = error, detail


class SignIn:
    """One upstream resource's sign-in. ``handle(event)`` returns the next actions; on ``Fail`` the state is
    ``failed`` and no ``Store`` was emitted for that attempt."""

    def __init__(self, state: SignInState) -> None:
        self.state = state
        self._now = 0.0  # the current event's time; never part of the state

    def handle(self, event: Event) -> list[Action]:
        self._now = float(getattr(event, "now", self._now))
        try:
            return self._handle(event)
        except _Failed as failure:
            self.state.phase = "failed"
            self.state.error = failure.error
            return [Fail(failure.error, failure.detail)]

    # ---- dispatch ----

    def _handle(self, event: Event) -> list[Action]:
        s = self.state
        if isinstance(event, Succeeded):
            s.step_ups = 0
            return []
        if isinstance(event, Unauthorized):
            return self._challenged(event)
        if isinstance(event, RefreshNow):
            return self._refresh(event)
        if isinstance(event, Redirected):
            if s.phase != "redirect":
                raise _Failed("bad_redirect", f"unexpected authorization response in phase {s.phase}")
            return self._redirected(event)
        if isinstance(event, HttpResponse):
            handler = {
                "prm": self._prm_answer,
                "asm": self._asm_answer,
                "register": self._registered,
                "token": self._token_answer,
                "refresh": self._token_answer,
            }.get(s.phase)
            if handler is None:
                raise _Failed("bad_config", f"HTTP answer in phase {s.phase}")
            return handler(event)
        raise _Failed("bad_config", f"unknown event {event!r}")

    # ---- 1. the challenge and protected resource metadata ----

    def _challenged(self, event: Unauthorized) -> list[Action]:
        s = self.state
        s.error = None
        if not is_loopback_redirect(s.redirect_uri):
            raise _Failed("redirect_not_loopback", s.redirect_uri)
        if s.client_metadata_url is not None and not is_cimd_url(s.client_metadata_url):
            raise _Failed("bad_config", "a client ID metadata document URL is https with a path")
        if len(event.entropy) < 48:
            raise _Failed("bad_config", "at least 48 random bytes are needed for PKCE and state")
        challenge = bearer_challenge(event.www_authenticate)
        s.code_verifier, _ = pkce_pair(event.entropy[:32])
        s.state = b64url(event.entropy[32:48])
        s.challenge_status = event.status
        s.refresh_first = event.status == 401 and bool((s.tokens or {}).get("refresh_token"))
        if event.status == 403:
            if challenge.error not in (None, "insufficient_scope") or not (challenge.error or challenge.scope):
                raise _Failed("forbidden", challenge.error or "403 without a scope challenge")
            # 2026-07-28 "Step-Up Authorization Flow": bounded retries, union of the requested and challenged scopes
            s.step_ups += 1
            if s.step_ups > s.max_step_ups:
                raise _Failed("step_up_exhausted", f"{s.step_ups - 1} step-ups did not satisfy the server")
            granted = (s.tokens or {}).get("scope")
            s.requested_scope = union_scopes(s.requested_scope or s.scope_override, granted, challenge.scope)
            s.challenge_scope = challenge.scope
            if s.asm is not None and s.client is not None and s.resource is not None:
                return self._identify()  # the metadata stands; the client is reused if it still fits
        else:
            s.challenge_scope = challenge.scope
            s.requested_scope = None
        s.prm = s.asm = None
        s.legacy = False
        s.prm_candidates = prm_urls(s.server_url, challenge.resource_metadata)
        s.phase = "prm"
        return [_get(s.prm_candidates, _PRM)]

    def _prm_answer(self, event: HttpResponse) -> list[Action]:
        s = self.state
        if event.status == 200:
            prm = _json(event.body, _PRM)
            servers = prm.get("authorization_servers")
            resource = prm.get("resource")
            if not isinstance(resource, str):
                raise _Failed("bad_metadata", "protected resource metadata without resource")
            if not resource_covers(resource, s.server_url):
                raise _Failed("resource_mismatch", f"metadata for {resource}, not {s.server_url}")
            if not (isinstance(servers, list) and servers and all(isinstance(x, str) for x in servers)):
                raise _Failed("bad_metadata", "protected resource metadata without authorization_servers")
            s.prm, s.resource = prm, resource
            # RFC 9728 §7.6: the client picks; the first listed is the server's own preference.
            return self._start_asm(servers[0], legacy=False)
        if (again := _metadata_miss(event, s.prm_candidates, _PRM)) is not None:
            return again
        # No protected resource metadata: the 2025-03-26 authorization spec ("Server Metadata Discovery"):
        # the MCP server's origin is the authorization server.
        s.resource = canonical_resource(s.server_url)
        return self._start_asm(origin(s.server_url), legacy=True)

    # ---- 2. authorization server metadata ----

    def _start_asm(self, issuer: str, *, legacy: bool) -> list[Action]:
        s = self.state
        if not secure_endpoint(issuer):
            raise _Failed("insecure_endpoint", issuer)
        if s.client and s.client.get("kind") == "dcr" and s.client.get("issuer") != issuer:
            # 2026-07-28 "Authorization Server Binding": a registration belongs to the server that issued it.
            s.client = None
        s.issuer, s.legacy = issuer, legacy
        s.asm_candidates = [origin(issuer) + OAUTH_AS_SUFFIX] if legacy else as_metadata_urls(issuer)
        s.phase = "asm"
        return [_get(s.asm_candidates, _ASM)]

    def _asm_answer(self, event: HttpResponse) -> list[Action]:
        s = self.state
        if event.status == 200:
            asm = _json(event.body, _ASM)
            found = asm.get("issuer")
            if not isinstance(found, str) or not issuer_matches(found, s.issuer or ""):
                raise _Failed("issuer_mismatch", f"metadata names {found!r}, fetched for {s.issuer!r}")
            s.issuer = found  # 2026-07-28 "Authorization Response Validation": record the validated issuer
            for name in ("authorization_endpoint", "token_endpoint"):
                if not isinstance(asm.get(name), str):
                    raise _Failed("bad_metadata", f"authorization server metadata without {name}")
            self._check_endpoints(asm)
            methods = asm.get("code_challenge_methods_supported")
            if methods is None and s.require_pkce_metadata:
                raise _Failed("pkce_unsupported", "code_challenge_methods_supported is absent")
            if methods is not None and (not isinstance(methods, list) or "S256" not in methods):
                raise _Failed("pkce_unsupported", f"code_challenge_methods_supported = {methods!r}")
            s.asm = asm
            tokens = s.tokens or {}
            if s.refresh_first and tokens.get("issuer") == s.issuer and tokens.get("resource") == s.resource:
                # the token was refused but the server and resource are unchanged: a refresh may do
                return [self._refresh_request(tokens)]
            return self._identify()
        if (again := _metadata_miss(event, s.asm_candidates, _ASM)) is not None:
            return again
        if not s.legacy:
            raise _Failed("no_as_metadata", f"for issuer {s.issuer}")
        # 2025-03-26 "Fallbacks for Servers without Metadata Discovery": default paths at the origin.
        base = origin(s.server_url)
        s.asm = {
            "issuer": base,
            "authorization_endpoint": base + "/authorize",
            "token_endpoint": base + "/token",
            "registration_endpoint": base + "/register",
        }
        s.issuer = None  # no metadata was validated: there is no recorded issuer to compare iss with
        return self._identify()

    def _check_endpoints(self, asm: dict[str, Any]) -> None:
        for name in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
            url = asm.get(name)
            if url is not None and (not isinstance(url, str) or not secure_endpoint(url)):
                raise _Failed("insecure_endpoint", f"{name} {url!r}")

    # ---- 3. client identity ----

    def _identify(self) -> list[Action]:
        s = self.state
        asm = s.asm or {}
        if s.client_id:
            method = "none"
            if s.client_secret is not None:
                # RFC 8414 §2: absent token_endpoint_auth_methods_supported means client_secret_basic
                offered = asm.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
                usable = [m for m in ("client_secret_basic", "client_secret_post") if m in offered]
                if not usable:
                    raise _Failed("no_client_auth_method", f"server offers {offered!r}")
                method = usable[0]
            s.client = {"kind": "pre", "client_id": s.client_id, "client_secret": s.client_secret, "auth_method": method}
            return self._authorize()
        if s.client is not None and s.client.get("redirect_uri", s.redirect_uri) == s.redirect_uri:
            return self._authorize()
        if s.client_metadata_url and asm.get("client_id_metadata_document_supported") is True:
            s.client = {"kind": "cimd", "client_id": s.client_metadata_url, "client_secret": None, "auth_method": "none"}
            return self._authorize()
        endpoint = asm.get("registration_endpoint")
        if not isinstance(endpoint, str):
            raise _Failed("no_client_identity", "set --oauth-client-id or --oauth-client-metadata-url")
        # RFC 7591 §2; 2026-07-28 "Application Type and Redirect URI Constraints": a loopback client is native.
        # A public client ("none") unless the server lists only secret-based methods (RFC 8414 §2).
        offered = asm.get("token_endpoint_auth_methods_supported")
        wanted = "none"
        if isinstance(offered, list) and "none" not in offered:
            wanted = next((m for m in ("client_secret_basic", "client_secret_post") if m in offered), "none")
        body: dict[str, Any] = {
            "client_name": s.client_name,
            "redirect_uris": [s.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": wanted,
            "application_type": "native",
        }
        scope = self._initial_scope()
        if scope:
            body["scope"] = scope
        s.phase = "register"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        return [HttpRequest("POST", endpoint, headers, json=body, purpose="client registration")]

    def _registered(self, event: HttpResponse) -> list[Action]:
        s = self.state
        if event.status not in (200, 201):
            info = json_object(event.body) or {}
            raise _Failed("registration_failed", f"HTTP {event.status} {info.get('error', '')}".strip())
        info = _json(event.body, "registration response")
        client_id = info.get("client_id")
        if not isinstance(client_id, str) or not client_id:
            raise _Failed("bad_metadata", "registration response without client_id")
        uris = info.get("redirect_uris")
        loopback = isinstance(uris, list) and all(isinstance(u, str) and is_loopback_redirect(u) for u in uris)
        if uris and not (loopback and s.redirect_uri in uris):  # an empty list registers nothing to misuse
            raise _Failed("redirect_not_loopback", f"registered redirect_uris {uris!r}")
        secret = info.get("client_secret") if isinstance(info.get("client_secret"), str) else None
        method = info.get("token_endpoint_auth_method") or ("client_secret_basic" if secret else "none")
        if method not in KNOWN_AUTH_METHODS:
            raise _Failed("no_client_auth_method", f"registered with {method!r}")
        s.client = {
            "kind": "dcr",
            "client_id": client_id,
            "client_secret": secret,
            "auth_method": method,
            "issuer": s.issuer,
            "redirect_uri": s.redirect_uri,  # registered for this URI only: another listener port re-registers
        }
        return self._authorize()

    # ---- 4. authorization request and response ----

    def _initial_scope(self) -> str | None:
        """"Scope Selection Strategy": the challenge's scope, else all of the PRM's scopes_supported, else none;
        the operator's --oauth-scope overrides. ``offline_access`` only when the authorization server lists it
        (2026-07-28 "Refresh Tokens"), and never added to an operator's explicit choice."""
        s = self.state
        if s.requested_scope is not None:
            return s.requested_scope
        if s.scope_override is not None:
            return s.scope_override or None
        supported = (s.prm or {}).get("scopes_supported")
        scope = s.challenge_scope or (" ".join(x for x in supported if isinstance(x, str)) if isinstance(supported, list) else None)
        as_scopes = (s.asm or {}).get("scopes_supported")
        if scope and isinstance(as_scopes, list) and "offline_access" in as_scopes:
            scope = union_scopes(scope, "offline_access")
        return scope or None

    def _authorize(self) -> list[Action]:
        s = self.state
        asm, client = s.asm or {}, s.client or {}
        s.requested_scope = self._initial_scope()
        challenge = s256(s.code_verifier or "")
        params = {
            "response_type": "code",
            "client_id": client["client_id"],
            "redirect_uri": s.redirect_uri,
            "state": s.state or "",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": s.resource or canonical_resource(s.server_url),
        }
        if s.requested_scope:
            params["scope"] = s.requested_scope
            if "offline_access" in s.requested_scope.split():
                params["prompt"] = "consent"  # OpenID Connect Core §11: offline_access asks for consent
        s.phase = "redirect"
        url = with_query(asm["authorization_endpoint"], params)
        return [OpenBrowser(url), AwaitRedirect(s.state or "", self._now + s.redirect_timeout)]

    def _redirected(self, event: Redirected) -> list[Action]:
        s = self.state
        query = event.query
        if not hmac.compare_digest(str(query.get("state", "")), s.state or ""):
            raise _Failed("state_mismatch", "the authorization response carries another state")
        # 2026-07-28 "Authorization Response Validation" (RFC 9207 §2.4): compare before anything else,
        # error responses included, with no normalization.
        iss = query.get("iss")
        if iss is not None:
            if iss != (s.issuer or ""):
                raise _Failed("wrong_iss", f"iss {iss!r}, expected {s.issuer!r}")
        elif (s.asm or {}).get("authorization_response_iss_parameter_supported") is True:
            raise _Failed("missing_iss", f"{s.issuer} advertises iss but sent none")
        if query.get("error"):
            raise _Failed("authorization_denied", f"{query['error']} {query.get('error_description', '')}".strip())
        code = query.get("code")
        if not code:
            raise _Failed("bad_redirect", "no code in the authorization response")
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": s.redirect_uri,
            "code_verifier": s.code_verifier or "",
            "resource": s.resource or canonical_resource(s.server_url),
        }
        return [self._token_request(form, "token")]

    def _token_request(self, form: dict[str, str], phase: str) -> HttpRequest:
        s = self.state
        client = s.client or {}
        headers = dict(_FORM_HEADERS)
        headers.update(client_auth(client.get("auth_method", "none"), client["client_id"], client.get("client_secret"), form))
        s.phase = phase
        endpoint = (s.asm or {}).get("token_endpoint") or (s.tokens or {}).get("token_endpoint")
        return HttpRequest("POST", endpoint, headers, form=form, purpose="token request")

    # ---- 5. tokens ----

    def _refresh(self, event: RefreshNow) -> list[Action]:
        s = self.state
        s.error = None
        tokens = s.tokens or {}
        if not tokens.get("refresh_token") or not tokens.get("token_endpoint") or not tokens.get("client"):
            raise _Failed("refresh_failed", "no refresh token")
        s.refresh_first = False  # a refresh asked for on its own never falls back to the browser
        return [self._refresh_request(tokens)]

    def _refresh_request(self, tokens: dict[str, Any]) -> HttpRequest:
        s = self.state
        s.client = dict(tokens["client"])
        s.resource = tokens.get("resource") or s.resource
        s.requested_scope = tokens.get("scope")
        form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "resource": s.resource or ""}
        return self._token_request(form, "refresh")

    def _token_answer(self, event: HttpResponse) -> list[Action]:
        s = self.state
        refreshing = s.phase == "refresh"
        if event.status != 200 and refreshing and s.refresh_first:
            s.refresh_first = False  # refused: sign in with the browser after all
            return self._identify()
        if event.status != 200:
            info = json_object(event.body) or {}
            error = "refresh_failed" if refreshing else "token_error"
            raise _Failed(error, f"HTTP {event.status} {info.get('error', '')}".strip())
        answer = _json(event.body, "token response")
        access = answer.get("access_token")
        if not isinstance(access, str) or not access:
            raise _Failed("bad_token_response", "no access_token")
        token_type = answer.get("token_type")
        if not isinstance(token_type, str) or token_type.lower() != "bearer":
            raise _Failed("unsupported_token_type", repr(token_type))
        resource = s.resource or canonical_resource(s.server_url)
        for name in ("resource", "aud"):
            named = answer.get(name)
            values = named if isinstance(named, list) else [named] if named is not None else []
            if values and not any(isinstance(v, str) and (_same_resource(v, resource) or resource_covers(v, s.server_url)) for v in values):
                raise _Failed("wrong_resource", f"token {name} {named!r}, expected {resource}")
        previous = s.tokens or {}
        expires_in = answer.get("expires_in")
        numeric = isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool)
        lifetime = float(expires_in) if numeric and expires_in > 0 else None
        scope = answer.get("scope") if isinstance(answer.get("scope"), str) else s.requested_scope
        refresh = answer.get("refresh_token") if isinstance(answer.get("refresh_token"), str) else None
        tokens = {
            "access_token": access,
            "token_type": "Bearer",
            "refresh_token": refresh or (previous.get("refresh_token") if refreshing else None),
            "obtained_at": event.now,
            "expires_at": event.now + lifetime if lifetime else None,
            "scope": scope,
            "resource": resource,
            "issuer": s.issuer or previous.get("issuer"),
            "token_endpoint": (s.asm or {}).get("token_endpoint") or previous.get("token_endpoint"),
            "revocation_endpoint": (s.asm or {}).get("revocation_endpoint") or previous.get("revocation_endpoint"),
            "client": dict(s.client or {}),
        }
        s.tokens = tokens
        s.phase = "done"
        s.code_verifier = None
        return [Store(dict(tokens)), Done(access)]


def _get(candidates: list[str], what: str) -> HttpRequest:
    return HttpRequest("GET", candidates.pop(0), dict(_GET_HEADERS), purpose=what)


def _metadata_miss(event: HttpResponse, candidates: list[str], what: str) -> list[Action] | None:
    """A metadata URL that did not answer 200: a server error ends the sign-in (it says nothing about where
    the metadata is); anything else moves to the next candidate, if there is one."""
    if event.status >= 500 or event.status == 429:
        raise _Failed("metadata_unavailable", f"{what}: HTTP {event.status}")
    return [_get(candidates, what)] if candidates else None


def _same_resource(a: str, b: str) -> bool:
    try:
        return canonical_resource(a) == canonical_resource(b)
    except ValueError:
        return False


def _json(body: bytes, what: str) -> dict[str, Any]:
    value = json_object(body)
    if value is None:
        raise _Failed("bad_json", f"{what} is not a JSON object")
    return value

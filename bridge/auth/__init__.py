"""The bridge as an MCP authorization client of its HTTP upstreams: the shell around the pure machine in
``bridge/translate/oauth`` (token store, loopback redirect listener, browser, runner, ``httpx.Auth``, log
redaction, ``mcp-eras auth`` commands)."""

from .httpx_auth import UpstreamOAuth, build_auth
from .runner import OAuthOptions, SignInRunner
from .store import TokenStore, default_store_dir

__all__ = ["OAuthOptions", "SignInRunner", "TokenStore", "UpstreamOAuth", "build_auth", "default_store_dir"]

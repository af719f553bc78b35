"""When the issuer's JSON Web Key Set is fetched (again): the cache policy of a resource server.

Keys are cached for ``max_age`` seconds. A token naming a key id (``kid``) the cache does not hold may mean
the issuer rotated its keys: the set is fetched once more, but never more often than ``min_interval`` (a stream
of tokens with made-up key ids must not turn the bridge into a load generator against the issuer:
RFC 8725 section 3.10 asks a verifier to treat header-named key material with care).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class KeyLookup(Enum):
    USE_CACHED = "use-cached"
    """The cached set names the key (or the token names none and the set holds keys): verify with it."""
    FETCH = "fetch"
    """Fetch the set now (none cached, the cache is stale, or an unknown key id and a refetch is allowed)."""
    UNKNOWN_KEY = "unknown-key"
    """The key id is unknown and the set was fetched too recently to fetch it again: refuse the token."""


@dataclass(frozen=True)
class JwksPolicy:
    max_age: float = 3600.0
    """Seconds a fetched set is used before it is fetched again."""
    min_interval: float = 30.0
    """Fewest seconds between two fetches caused by unknown key ids (rotation), or by a failed fetch."""


def key_lookup(policy: JwksPolicy, *, fetched_at: float | None, kid_known: bool, now: float) -> KeyLookup:
    """What to do for a token whose key id is (``kid_known``) or is not in the set fetched at ``fetched_at``
    (None: never fetched, or the last fetch failed before any succeeded)."""
    if fetched_at is None:
        return KeyLookup.FETCH
    age = now - fetched_at
    if age >= policy.max_age:
        return KeyLookup.FETCH
    if kid_known:
        return KeyLookup.USE_CACHED
    return KeyLookup.FETCH if age >= policy.min_interval else KeyLookup.UNKNOWN_KEY


def may_retry_fetch(policy: JwksPolicy, *, failed_at: float | None, now: float) -> bool:
    """After a failed fetch: whether another may be tried now (not before ``min_interval``)."""
    return failed_at is None or now - failed_at >= policy.min_interval

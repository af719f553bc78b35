"""The verifier's parsed-key cache stays bounded across key-set refetches (each fetch brings new JWK objects):
only the published keys' parsed forms are kept."""

from __future__ import annotations

import json

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from mcp_eras.bridge.gateway.verify import TokenVerifier
from mcp_eras.bridge.translate.gateway import tokens as tk


def test_parsed_keys_of_earlier_fetches_are_let_go() -> None:
    private = ec.generate_private_key(ec.SECP256R1())
    public_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(private.public_key()))
    token = jwt.encode({"sub": "a"}, private, algorithm="ES256", headers={"kid": "k"})
    verifier = TokenVerifier(tk.TokenRules("https://as.test/", frozenset({"https://rs.test/mcp"})))
    for _ in range(200):  # every refetch publishes an equal key as a new object
        jwk = {**public_jwk, "kid": "k"}
        verifier._keys = {"k": jwk}
        assert verifier._signature_ok(token, jwk, "ES256")
    assert len(verifier._loaded) <= 2 * len(verifier._keys) + 9

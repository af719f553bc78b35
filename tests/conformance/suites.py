"""Scenario names of the pinned harness (@modelcontextprotocol/conformance@0.2.0-alpha.12), server side,
``--suite all``, as ``conformance list --server --spec-version <rev>`` prints them.

See README.md in this folder for what each scenario calls.
"""

from __future__ import annotations

HARNESS_VERSION = "0.2.0-alpha.12"

# Scenarios that exist at both revisions.
SHARED = frozenset({
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "server-sse-multiple-streams",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
})

# SEP-2322 (MRTR) scenarios of 2026-07-28: tools test_input_required_result_* and the prompt
# test_input_required_result_prompt.
INPUT_REQUIRED = frozenset({
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-non-tool-request",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
})

SUITE_2026 = SHARED | INPUT_REQUIRED | {
    "server-stateless",
    "sep-2164-resource-not-found",
    "caching",
    "http-header-validation",
    "http-custom-header-server-validation",
}

# The 2025-11-25 scenarios whose tools make server->client requests (elicitation / sampling).
INPUT_REQUESTS_2025 = frozenset({
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
})

SUITE_2025 = SHARED | INPUT_REQUESTS_2025 | {
    "server-initialize",
    "server-session-lifecycle",
    "logging-set-level",
    "ping",
    "tools-call-with-logging",
    "server-sse-polling",
    "resources-subscribe",
    "resources-unsubscribe",
}

assert len(SUITE_2026) == 40 and len(SUITE_2025) == 33


# --- client mode (`conformance client --spec-version <rev>`), extension scenarios left out -----------------
# The harness's mock server speaks the revision; the client under test is tests/conformance/client_driver.py
# of the other era, through the bridge.

CLIENT_AUTH_SHARED = frozenset({
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
})

CLIENT_CORE_2025 = frozenset({
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "json-schema-2020-12-preservation",
})
CLIENT_AUTH_2025 = CLIENT_AUTH_SHARED

CLIENT_CORE_2026 = frozenset({
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
})
CLIENT_AUTH_2026 = CLIENT_AUTH_SHARED | {
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
}

assert (len(CLIENT_CORE_2025), len(CLIENT_AUTH_2025), len(CLIENT_CORE_2026), len(CLIENT_AUTH_2026)) == (5, 14, 8, 25)

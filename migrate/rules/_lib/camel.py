"""camelCase field names of the v1 MCP models and their v2 snake_case spelling (MCP005, MCP102)."""

from __future__ import annotations

import re

CAMEL_FIELDS = frozenset(
    """clientInfo costPriority createMessage createdAt destructiveHint elicitationId hasMore idempotentHint
    includeContext inputSchema intelligencePriority isError lastUpdatedAt listChanged maxTokens mimeType
    modelPreferences nextCursor openWorldHint outputSchema pollInterval progressToken protocolVersion readOnlyHint
    requestId requestedSchema resourceTemplates serverInfo speedPriority statusMessage stopReason stopSequences
    structuredContent systemPrompt taskId taskSupport toolChoice toolUseId uriTemplate websiteUrl""".split()
)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()

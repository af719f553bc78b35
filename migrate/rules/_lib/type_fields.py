"""Field names (and aliases) of every ``mcp.types`` model, pinned from ``mcp-types`` 2.3.0.

v1 models accepted unknown keyword arguments (``extra="allow"``) and sent them on the wire; v2 models
drop them (MCP220). Regenerate with::

    import mcp.types as t, pydantic
    {n: sorted({*c.model_fields, *(f.alias for f in c.model_fields.values() if f.alias)})
     for n in dir(t) if isinstance(c := getattr(t, n), type) and issubclass(c, pydantic.BaseModel)}
"""

from __future__ import annotations

_TABLE = {
    "Annotations": "audience lastModified last_modified priority",
    "AudioContent": "_meta annotations data meta mimeType mime_type type",
    "BaseMetadata": "name title",
    "BlobResourceContents": "_meta blob meta mimeType mime_type uri",
    "CacheableResult": "_meta cacheScope cache_scope meta ttlMs ttl_ms",
    "CallToolRequest": "method params",
    "CallToolRequestParams": "_meta arguments inputResponses input_responses meta name requestState request_state task",
    "CallToolResult": "_meta content isError is_error meta resultType result_type structuredContent structured_content",
    "CancelTaskRequest": "method params",
    "CancelTaskRequestParams": "_meta meta taskId task_id",
    "CancelTaskResult": (
        "_meta createdAt created_at lastUpdatedAt last_updated_at meta pollInterval poll_interval status "
        "statusMessage status_message taskId task_id ttl"
    ),
    "CancelledNotification": "method params",
    "CancelledNotificationParams": "_meta meta reason requestId request_id",
    "ClientCapabilities": "elicitation experimental extensions roots sampling tasks",
    "ClientTasksCapability": "cancel list requests",
    "ClientTasksRequestsCapability": "elicitation sampling",
    "CompleteRequest": "method params",
    "CompleteRequestParams": "_meta argument context meta ref",
    "CompleteResult": "_meta completion meta resultType result_type",
    "Completion": "hasMore has_more total values",
    "CompletionArgument": "name value",
    "CompletionContext": "arguments",
    "CompletionsCapability": "",
    "CreateMessageRequest": "method params",
    "CreateMessageRequestParams": (
        "_meta includeContext include_context maxTokens max_tokens messages meta metadata "
        "modelPreferences model_preferences stopSequences stop_sequences systemPrompt system_prompt task "
        "temperature toolChoice tool_choice tools"
    ),
    "CreateMessageResult": "_meta content meta model role stopReason stop_reason",
    "CreateMessageResultWithTools": "_meta content meta model role stopReason stop_reason",
    "CreateTaskResult": "_meta meta task",
    "DiscoverRequest": "method params",
    "DiscoverResult": (
        "_meta cacheScope cache_scope capabilities instructions meta resultType result_type "
        "supportedVersions supported_versions ttlMs ttl_ms"
    ),
    "ElicitCompleteNotification": "method params",
    "ElicitCompleteNotificationParams": "_meta elicitationId elicitation_id meta",
    "ElicitRequest": "method params",
    "ElicitRequestFormParams": "_meta message meta mode requestedSchema requested_schema task",
    "ElicitRequestURLParams": "_meta elicitationId elicitation_id message meta mode task url",
    "ElicitResult": "_meta action content meta",
    "ElicitationCapability": "form url",
    "ElicitationRequiredErrorData": "elicitations",
    "EmbeddedResource": "_meta annotations meta resource type",
    "EmptyResult": "_meta meta resultType result_type",
    "ErrorData": "code data message",
    "FormElicitationCapability": "",
    "GetPromptRequest": "method params",
    "GetPromptRequestParams": "_meta arguments inputResponses input_responses meta name requestState request_state",
    "GetPromptResult": "_meta description messages meta resultType result_type",
    "GetTaskPayloadRequest": "method params",
    "GetTaskPayloadRequestParams": "_meta meta taskId task_id",
    "GetTaskPayloadResult": "_meta meta",
    "GetTaskRequest": "method params",
    "GetTaskRequestParams": "_meta meta taskId task_id",
    "GetTaskResult": (
        "_meta createdAt created_at lastUpdatedAt last_updated_at meta pollInterval poll_interval status "
        "statusMessage status_message taskId task_id ttl"
    ),
    "Icon": "mimeType mime_type sizes src theme",
    "ImageContent": "_meta annotations data meta mimeType mime_type type",
    "Implementation": "description icons name title version websiteUrl website_url",
    "InitializeRequest": "method params",
    "InitializeRequestParams": "_meta capabilities clientInfo client_info meta protocolVersion protocol_version",
    "InitializeResult": "_meta capabilities instructions meta protocolVersion protocol_version serverInfo server_info",
    "InitializedNotification": "method params",
    "InputRequiredResult": "_meta inputRequests input_requests meta requestState request_state resultType result_type",
    "InputResponseRequestParams": "_meta inputResponses input_responses meta requestState request_state",
    "JSONRPCError": "error id jsonrpc",
    "JSONRPCNotification": "jsonrpc method params",
    "JSONRPCRequest": "id jsonrpc method params",
    "JSONRPCResponse": "id jsonrpc result",
    "ListPromptsRequest": "method params",
    "ListPromptsResult": (
        "_meta cacheScope cache_scope meta nextCursor next_cursor prompts resultType result_type ttlMs "
        "ttl_ms"
    ),
    "ListResourceTemplatesRequest": "method params",
    "ListResourceTemplatesResult": (
        "_meta cacheScope cache_scope meta nextCursor next_cursor resourceTemplates resource_templates "
        "resultType result_type ttlMs ttl_ms"
    ),
    "ListResourcesRequest": "method params",
    "ListResourcesResult": (
        "_meta cacheScope cache_scope meta nextCursor next_cursor resources resultType result_type ttlMs "
        "ttl_ms"
    ),
    "ListRootsRequest": "method params",
    "ListRootsResult": "_meta meta roots",
    "ListTasksRequest": "method params",
    "ListTasksResult": "_meta meta nextCursor next_cursor tasks",
    "ListToolsRequest": "method params",
    "ListToolsResult": (
        "_meta cacheScope cache_scope meta nextCursor next_cursor resultType result_type tools ttlMs "
        "ttl_ms"
    ),
    "LoggingCapability": "",
    "LoggingMessageNotification": "method params",
    "LoggingMessageNotificationParams": "_meta data level logger meta",
    "MissingRequiredClientCapabilityErrorData": "requiredCapabilities required_capabilities",
    "ModelHint": "name",
    "ModelPreferences": (
        "costPriority cost_priority hints intelligencePriority intelligence_priority speedPriority "
        "speed_priority"
    ),
    "Notification": "method params",
    "NotificationParams": "_meta meta",
    "PaginatedRequest": "method params",
    "PaginatedRequestParams": "_meta cursor meta",
    "PaginatedResult": "_meta meta nextCursor next_cursor",
    "PingRequest": "method params",
    "ProgressNotification": "method params",
    "ProgressNotificationParams": "_meta message meta progress progressToken progress_token total",
    "Prompt": "_meta arguments description icons meta name title",
    "PromptArgument": "description name required title",
    "PromptListChangedNotification": "method params",
    "PromptMessage": "content role",
    "PromptReference": "name title type",
    "PromptsCapability": "listChanged list_changed",
    "ReadResourceRequest": "method params",
    "ReadResourceRequestParams": "_meta inputResponses input_responses meta requestState request_state uri",
    "ReadResourceResult": "_meta cacheScope cache_scope contents meta resultType result_type ttlMs ttl_ms",
    "RelatedTaskMetadata": "taskId task_id",
    "Request": "method params",
    "RequestParams": "_meta meta",
    "Resource": "_meta annotations description icons meta mimeType mime_type name size title uri",
    "ResourceContents": "_meta meta mimeType mime_type uri",
    "ResourceLink": "_meta annotations description icons meta mimeType mime_type name size title type uri",
    "ResourceListChangedNotification": "method params",
    "ResourceTemplate": "_meta annotations description icons meta mimeType mime_type name title uriTemplate uri_template",
    "ResourceTemplateReference": "type uri",
    "ResourceUpdatedNotification": "method params",
    "ResourceUpdatedNotificationParams": "_meta meta uri",
    "ResourcesCapability": "listChanged list_changed subscribe",
    "Result": "_meta meta",
    "Root": "_meta meta name uri",
    "RootsCapability": "listChanged list_changed",
    "RootsListChangedNotification": "method params",
    "SamplingCapability": "context tools",
    "SamplingContextCapability": "",
    "SamplingMessage": "_meta content meta role",
    "SamplingToolsCapability": "",
    "ServerCapabilities": "completions experimental extensions logging prompts resources tasks tools",
    "ServerTasksCapability": "cancel list requests",
    "ServerTasksRequestsCapability": "tools",
    "SetLevelRequest": "method params",
    "SetLevelRequestParams": "_meta level meta",
    "SubscribeRequest": "method params",
    "SubscribeRequestParams": "_meta meta uri",
    "SubscriptionFilter": (
        "promptsListChanged prompts_list_changed resourceSubscriptions resource_subscriptions "
        "resourcesListChanged resources_list_changed toolsListChanged tools_list_changed"
    ),
    "SubscriptionsAcknowledgedNotification": "method params",
    "SubscriptionsAcknowledgedNotificationParams": "_meta meta notifications",
    "SubscriptionsListenRequest": "method params",
    "SubscriptionsListenRequestParams": "_meta meta notifications",
    "SubscriptionsListenResult": "_meta meta resultType result_type",
    "Task": (
        "createdAt created_at lastUpdatedAt last_updated_at pollInterval poll_interval status "
        "statusMessage status_message taskId task_id ttl"
    ),
    "TaskMetadata": "ttl",
    "TaskStatusNotification": "method params",
    "TaskStatusNotificationParams": (
        "_meta createdAt created_at lastUpdatedAt last_updated_at meta pollInterval poll_interval status "
        "statusMessage status_message taskId task_id ttl"
    ),
    "TasksCallCapability": "",
    "TasksCancelCapability": "",
    "TasksCreateElicitationCapability": "",
    "TasksCreateMessageCapability": "",
    "TasksElicitationCapability": "create",
    "TasksListCapability": "",
    "TasksSamplingCapability": "createMessage create_message",
    "TasksToolsCapability": "call",
    "TextContent": "_meta annotations meta text type",
    "TextResourceContents": "_meta meta mimeType mime_type text uri",
    "Tool": (
        "_meta annotations description execution icons inputSchema input_schema meta name outputSchema "
        "output_schema title"
    ),
    "ToolAnnotations": (
        "destructiveHint destructive_hint idempotentHint idempotent_hint openWorldHint open_world_hint "
        "readOnlyHint read_only_hint title"
    ),
    "ToolChoice": "mode",
    "ToolExecution": "taskSupport task_support",
    "ToolListChangedNotification": "method params",
    "ToolResultContent": (
        "_meta content isError is_error meta structuredContent structured_content toolUseId tool_use_id "
        "type"
    ),
    "ToolUseContent": "_meta id input meta name type",
    "ToolsCapability": "listChanged list_changed",
    "UnsubscribeRequest": "method params",
    "UnsubscribeRequestParams": "_meta meta uri",
    "UnsupportedProtocolVersionErrorData": "requested supported",
    "UrlElicitationCapability": "",
}

FIELDS: dict[str, frozenset[str]] = {name: frozenset(names.split()) for name, names in _TABLE.items()}

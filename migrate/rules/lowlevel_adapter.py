"""Source of the adapter block MCP007 inserts into files with v1 lowlevel decorators.

It is emitted verbatim (once per file, after the imports) so that migrated code depends on
nothing but ``mcp`` 2.x. Every name it defines starts with ``_mcp_v1_``.
"""

ADAPTER_MARK = "# --- mcp-migrate: v1 lowlevel handler adapter (MCP007)."

ADAPTER_SOURCE = '''# --- mcp-migrate: v1 lowlevel handler adapter (MCP007). Keeps each v1
# handler's signature and v1 semantics (result wrapping, tool-schema
# validation, exceptions as isError results) on v2's
# Server.add_request_handler(). Port handlers to (ctx, params) at leisure,
# then delete this block.
import contextvars as _mcp_v1_contextvars

_mcp_v1_current = _mcp_v1_contextvars.ContextVar("mcp_v1_request_context")


def _mcp_v1_request_context():
    return _mcp_v1_current.get()


def _mcp_v1_register(
    server, kind, func, takes_request=False, validate_input=True
):
    import base64
    import json

    import jsonschema
    from pydantic import AnyUrl

    from mcp import types

    state = server.__dict__.setdefault(
        "_mcp_v1_state", {"tools": {}, "list_tools": None}
    )
    tools = state["tools"]
    lists = {
        "list_tools": (
            "tools/list",
            types.ListToolsRequest,
            types.ListToolsResult,
            "tools",
        ),
        "list_prompts": (
            "prompts/list",
            types.ListPromptsRequest,
            types.ListPromptsResult,
            "prompts",
        ),
        "list_resources": (
            "resources/list",
            types.ListResourcesRequest,
            types.ListResourcesResult,
            "resources",
        ),
        "list_resource_templates": (
            "resources/templates/list",
            types.ListResourceTemplatesRequest,
            types.ListResourceTemplatesResult,
            "resource_templates",
        ),
    }

    def entered(handler):
        async def run(ctx, params):
            token = _mcp_v1_current.set(ctx)
            try:
                return await handler(ctx, params)
            finally:
                _mcp_v1_current.reset(token)

        return run

    def error(text):
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=True
        )

    if kind in lists:
        method, request_type, result_type, field = lists[kind]

        async def list_handler(ctx, params):
            result = await (
                func(request_type(params=params)) if takes_request else func()
            )
            if isinstance(result, result_type):
                items = list(getattr(result, field))
            else:
                items = list(result)
                result = result_type(**{field: items})
            if kind == "list_tools":
                if not isinstance(result, result_type) or not takes_request:
                    tools.clear()
                tools.update({tool.name: tool for tool in items})
            return result

        if kind == "list_tools":
            state["list_tools"] = list_handler
        server.add_request_handler(
            method, types.PaginatedRequestParams, entered(list_handler)
        )
    elif kind == "call_tool":

        async def call_handler(ctx, params):
            name, arguments = params.name, params.arguments or {}
            try:
                if name not in tools and state["list_tools"] is not None:
                    await state["list_tools"](ctx, None)
                tool = tools.get(name)
                if validate_input and tool is not None:
                    try:
                        jsonschema.validate(
                            instance=arguments, schema=tool.input_schema
                        )
                    except jsonschema.ValidationError as exc:
                        return error(f"Input validation error: {exc.message}")
                results = await func(name, arguments)
                if isinstance(results, types.CallToolResult):
                    return results
                if isinstance(results, tuple) and len(results) == 2:
                    unstructured, structured = results
                elif isinstance(results, dict):
                    structured = results
                    unstructured = [
                        types.TextContent(
                            type="text", text=json.dumps(results, indent=2)
                        )
                    ]
                elif hasattr(results, "__iter__"):
                    unstructured, structured = results, None
                else:
                    return error(
                        "Unexpected return type from tool: "
                        f"{type(results).__name__}"
                    )
                if tool is not None and tool.output_schema is not None:
                    if structured is None:
                        return error(
                            "Output validation error: outputSchema defined "
                            "but no structured output returned"
                        )
                    try:
                        jsonschema.validate(
                            instance=structured, schema=tool.output_schema
                        )
                    except jsonschema.ValidationError as exc:
                        return error(f"Output validation error: {exc.message}")
                return types.CallToolResult(
                    content=list(unstructured),
                    structured_content=structured,
                    is_error=False,
                )
            except Exception as exc:
                if type(exc).__name__ == "UrlElicitationRequiredError":
                    raise
                return error(str(exc))

        server.add_request_handler(
            "tools/call", types.CallToolRequestParams, entered(call_handler)
        )
    elif kind == "get_prompt":

        async def prompt_handler(ctx, params):
            return await func(params.name, params.arguments)

        server.add_request_handler(
            "prompts/get",
            types.GetPromptRequestParams,
            entered(prompt_handler),
        )
    elif kind == "read_resource":

        async def read_handler(ctx, params):
            result = await func(AnyUrl(params.uri))

            def content(data, mime_type, meta=None):
                extra = {"_meta": meta} if meta is not None else {}
                if isinstance(data, str):
                    return types.TextResourceContents(
                        uri=params.uri,
                        text=data,
                        mime_type=mime_type or "text/plain",
                        **extra,
                    )
                return types.BlobResourceContents(
                    uri=params.uri,
                    blob=base64.b64encode(data).decode(),
                    mime_type=mime_type or "application/octet-stream",
                    **extra,
                )

            if isinstance(result, str | bytes):
                return types.ReadResourceResult(
                    contents=[content(result, None)]
                )
            return types.ReadResourceResult(
                contents=[
                    content(c.content, c.mime_type, getattr(c, "meta", None))
                    for c in result
                ]
            )

        server.add_request_handler(
            "resources/read",
            types.ReadResourceRequestParams,
            entered(read_handler),
        )
    elif kind in ("subscribe_resource", "unsubscribe_resource"):
        method = (
            "resources/subscribe"
            if kind == "subscribe_resource"
            else "resources/unsubscribe"
        )
        params_type = (
            types.SubscribeRequestParams
            if kind == "subscribe_resource"
            else types.UnsubscribeRequestParams
        )

        async def subscription_handler(ctx, params):
            await func(AnyUrl(params.uri))
            return types.EmptyResult()

        server.add_request_handler(
            method, params_type, entered(subscription_handler)
        )
    elif kind == "set_logging_level":

        async def level_handler(ctx, params):
            await func(params.level)
            return types.EmptyResult()

        server.add_request_handler(
            "logging/setLevel",
            types.SetLevelRequestParams,
            entered(level_handler),
        )
    elif kind == "completion":

        async def completion_handler(ctx, params):
            completion = await func(
                params.ref, params.argument, params.context
            )
            return types.CompleteResult(
                completion=completion
                or types.Completion(values=[], total=None, has_more=None)
            )

        server.add_request_handler(
            "completion/complete",
            types.CompleteRequestParams,
            entered(completion_handler),
        )
    elif kind == "progress_notification":

        async def progress_handler(ctx, params):
            await func(
                params.progress_token,
                params.progress,
                params.total,
                params.message,
            )

        server.add_notification_handler(
            "notifications/progress",
            types.ProgressNotificationParams,
            entered(progress_handler),
        )
    return func


# --- end of mcp-migrate adapter
'''

"""The MCP server: the tools of `mcpserver.tools` on the official SDK's low-level `Server`, over
stdio or streamable HTTP.

The low-level server, not the decorator API: our tools describe their arguments with the API's
serializers and validate them with the same serializers, so an argument the schema would refuse
still reaches the tool and comes back as a tool error with the API's message naming the field
(an SDK-side check would answer in its own words, or as a protocol error).

Django's ORM is synchronous: every call runs on one worker thread (asgiref's thread-sensitive
executor), so the server holds one database connection however many calls arrive.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import uvicorn
from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from mcpserver.calls import TURN_ID_META_KEY, tool_call
from mcpserver.tools import TOOLS, Tool

SERVER_NAME = "synapse"
# The path the streamable HTTP transport answers on (the SDK's convention).
HTTP_PATH = "/mcp"
# What an agent is told at connection, before it reads any tool.
INSTRUCTIONS = (
    "Synapse is your long-term memory of one mind. Each turn: call `recall` first (with the user's message as `q`); "
    "call `resonance` when associations would help and note each item's `knot_id`; answer; then call `used` with "
    "your answer and those knot ids. `store` what should be remembered, `search` for a specific fact, `forget` what "
    "the user says is wrong, `list_unverified` when the user wants to review what was stored."
)


def _protocol_tool(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.input_schema,
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=tool.read_only,
            destructive_hint=tool.destructive,
            open_world_hint=False,  # only the mind's own memory, nothing outside
        ),
    )


def build_server(mind_key: str) -> Server[Any]:
    """The server for the mind of `mind_key` (checked again on every call)."""
    listed = types.ListToolsResult(tools=[_protocol_tool(tool) for tool in TOOLS.values()])
    run_call = sync_to_async(tool_call, thread_sensitive=True)

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None):
        return listed

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams):
        turn_id = (params.meta or {}).get(TURN_ID_META_KEY)
        result = await run_call(mind_key=mind_key, name=params.name, arguments=params.arguments, turn_id=turn_id)
        return types.CallToolResult(
            content=[types.TextContent(text=result.text)],
            structured_content=result.body,
            is_error=result.is_error,
        )

    def input_schema_of(name: str) -> dict[str, Any] | None:
        tool = TOOLS.get(name)
        return tool.input_schema if tool else None

    return Server(
        SERVER_NAME,
        version=settings.VERSION,
        title="Synapse memory",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=input_schema_of,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve_stdio(server: Server[Any]) -> None:
    """Serve one client on this process's stdin and stdout until it closes stdin."""

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)


def serve_http(server: Server[Any], *, host: str, port: int) -> None:
    """Serve streamable HTTP on host:port until SIGINT or SIGTERM (uvicorn handles both)."""
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning")

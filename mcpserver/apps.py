from django.apps import AppConfig


class McpserverConfig(AppConfig):
    """`manage.py mcp`: the Model Context Protocol server for agents (docs/mcp.md). No models."""

    name = "mcpserver"
    verbose_name = "MCP server"

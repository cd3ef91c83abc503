"""MCP engine (contracts §8): servers from the user's ``mcpServers`` file, one
owner task per session, progress, image placeholders, isolation and recovery.

See ``README.md`` in this folder for the rules (duplicate tool names, sandboxes,
timeouts) and :mod:`desktop_agent.mcp_engine.engine` for the entry point.
"""

from desktop_agent.mcp_engine.catalog import (
    ExpandedPrompt,
    McpCatalogError,
    PromptArgument,
    PromptInfo,
    ResourceContent,
    ResourceInfo,
    TemplateInfo,
)
from desktop_agent.mcp_engine.config import (
    McpConfig,
    ServerConfig,
    default_config,
    load_mcp_config,
    load_mcp_config_or_set_aside,
    parse_mcp_config,
)
from desktop_agent.mcp_engine.config_errors import McpConfigError
from desktop_agent.mcp_engine.engine import McpEngine
from desktop_agent.mcp_engine.status import Readiness, ServerStatus

__all__ = [
    "ExpandedPrompt",
    "McpCatalogError",
    "McpConfig",
    "McpConfigError",
    "McpEngine",
    "PromptArgument",
    "PromptInfo",
    "Readiness",
    "ResourceContent",
    "ResourceInfo",
    "ServerConfig",
    "ServerStatus",
    "TemplateInfo",
    "default_config",
    "load_mcp_config",
    "load_mcp_config_or_set_aside",
    "parse_mcp_config",
]

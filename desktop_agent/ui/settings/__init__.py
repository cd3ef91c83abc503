"""The Settings dialog and its pages: model, voice, tools (MCP servers, read-only trust), skills, hooks,
appearance and the approval history."""

"""desktop-agent."""

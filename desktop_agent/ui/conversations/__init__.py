"""Saved conversations in the window: the sidebar with search, and restoring a conversation's view from
its display log."""

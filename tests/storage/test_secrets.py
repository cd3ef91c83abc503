"""API key storage without a keyring daemon falls back to a private file."""

from __future__ import annotations

import stat

from desktop_agent.storage import secrets


def test_key_round_trips_through_the_file_store_when_no_keyring() -> None:
    assert secrets.get_api_key() is None
    secrets.set_api_key("sk-test-123")
    assert secrets.get_api_key() == "sk-test-123"
    mode = stat.S_IMODE(secrets._file().stat().st_mode)
    assert mode == 0o600
    assert "file" not in secrets.storage_note() or "secrets.json" in secrets.storage_note()
    secrets.set_api_key(None)
    assert secrets.get_api_key() is None

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


def test_a_corrupt_or_absurdly_deep_file_store_reads_as_no_key() -> None:
    secrets._file().write_text("[" * 5000 + "]" * 5000)
    assert secrets.get_api_key() is None
    secrets.set_api_key("sk-new")
    assert secrets.get_api_key() == "sk-new"
    assert stat.S_IMODE(secrets._file().stat().st_mode) == 0o600

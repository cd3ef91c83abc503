"""API key storage without a keyring daemon falls back to a private file."""

from __future__ import annotations

import os
import stat

from desktop_agent.storage import secrets


def test_key_round_trips_through_the_file_store_when_no_keyring() -> None:
    assert secrets.get_api_key() is None
    secrets.set_api_key("sk-test-123")
    assert secrets.get_api_key() == "sk-test-123"
    mode = stat.S_IMODE(secrets._file().stat().st_mode)
    assert mode == 0o600
    assert secrets.key_storage() == secrets.KeyStorage("file", secrets._file())  # the null keyring
    secrets.set_api_key(None)
    assert secrets.get_api_key() is None


def test_a_corrupt_or_absurdly_deep_file_store_reads_as_no_key() -> None:
    secrets._file().write_text("[" * 5000 + "]" * 5000)
    assert secrets.get_api_key() is None
    secrets.set_api_key("sk-new")
    assert secrets.get_api_key() == "sk-new"
    assert stat.S_IMODE(secrets._file().stat().st_mode) == 0o600


def test_the_file_store_is_private_even_over_a_stale_temp_file_and_a_wide_old_file() -> None:
    # A temp file left by a crash, and a file made 0644
    # by an older version or by hand; the key must still end up 0600.
    folder = secrets._file().parent
    stale = folder / "secrets.json.tmp"
    stale.write_text('{"openai-api-key": "old"}')
    stale.chmod(0o644)
    secrets._file().write_text("{}")
    secrets._file().chmod(0o644)
    secrets.set_api_key("sk-private")
    assert secrets.get_api_key() == "sk-private"
    assert stat.S_IMODE(secrets._file().stat().st_mode) == 0o600
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp") and p != stale] == []


def test_a_file_store_that_is_a_pipe_or_huge_reads_as_no_key_at_once() -> None:
    path = secrets._file()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)  # a blocking read would wait here forever for a writer
    assert secrets.get_api_key() is None
    path.unlink()
    path.write_text('{"openai-api-key": "sk-big"}' + " " * (64 * 1024))
    assert secrets.get_api_key() is None

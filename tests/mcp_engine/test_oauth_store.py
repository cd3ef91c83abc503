"""Where sign-ins are kept: the keyring per server URL; without a usable
keyring, this run's memory only (never a file in clear)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from desktop_agent.mcp_engine.oauth_store import CredentialStore
from desktop_agent.testing.memory_keyring import MemoryKeyring, memory_keyring

URL = "https://mcp.example.com/mcp"
TOKENS = OAuthToken(access_token="a-secret", token_type="Bearer", expires_in=60, refresh_token="r-secret")
CLIENT = OAuthClientInformationFull(client_id="c1", redirect_uris=[AnyUrl("http://127.0.0.1:5000/callback")])


@pytest.fixture
def ring() -> Iterator[MemoryKeyring]:
    with memory_keyring() as ring:
        yield ring


async def test_tokens_and_client_are_kept_per_url_in_the_keyring(ring: MemoryKeyring) -> None:
    store = CredentialStore()
    await store.set_tokens(URL, TOKENS)
    await store.set_client(URL, CLIENT)
    assert sorted(ring.entries) == [
        ("desktop-agent", f"mcp-oauth-client:{URL}"),
        ("desktop-agent", f"mcp-oauth-tokens:{URL}"),
    ]
    fresh = CredentialStore()  # another run
    assert await fresh.tokens(URL) == TOKENS
    assert await fresh.client(URL) == CLIENT
    assert await fresh.tokens("https://other.example.com/mcp") is None
    await fresh.forget(URL, client=False)
    assert (await fresh.tokens(URL), await fresh.client(URL)) == (None, CLIENT)
    await fresh.forget(URL)
    assert not ring.entries


async def test_an_unreadable_entry_is_no_sign_in(ring: MemoryKeyring, caplog: pytest.LogCaptureFixture) -> None:
    ring.entries[("desktop-agent", f"mcp-oauth-tokens:{URL}")] = "{not json"
    assert await CredentialStore().tokens(URL) is None
    assert "unreadable" in caplog.text


async def test_without_a_keyring_the_sign_in_lasts_this_run_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]  # keyring is untyped here
    try:
        store = CredentialStore()
        await store.set_tokens(URL, TOKENS)
        assert await store.tokens(URL) == TOKENS
        assert await CredentialStore().tokens(URL) is None  # the next run
    finally:
        keyring.set_keyring(previous)
    assert "kept for this run only" in caplog.text
    assert "a-secret" not in caplog.text and "r-secret" not in caplog.text
    written = [p for p in tmp_path.rglob("*") if p.is_file() and b"secret" in p.read_bytes()]
    assert written == []

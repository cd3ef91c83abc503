"""The API key: in the system keyring when one is available.

Without a usable keyring (a headless server, no Secret Service) the key is
kept in ``secrets.json`` under the data folder with mode 0600, and
:func:`key_storage` says so (the UI words it: storage knows no
language). The key never goes to a log.

``keyring`` is imported on first use: finding its backend loads D-Bus and
cryptography (~24 MiB), which the demo model never needs and an idle
window should not carry.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from desktop_agent.storage.atomic import atomic_write_text
from desktop_agent.storage.paths import data_dir
from desktop_agent.storage.user_files import UserFileError, read_user_bytes

log = logging.getLogger(__name__)

SERVICE = "desktop-agent"
USERNAME = "openai-api-key"
SECRETS_FILE_LIMIT = 64 << 10
"""Bytes: the file holds one key."""


def _keyring_usable() -> bool:
    import keyring
    from keyring.backends import fail, null

    backend = keyring.get_keyring()
    return not isinstance(backend, (fail.Keyring, null.Keyring))


def _file() -> Path:
    return data_dir() / "secrets.json"


def _read_file() -> dict[str, str]:
    """The stored keys; none when the file is not a small regular file of
    JSON (a named pipe there would hang start-up, a huge file eat memory)."""
    try:
        data = json.loads(read_user_bytes(_file(), limit=SECRETS_FILE_LIMIT).decode("utf-8"))
    except (UserFileError, ValueError, RecursionError):  # RecursionError: absurdly deep JSON
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}


def _write_file(data: dict[str, str]) -> None:
    atomic_write_text(_file(), json.dumps(data), mode=0o600)


def get_api_key() -> str | None:
    return get_secret(USERNAME)


def set_api_key(key: str | None) -> None:
    """Store (or with None/empty, forget) the API key."""
    set_secret(USERNAME, key)


def get_secret(name: str) -> str | None:
    """A secret kept under ``name`` (the API key, an MCP bundle's sensitive setting)."""
    import keyring
    import keyring.errors

    if _keyring_usable():
        try:
            key = keyring.get_password(SERVICE, name)
            if key:
                return key
        except keyring.errors.KeyringError as exc:
            log.warning("keyring unavailable (%s); using the file store", type(exc).__name__)
    return _read_file().get(name) or None


def set_secret(name: str, key: str | None) -> None:
    """Store (or with None/empty, forget) the secret kept under ``name``."""
    import keyring
    import keyring.errors

    if _keyring_usable():
        try:
            if key:
                keyring.set_password(SERVICE, name, key)
            else:
                try:
                    keyring.delete_password(SERVICE, name)
                except keyring.errors.PasswordDeleteError:
                    pass
            data = _read_file()
            if data.pop(name, None) is not None:
                _write_file(data)
            return
        except keyring.errors.KeyringError as exc:
            log.warning("keyring unavailable (%s); using the file store", type(exc).__name__)
    data = _read_file()
    if key:
        data[name] = key
    else:
        data.pop(name, None)
    _write_file(data)


@dataclass(frozen=True, slots=True)
class KeyStorage:
    """Where the API key is kept, for the Settings dialog to put in words."""

    where: Literal["keyring", "file"]
    """``keyring``: the system keyring; ``file``: ``secrets.json``, mode 0600."""
    path: Path | None = None
    """The file, when ``where`` is ``file``."""


def key_storage() -> KeyStorage:
    """Where the key is (or would be) kept now."""
    if _keyring_usable():
        return KeyStorage("keyring")
    return KeyStorage("file", _file())

"""Test-wide set-up: Qt offscreen and a private data folder for every test."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# CI explores the same examples every run (a landing must not hinge on a
# random draw); local runs stay random and keep finding new cases.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
# No keyring daemon in tests: the secrets module falls back to its file store.
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")


@pytest.fixture(autouse=True)
def _private_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("DESKTOP_AGENT_HOME", str(home))
    monkeypatch.setenv("DESKTOP_AGENT_NO_DOWNLOADS", "1")  # a speech model only ever from 127.0.0.1
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    yield home


@pytest.fixture(autouse=True)
def _collect_between_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Collect a window test's garbage when it ends, outside any event loop.
    A window or widget a test left behind is otherwise deleted whenever the
    collector happens to run, which can be inside Qt's timer dispatch in a
    later test (seen: a segfault in ``QTimerInfoList::activateTimers``). Only
    where windows are made: a collection costs ~0.15 s."""
    yield
    if any(part in ("ui", "integration") for part in request.node.path.parts):
        gc.collect()

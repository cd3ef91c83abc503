"""The real Whisper base model for the recognition tests (installed by
scripts/install-test-deps.sh; missing, the tests fail and say so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.testing.speech_fixtures import whisper_base_dir


@pytest.fixture(scope="session")
def whisper_dir() -> Path:
    try:
        return whisper_base_dir()
    except FileNotFoundError as exc:
        pytest.fail(str(exc))

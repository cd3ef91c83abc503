"""Test-wide set-up: Qt offscreen and a private data folder for every test."""

from __future__ import annotations

import gc
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from desktop_agent.testing.pulse import VirtualAudio

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


_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@pytest.fixture(autouse=True)
def _stop_signal_handlers_put_back() -> Iterator[None]:
    """A test that runs the headless mode in-process (``cli.run``) ends
    like the process would: its late stop signals ignored. Ignored signals
    are inherited by every child process, so without this a later test in
    the same worker would find SIGTERM/SIGHUP ignored in the app and in the
    subprocesses it starts."""
    before = {sig: signal.getsignal(sig) for sig in _STOP_SIGNALS}
    yield
    for sig, handler in before.items():
        if signal.getsignal(sig) is not handler and handler is not None:
            signal.signal(sig, handler)


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


# --- real audio devices (desktop_agent/testing/pulse.py) ----------------------
# A test marked ``real_audio`` runs in a child pytest of its own, where the
# ``pulse_audio`` fixture starts a private PulseAudio server before Qt first
# looks for devices (Qt connects once per process and never notices a
# removed device, so these tests must not share a process with others).


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "real_audio: uses real (virtual) sound devices; runs in a process of its own"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    from desktop_agent.testing.pulse import CHILD_ENV, run_in_child

    if pyfuncitem.get_closest_marker("real_audio") is None or os.environ.get(CHILD_ENV):
        return None
    run_in_child(pyfuncitem.nodeid, Path(pyfuncitem.config.rootpath))
    return True


@pytest.fixture
def pulse_audio(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualAudio]:
    """A virtual speaker (``virtual_speaker``) and microphone (``virtual_mic``),
    both the system's defaults, on a private PulseAudio server that this test's
    process (and the app it starts) talks to. Only for ``real_audio`` tests."""
    from desktop_agent.testing.pulse import CHILD_ENV, PulseServer, VirtualAudio

    if request.node.get_closest_marker("real_audio") is None:
        pytest.fail("pulse_audio needs the real_audio mark (the test must run in a process of its own)")
    if not os.environ.get(CHILD_ENV):
        yield VirtualAudio(None)  # the parent only runs the child
        return
    server = PulseServer()
    try:
        server.start()
        monkeypatch.setenv("PULSE_SERVER", server.address)
        audio = VirtualAudio(server)
        audio.add_speaker()
        audio.add_microphone()
        yield audio
        audio.close()
    finally:
        server.close()

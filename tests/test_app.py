"""The window's composition root: what it makes of the machine's speaker."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from desktop_agent.app import window_deps
from desktop_agent.app_speech import make_sink
from desktop_agent.services import build_services
from desktop_agent.testing.fake_devices import ScriptedDevices
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.texts import ENGLISH, Texts
from desktop_agent.ui.voice import audio_devices, audio_sink
from desktop_agent.ui.voice.device_choice import Device

NO_DEVICE = "QtMultimedia lists none"


def worded(warnings: Sequence[str | Callable[[Texts], str]]) -> list[str]:
    """The start-up warnings as an English window says them (a function words its line in the window's language)."""
    return [w(ENGLISH) if callable(w) else str(w) for w in warnings]


@pytest.fixture
def no_servers(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}')
    return path


@pytest.fixture
def devices() -> Iterator[ScriptedDevices]:
    """The machine's sound devices, scripted (none until a test plugs one in)."""
    scripted = ScriptedDevices()
    before = audio_devices.set_shared(scripted.watcher())
    yield scripted
    audio_devices.set_shared(before)


async def test_with_no_audio_output_device_there_is_no_speaker_and_one_line_says_so(
    qapp: QApplication, no_servers: Path, devices: ScriptedDevices, caplog: pytest.LogCaptureFixture
) -> None:
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        with caplog.at_level(logging.WARNING, logger="desktop_agent.app"):
            assert make_sink(services) is None
        assert [r.getMessage() for r in caplog.records] == [
            f"no audio output ({NO_DEVICE}); replies will be shown, not spoken"
        ]
        line = ENGLISH.tr("no_audio_output")
        assert line == "No audio output device — replies are shown but not spoken"
        assert worded(window_deps(services, None).warnings).count(line) == 1  # the reason stays in the log
        assert line not in worded(window_deps(services, FakeAudioSink()).warnings)
    finally:
        await services.aclose()


async def test_with_an_audio_output_device_the_window_gets_the_qt_speaker(
    qapp: QApplication, no_servers: Path, devices: ScriptedDevices
) -> None:
    devices.plug(Device("speakers", "Built-in speakers", default=True), output=True)
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        sink = make_sink(services)
        assert isinstance(sink, audio_sink.QtAudioSink)
        sink.close()
    finally:
        await services.aclose()

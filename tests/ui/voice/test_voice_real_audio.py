"""The voice interaction on real (virtual) sound devices, end to end: the
window as the composition root builds it (its speaker wrapped in the echo
gate's ``OutputTap``), the real espeak-ng voice played on a PulseAudio
virtual speaker, the real Whisper base model, WAV files said into the
virtual microphone, a scripted LLM server (``testing/pulse.py`` says how the
devices are made; each test runs in a process of its own).

- The app's own voice, looped from the speaker into the microphone as loud
  as it plays, never interrupts its reply (hands-free, barge-in on).
- With the speaker 20 dB quieter at the microphone (a room), the user's
  "what time is it" over the reply stops it, and what Whisper heard is the
  next turn.
- A spoken "yes" approves a waiting card, heard by Whisper.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.testing.audit_sink import RecordingAuditSink
from desktop_agent.testing.pulse import MICROPHONE, SPEAKER, VirtualAudio
from desktop_agent.testing.scripted_server import Script, ScriptedLLMServer, text_reply, tool_reply
from desktop_agent.testing.speech_fixtures import FIXTURES, english_words, whisper_base_dir
from desktop_agent.testing.window_rig import SignalLog
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = [pytest.mark.usefixtures("keep_loop_on_close"), pytest.mark.integration, pytest.mark.real_audio]

REPLY = "<voice>The weather today will be mild with a light wind. Later on, clouds will come in from the west.</voice>"


async def until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def loop_speaker_into_mic(audio: VirtualAudio, gain_db: float) -> None:
    """What the virtual speaker plays reaches the virtual microphone, ``gain_db`` as loud."""
    server = audio.server
    module = server.pactl("load-module", "module-loopback", f"source={SPEAKER}.monitor",
                          f"sink={MICROPHONE}_feed", "latency_msec=60")
    listing = server.pactl("list", "sink-inputs").split("Sink Input #")
    (index,) = [block.split()[0] for block in listing if f"Owner Module: {module}" in block]
    server.pactl("set-sink-input-volume", index, f"{10 ** (gain_db / 20):.4f}")  # a linear amplitude factor


@asynccontextmanager
async def app_window(qtbot: QtBot, tmp_path: Path, script: Script, **settings: object) -> AsyncIterator[MainWindow]:
    """The window as the app builds it, on the scripted server, speaking with
    espeak-ng and hearing with Whisper base."""
    from desktop_agent.app import window_deps
    from desktop_agent.app_speech import deferred_sink
    from desktop_agent.services import build_services
    from desktop_agent.storage.paths import settings_path

    saved = {"stt_engine": "whisper", "stt_model_dir": str(whisper_base_dir()), **settings}
    settings_path().write_text(json.dumps(saved))
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    async with ScriptedLLMServer(script) as server:
        services = await build_services(base_url=server.base_url, model="scripted", api_key="test-key",
                                        mcp_config=mcp, tts="espeak", keep_conversations=True)
        window = MainWindow(tray=False)
        qtbot.add_widget(window)
        sink = deferred_sink(services, window)
        try:
            window.attach(window_deps(services, sink))
            window.resize(860, 720)
            window.show()
            qtbot.wait_exposed(window)
            yield window
        finally:
            window.hands_free_button.setChecked(False)
            window.close()
            await window.shutdown()
            sink.close()
            await services.aclose()


def users(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, MessageBubble) and w.role == "user"]


def lines(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)]


async def speaking(window: MainWindow) -> None:
    controller = window.controller
    assert controller is not None
    await until(lambda: controller.speaking, timeout_s=30)


async def test_our_own_voice_looped_into_the_microphone_never_interrupts_the_reply(
    qtbot: QtBot, tmp_path: Path, pulse_audio: VirtualAudio
) -> None:
    loop_speaker_into_mic(pulse_audio, 0.0)
    async with app_window(qtbot, tmp_path, lambda _request: text_reply(REPLY), barge_in=True) as window:
        turns = SignalLog(window.turn_finished)
        glue = window.voice
        assert glue is not None
        barge_ins = SignalLog(glue.voice.barge_in)
        assert window.send_text("what is the weather")
        await speaking(window)
        window.hands_free_button.setChecked(True)  # hands-free over the reply: barge-in listens
        assert glue.voice.mode == "barge"
        assert await turns.wait_for(timeout=60) == ("completed",)
        assert barge_ins.events == [] and ENGLISH.tr("sys_interrupted") not in lines(window)
        assert users(window) == ["what is the weather"]


async def test_the_user_over_the_reply_stops_it_and_is_the_next_turn(
    qtbot: QtBot, tmp_path: Path, pulse_audio: VirtualAudio
) -> None:
    loop_speaker_into_mic(pulse_audio, -20.0)
    async with app_window(qtbot, tmp_path, lambda _request: text_reply(REPLY), barge_in=True) as window:
        glue = window.voice
        assert glue is not None
        barge_ins = SignalLog(glue.voice.barge_in)
        assert window.send_text("what is the weather")
        await speaking(window)
        window.hands_free_button.setChecked(True)
        await asyncio.sleep(2.5)  # the user listens a moment (the echo gate learns the room: 1 s + 0.6 s)
        controller = window.controller
        assert controller is not None and controller.speaking
        await pulse_audio.play_into_mic(FIXTURES / "en1.wav")  # "what time is it"
        await barge_ins.wait_for(timeout=10)
        await until(lambda: len(users(window)) == 2, timeout_s=60)
        assert english_words(users(window)[1]) == ["what", "time", "is", "it"]


async def test_a_spoken_yes_approves_the_card_heard_by_whisper(
    qtbot: QtBot, tmp_path: Path, pulse_audio: VirtualAudio
) -> None:
    script = [text_reply("Let me check.\n<need_tool>"), tool_reply("run_command", {"command": "echo by-voice"}),
              text_reply("Done.")]
    async with app_window(qtbot, tmp_path, script) as window:
        controller = window.controller
        assert controller is not None
        audit = controller.conversation.approvals.audit = RecordingAuditSink()
        waiting, turns = SignalLog(window.waiting_for_user), SignalLog(window.turn_finished)
        glue = window.voice
        assert glue is not None
        assert window.send_text("run echo")
        await waiting.wait_for(timeout=30)
        window.hands_free_button.setChecked(True)  # asks (aloud), and listens for the answer
        session = glue.voice.session
        await until(lambda: session.state.approval is not None and not session.state.approval.asking, timeout_s=30)
        assert glue.voice.mode == "approval"
        await pulse_audio.play_into_mic(FIXTURES.parent / "data" / "yes.wav")
        assert await turns.wait_for(timeout=60) == ("completed",)
        assert audit.decisions() == [("run_command", "approved", "voice")]

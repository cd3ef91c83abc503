"""Barge-in in the real window: a spoken reply played through a speaker
into the room the microphone hears (``testing/live_mic.py``), hands-free
with barge-in on. The app's own voice never interrupts it; the user's
speech does at its onset, and what the user said is a turn only when it is
words: "wait, stop talking please" (the whole of it is recognised, not its
tail) stops the reply and sends nothing; a cough sends nothing and says so."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.ports import Speech
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.voice_output import OutputTap
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.testing.fake_recognizer import ScriptedRecognizer
from desktop_agent.testing.live_mic import LiveMicrophone, LoopbackSink, scaled
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply
from desktop_agent.testing.window_rig import SignalLog, build_window
from desktop_agent.texts import ENGLISH
from desktop_agent.tools import builtin_tools
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.voice import SpeechPipeline
from desktop_agent.voice.pcm import read_wav16
from desktop_agent.voice.vad import WebRtcVad
from desktop_agent.voice.wav import pcm16_wav

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

VOICE = Path(__file__).parents[2] / "voice"
OUR_VOICE = read_wav16(VOICE / "fixtures" / "en2.wav")  # 3.2 s of espeak-ng, what every sentence sounds like
USER = read_wav16(VOICE / "data" / "what_time.wav")
REPLY = "<voice>Here is a long answer. It goes on for a while.</voice>"
LISTENED_S = 2.0
"""The user lets the reply play this long first (the echo gate learns how loud it is here)."""


class OurVoice:
    """Every sentence sounds like ``OUR_VOICE`` (16 kHz WAV, as the speaker plays it)."""

    name = "ours"

    async def synthesize(self, text: str) -> Speech:
        return Speech(pcm16_wav(OUR_VOICE, 16000), "audio/wav", self.name)


@dataclass
class Rig:
    window: MainWindow
    mic: LiveMicrophone
    speaker: LoopbackSink
    recognizer: ScriptedRecognizer
    turns: SignalLog
    barge_ins: SignalLog

    async def stopped(self) -> None:
        """The reply was stopped: interrupted, or (its text all in) its speech stopped."""
        (status,) = await self.turns.wait_for(timeout=20)
        assert status in ("user", "completed") and self.speaker.stops >= 1
        assert ENGLISH.tr("sys_interrupted") in self.lines() or ENGLISH.tr("sys_speech_stopped") in self.lines()

    def users(self) -> list[str]:
        return [w.text() for w in self.window.chat.items() if isinstance(w, MessageBubble) and w.role == "user"]

    def lines(self) -> list[str]:
        return [w.text() for w in self.window.chat.items() if isinstance(w, SystemMessage)]


@asynccontextmanager
async def spoken_reply(heard: list[str], *, echo_gain: float) -> AsyncIterator[Rig]:
    """A window whose first turn speaks ``REPLY``, hands-free listening
    over it; ``echo_gain``: how loud the speaker is at the microphone."""
    SettingsStore().save(Settings(barge_in=True))
    mic = LiveMicrophone()
    speaker = LoopbackSink(mic, gain=echo_gain)
    recognizer = ScriptedRecognizer(heard)
    async with ScriptedLLMServer(lambda _request: text_reply(REPLY)) as server:
        forms = FormManager()
        provider = OpenAIProvider(base_url=server.base_url, api_key="test-key", model="scripted")
        conversation = Conversation(AgentClient(provider, ToolRouter(builtin_tools(forms))),
                                    speech_factory=lambda bus: SpeechPipeline(OurVoice(), bus))
        voice = {"audio_input": mic, "recognizer": recognizer, "vad": WebRtcVad, "sink": OutputTap(speaker)}
        window, _store = build_window(conversation, forms, voice=voice)
        window.show()
        glue = window.voice
        assert glue is not None
        rig = Rig(window, mic, speaker, recognizer, SignalLog(window.turn_finished), SignalLog(glue.voice.barge_in))
        try:
            assert window.send_text("tell me a story")
            async with asyncio.timeout(20):
                while not speaker.playing:
                    await asyncio.sleep(0.01)
            window.hands_free_button.setChecked(True)  # a turn speaks: barge-in listens
            yield rig
        finally:
            window.hands_free_button.setChecked(False)
            mic.close()
            window.close()
            await window.shutdown()
            forms.cancel_all()
            await provider.aclose()
            window.deleteLater()


async def test_our_own_voice_heard_back_as_loud_as_it_plays_never_interrupts() -> None:
    async with spoken_reply([], echo_gain=1.0) as rig:
        assert await rig.turns.wait_for(timeout=30) == ("completed",)
        assert rig.barge_ins.events == [] and rig.speaker.stops == 0
        assert rig.mic.heard > 100  # it listened all along: 3 s of our voice at least
        assert ENGLISH.tr("sys_interrupted") not in rig.lines()


async def test_wait_stop_talking_stops_the_reply_at_its_onset_and_sends_nothing() -> None:
    async with spoken_reply(["Wait, stop talking please."], echo_gain=0.1) as rig:
        await asyncio.sleep(LISTENED_S)  # the loopback speaker and live microphone run in real time
        rig.mic.say(scaled(USER, 0.8))
        await rig.barge_ins.wait_for(timeout=10)
        await rig.stopped()
        async with asyncio.timeout(10):
            while not rig.recognizer.heard:
                await asyncio.sleep(0.02)
        assert rig.recognizer.heard[0] >= len(USER)  # the whole utterance, not its tail
        await asyncio.sleep(0.3)  # the live microphone's next frames (real time): still nothing sent
        assert rig.users() == ["tell me a story"]  # nothing sent
        assert ENGLISH.tr("voice_barge_unclear") not in rig.lines()


async def test_a_cough_over_the_reply_sends_nothing_and_says_so() -> None:
    async with spoken_reply(["(coughs)"], echo_gain=0.1) as rig:
        await asyncio.sleep(LISTENED_S)  # the loopback speaker and live microphone run in real time
        rig.mic.say(scaled(USER, 0.8))
        await rig.stopped()
        async with asyncio.timeout(10):
            while ENGLISH.tr("voice_barge_unclear") not in rig.lines():
                await asyncio.sleep(0.02)
        assert rig.users() == ["tell me a story"]


async def test_words_over_the_reply_become_the_next_turn() -> None:
    async with spoken_reply(["What time is it in Tokyo?"], echo_gain=0.1) as rig:
        await asyncio.sleep(LISTENED_S)  # the loopback speaker and live microphone run in real time
        rig.mic.say(scaled(USER, 0.8))
        await rig.stopped()
        async with asyncio.timeout(15):
            while rig.users() != ["tell me a story", "What time is it in Tokyo?"]:
                await asyncio.sleep(0.02)

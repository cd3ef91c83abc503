"""The voice interaction's vocabulary: what happens (events), what is to be
done (actions), how it is set up (config) and where it stands (state).

:class:`~desktop_agent.core.voice_machine.VoiceSession` turns events into
actions; the window's adapter (``ui/voice/speech_input.py``) feeds it what the
microphone, the recognisers, the turn and the cards do, and performs what it
returns. Both sides are frozen dataclasses with a ``type`` tag (what flows is
data), so a test compares whole action lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from desktop_agent.core.utterance import UtteranceTimings

Listen = Literal["push", "utterance", "barge", "answer"]
"""What the microphone is open for: push-to-talk (held, no VAD), a
hands-free utterance, speech over the assistant, an approval answer."""
Purpose = Literal["dictation", "utterance", "barge", "answer", "kept"]
"""What a recognised text is for: push-to-talk, hands-free, barge-in, an
approval answer, or what was recorded when the microphone went away."""
SendMode = Literal["at_once", "countdown", "review"]
SEND_MODES: tuple[SendMode, ...] = ("at_once", "countdown", "review")
Button = Literal["idle", "listening", "recognising", "unavailable"]
NoticeKind = Literal["heard_nothing", "barge_unclear", "answer_on_card", "mic_unavailable", "mic_lost"]


@dataclass(frozen=True, slots=True)
class VoiceConfig:
    send: SendMode = "countdown"
    """A push-to-talk transcript: sent at once, sent after a countdown that
    any key cancels, or left in the input to review."""
    countdown_s: float = 2.0
    barge_in: bool = False
    """Speech over the assistant interrupts it (hands-free only)."""
    barge_in_ms: int = 120
    """Speech needed (gaps of a frame forgiven) before barge-in fires: a
    first syllable ("what" in "what time is it"). Until it fires the reply
    goes on under the user's words, and Whisper mis-heard them when 0.3 s
    or more of it was there (it fired ~0.46 s in at 150 ms, at the second
    syllable; ~0.15 s in at 120 ms)."""
    barge_in_min_words: int = 2
    """Words (a Chinese character is one) a barge-in needs to become a turn."""
    speaks: bool = False
    """The approval question can be said aloud (a voice is on)."""
    echo_gated: bool = False
    """Our own output is known to the microphone's echo gate: an answer may
    be heard while the question is still said."""
    answer_tries: int = 2
    """Unclear spoken answers before the card is left to the mouse."""


HANDS_FREE_TIMINGS = UtteranceTimings()
ANSWER_TIMINGS = UtteranceTimings(start_timeout_ms=10_000, max_utterance_ms=8000)


# ------------------------------------------------------------------ events


@dataclass(frozen=True, slots=True)
class Press:
    """Push-to-talk pressed (the mic button, or Space in an empty input)."""

    type: Literal["press"] = "press"


@dataclass(frozen=True, slots=True)
class Release:
    """Push-to-talk released, with what was recorded."""

    pcm: bytes
    type: Literal["release"] = "release"


@dataclass(frozen=True, slots=True)
class Cancel:
    """Esc: drop what is recorded or recognised, or stop the countdown."""

    type: Literal["cancel"] = "cancel"


@dataclass(frozen=True, slots=True)
class HandsFree:
    on: bool
    type: Literal["hands_free"] = "hands_free"


@dataclass(frozen=True, slots=True)
class TurnBusy:
    """A turn runs (its reply written or spoken, a tool, an approval) or not."""

    busy: bool
    type: Literal["turn_busy"] = "turn_busy"


@dataclass(frozen=True, slots=True)
class Playback:
    """The assistant's voice started or stopped playing."""

    playing: bool
    type: Literal["playback"] = "playback"


@dataclass(frozen=True, slots=True)
class SpeechStart:
    """The VAD heard speech begin in the open capture."""

    type: Literal["speech_start"] = "speech_start"


@dataclass(frozen=True, slots=True)
class SpeechEnd:
    """The utterance ended (silence after it): its PCM, pre-roll included."""

    pcm: bytes
    type: Literal["speech_end"] = "speech_end"


@dataclass(frozen=True, slots=True)
class NoSpeech:
    """Nobody spoke before the capture's start timeout."""

    type: Literal["no_speech"] = "no_speech"


@dataclass(frozen=True, slots=True)
class Heard:
    """Recognition ``ident`` finished: its text ("" when nothing was
    recognised); ``failed``: it failed (the adapter said why)."""

    ident: int
    text: str
    failed: bool = False
    type: Literal["heard"] = "heard"


@dataclass(frozen=True, slots=True)
class ApprovalPending:
    """A card waits for Approve or Reject."""

    tool_call_id: str
    tool: str
    type: Literal["approval_pending"] = "approval_pending"


@dataclass(frozen=True, slots=True)
class ApprovalSettled:
    """The card was answered (a click, a key, the voice) or lost."""

    tool_call_id: str
    type: Literal["approval_settled"] = "approval_settled"


@dataclass(frozen=True, slots=True)
class QuestionSaid:
    """The spoken approval question ended (or could not be said)."""

    type: Literal["question_said"] = "question_said"


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed (the countdown reads the clock)."""

    type: Literal["tick"] = "tick"


@dataclass(frozen=True, slots=True)
class InputTouched:
    """A key or a click in the input: the countdown stops, the text stays."""

    type: Literal["input_touched"] = "input_touched"


@dataclass(frozen=True, slots=True)
class MicFailed:
    """The microphone could not be opened."""

    reason: str
    type: Literal["mic_failed"] = "mic_failed"


@dataclass(frozen=True, slots=True)
class DeviceLost:
    """The microphone went away; ``pcm``: what it had recorded (kept and
    recognised); ``announce``: say so (the device watcher may have)."""

    reason: str
    pcm: bytes = b""
    announce: bool = True
    type: Literal["device_lost"] = "device_lost"


@dataclass(frozen=True, slots=True)
class DeviceBack:
    """A microphone is there again."""

    type: Literal["device_back"] = "device_back"


@dataclass(frozen=True, slots=True)
class EngineReason:
    """Why no recogniser can be used (None: one can)."""

    reason: str | None
    type: Literal["engine_reason"] = "engine_reason"


@dataclass(frozen=True, slots=True)
class Configure:
    config: VoiceConfig
    type: Literal["configure"] = "configure"


@dataclass(frozen=True, slots=True)
class Close:
    """The window closes: release everything."""

    type: Literal["close"] = "close"


Event = (
    Press | Release | Cancel | HandsFree | TurnBusy | Playback | SpeechStart | SpeechEnd | NoSpeech | Heard
    | ApprovalPending | ApprovalSettled | QuestionSaid | Tick | InputTouched | MicFailed | DeviceLost
    | DeviceBack | EngineReason | Configure | Close
)


# ------------------------------------------------------------------ actions


@dataclass(frozen=True, slots=True)
class StartCapture:
    """Open the microphone; ``timings`` None: record everything (push-to-talk)."""

    listen: Listen
    timings: UtteranceTimings | None = None
    type: Literal["start_capture"] = "start_capture"


@dataclass(frozen=True, slots=True)
class StopCapture:
    type: Literal["stop_capture"] = "stop_capture"


@dataclass(frozen=True, slots=True)
class Recognise:
    """Hear ``pcm`` with the ``answer`` recogniser (yes/no) or the dictation one."""

    ident: int
    pcm: bytes
    engine: Literal["dictation", "answer"]
    purpose: Purpose
    type: Literal["recognise"] = "recognise"


@dataclass(frozen=True, slots=True)
class DropRecognition:
    type: Literal["drop_recognition"] = "drop_recognition"


@dataclass(frozen=True, slots=True)
class InterruptTurn:
    """Barge-in: stop the assistant's speech and its turn, now."""

    type: Literal["interrupt_turn"] = "interrupt_turn"


@dataclass(frozen=True, slots=True)
class PutInInput:
    """Add ``text`` to the input box (after what is there)."""

    text: str
    type: Literal["put_in_input"] = "put_in_input"


@dataclass(frozen=True, slots=True)
class SendInput:
    """Send what the input holds, as Enter does (shown as the user's message)."""

    type: Literal["send_input"] = "send_input"


@dataclass(frozen=True, slots=True)
class ShowCountdown:
    """The countdown before sending: ``remaining_s`` of ``total_s``;
    ``remaining_s`` None: it is over (sent or cancelled)."""

    remaining_s: float | None
    total_s: float = 0.0
    type: Literal["show_countdown"] = "show_countdown"


@dataclass(frozen=True, slots=True)
class AskApproval:
    """Show (and when ``speak``, say) the approval question; ``again``: the
    last answer was unclear. The adapter feeds :class:`QuestionSaid` after."""

    tool: str
    again: bool
    speak: bool
    type: Literal["ask_approval"] = "ask_approval"


@dataclass(frozen=True, slots=True)
class StopQuestion:
    """The answer came (or the card was clicked): stop saying the question."""

    type: Literal["stop_question"] = "stop_question"


@dataclass(frozen=True, slots=True)
class ShowHint:
    """The line that says a spoken answer is awaited; ``tool`` None hides it."""

    tool: str | None
    again: bool = False
    type: Literal["show_hint"] = "show_hint"


@dataclass(frozen=True, slots=True)
class AnswerApproval:
    """A clear spoken yes (``approved``) or no for this card."""

    tool_call_id: str
    approved: bool
    type: Literal["answer_approval"] = "answer_approval"


@dataclass(frozen=True, slots=True)
class Notice:
    """A line for the conversation."""

    kind: NoticeKind
    reason: str = ""
    kept: bool = False
    type: Literal["notice"] = "notice"


Action = (
    StartCapture | StopCapture | Recognise | DropRecognition | InterruptTurn | PutInInput | SendInput
    | ShowCountdown | AskApproval | StopQuestion | ShowHint | AnswerApproval | Notice
)


# ------------------------------------------------------------------ state


@dataclass(frozen=True, slots=True)
class ApprovalWait:
    """A card waiting, as far as the voice is concerned."""

    tool_call_id: str
    tool: str
    tries: int = 0
    """Unclear spoken answers so far."""
    listening: bool = False
    """Spoken answers are listened for (hands-free) — until ``answer_tries``
    unclear ones."""
    asking: bool = False
    """The question is being said."""
    hinted: bool = False
    """The hint line shows for it."""


@dataclass(frozen=True, slots=True)
class VoiceState:
    """Where the session stands (a snapshot; tests compare it whole)."""

    capture: Listen | None = None
    speaking: bool = False
    """The open capture heard speech begin."""
    recognising: Purpose | None = None
    hands_free: bool = False
    busy: bool = False
    playing: bool = False
    approval: ApprovalWait | None = None
    countdown_until: float | None = None
    held: str | None = None
    """A barge-in's words, waiting for the interrupted turn to end."""
    reason: str | None = None
    """Why speech input is unavailable (None: it is available)."""
    config: VoiceConfig = field(default_factory=VoiceConfig)

    @property
    def button(self) -> Button:
        if self.reason is not None:
            return "unavailable"
        if self.recognising is not None:
            return "recognising"
        return "listening" if self.capture is not None else "idle"

"""The composition root's speech and audio part: the recognisers the
settings name, the speaker (made at the first clip, or why there is none)
and the Settings dialog's voice preview. Beside ``app.py`` so the root stays
short; like it, everything heavy (QtMultimedia, the engines, the keyring)
is imported inside the functions, when first needed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtMultimedia import QAudioDevice

    from desktop_agent.core.ports import AudioSink, SpeechRecognizer
    from desktop_agent.services import Services
    from desktop_agent.storage.settings import Settings
    from desktop_agent.texts import Texts
    from desktop_agent.ui.shell.main_window import MainWindow
    from desktop_agent.ui.voice.audio_sink import QtAudioSink
    from desktop_agent.ui.voice.deferred_audio import DeferredSink


def speech_recognizers(
    settings: Settings, stored_key: Callable[[], str | None] | None = None
) -> tuple[SpeechRecognizer | None, SpeechRecognizer | None, str | None]:
    """The window's recognisers (dictation, approval answers) from the
    settings, or why there are none (one line: the mic button's tooltip).
    The ``openai`` engine's endpoint: ``stt_base_url``, else the chat one."""
    import os

    from desktop_agent.core.ports import STTError
    from desktop_agent.storage import secrets
    from desktop_agent.voice.stt import build_recognizer

    base_url = settings.stt_base_url or settings.base_url or os.environ.get("OPENAI_BASE_URL", "")
    # Only the openai engine sends the key: the others never load the keyring.
    # ``stored_key``: the services' cached read (the key is read once at start).
    stored = (stored_key or secrets.get_api_key)() if settings.stt_engine == "openai" else None
    api_key = stored or os.environ.get("OPENAI_API_KEY", "")
    try:
        dictation, answers = (
            build_recognizer(
                settings.stt_engine, base_url=base_url, api_key=api_key, model=settings.stt_model, answers=answers,
                model_base_url=settings.stt_model_base_url, model_dir=settings.stt_model_dir,
                model_source=settings.stt_model_source, whisper_model=settings.stt_whisper_model,
            )
            for answers in (False, True)
        )
    except STTError as exc:
        return None, None, str(exc)
    if dictation.name in ("sensevoice", "whisper"):
        answers = dictation  # one model in memory; it hears answers as well as anything
    return dictation, answers, None


def voice_preview(sink: AudioSink | None) -> Callable[[Settings, str], Awaitable[None]] | None:
    """Settings → Voice ▶: a sample with the page's engine, voice and rate,
    through the window's speaker; None without one."""
    if sink is None:
        return None
    speaker = sink

    async def preview(settings: Settings, text: str) -> None:
        from desktop_agent.ui.settings.voice_page import PreviewOff
        from desktop_agent.voice import make_engine

        engine = make_engine(settings.tts_engine, voice=settings.voice, rate=settings.tts_rate, volume=settings.tts_volume)
        if engine is None:
            raise PreviewOff()
        speech = await engine.synthesize(text)
        await speaker.play(speech.audio, speech.mime)

    return preview


def deferred_sink(services: Services, window: MainWindow) -> DeferredSink:
    """The window's speaker, made when the first clip plays (``make_sink``);
    when nothing would be heard, the window says so once, and the turn on
    screen stops holding its text for speech."""
    from desktop_agent.ui.voice.deferred_audio import DeferredSink

    def missing() -> None:
        window.notices.post(no_audio_output)  # the notice line, not a bubble in the conversation
        controller = window.controller
        if controller is not None:
            controller.push_audio(controller.settings.volume, controller.settings.muted)

    def back(device: str) -> None:
        # An output plugged in while there was none: replies are spoken again from the next one.
        window.notices.withdraw(no_audio_output)  # its condition ended: a dismissal of it is forgotten too
        window.status.showMessage(window.texts.tr("audio_output_back", device=device), 10_000)
        controller = window.controller
        if controller is not None:
            controller.push_audio(controller.settings.volume, controller.settings.muted)

    from desktop_agent.ui.voice import audio_devices

    settings = services.settings
    return DeferredSink(
        lambda volume, muted: make_sink(services, volume=volume, muted=muted),
        volume=settings.volume, muted=settings.muted, on_missing=missing,
        devices=audio_devices.shared(), chosen=lambda: services.settings.audio_output_id, on_back=back,
    )


def make_sink(services: Services, *, volume: float | None = None, muted: bool | None = None) -> QtAudioSink | None:
    """The Qt speaker, or None when nothing could be heard: QtMultimedia is
    unusable here, or it lists no audio output device (a player there still
    plays in real time, silently, and would only hold the text back). The
    window then says so in one line (:func:`desktop_agent.app.window_deps`); why is logged. A
    device plugged in later is used from the next clip (``DeferredSink``);
    the one the settings name, at every clip."""
    import logging

    log = logging.getLogger(__name__)
    try:
        from desktop_agent.ui.voice import audio_devices
        from desktop_agent.ui.voice.audio_sink import QtAudioSink

        devices = audio_devices.shared()
        if not devices.outputs():
            log.warning("no audio output (QtMultimedia lists none); replies will be shown, not spoken")
            return None

        def device() -> QAudioDevice | None:
            chosen = devices.output(services.settings.audio_output_id)
            return devices.qt_device(chosen, output=True) if chosen is not None else None

        settings = services.settings
        return QtAudioSink(
            volume=settings.volume if volume is None else volume, muted=settings.muted if muted is None else muted,
            device=device,
        )
    except Exception:  # no QtMultimedia backend: text still shows
        log.exception("no audio output; replies will be shown, not spoken")
        return None


def no_audio_output(texts: Texts) -> str:
    """No speaker to say replies on, in the window's language."""
    return texts.tr("no_audio_output")


__all__ = ["deferred_sink", "make_sink", "no_audio_output", "speech_recognizers", "voice_preview"]

"""The recognisers behind speech input and their models, for the window:
another engine chosen in Settings is used at once (no restart), a model's
download reports to the panel above the input and to Settings → Voice (one
``ModelDownloads`` state), a failed download never loses what was said (a
stand-in hears it, and the window says which), and the first push-to-talk
with no offline model offers Whisper and holds the utterance until the
answer (and the model) is here.

Split from :mod:`~desktop_agent.ui.voice.glue`, which connects the window
to the voice interaction itself. It needs of the window only what
:class:`ModelsWindow` names (the window is one), not the window itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject

from desktop_agent.core.ports import STTError
from desktop_agent.ui.chat.turn_events import NoticeLevel

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop_agent.core.ports import SpeechRecognizer
    from desktop_agent.storage.settings import Settings
    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.turn_logic import TurnLogic
    from desktop_agent.ui.chat.turn_view import TurnView
    from desktop_agent.ui.voice.feature import VoiceFeature
    from desktop_agent.ui.voice.model_download import ModelDownloadPanel
    from desktop_agent.ui.voice.speech_input import VoiceInput
    from desktop_agent.voice.stt.models import DownloadProgress
    from desktop_agent.voice.stt.models import ModelDownloadError as DownloadError


def _engine_settings(settings: Settings) -> tuple[str, ...]:
    """The settings that choose and configure the recognisers."""
    return (settings.stt_engine, settings.stt_base_url, settings.stt_model, settings.stt_model_base_url,
            settings.stt_model_dir, settings.base_url, settings.stt_model_source, settings.stt_whisper_model)


class ModelsWindow(Protocol):
    """What the recognisers' models need of the window."""

    @property
    def model_download(self) -> ModelDownloadPanel:
        """The panel above the input: a download's progress, failure or offer."""

    @property
    def controller(self) -> TurnLogic[TurnView] | None:
        """The turn logic (it keeps the settings); None before the window is attached."""

    def show_notice(self, level: NoticeLevel, text: str | Callable[[Texts], str]) -> None: ...

    def window(self) -> QWidget:
        """The top-level widget (the glue's Qt parent)."""


class VoiceModels(QObject):
    def __init__(self, window: ModelsWindow, voice: VoiceInput, feature: VoiceFeature, settings: Settings) -> None:
        super().__init__(window.window())
        self._window, self.voice = window, voice
        self._preparing: set[asyncio.Task[None]] = set()
        self._make_recognizers = feature.make_recognizers
        self._settings = settings
        self._engine = _engine_settings(settings)
        self._downloads = feature.model_downloads
        self._offer: asyncio.Future[bool] | None = None
        """The first download's offer, while it waits for the user's answer."""
        self._offered = False
        """The offer was made this session (it is not made twice)."""
        self._listen_to_downloads(feature.recognizer)
        window.model_download.cancel_requested.connect(self._cancel_download)
        window.model_download.retry_requested.connect(self._retry_download)
        window.model_download.source_requested.connect(self._try_source)
        window.model_download.offer_answered.connect(self._offer_answered)
        voice.heard_instead.connect(self._on_heard_instead)
        if self._downloads is not None:
            self._downloads.listen(self._on_download_state)
        voice.before_recognise = self._offer_gate
        self._set_stand_ins(feature.recognizer)

    def apply(self, settings: Settings) -> None:
        """Settings changed. Another recognition engine (or its endpoint,
        model, model folder) is used at once, no restart; a SenseVoice model
        not yet on disk starts downloading now, its progress shown, rather
        than at the first utterance."""
        self._settings = settings
        engine = _engine_settings(settings)
        if engine == self._engine or self._make_recognizers is None:
            return  # nothing to fetch again: a failure already said stays said once
        self._engine = engine
        self._use(settings)

    def _use(self, settings: Settings) -> None:
        """Build the recognisers the settings name and start fetching a
        model that is not here yet."""
        assert self._make_recognizers is not None
        recognizer, answers, reason = self._make_recognizers(settings)
        self._listen_to_downloads(recognizer)
        self._set_stand_ins(recognizer)
        self.voice.set_recognizers(recognizer, answers, reason)  # the mic button follows its state_changed
        prepare = getattr(recognizer, "prepare", None)
        if prepare is not None and not getattr(recognizer, "ready", True):
            task = asyncio.ensure_future(self._prepare(prepare))
            self._preparing.add(task)
            task.add_done_callback(self._preparing.discard)

    def _listen_to_downloads(self, recognizer: object) -> None:
        """A recogniser that downloads its model reports to the window's
        panel (progress; why it failed, with Retry and another source) and
        to the window's downloads, which Settings → Voice shows too."""
        if recognizer is None or not hasattr(recognizer, "on_progress"):
            return
        spec = getattr(recognizer, "spec", None)
        key = spec.key if spec is not None else ""
        downloads = self._downloads

        def progress(report: DownloadProgress) -> None:
            self._window.model_download.post(report)
            if downloads is not None and key:
                downloads.progress(report, key)

        def failed(error: DownloadError) -> None:
            self._window.model_download.failed_download(error, kept=self.voice.state == "recognising")
            if downloads is not None and key:
                downloads.failed(error, key)

        fetching: Any = recognizer  # a ModelFetch (Whisper, SenseVoice): these callbacks are its own
        fetching.on_progress = progress
        if hasattr(fetching, "on_download_error"):
            fetching.on_failure = None  # said once, by failed(), with what can be done
            fetching.on_download_error = failed
        elif hasattr(fetching, "on_failure"):
            fetching.on_failure = self._window.model_download.failed

    def _set_stand_ins(self, recognizer: SpeechRecognizer | None) -> None:
        """pocketsphinx (its model is in its wheel) hears an utterance whose
        chosen engine's model cannot be downloaded."""
        from desktop_agent.voice.stt.sphinx import PocketsphinxRecognizer

        stand_ins: list[SpeechRecognizer] = []
        if recognizer is not None and recognizer.name != "pocketsphinx":
            stand_ins.append(PocketsphinxRecognizer("dictation"))
        self.voice.stand_ins = stand_ins

    def _retry_download(self) -> None:
        """The panel's Retry: fetch the model again from the same source."""
        recognizer = self.voice.recognizer
        prepare = getattr(recognizer, "prepare", None)
        if prepare is not None:
            task = asyncio.ensure_future(self._prepare(prepare))
            self._preparing.add(task)
            task.add_done_callback(self._preparing.discard)

    def _try_source(self, source: str) -> None:
        """The panel's "Try ModelScope": that source from now on (saved, as
        if chosen in Settings), and the model fetched from it."""
        controller = self._window.controller
        if controller is None:
            return
        from dataclasses import replace

        settings = replace(controller.settings, stt_model_source=source)
        controller.save_settings(settings)
        self.apply(settings)
        if self.voice.recognizer is not None and not getattr(self.voice.recognizer, "ready", True):
            return  # apply() started the download from the new source
        self._retry_download()

    def _on_download_state(self, state: object) -> None:
        """A model arrived (from Settings → Voice, the offer, a retry): an
        engine that waited for it, or ``auto``, uses it from now on."""
        if getattr(state, "phase", "") != "done" or self._make_recognizers is None:
            return
        if self._settings.stt_engine == "auto" or not getattr(self.voice.recognizer, "ready", True):
            self._use(self._settings)

    def _on_heard_instead(self, engine: str, failure: object) -> None:
        wanted = str(getattr(failure, "fields", {}).get("model", "")) or self._settings.stt_engine
        self._window.show_notice(NoticeLevel.SYSTEM, lambda texts: texts.tr("mic_heard_instead", engine=engine, wanted=wanted))

    # ------------------------------------------------------------ the first download's offer

    def offer_needed(self) -> bool:
        """Speech input is about to start with no offline model for Chinese
        and English on this computer (``auto`` fell back to pocketsphinx),
        and the user was not asked yet this session."""
        if self._offered or self._downloads is None or self._settings.stt_engine != "auto":
            return False
        recognizer = self.voice.recognizer
        return recognizer is not None and recognizer.name == "pocketsphinx"

    def offer_if_needed(self) -> None:
        if self.offer_needed():
            self.offer_download()

    def offer_download(self) -> None:
        """Ask once (the panel above the input): the model, its size, its source."""
        from desktop_agent.voice.stt.whisper_models import WHISPER_MODELS

        self._offered = True
        spec = WHISPER_MODELS.get(self._settings.stt_whisper_model) or WHISPER_MODELS["base"]
        self._offer = asyncio.get_running_loop().create_future()
        self._window.model_download.offer(spec.label, spec.total_size, self._settings.stt_model_source)

    async def _offer_gate(self) -> None:
        """An utterance heard while the offer is open waits for its answer;
        Download then fetches the model (the panel shows how far) and the
        utterance is heard by it."""
        offer = self._offer
        if offer is None:
            return
        accepted = await offer
        self._offer = None
        if not accepted:
            return
        await self._fetch_offered()

    def _offer_answered(self, accepted: bool) -> None:
        offer = self._offer
        if offer is not None and not offer.done():
            offer.set_result(accepted)
        elif accepted:  # answered after the utterance went on without it
            task = asyncio.ensure_future(self._fetch_offered())
            self._preparing.add(task)
            task.add_done_callback(self._preparing.discard)

    async def _fetch_offered(self) -> None:
        """Download the offered Whisper model, then use it (``auto`` now finds it)."""
        from desktop_agent.voice.stt.sources import pick_source
        from desktop_agent.voice.stt.whisper_models import WHISPER_MODELS

        downloads, settings = self._downloads, self._settings
        assert downloads is not None
        spec = WHISPER_MODELS.get(settings.stt_whisper_model) or WHISPER_MODELS["base"]
        try:
            source = pick_source(settings.stt_model_source, settings.stt_model_base_url)
        except STTError as exc:
            self._window.show_notice(NoticeLevel.WARNING, _stt_error(str(exc)))
            return
        stop = downloads.listen(lambda state: self._window.model_download.post(state.progress)
                                if state.key == spec.key and state.progress is not None else None)
        from desktop_agent.voice.stt.models import ModelDownloadError

        try:
            await downloads.start(spec, source.base_url(spec))
        except ModelDownloadError as error:
            self._window.model_download.failed_download(error, kept=self.voice.state == "recognising")
            return
        finally:
            stop()
        self._window.model_download.finished()  # _on_download_state has switched to the model

    def _cancel_download(self) -> None:
        """The panel's Cancel: stop the download, whether Settings started it
        or an utterance waits for it (what was heard is dropped)."""
        for task in list(self._preparing):
            task.cancel()
        if self.voice.state == "recognising":
            self.voice.cancel()

    async def _prepare(self, prepare: Callable[[], Awaitable[None]]) -> None:
        try:
            await prepare()
        except STTError as exc:
            if self._window.model_download.state != "failed":  # a download failure is on the panel already
                self._window.show_notice(NoticeLevel.WARNING, _stt_error(str(exc)))


def _stt_error(error: str) -> Callable[[Texts], str]:
    """A recogniser's failure, worded in the window's language (again after a switch)."""
    return lambda texts: texts.tr("mic_stt_error", error=error)

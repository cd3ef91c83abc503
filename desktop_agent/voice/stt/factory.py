"""build_recognizer: an engine name (setting ``stt_engine`` or ``--stt``) to
a :class:`~desktop_agent.core.ports.SpeechRecognizer`.

``auto`` (the default) is Whisper when a Whisper model is here (downloaded
into the data folder, or the model folder set is one), else SenseVoice when
its model is here, else pocketsphinx: offline English that needs no
download. Deciding costs a few ``stat`` calls (:func:`resolve_engine`),
nothing is loaded. ``openai`` uses the chat endpoint's base URL and key
unless the settings give speech recognition its own base URL. ``whisper``
and ``sensevoice`` download their model the first time it is needed, from
the source picked (``model_source``: Hugging Face, ModelScope, or the
custom address ``model_base_url``), with progress told to ``on_progress``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from desktop_agent.core.ports import SpeechRecognizer, STTError
from desktop_agent.voice.stt.models import SENSEVOICE, DownloadProgress, ModelStore, default_store
from desktop_agent.voice.stt.sources import pick_source
from desktop_agent.voice.stt.sphinx import PocketsphinxRecognizer
from desktop_agent.voice.stt.whisper_models import WHISPER_MODELS, folder_problem, present_model

STT_ENGINE_NAMES = ("auto", "whisper", "sensevoice", "pocketsphinx", "openai")


def resolve_engine(
    name: str, *, whisper_model: str = "", model_dir: str = "", model_store: ModelStore | None = None
) -> str:
    """The engine ``name`` stands for: itself, or for ``auto`` the best
    offline engine whose model is here (``whisper_model``: a Whisper name or
    folder, as :func:`build_recognizer` takes it)."""
    return _auto(whisper_model, model_dir, model_store)[0] if name == "auto" else name


def _auto(whisper_model: str, model_dir: str, store: ModelStore | None) -> tuple[str, str]:
    """``auto``'s engine, and the Whisper model it uses (a name already
    downloaded, when the one asked for is not)."""
    store = store if store is not None else default_store()
    folder = _folder(whisper_model) or (Path(model_dir).expanduser() if model_dir else None)
    if folder is not None:
        if folder_problem(folder) is None:
            return "whisper", whisper_model
        if _is_sensevoice_folder(folder):
            return "sensevoice", whisper_model
    present = present_model(store, whisper_model or "base")
    if present is not None:
        return "whisper", next(name for name, spec in WHISPER_MODELS.items() if spec == present)
    if store.ready(SENSEVOICE):
        return "sensevoice", whisper_model
    return "pocketsphinx", whisper_model


def build_recognizer(
    name: str,
    *,
    base_url: str = "",
    api_key: str = "",
    model: str = "",
    answers: bool = False,
    model_base_url: str = "",
    model_source: str = "",
    model_store: ModelStore | None = None,
    model_dir: str = "",
    whisper_model: str = "",
    on_progress: Callable[[DownloadProgress], None] | None = None,
) -> SpeechRecognizer:
    """``answers``: the recognizer hears approval answers (yes/no). For
    pocketsphinx that is its grammar mode; the others hear them as well as
    anything. ``base_url``/``api_key``: already resolved (own setting
    first, then the chat endpoint's); ``model``: the endpoint's model.
    ``whisper_model``: ``base`` (default), ``small`` or a model folder;
    ``model_dir``: a model folder for Whisper (used instead of a model
    name) or SenseVoice. ``model_source``: ``huggingface``, ``modelscope``
    or ``custom`` (``model_base_url``); empty: the custom address when one
    is given, else Hugging Face. Raises :class:`STTError` in one line."""
    if name == "auto":
        name, whisper_model = _auto(whisper_model, model_dir, model_store)
    if name == "pocketsphinx":
        return PocketsphinxRecognizer("answer" if answers else "dictation")
    if name == "openai":
        if not base_url:
            raise STTError(
                "speech recognition 'openai' needs an endpoint: set a base URL (--base-url or Settings)"
            )
        # Here, not at the top: only this engine needs the openai SDK (~50 MiB).
        from desktop_agent.voice.stt.openai_stt import DEFAULT_STT_MODEL, OpenAIRecognizer

        return OpenAIRecognizer(base_url, api_key=api_key, model=model or DEFAULT_STT_MODEL)
    if name == "whisper":
        source = pick_source(model_source, model_base_url)
        folder = _folder(whisper_model) or (Path(model_dir).expanduser() if model_dir else None)
        if folder is None and whisper_model and whisper_model not in WHISPER_MODELS:
            raise STTError(f"the Whisper model must be {', '.join(WHISPER_MODELS)} or a model folder, "
                           f"got {whisper_model!r}")
        spec = WHISPER_MODELS.get(whisper_model, WHISPER_MODELS["base"])
        # Imported here: an idle window on pocketsphinx loads neither engine's module.
        from desktop_agent.voice.stt.whisper import WhisperRecognizer

        return WhisperRecognizer(model_store, spec, source=source, model_dir=folder, on_progress=on_progress)
    if name == "sensevoice":
        from desktop_agent.voice.stt.sensevoice import SenseVoiceRecognizer

        source = pick_source(model_source, model_base_url)
        return SenseVoiceRecognizer(model_store, source=source, on_progress=on_progress,
                                    model_dir=Path(model_dir).expanduser() if model_dir else None)
    raise STTError(f"speech recognition engine must be one of {', '.join(STT_ENGINE_NAMES)}, got {name!r}")


def _is_sensevoice_folder(folder: Path) -> bool:
    from desktop_agent.voice.stt.sensevoice import model_file

    return model_file(folder) is not None


def _folder(whisper_model: str) -> Path | None:
    """``whisper_model`` as a folder: a path (with a separator, or one that
    exists: ``./base`` is a folder, ``base`` the model), else None."""
    if not whisper_model or whisper_model in WHISPER_MODELS:
        return None
    path = Path(whisper_model).expanduser()
    looks_like_path = any(sep in whisper_model for sep in ("/", os.sep)) or whisper_model.startswith("~")
    return path if looks_like_path or path.exists() else None

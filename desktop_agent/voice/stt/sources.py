"""Where a speech model is downloaded from: the source the user picks in
Settings → Voice (setting ``stt_model_source``).

Hugging Face is the models' home; ModelScope serves the same files to
mainland China, where Hugging Face is often out of reach; a custom base URL
names any other mirror (hf-mirror.com, a file server on the local network).
Whatever the source, the files are checked against the sizes and SHA-256
sums the :class:`~desktop_agent.voice.stt.model_spec.ModelSpec` pins, so a
mirror that serves something else fails with "checksum mismatch" instead of
installing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast, get_args
from urllib.parse import urlsplit

from desktop_agent.core.ports import STTError
from desktop_agent.voice.stt.model_spec import ModelSpec

SourceName = Literal["huggingface", "modelscope", "custom"]
SOURCE_NAMES: tuple[str, ...] = get_args(SourceName)
SOURCE_LABELS: dict[str, str] = {
    "huggingface": "Hugging Face",
    "modelscope": "ModelScope",
    "custom": "the custom address",
}
"""How the English lines name each source (the window has its own words:
``model_source_<name>`` in ``desktop_agent/texts``)."""


@dataclass(frozen=True)
class ModelSource:
    """One download source. ``custom_url`` is the base URL of ``custom``
    (a file's URL is ``<custom_url>/<file name>``)."""

    name: SourceName = "huggingface"
    custom_url: str = ""

    @property
    def label(self) -> str:
        return SOURCE_LABELS[self.name]

    def base_url(self, spec: ModelSpec) -> str:
        """The spec's folder on this source ("" when this source does not
        hold the model)."""
        if self.name == "custom":
            return self.custom_url
        return spec.source_url(self.name)


def pick_source(name: str = "", custom_url: str = "") -> ModelSource:
    """The source a setting or a caller names. ``name`` empty: the custom
    address when one is given (a mirror, as the setting
    ``stt_model_base_url`` meant before sources could be picked), else
    Hugging Face. Raises :class:`STTError` in one line for an unknown name or
    a custom address that is missing or not http(s)."""
    custom_url = custom_url.strip()
    if not name:
        name = "custom" if custom_url else "huggingface"
    if name not in SOURCE_NAMES:
        raise STTError(f"the speech model's download source must be one of {', '.join(SOURCE_NAMES)}, got {name!r}")
    if name == "custom":
        if not custom_url:
            raise STTError("the speech model's download source is 'custom', but no download address is set")
        if not custom_url.startswith(("http://", "https://")) or not urlsplit(custom_url).netloc:
            raise STTError(
                f"the speech model's download address must start with http:// or https://, got {custom_url!r}"
            )
    return ModelSource(cast(SourceName, name), custom_url if name == "custom" else "")

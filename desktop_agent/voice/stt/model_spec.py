"""What a downloadable speech model is made of: its files with their exact
sizes and SHA-256 sums, and where each download source holds them.

A module of its own, below ``models.py`` (the store and the download) and
``sources.py`` (which source to fetch from), which both need it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelFile:
    name: str
    size: int
    """Bytes, exactly."""
    sha256: str
    """Lower-case hex."""


@dataclass(frozen=True)
class ModelSpec:
    key: str
    """The model's folder name under the store."""
    label: str
    """What a person is told is downloading."""
    base_url: str
    """On Hugging Face: a file's URL is ``<base_url>/<name>``; pin a
    revision, so the checksums hold."""
    files: tuple[ModelFile, ...]
    mirrors: tuple[tuple[str, str], ...] = ()
    """Other sources' base URLs by source name (``modelscope``)."""

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.files)

    def source_url(self, source: str) -> str:
        """The base URL on a named source; "" where it does not hold the model."""
        return self.base_url if source == "huggingface" else dict(self.mirrors).get(source, "")

    def url(self, file: ModelFile, base_url: str = "") -> str:
        return f"{(base_url or self.base_url).rstrip('/')}/{file.name}"

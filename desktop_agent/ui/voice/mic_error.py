"""Why the microphone could not open, as a UI text rather than a finished line: the
window that shows it words it in its own language (the message is the English line,
for the log)."""

from __future__ import annotations

from desktop_agent.texts import Texts, text_in


class MicError(OSError):
    """``key`` and ``fields`` name the UI text; ``str()`` is the English line."""

    def __init__(self, key: str, **fields: str) -> None:
        super().__init__(text_in("en", key, **fields))
        self.key = key
        self.fields = fields

    def worded(self, texts: Texts) -> str:
        return texts.tr(self.key, **self.fields)


__all__ = ["MicError"]

"""An operating-system error in the window's language (no English
"Permission denied" inside a Chinese line): the usual ones are UI texts,
any other is said as the OS says it."""

from __future__ import annotations

import errno as errno_codes
from collections.abc import Mapping

from desktop_agent.texts import Texts

_OS_ERRORS: dict[int, str] = {
    errno_codes.EACCES: "mcp_os_denied",
    errno_codes.EPERM: "mcp_os_denied",
    errno_codes.EISDIR: "mcp_os_folder",
    errno_codes.ENOENT: "mcp_os_missing",
    errno_codes.ENOSPC: "mcp_os_full",
    errno_codes.EROFS: "mcp_os_read_only",
    errno_codes.ENOTDIR: "mcp_os_not_folder",
}


def os_reason(texts: Texts, code: object, fallback: str) -> str:
    """An OS error number in words: the usual ones translated, others ``fallback``."""
    key = _OS_ERRORS.get(code) if isinstance(code, int) else None
    return texts.tr(key) if key else fallback


def with_os_reason(texts: Texts, fields: Mapping[str, object]) -> dict[str, object]:
    """A notice's fields with its ``error`` in the UI language, where an
    ``errno`` beside it says which OS error it was (the engines keep both);
    in English the OS's own words stay, as the log says them."""
    out = dict(fields)
    if "errno" in out and texts.language != "en":
        out["error"] = os_reason(texts, out["errno"], str(out.get("error", "")))
    return out


def os_error_text(texts: Texts, exc: OSError) -> str:
    """Why ``exc`` happened, in words (no ``[Errno 13]``, no path: the line names the file)."""
    return os_reason(texts, exc.errno, exc.strerror or str(exc))


__all__ = ["os_error_text", "os_reason", "with_os_reason"]

"""Why a model download failed, in one line a person can act on, and in
fields a window can word in its own language.

The connection's own text is no help to a user: ``[Errno -2] Name or
service not known`` means "no network" (or a mistyped mirror), ``All
connection attempts failed`` means the address refused. So the cause is
looked for along the exception chain (the resolver's ``gaierror``, a refused
or unreachable socket, a timeout) and said plainly, naming the source and
the host. Every line has a :attr:`ModelDownloadError.key` whose English in
``desktop_agent/texts`` is the same pattern (``model_error_<kind>``), its fields in
:attr:`ModelDownloadError.fields`; ``{source}`` there is the source's own UI
text (``model_source_<name>``).
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Mapping
from typing import Literal

import httpx2

from desktop_agent.core.ports import STTError
from desktop_agent.voice.stt.sources import SOURCE_LABELS

FailureKind = Literal[
    "no_network",  # the host's name could not be resolved
    "refused",  # nothing listens there
    "unreachable",  # another connection failure (the OS's reason in ``detail``)
    "timeout",
    "broken",  # the connection ended part-way
    "http",  # an HTTP status other than 200
    "checksum",
    "size",
    "no_file",  # the source does not offer this model at all
    "folder",  # the model folder cannot be made or written
    "disk_space",
    "turned_off",  # DESKTOP_AGENT_NO_DOWNLOADS
]

_TEMPLATES: dict[str, str] = {
    "no_network": "could not download {model} from {source}: could not reach {host} "
    "(no network: the name could not be resolved)",
    "refused": "could not download {model} from {source}: could not reach {host} (the connection was refused)",
    "unreachable": "could not download {model} from {source}: could not reach {host} ({detail})",
    "timeout": "could not download {model} from {source}: {host} did not answer in time",
    "broken": "could not download {model} from {source}: the connection to {host} broke after {done} of "
    "{total} bytes of {file} ({detail})",
    "http": "could not download {model} from {source}: {file}: HTTP {status} from {url}",
    "checksum": "could not download {model} from {source}: {file}: checksum mismatch "
    "(the download from {url} is damaged or not this model)",
    "size": "could not download {model} from {source}: {file}: size mismatch, {url} gives {got} bytes "
    "where {expected} are expected",
    "no_file": "could not download {model} from {source}: the model is not offered there",
    "folder": "could not download {model}: cannot write {path}: {detail}",
    "disk_space": "could not download {model}: not enough disk space in {path}: it needs {needed} MB, "
    "{free} MB are free",
    "turned_off": "could not download {model}: downloads are turned off ({variable}): not fetching {url}",
}
"""The English lines, the same as ``model_error_<kind>`` in ``desktop_agent/texts``."""


class ModelDownloadError(STTError):
    """A model could not be downloaded. ``str()``: one English line naming
    the model, the source and the reason (nothing half-written is left
    behind). ``kind``, ``source``, ``host`` and :attr:`fields` let a window
    say it its own way, and offer another source or a retry."""

    def __init__(self, kind: FailureKind, *, source: str = "", host: str = "", **fields: object) -> None:
        self.kind: FailureKind = kind
        self.source = source
        """``huggingface``, ``modelscope`` or ``custom`` ("" for a failure
        on this machine: the folder, the disk)."""
        self.host = host
        """The host reached for (``huggingface.co``, ``127.0.0.1:8000``)."""
        self.fields: Mapping[str, object] = {"host": host, **fields}
        """What ``model_error_<kind>`` quotes, except ``source``."""
        super().__init__(_TEMPLATES[kind].format(source=SOURCE_LABELS.get(source, source), **self.fields))

    @property
    def key(self) -> str:
        """The UI text that says this (``tr(key, source=…, **fields)``)."""
        return f"model_error_{self.kind}"


def connection_failure(exc: httpx2.HTTPError) -> tuple[FailureKind, str]:
    """The kind of a failed connection and, for ``unreachable``/``broken``,
    a short reason, from the chain of causes (``ConnectError`` wraps the
    resolver's or the socket's own error)."""
    if isinstance(exc, httpx2.TimeoutException):
        return "timeout", ""
    for cause in _chain(exc):
        if isinstance(cause, socket.gaierror):
            return "no_network", ""
        if isinstance(cause, ConnectionRefusedError):
            return "refused", ""
        if isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "unreachable", "the network is unreachable"
    if isinstance(exc, httpx2.RemoteProtocolError) and "peer closed" in str(exc):
        return "broken", "the server closed the connection"  # its own text repeats the byte counts
    text = " ".join(str(exc).split())
    return "unreachable", text or type(exc).__name__


def os_reason(exc: OSError) -> str:
    """An OS error's reason without its ``[Errno N]``."""
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    return exc.strerror or " ".join(str(exc).split()) or type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in seen and len(seen) < 16:
        seen.append(cause)
        cause = cause.__cause__ or cause.__context__
    return seen

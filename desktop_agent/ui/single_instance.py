"""One window per data folder, as desktop apps do: a second launch brings the
first window forward and hands it its arguments, then exits.

Two windows on one folder both reopened the latest conversation and each
saved over the other's turns. Who is first is decided by an advisory lock
(``flock``) on the data folder itself — a folder can be locked even when it
is read-only, and the lock goes with the process however it ends, so a
crashed window never leaves a stale claim. The first window then listens on
a local socket (:class:`QLocalServer`) named after the folder; a later
launch that cannot take the lock connects there and sends its command line
as one JSON line, and the first answers ``ok`` once it has taken it.

Signals of :class:`InstanceServer`: ``arguments(list)`` — a later launch's
command line (its ``argv`` after the program name).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

_MESSAGE_MAX = 1 << 20
"""A command line longer than this is not a command line."""


def server_name(folder: Path) -> str:
    """The local socket's name for ``folder`` (per user: two users may use
    one shared folder name without meeting)."""
    digest = hashlib.sha256(str(folder.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    user = os.getuid() if hasattr(os, "getuid") else 0
    return f"desktop-agent-{user}-{digest}"


class FolderClaim:
    """This process's claim on a data folder (an ``flock`` held on it)."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None


def claim(folder: Path) -> FolderClaim | None:
    """The folder for this process, or None when another process holds it.
    Where no lock can be taken (no such folder, no ``flock`` here) the claim
    is granted: a second window is then possible, never a refused start."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; the socket alone decides there
        return FolderClaim(None)
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        log.info("cannot open %s to claim it (%s); not checking for another window", folder, exc.strerror)
        return FolderClaim(None)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
        log.info("cannot lock %s (%s); not checking for another window", folder, exc.strerror)
        return FolderClaim(None)
    return FolderClaim(fd)


class InstanceServer(QObject):
    """The first window's end: takes later launches' command lines."""

    arguments = Signal(list)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        QLocalServer.removeServer(name)  # a crashed window's socket file (we hold the claim)
        if not self._server.listen(name):
            log.warning("cannot listen for other launches on %s: %s", name, self._server.errorString())
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    @property
    def listening(self) -> bool:
        return self._server.isListening()

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while (socket := self._server.nextPendingConnection()) is not None:
            self._buffers[socket] = b""
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(lambda s=socket: self._forget(s))
            self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        data = self._buffers.get(socket, b"") + bytes(socket.readAll().data())
        if len(data) > _MESSAGE_MAX:
            socket.abort()
            return
        if b"\n" not in data:
            self._buffers[socket] = data
            return
        line = data.split(b"\n", 1)[0]
        self._buffers[socket] = b""
        try:
            argv = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            argv = None
        if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
            socket.write(b"ok\n")
            socket.flush()
            self.arguments.emit(argv)
        else:
            socket.write(b"bad\n")
            socket.flush()
        socket.disconnectFromServer()

    def _forget(self, socket: QLocalSocket) -> None:
        self._buffers.pop(socket, None)
        socket.deleteLater()


def forward(name: str, argv: list[str], timeout_s: float = 10.0) -> bool:
    """Hand ``argv`` to the first window; True once it said it took them.
    Retries the connection meanwhile: the first window may be starting and
    not listening yet. Blocking (no event loop runs in a launch that only
    forwards)."""
    deadline = time.monotonic() + timeout_s
    payload = json.dumps(argv, ensure_ascii=False).encode("utf-8") + b"\n"
    while time.monotonic() < deadline:
        socket = QLocalSocket()
        socket.connectToServer(name)
        if socket.waitForConnected(500):
            socket.write(payload)
            socket.waitForBytesWritten(2000)
            answer = b""
            while b"\n" not in answer and time.monotonic() < deadline:
                if not socket.waitForReadyRead(500):
                    if socket.state() != QLocalSocket.LocalSocketState.ConnectedState:
                        break
                    continue
                answer += bytes(socket.readAll().data())
            socket.abort()
            if answer.startswith(b"ok"):
                return True
        time.sleep(0.1)
    return False


__all__ = ["FolderClaim", "InstanceServer", "claim", "forward", "server_name"]

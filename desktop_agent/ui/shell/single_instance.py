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
import socket
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QObject, QSocketNotifier, Signal

log = logging.getLogger(__name__)

_MESSAGE_MAX = 1 << 20
"""A command line longer than this is not a command line."""


def socket_path(folder: Path) -> Path:
    """Where the first window listens for ``folder``: the user's runtime
    folder (``XDG_RUNTIME_DIR``, else the temp folder), a name made from the
    folder's real path and the user, short enough for a Unix socket."""
    digest = hashlib.sha256(str(folder.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    user = os.getuid() if hasattr(os, "getuid") else 0
    runtime = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return Path(runtime) / f"desktop-agent-{user}-{digest}.sock"


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
    """The first window's end: takes later launches' command lines on a
    Unix socket, watched by :class:`QSocketNotifier` (QtCore: QtNetwork's
    ``QLocalServer`` would load ~3 MiB more at idle for one small message)."""

    arguments = Signal(list)

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self._server: socket.socket | None = None
        self._notifier: QSocketNotifier | None = None
        if not hasattr(socket, "AF_UNIX"):
            return
        try:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # a crashed window's socket (we hold the claim, so it is not a live one)
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            old = os.umask(0o177)  # the socket file 0600 from the start: only this user may connect
            try:
                server.bind(str(path))
            finally:
                os.umask(old)
            server.listen(8)
            server.setblocking(False)
        except OSError as exc:
            log.warning("cannot listen for other launches on %s: %s", path, exc.strerror or exc)
            return
        self._server = server
        self._notifier = QSocketNotifier(server.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._accept)

    @property
    def listening(self) -> bool:
        return self._server is not None

    def close(self) -> None:
        if self._server is not None:
            assert self._notifier is not None
            self._notifier.setEnabled(False)
            self._server.close()
            self._server = None
            with contextlib.suppress(OSError):
                self.path.unlink()

    def _accept(self, *_signal: object) -> None:
        """Each waiting launch: its one line, read at once (it sends it as it
        connects; a client that dawdles gets :data:`_READ_WAIT_S`, then is
        dropped), answered, closed. One small message needs no per-client
        notifier."""
        assert self._server is not None
        while True:
            try:
                client, _address = self._server.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                log.info("a later launch could not be accepted: %s", exc)
                return
            with client:
                argv = _read_line(client)
                good = isinstance(argv, list) and all(isinstance(a, str) for a in argv)
                with contextlib.suppress(OSError):
                    client.sendall(b"ok\n" if good else b"bad\n")
            if good:
                assert isinstance(argv, list)
                self.arguments.emit(argv)


_READ_WAIT_S = 0.5


def _read_line(client: socket.socket) -> object:
    """The JSON line a launch sent, decoded; None when it is not one."""
    client.setblocking(True)
    client.settimeout(_READ_WAIT_S)
    data = b""
    try:
        while b"\n" not in data and len(data) <= _MESSAGE_MAX:
            chunk = client.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        return None
    try:
        return json.loads(data.split(b"\n", 1)[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def forward(path: Path, argv: list[str], timeout_s: float = 10.0) -> bool:
    """Hand ``argv`` to the first window; True once it said it took them.
    Retries the connection meanwhile: the first window may be starting and
    not listening yet. Blocking (a launch that only forwards has no loop)."""
    if not hasattr(socket, "AF_UNIX"):
        return False
    deadline = time.monotonic() + timeout_s
    payload = json.dumps(argv, ensure_ascii=False).encode("utf-8") + b"\n"
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                client.connect(str(path))
                client.sendall(payload)
                answer = b""
                while b"\n" not in answer:
                    chunk = client.recv(64)
                    if not chunk:
                        break
                    answer += chunk
            except OSError:
                answer = b""
        if answer.startswith(b"ok"):
            return True
        time.sleep(0.1)
    return False


__all__ = ["FolderClaim", "InstanceServer", "claim", "forward", "socket_path"]

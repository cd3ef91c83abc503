"""Real audio devices for tests: a private PulseAudio server with a virtual
speaker and a virtual microphone (no machine here has a sound card).

- :class:`PulseServer` runs ``pulseaudio`` in a folder of its own (its
  socket, runtime dir and home there; as root it runs in user mode with one
  warning), with no device until a test adds one. It and every tool started
  for it (``paplay``, ``parec``) share one process group, which a watchdog
  kills when the process that started them dies, so a killed test leaves
  none behind (``--pdeathsig`` does not survive pulseaudio dropping its
  capabilities).
- :class:`VirtualAudio` adds and removes devices on it: a speaker is a null
  sink (what the app plays is recorded from its monitor, :meth:`record_speaker`);
  a microphone is a null sink fed by ``paplay`` (:meth:`play_into_mic`)
  whose monitor is remapped into a real source, since QtMultimedia lists no
  monitor as a microphone. Loading and unloading these modules is hot-plug.

Qt connects to the sound server once per process, at the first device
query, and never again (``PULSE_SERVER`` must name the server before then);
and Qt 6.11 keeps listing a removed device (``ui/voice/pulse_watch.py``). So a
test that uses these devices runs in a process of its own: the
``real_audio`` mark (``tests/conftest.py``) runs the test again in a child
pytest with :data:`CHILD_ENV` set, where the ``pulse_audio`` fixture starts
the server; the parent only reports the child's outcome.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

CHILD_ENV = "DESKTOP_AGENT_REAL_AUDIO_CHILD"
"""Set in the child process that runs a ``real_audio`` test."""

SPEAKER = "virtual_speaker"
MICROPHONE = "virtual_mic"
RATE = 16000


class PulseError(RuntimeError):
    """The sound server could not be started or did not do what was asked."""


def installed() -> bool:
    return all(shutil.which(tool) for tool in ("pulseaudio", "pactl", "paplay", "parec"))


class PulseServer:
    """One private ``pulseaudio`` daemon; :attr:`address` is its ``PULSE_SERVER``."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="da-pulse-"))  # short: a socket path has 108 bytes
        self.address = f"unix:{self.folder / 'native'}"
        self._process: subprocess.Popen[bytes] | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None

    @property
    def group(self) -> int:
        """The process group of the server and the tools started for it."""
        if self._process is None:
            raise PulseError("the sound server is not running")
        return self._process.pid

    def start(self, timeout_s: float = 10.0) -> None:
        if not installed():
            raise PulseError("PulseAudio is not installed: run scripts/install-test-deps.sh")
        run = self.folder / "run"
        run.mkdir(mode=0o700)
        command = [
            "pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--realtime=no",
            "--high-priority=no", "--use-pid-file=no", "--log-level=error",
            f"--log-target=file:{self.folder / 'pulseaudio.log'}",
            "-L", f"module-native-protocol-unix auth-anonymous=1 socket={self.folder / 'native'}",
        ]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.folder),
               "XDG_RUNTIME_DIR": str(run), "XDG_CONFIG_HOME": str(self.folder / "config")}
        self._process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, process_group=0)  # tools join it: same session
        self._watchdog = subprocess.Popen(
            ["sh", "-c", f"while grep -qs '^State:[[:space:]]*[^ZX]' /proc/{os.getpid()}/status; do sleep 0.5; done; "
                         f"kill -KILL -{self.group}"],  # a dead parent may linger as a zombie: kill -0 is not enough
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process.poll() is not None:
                raise PulseError(f"pulseaudio exited ({self._process.returncode}): {self.log()}")
            done = subprocess.run(["pactl", "info"], env=self.client_env(), capture_output=True, timeout=5)
            if done.returncode == 0:
                return
            if time.monotonic() > deadline:
                raise PulseError(f"pulseaudio did not answer within {timeout_s:g} s: {self.log()}")
            time.sleep(0.05)

    def log(self) -> str:
        path = self.folder / "pulseaudio.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def client_env(self) -> dict[str, str]:
        """The environment a client (pactl, paplay, the app) needs to reach this server."""
        return {**os.environ, "PULSE_SERVER": self.address}

    def pactl(self, *args: str) -> str:
        done = subprocess.run(["pactl", *args], env=self.client_env(), capture_output=True, text=True, timeout=10)
        if done.returncode != 0:
            raise PulseError(f"pactl {' '.join(args)}: {done.stderr.strip() or done.returncode}")
        return done.stdout.strip()

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the server and every tool left
            process.wait(timeout=5)
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.kill()
            watchdog.wait(timeout=5)
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Recording:
    """What a speaker played, recorded from its monitor (16 kHz mono 16-bit)."""

    path: Path
    process: subprocess.Popen[bytes] | None = field(repr=False)

    def stop(self) -> bytes:
        """Stop recording; the PCM recorded."""
        process, self.process = self.process, None
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        return self.path.read_bytes()

    def pcm(self) -> bytes:
        return self.path.read_bytes()

    def save_wav(self, path: Path) -> Path:
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(self.pcm())
        return path


class VirtualAudio:
    """The devices of one test on a :class:`PulseServer`; :meth:`close`
    removes what is left of them (the ``pulse_audio`` fixture does). None:
    a stand-in in the process that only runs the test's child."""

    def __init__(self, server: PulseServer | None) -> None:
        self._server = server
        self._modules: dict[str, list[str]] = {}
        self._drivers: dict[str, subprocess.Popen[bytes]] = {}
        self._children: list[subprocess.Popen[bytes]] = []

    @property
    def server(self) -> PulseServer:
        if self._server is None:
            raise PulseError("real devices exist only in a real_audio test's own process")
        return self._server

    # ------------------------------------------------------------ devices

    def add_device(self, kind: Literal["input", "output"], name: str, description: str) -> str:
        """Plug in a microphone (``input``) or a speaker (``output``) named
        ``name`` (Qt's device id); returns the name. A microphone delivers
        sound (silence until something is played into it) from when this
        returns, like a real one: a null sink renders nothing for its first
        ~2 s, so one reader keeps it running from the start."""
        if name in self._modules:
            raise PulseError(f"a device named {name} is plugged in already")
        spec = ("format=s16le", f"rate={RATE}", "channels=1")
        if kind == "output":
            self._modules[name] = [self._load("module-null-sink", f"sink_name={name}", *spec,
                                              f"sink_properties={_described(description)}")]
            return name
        feed = self._load("module-null-sink", f"sink_name={name}_feed", *spec,
                          f"sink_properties={_described(description + ' (feed)')}")
        self._modules[name] = [feed]  # unloaded last: the source reads its monitor
        source = self._load("module-remap-source", f"master={name}_feed.monitor", f"source_name={name}", *spec,
                            f"source_properties={_described(description)}")
        self._modules[name].insert(0, source)
        self._drivers[name] = self._keep_running(name)
        return name

    def _keep_running(self, source: str, timeout_s: float = 10.0) -> subprocess.Popen[bytes]:
        """A reader that stays on ``source`` (as a sound card's clock would),
        returned once sound flows."""
        sink = Path(tempfile.mkstemp(prefix=f"{source}-", suffix=".pcm", dir=self.server.folder)[1])
        with sink.open("wb") as out:
            reader = subprocess.Popen(
                ["parec", f"--device={source}", "--format=s16le", f"--rate={RATE}", "--channels=1",
                 "--latency-msec=20", "--raw"],
                env=self.server.client_env(), stdout=out, stderr=subprocess.DEVNULL, process_group=self.server.group,
            )
        deadline = time.monotonic() + timeout_s
        while sink.stat().st_size == 0:
            if reader.poll() is not None or time.monotonic() > deadline:
                reader.kill()
                raise PulseError(f"the virtual microphone {source} delivers no sound")
            time.sleep(0.02)
        return reader

    def add_speaker(self, name: str = SPEAKER, description: str = "Virtual speaker") -> str:
        return self.add_device("output", name, description)

    def add_microphone(self, name: str = MICROPHONE, description: str = "Virtual microphone") -> str:
        return self.add_device("input", name, description)

    def remove_device(self, name: str) -> None:
        """Unplug it (what is recording from it or playing into it is cut off)."""
        for module in self._modules.pop(name):
            self.server.pactl("unload-module", module)
        driver = self._drivers.pop(name, None)
        if driver is not None:
            driver.kill()
            driver.wait(timeout=5)

    def set_default(self, name: str) -> None:
        """Make ``name`` the system's default of its kind."""
        kind = "sink" if any(name == n for n in self.outputs()) else "source"
        self.server.pactl(f"set-default-{kind}", name)

    def outputs(self) -> list[str]:
        return [line.split("\t")[1] for line in self.server.pactl("list", "short", "sinks").splitlines() if line]

    def inputs(self) -> list[str]:
        rows = (line.split("\t") for line in self.server.pactl("list", "short", "sources").splitlines() if line)
        return [row[1] for row in rows if not row[1].endswith(".monitor")]

    def _load(self, module: str, *args: str) -> str:
        return self.server.pactl("load-module", module, *args)

    # ---------------------------------------------------- sound in and out

    def start_playing(self, wav: Path, mic: str = MICROPHONE) -> subprocess.Popen[bytes]:
        """Start saying ``wav`` into the microphone ``mic`` (in real time)."""
        process = subprocess.Popen(["paplay", f"--device={mic}_feed", str(wav)], env=self.server.client_env(),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, process_group=self.server.group)
        self._children.append(process)
        return process

    async def play_into_mic(self, wav: Path, mic: str = MICROPHONE, timeout_s: float = 30.0) -> None:
        """Say ``wav`` into ``mic``; returns when it was all played. Awaits
        without blocking the loop (the app records meanwhile)."""
        process = self.start_playing(wav, mic)
        async with asyncio.timeout(timeout_s):
            while process.poll() is None:
                await asyncio.sleep(0.02)
        if process.returncode != 0:
            error = process.stderr.read().decode(errors="replace") if process.stderr else ""
            raise PulseError(f"paplay {wav.name} into {mic}: {error.strip() or process.returncode}")

    def record_speaker(self, speaker: str = SPEAKER) -> Recording:
        """Record what ``speaker`` plays from now until :meth:`Recording.stop`."""
        path = Path(tempfile.mkstemp(prefix="speaker-", suffix=".pcm", dir=self.server.folder)[1])
        with path.open("wb") as out:
            process = subprocess.Popen(
                ["parec", f"--device={speaker}.monitor", "--format=s16le", f"--rate={RATE}", "--channels=1",
                 "--latency-msec=20", "--raw"],
                env=self.server.client_env(), stdout=out, stderr=subprocess.DEVNULL, process_group=self.server.group,
            )
        self._children.append(process)
        return Recording(path, process)

    def close(self) -> None:
        for child in self._children:
            if child.poll() is None:
                child.kill()
            child.wait(timeout=5)
            if child.stderr is not None:
                child.stderr.close()
        self._children.clear()
        for name in list(self._modules):
            with contextlib.suppress(PulseError):
                self.remove_device(name)


def _described(description: str) -> str:
    """A device's properties as a module argument: spaces need both quotes."""
    clean = description.replace('"', "").replace("'", "")
    return f"""'device.description="{clean}"'"""


def run_in_child(nodeid: str, root: Path, timeout_s: float = 110.0) -> None:
    """Run one test in a pytest of its own (with :data:`CHILD_ENV`); a
    failure there fails here, with the child's report."""
    import pytest

    env = {**os.environ, CHILD_ENV: "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_CURRENT_TEST", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", nodeid]
    try:
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        pytest.fail(f"{nodeid} did not finish in its own process within {timeout_s:g} s\n{out[-6000:]}", pytrace=False)
    if done.returncode != 0:
        pytest.fail(f"{nodeid} failed in its own process:\n{(done.stdout + done.stderr)[-8000:]}", pytrace=False)


@contextlib.contextmanager
def private_server() -> Iterator[PulseServer]:
    server = PulseServer()
    try:
        server.start()
        yield server
    finally:
        server.close()

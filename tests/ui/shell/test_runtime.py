"""Helpers of the window's runtime (the rest runs in
tests/integration/test_window_app.py as a real process)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import Coroutine

import pytest

from desktop_agent.ui.shell.runtime import settle_memory, warm_imports


async def test_warm_imports_imports_and_skips_missing_optional_modules() -> None:
    sys.modules.pop("colorsys", None)
    await warm_imports("colorsys", "no_such_module_for_the_ui", optional=True)
    assert "colorsys" in sys.modules


async def test_a_missing_required_module_is_an_error() -> None:
    with pytest.raises(ModuleNotFoundError):
        await warm_imports("no_such_module_for_the_ui")


def test_settle_memory_freezes_what_survives() -> None:
    try:
        settle_memory()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


async def test_first_use_warms_once_from_whichever_signal_fires_first(
    qapp: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from PySide6.QtCore import QObject, Signal

    from desktop_agent.ui.shell import runtime
    from desktop_agent.ui.shell.runtime import warm_on_first_use

    class Uses(QObject):
        typed = Signal(str)
        sent = Signal()

    # The warm-up starts in the signal's own call (a direct connection), so
    # what started is known at once: no wait for something not to happen.
    started: list[tuple[str, ...]] = []

    def recording(*modules: str, optional: bool = False) -> Coroutine[object, object, None]:
        started.append(modules)
        return warm_imports(*modules, optional=optional)

    monkeypatch.setattr(runtime, "warm_imports", recording)
    uses = Uses()
    sys.modules.pop("colorsys", None)
    warm_on_first_use((uses.typed, uses.sent), "colorsys")
    assert started == []  # nothing is warmed before a use
    uses.sent.emit()
    assert started == [("colorsys",)]
    async with asyncio.timeout(5):
        while "colorsys" not in sys.modules:
            await asyncio.sleep(0.02)
    uses.typed.emit("x")  # disconnected after the first: not warmed again
    assert started == [("colorsys",)]


FIRST_REQUEST = """
import asyncio, json, subprocess, sys, tempfile
from pathlib import Path
from desktop_agent.ui.shell.runtime import OPENAI_IMPORTS, warm_imports
asyncio.run(warm_imports(*OPENAI_IMPORTS))  # as the window does at attach
from desktop_agent.llm.openai_provider import OpenAIProvider
script = Path(tempfile.mkdtemp()) / "replies.json"
script.write_text(json.dumps([{"text": "Hello there.", "chunk_size": 3}]))
server = subprocess.Popen([sys.executable, "-m", "desktop_agent.testing.scripted_server", "--script", str(script)],
                          stdout=subprocess.PIPE, text=True)
url = server.stdout.readline().strip().split(" ", 1)[1]
async def main():
    provider = OpenAIProvider(base_url=url, api_key="k", model="m")
    before = set(sys.modules)
    deltas = [d async for d in provider.stream([{"role": "user", "content": "hi"}])]
    await provider.aclose()
    print("NEW", json.dumps(sorted(set(sys.modules) - before)), len(deltas))
try:
    asyncio.run(main())
finally:
    server.terminate()
"""


def test_the_warmed_imports_are_all_a_first_request_to_a_real_endpoint_loads() -> None:
    """Whatever the first streamed reply imports on the loop freezes the
    window meanwhile: after ``OPENAI_IMPORTS`` (warmed in a worker thread
    at attach) it imports nothing more."""
    done = subprocess.run([sys.executable, "-c", FIRST_REQUEST], capture_output=True, text=True, timeout=120)
    line = next((x for x in done.stdout.splitlines() if x.startswith("NEW ")), None)
    assert done.returncode == 0 and line is not None, done.stderr[-2000:]
    new, deltas = line.removeprefix("NEW ").rsplit(" ", 1)
    assert int(deltas) > 0  # the reply streamed
    assert json.loads(new) == []

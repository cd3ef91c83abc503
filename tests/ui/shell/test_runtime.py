"""Helpers of the window's runtime (the rest runs in
tests/integration/test_window_app.py as a real process)."""

from __future__ import annotations

import gc
import sys

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


async def test_first_use_warms_once_from_whichever_signal_fires_first(qapp: object) -> None:
    import asyncio

    from PySide6.QtCore import QObject, Signal

    from desktop_agent.ui.shell.runtime import warm_on_first_use

    class Uses(QObject):
        typed = Signal(str)
        sent = Signal()

    uses = Uses()
    sys.modules.pop("colorsys", None)
    warm_on_first_use((uses.typed, uses.sent), "colorsys")
    await asyncio.sleep(0.05)
    assert "colorsys" not in sys.modules  # nothing is warmed before a use
    uses.sent.emit()
    for _ in range(100):
        if "colorsys" in sys.modules:
            break
        await asyncio.sleep(0.02)
    assert "colorsys" in sys.modules
    sys.modules.pop("colorsys")
    uses.typed.emit("x")  # disconnected after the first: not warmed again
    await asyncio.sleep(0.1)
    assert "colorsys" not in sys.modules

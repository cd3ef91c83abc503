"""Hooks in the window (contracts §9): persistent hook messages enter the
conversation's history but never the chat view, live or restored."""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop_agent.core.hooks import HOOK_KEY, Hook
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.scripted_server import text_reply
from desktop_agent.testing.window_rig import offline_deps, run_on_qasync, scripted_window
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.integration

HOOKS = (
    Hook("start", "turn_start", "user", True, "START-HOOK"),
    Hook("round", "before_tool_round", "system", True, "ROUND-HOOK"),
    Hook("end", "turn_end", "user", True, "END-HOOK"),
)


def test_persistent_hooks_are_kept_in_history_and_never_shown() -> None:
    async def main() -> None:
        async with scripted_window([text_reply("Looking.<need_tool>"), text_reply("Found it.")]) as rig:
            rig.conversation.agent.hooks = HOOKS
            assert await rig.turn("find it") == "completed"

            shown = " ".join(w.text() for w in rig.window.chat.items() if hasattr(w, "text"))
            assert "Looking." in shown and "Found it." in shown
            assert "HOOK" not in shown
            hooks = [m[HOOK_KEY] for m in history_json(rig.conversation.history) if HOOK_KEY in m]
            assert hooks == ["start", "round", "end"]
            sent = str(rig.server.requests)
            assert "START-HOOK" in sent and "ROUND-HOOK" in sent and "_hook" not in sent

            restored = MainWindow(tray=False)
            try:
                restored.attach(replace(offline_deps(), conversation=rig.conversation))
                again = " ".join(w.text() for w in restored.chat.items() if hasattr(w, "text"))
                assert "find it" in again and "HOOK" not in again
            finally:
                restored.close()

    run_on_qasync(main, timeout=60)

"""The window's language: ``tr`` follows ``set_language``."""

from __future__ import annotations

import pytest

from desktop_agent.ui import i18n


def test_the_system_messages_use_one_wording_for_an_interrupted_conversation() -> None:
    i18n.set_language("zh")
    try:
        assert [i18n.tr(k) for k in ("sys_interrupted", "sys_approval_timeout")] == [
            "已中断对话",
            "工具审批超时，已自动拒绝调用并中断对话",
        ]
        assert {i18n.INTERRUPTED_TEXT["user"], i18n.INTERRUPTED_TEXT["rejected"]} == {"sys_interrupted"}
    finally:
        i18n.set_language("en")


def test_unknown_keys_and_languages_are_named() -> None:
    with pytest.raises(KeyError, match="no UI text named 'nope'"):
        i18n.tr("nope")
    with pytest.raises(ValueError, match="'fr'"):
        i18n.set_language("fr")  # type: ignore[arg-type]

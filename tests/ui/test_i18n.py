"""English and Chinese UI text."""

from __future__ import annotations

import string

import pytest

from desktop_agent.ui import i18n


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_locale_names_pick_the_language() -> None:
    assert [i18n.language_for_locale(n) for n in ("zh_CN", "zh-Hant-TW", "zh", "en_US", "C", "ja_JP")] == [
        "zh",
        "zh",
        "zh",
        "en",
        "en",
        "en",
    ]


def test_the_environment_overrides_the_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKTOP_AGENT_LANG", "zh")
    assert i18n.choose_language("en_US") == "zh"
    monkeypatch.setenv("DESKTOP_AGENT_LANG", "klingon")
    assert i18n.choose_language("en_US") == "en"


def test_every_text_has_both_languages_with_the_same_fields() -> None:
    for key in i18n.keys():
        en, zh = i18n._TEXTS[key]
        assert en and zh, key
        assert fields(en) == fields(zh), key


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

"""The catalogues: both languages, one owner per key, every key the code asks for exists."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from desktop_agent import texts

PACKAGE = Path(texts.__file__).resolve().parent.parent


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_locale_names_pick_the_language() -> None:
    assert [texts.language_for_locale(n) for n in ("zh_CN", "zh-Hant-TW", "zh", "en_US", "C", "ja_JP")] == [
        "zh",
        "zh",
        "zh",
        "en",
        "en",
        "en",
    ]


def test_the_environment_overrides_the_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKTOP_AGENT_LANG", "zh")
    assert texts.choose_language("en_US") == "zh"
    monkeypatch.setenv("DESKTOP_AGENT_LANG", "klingon")
    assert texts.choose_language("en_US") == "en"


def test_every_text_has_both_languages_with_the_same_fields() -> None:
    for feature, table in texts.CATALOGUES.items():
        for key, (en, zh) in table.items():
            assert en and zh, (feature, key)
            assert fields(en) == fields(zh), (feature, key)


def test_the_catalogues_together_are_every_key() -> None:
    assert texts.keys() == frozenset().union(*(frozenset(t) for t in texts.CATALOGUES.values()))
    assert sum(len(t) for t in texts.CATALOGUES.values()) == len(texts.keys())


def test_a_key_in_two_catalogues_is_refused_naming_both() -> None:
    with pytest.raises(ValueError, match="'send' is defined in both the shell and the chat catalogue"):
        texts.merge({"shell": {"send": ("Send", "发送")}, "chat": {"send": ("Go", "走")}})


def test_a_text_is_looked_up_in_the_language_asked() -> None:
    assert texts.text_in("en", "earlier_hidden", count=3) != texts.text_in("zh", "earlier_hidden", count=3)
    assert "3" in texts.text_in("zh", "earlier_hidden", count=3)
    with pytest.raises(KeyError, match="no UI text named 'nope'"):
        texts.text_in("en", "nope")


def _literal_keys_asked_for() -> dict[str, str]:
    """Every ``tr("key")`` / ``text_in(lang, "key")`` with a literal key in the package."""
    asked: dict[str, str] = {}
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            position = {"tr": 0, "text_in": 1}.get(name)
            if position is None or len(node.args) <= position:
                continue
            arg = node.args[position]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                asked[arg.value] = f"{path.relative_to(PACKAGE)}:{node.lineno}"
    return asked


def test_every_key_the_code_asks_for_exists() -> None:
    asked = _literal_keys_asked_for()
    assert len(asked) > 200  # the scan sees the code
    missing = {key: where for key, where in asked.items() if key not in texts.keys()}
    assert missing == {}


def test_a_texts_value_speaks_its_own_language() -> None:
    english, chinese = texts.Texts("en"), texts.Texts("zh")
    assert (english.tr("sys_interrupted"), chinese.tr("sys_interrupted")) == ("Conversation interrupted", "已中断对话")
    assert english.tr("seconds", n=3) == texts.text_in("en", "seconds", n=3)
    assert (texts.ENGLISH, texts.CHINESE) == (english, chinese)


def test_a_texts_value_refuses_an_unknown_language_and_key() -> None:
    with pytest.raises(ValueError, match="'fr'"):
        texts.Texts("fr")  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="no UI text named 'nope'"):
        texts.ENGLISH.tr("nope")


def test_the_system_messages_use_one_wording_for_an_interrupted_conversation() -> None:
    assert [texts.CHINESE.tr(k) for k in ("sys_interrupted", "sys_approval_timeout")] == [
        "已中断对话",
        "工具审批超时，已自动拒绝调用并中断对话",
    ]
    assert {texts.INTERRUPTED_TEXT["user"], texts.INTERRUPTED_TEXT["rejected"]} == {"sys_interrupted"}

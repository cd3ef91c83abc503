"""PySide6's import hook reads a module's source without keeping it (ui/shell/source_scan.py)."""

from __future__ import annotations

import linecache
import sys
from pathlib import Path

import pytest

from desktop_agent.ui.shell import source_scan
from desktop_agent.ui.shell.source_scan import stop_source_cache, uses_pyside


def fresh_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return path


def test_a_module_naming_pyside6_uses_it_and_one_that_does_not_does_not() -> None:
    assert uses_pyside(source_scan)  # its source names PySide6
    assert not uses_pyside(linecache)
    assert not uses_pyside(sys)  # built in: no source, as PySide6 decides too


def test_a_module_imported_after_the_hook_is_swapped_leaves_no_source_in_linecache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert stop_source_cache()  # the installed PySide6 has the hook this replaces
    path = fresh_module(tmp_path, monkeypatch, "source_scan_probe", "import json\nVALUE = 1\n")
    module = __import__("source_scan_probe")
    assert module.VALUE == 1
    assert str(path) not in linecache.cache


def test_the_hook_still_tells_a_qt_module_from_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stop_source_cache()
    fresh_module(tmp_path, monkeypatch, "source_scan_qt_probe", "from PySide6.QtCore import QObject\n")
    fresh_module(tmp_path, monkeypatch, "source_scan_plain_probe", "VALUE = 2\n")
    feature = sys.modules["shibokensupport.feature"]
    __import__("source_scan_qt_probe")
    __import__("source_scan_plain_probe")
    assert feature.pyside_feature_dict["source_scan_qt_probe"] == 0  # "uses PySide": no feature selected
    assert feature.pyside_feature_dict["source_scan_plain_probe"] == -1  # "ignore this module"

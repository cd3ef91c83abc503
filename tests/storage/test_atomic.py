"""atomic_write_text: all or nothing, in place, with the mode asked for."""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

import pytest

from desktop_agent.storage.atomic import atomic_write_text


def test_writes_the_text_and_creates_the_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "file.json"

    atomic_write_text(path, '{"a": "北京"}\n')

    assert path.read_text(encoding="utf-8") == '{"a": "北京"}\n'
    assert os.listdir(path.parent) == ["file.json"]


def test_replaces_an_existing_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "file.txt"
    path.write_text("old contents, longer than the new ones")

    atomic_write_text(path, "new")

    assert path.read_text() == "new"
    assert os.listdir(tmp_path) == ["file.txt"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_mode_is_set_exactly_whatever_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    old_umask = os.umask(0o000)
    try:
        atomic_write_text(path, "{}", mode=0o600)
    finally:
        os.umask(old_umask)

    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_without_a_mode_the_file_gets_what_open_would_give(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    old_umask = os.umask(0o022)
    try:
        atomic_write_text(path, "{}")
    finally:
        os.umask(old_umask)

    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("old")

    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "half \ud800 written")  # a lone surrogate cannot be UTF-8

    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["settings.json"]


def test_a_failed_rename_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "target"
    path.mkdir()  # os.replace cannot put a file over a folder

    with pytest.raises(OSError):
        atomic_write_text(path, "text")

    assert os.listdir(tmp_path) == ["target"]
    assert path.is_dir()


@pytest.mark.parametrize("below", ["settings.json", "sub/settings.json"])
def test_a_file_where_a_folder_should_be_is_not_a_directory(tmp_path: Path, below: str) -> None:
    # The file as the parent itself: mkdir says "File exists", which would read
    # as if settings.json were in the way; deeper, the OS says ENOTDIR itself.
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    with pytest.raises(NotADirectoryError) as caught:
        atomic_write_text(blocker / below, "{}")
    assert caught.value.errno == errno.ENOTDIR and str(caught.value.filename).startswith(str(blocker))
    assert blocker.read_text() == "in the way"

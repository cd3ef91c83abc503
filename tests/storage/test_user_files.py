"""Reading files named inside the user's data: inside their folder, regular,
capped, and never blocking on a pipe."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from desktop_agent.storage.user_files import UserFileError, read_user_bytes, read_user_text, size_words


def test_a_file_inside_its_folder_is_read(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("hello ✓", encoding="utf-8")
    assert read_user_text(tmp_path / "a.md", limit=100, within=tmp_path) == "hello ✓"


def test_a_path_that_climbs_out_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    folder = tmp_path / "hooks"
    folder.mkdir()
    (tmp_path / "secrets.json").write_text('{"key": "sk-1"}')
    with pytest.raises(UserFileError) as caught:
        read_user_text(folder / "../secrets.json", limit=100, within=folder)
    assert caught.value.code == "outside"
    assert str(caught.value) == f"is outside {folder}"


def test_an_absolute_path_elsewhere_is_outside(tmp_path: Path) -> None:
    with pytest.raises(UserFileError) as caught:
        read_user_text(tmp_path / "/etc/passwd", limit=1 << 20, within=tmp_path)
    assert caught.value.code == "outside"


def test_a_symlink_is_followed_and_judged_by_where_it_leads(tmp_path: Path) -> None:
    folder = tmp_path / "hooks"
    folder.mkdir()
    (tmp_path / "secret.txt").write_text("sk-1")
    (folder / "inner.md").write_text("inside")
    (folder / "out.md").symlink_to(tmp_path / "secret.txt")
    (folder / "in.md").symlink_to(folder / "inner.md")
    assert read_user_text(folder / "in.md", limit=100, within=folder) == "inside"
    with pytest.raises(UserFileError) as caught:
        read_user_text(folder / "out.md", limit=100, within=folder)
    assert caught.value.code == "outside"


def test_a_named_pipe_is_refused_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "prompt.md"
    os.mkfifo(pipe)
    with pytest.raises(UserFileError) as caught:  # a blocking open would hang here forever
        read_user_text(pipe, limit=100, within=tmp_path)
    assert caught.value.code == "not_regular"
    assert str(caught.value) == "is not a regular file"


def test_a_folder_is_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    with pytest.raises(UserFileError) as caught:
        read_user_bytes(tmp_path / "sub", limit=100)
    assert caught.value.code in ("not_regular", "unreadable")


def test_a_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(b"x" * 65_537)
    (tmp_path / "exact").write_bytes(b"x" * 65_536)
    assert len(read_user_bytes(tmp_path / "exact", limit=65_536)) == 65_536
    with pytest.raises(UserFileError) as caught:
        read_user_bytes(tmp_path / "big", limit=65_536)
    assert caught.value.code == "too_large"
    assert str(caught.value) == "is larger than 64 KB"


def test_missing_and_not_utf8_are_said(tmp_path: Path) -> None:
    with pytest.raises(UserFileError) as missing:
        read_user_text(tmp_path / "nope", limit=10)
    assert (missing.value.code, str(missing.value)) == ("missing", "is missing")
    (tmp_path / "latin").write_bytes(b"caf\xe9")
    with pytest.raises(UserFileError) as latin:
        read_user_text(tmp_path / "latin", limit=10)
    assert latin.value.code == "not_utf8"


def test_sizes_are_said_in_round_units() -> None:
    assert size_words(64 * 1024) == "64 KB"
    assert size_words(256 * 1024) == "256 KB"
    assert size_words(10 << 20) == "10 MB"
    assert size_words(100) == "100 bytes"


def test_a_folder_is_unreadable_as_the_os_says_it(tmp_path: Path) -> None:
    with pytest.raises(UserFileError) as caught:
        read_user_bytes(tmp_path, limit=100)
    assert (caught.value.code, str(caught.value), caught.value.fields["errno"]) == (
        "unreadable", "cannot be read (Is a directory)", errno.EISDIR)


def test_a_name_with_a_nul_character_is_missing_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(UserFileError) as caught:
        read_user_text(tmp_path / "a\0b.md", limit=10, within=tmp_path)
    assert caught.value.code == "missing"

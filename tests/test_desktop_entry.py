"""``scripts/install-desktop-entry.sh``: the launcher and the icon land in
the user's data folder ($XDG_DATA_HOME, else ~/.local/share) and point at
the executable given (quoted when its path needs it)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from desktop_agent.texts import text_in

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "install-desktop-entry.sh"
pytestmark = pytest.mark.integration


def install(home: Path, exe: Path, xdg_data_home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XDG_DATA_HOME"}
    env["HOME"] = str(home)
    if xdg_data_home is not None:
        env["XDG_DATA_HOME"] = str(xdg_data_home)
    return subprocess.run(["bash", str(SCRIPT), str(exe)], env=env, capture_output=True, text=True,
                          timeout=60, check=False)


def fake_executable(folder: Path) -> Path:
    folder.mkdir(parents=True)
    exe = folder / "desktop-agent"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return exe


def entry_fields(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if "=" in line)


def validate(path: Path) -> None:
    validator = shutil.which("desktop-file-validate")
    if validator is not None:
        done = subprocess.run([validator, str(path)], capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_installs_the_entry_and_icon_under_xdg_data_home(tmp_path: Path) -> None:
    exe = fake_executable(tmp_path / "bundle")
    data = tmp_path / "data"
    done = install(tmp_path / "home", exe, data)
    assert done.returncode == 0, done.stderr
    entry = data / "applications" / "desktop-agent.desktop"
    fields = entry_fields(entry)
    assert fields["Exec"] == str(exe) and fields["Icon"] == "desktop-agent" and fields["Type"] == "Application"
    # The menu names the app as its window title does, in English and Chinese.
    assert (fields["Name"], fields["Name[zh_CN]"]) == ("Desktop Agent", "桌面助手") == (
        text_in("en", "app_title"), text_in("zh", "app_title"))
    assert (fields["Comment"], fields["Comment[zh_CN]"]) == (
        "Voice assistant with MCP tools and approvals", "带 MCP 工具与审批的语音助手")
    icon = data / "icons" / "hicolor" / "scalable" / "apps" / "desktop-agent.svg"
    assert icon.read_bytes() == (ROOT / "resources" / "icon.svg").read_bytes()
    assert not (tmp_path / "home" / ".local").exists()
    validate(entry)


def test_without_xdg_data_home_it_uses_local_share_and_quotes_an_awkward_path(tmp_path: Path) -> None:
    exe = fake_executable(tmp_path / "my apps $1")
    home = tmp_path / "home"
    done = install(home, exe)
    assert done.returncode == 0, done.stderr
    entry = home / ".local" / "share" / "applications" / "desktop-agent.desktop"
    # Desktop Entry spec: quoted, with $ escaped as \$, and that backslash doubled in the file.
    assert entry_fields(entry)["Exec"] == '"' + str(exe).replace("$", "\\\\$") + '"'
    assert (home / ".local" / "share" / "icons" / "hicolor" / "scalable" / "apps" / "desktop-agent.svg").is_file()
    validate(entry)


def test_a_missing_executable_is_refused_and_nothing_is_installed(tmp_path: Path) -> None:
    done = install(tmp_path / "home", tmp_path / "nowhere" / "desktop-agent", tmp_path / "data")
    assert done.returncode == 1 and "not an executable" in done.stderr
    assert not (tmp_path / "data").exists()

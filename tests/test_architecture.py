"""Which package may import which, checked by import-linter's contracts in
pyproject.toml ([tool.importlinter]: the layers, core/ without Qt or network
libraries (contracts §1), the CLI without the window, desktop_agent.testing
for tests only, ui/'s features, and no import circle among the modules,
scripts/import_cycles.py), and by ruff's TID251 rule, which also guards
editors. A contract that cannot fail checks nothing: each kind is broken
here on a copy of the package and must name the import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "desktop_agent" / "core"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(root: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` run in ``root`` (a repository layout: pyproject.toml,
    desktop_agent/, scripts/), wide enough that no line is wrapped."""
    only = [arg for contract in contracts for arg in ("--contract", contract)]
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *only],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
        env={**os.environ, "COLUMNS": "250", "NO_COLOR": "1"},
    )


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """The package, its import-linter configuration and contract types, in a
    temporary folder: a test adds a bad import there, never in the tree."""
    shutil.copytree(REPO / "desktop_agent", tmp_path / "desktop_agent",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "scripts", tmp_path / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_line(module: Path, line: str) -> None:
    module.write_text(module.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")


def test_the_import_contracts_are_kept() -> None:
    result = _lint_imports(REPO)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_qt_or_network_import_in_core_breaks_its_contract(package_copy: Path) -> None:
    _add_line(package_copy / "desktop_agent" / "core" / "notice.py", "import socket")
    _add_line(package_copy / "desktop_agent" / "core" / "forms.py", "from PySide6.QtCore import QObject")

    result = _lint_imports(package_copy, "core-pure")

    assert result.returncode == 1
    assert "desktop_agent.core.notice -> socket" in result.stdout
    assert "desktop_agent.core.forms -> PySide6" in result.stdout


def test_an_import_up_the_layers_breaks_their_contract(package_copy: Path) -> None:
    _add_line(package_copy / "desktop_agent" / "storage" / "paths.py", "import desktop_agent.services")

    result = _lint_imports(package_copy, "layers")

    assert result.returncode == 1
    assert "desktop_agent.storage.paths -> desktop_agent.services" in result.stdout


def test_an_import_circle_breaks_the_cycle_contract(package_copy: Path) -> None:
    # A circle inside one package (no layer sees it), through a TYPE_CHECKING import.
    _add_line(
        package_copy / "desktop_agent" / "core" / "messages.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from desktop_agent.core.ports import ToolResult",
    )

    result = _lint_imports(package_copy, "no-cycles")

    assert result.returncode == 1
    assert "Import circle of 2 modules: desktop_agent.core.messages, desktop_agent.core.ports" in result.stdout
    assert "- desktop_agent.core.messages -> desktop_agent.core.ports" in result.stdout


def test_ruff_bans_a_qt_import_in_core() -> None:
    # The code goes in on stdin under a core/ file name: ruff applies core's
    # rules by that name, and nothing is written into the package.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--select",
            "TID251",
            "--output-format",
            "concise",
            "--stdin-filename",
            str(CORE / "_architecture_probe.py"),
            "-",
        ],
        input="import PySide6\nfrom openai import AsyncOpenAI\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )

    assert result.returncode == 1
    assert [line.split(": ", 1)[1] for line in result.stdout.splitlines() if ": TID251 " in line] == [
        "TID251 `PySide6` is banned: core/ must not import Qt (contracts §1)",
        "TID251 `openai` is banned: core/ must not import network libraries (contracts §1)",
    ]

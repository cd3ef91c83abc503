"""contracts §1: core/ imports nothing from Qt or network libraries. Checked two
ways: the AST of every core module here, and ruff's TID251 rule (which also
guards editors and CI's lint step)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "desktop_agent" / "core"
BANNED = {
    "PySide6",
    "qasync",
    "openai",
    "mcp",
    "edge_tts",
    "httpx",
    "httpx2",
    "aiohttp",
    "socket",
    "requests",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_modules_import_no_qt_or_network_library() -> None:
    offenders = {
        str(path.relative_to(CORE)): sorted(_imports(path) & BANNED)
        for path in CORE.rglob("*.py")
        if _imports(path) & BANNED
    }
    assert offenders == {}


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
        cwd=CORE.parents[1],
    )

    assert result.returncode == 1
    assert [line.split(": ", 1)[1] for line in result.stdout.splitlines() if ": TID251 " in line] == [
        "TID251 `PySide6` is banned: core/ must not import Qt (contracts §1)",
        "TID251 `openai` is banned: core/ must not import network libraries (contracts §1)",
    ]

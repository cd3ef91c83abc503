"""Fault matrix, the rows about files and flags: an unreadable
settings file or data-folder MCP file is kept aside as ``<name>.corrupt-1``
with one line naming it and the app starts; a settings file with a BOM is
read; a number out of range, in the file or on the command line, is one
clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.headless import Row, run_rows, script

pytestmark = pytest.mark.integration

UNREADABLE_SETTINGS = {
    "settings_not_utf8": (b'{"model": "caf\xe9"}', "is not UTF-8 text"),
    "settings_huge_integer": (b'{"max_steps": ' + b"9" * 5000 + b"}", "holds a number too long to read"),
    "settings_deep": (b"[" * 100_000 + b"]" * 100_000, "is nested too deeply"),
    "settings_nan_timeout": (b'{"approval_timeout_s": NaN}', "approval_timeout_s must be a finite number"),
    "settings_infinite_timeout": (b'{"approval_timeout_s": 1e999}', "approval_timeout_s must be a finite number"),
    "settings_zero_timeout": (b'{"approval_timeout_s": 0}', "approval_timeout_s must be a finite number"),
    "settings_huge_max_steps": (b'{"max_steps": 99999999999999999999}', "max_steps must be a whole number"),
}


async def test_unreadable_settings_are_kept_aside_and_the_app_starts(tmp_path: Path) -> None:
    rows = [Row(name, script(), files={"settings.json": data}) for name, (data, _) in UNREADABLE_SETTINGS.items()]
    rows.append(Row("settings_with_bom", script(), files={"settings.json": b'\xef\xbb\xbf{"max_steps": 3}'}))
    rows.append(Row("mcp_file_deep", script(), files={"mcp_servers.json": b"[" * 100_000 + b"]" * 100_000}))
    rows.append(Row("mcp_file_not_utf8", script(), files={"mcp_servers.json": b'{"mcpServers": {"\xff": {}}}'}))
    results = await run_rows(tmp_path, rows)

    for name, (data, words) in UNREADABLE_SETTINGS.items():
        result = results[name]
        result.check(0)
        assert len(result.lines()) == 1, name
        line = result.lines()[0]
        assert line.startswith("warning: settings") and words in line and "settings.json.corrupt-1" in line, line
        assert (result.home / "settings.json.corrupt-1").read_bytes() == data, name
        assert result.types()[-1] == "turn_end", name

    bom = results["settings_with_bom"]
    bom.check(0, lines=0)
    assert (bom.home / "settings.json").exists() and not list(bom.home.glob("*.corrupt-*"))

    for name, words in (("mcp_file_deep", "nested too deeply"), ("mcp_file_not_utf8", "cannot read")):
        result = results[name]
        # These rows name no --mcp-config: the data folder's own file is read.
        result.check(0)
        line = result.lines()[0]
        assert words in line and "mcp_servers.json.corrupt-1" in line, line
        assert (result.home / "mcp_servers.json.corrupt-1").exists(), name


async def test_a_named_bad_file_and_bad_numbers_on_the_command_line_are_one_line(tmp_path: Path) -> None:
    rows = [
        Row(f"flag_{label}", script(), extra=("--prompt", "x", "--approval-timeout", value))
        for label, value in (("nan", "nan"), ("inf", "inf"), ("zero", "0"), ("negative", "-1"), ("huge", "1e9"))
    ]
    rows.append(Row("flag_max_steps", script(), extra=("--prompt", "x", "--max-steps", "9" * 30)))
    results = await run_rows(tmp_path, rows)
    for result in results.values():
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr
        errors = [line for line in result.stderr.splitlines() if "error" in line]
        assert len(errors) == 1, result.stderr
        assert not result.history_path.exists()
    assert "--approval-timeout: must be a finite number of seconds" in results["flag_nan"].stderr
    assert "--max-steps: must be a whole number from 1 to 1000" in results["flag_max_steps"].stderr

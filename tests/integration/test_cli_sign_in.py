"""Headless sign-in (contracts §8, §10): ``--sign-in SERVER`` prints the
address to open on stderr and waits; the test plays the browser. The
subprocess gets no usable keyring (``PYTHON_KEYRING_BACKEND`` null), so the
sign-in lasts the run and the user's keyring is never touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx2
import pytest

from desktop_agent.testing.oauth_servers import MemoryAuthServer, ProtectedServer, run_protected_server

pytestmark = pytest.mark.integration


def _start(tmp_path: Path, server: ProtectedServer, *args: str) -> subprocess.Popen[str]:
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"remote": {"type": "http", "url": server.url}}}))
    env = {
        **os.environ,
        "DESKTOP_AGENT_HOME": str(tmp_path / "home"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--tts", "none",
         "--mcp-config", str(mcp), "--sign-in", "remote", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def _play_browser(proc: subprocess.Popen[str]) -> tuple[list[str], list[int]]:
    """Read stderr; open the address it prints (as a browser would)."""
    assert proc.stderr is not None
    lines: list[str] = []
    visits: list[int] = []
    for line in proc.stderr:
        lines.append(line.rstrip("\n"))
        if line.startswith("  http://") and not visits:
            visits.append(httpx2.get(line.strip(), follow_redirects=True, timeout=10).status_code)
    return lines, visits


def _run(proc: subprocess.Popen[str]) -> tuple[int, list[str], list[int], str]:
    found: dict[str, tuple[list[str], list[int]]] = {}
    reader = threading.Thread(target=lambda: found.setdefault("err", _play_browser(proc)))
    reader.start()
    assert proc.stdout is not None
    out = proc.stdout.read()
    rc = proc.wait(timeout=120)
    reader.join(30)
    lines, visits = found["err"]
    return rc, lines, visits, out


def test_sign_in_prints_the_address_waits_for_the_answer_and_the_tools_come(tmp_path: Path) -> None:
    with run_protected_server(MemoryAuthServer()) as server:
        rc, lines, visits, out = _run(_start(tmp_path, server, "--list-tools"))
    assert rc == 0, lines
    assert 'warning: mcp server "remote" needs you to sign in (Settings → Tools, or --sign-in remote)' in lines
    assert 'Open this address in a browser to sign in to "remote":' in lines
    assert visits == [200]
    assert 'signed in to "remote"' in lines
    assert "whoami\tmcp:remote\tneeds approval" in out.splitlines()


def test_a_refused_sign_in_is_one_error_line(tmp_path: Path) -> None:
    with run_protected_server(MemoryAuthServer(refuse="access_denied")) as server:
        rc, lines, visits, _out = _run(_start(tmp_path, server))
    assert rc == 2
    assert visits == [200]
    assert lines[-1] == 'error: sign-in to "remote" failed: the server refused: access_denied'
    assert not any("Traceback" in line for line in lines)

"""The conversations database against an unlucky user and a careless model:
a damaged file, a read-only file or folder, two processes at once, the API
key in the model's own words, and hostile import files. Real SQLite files,
real file modes (``unshare -U``: CI runs as root, whom no mode stops), real
processes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.history_items import AssistantMessage
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.scripted_server import text_reply, tool_reply
from tests.faults.headless import API_KEY, DONE, PLAN, Row, run_rows, script

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
UNSHARE = shutil.which("unshare")
needs_unshare = pytest.mark.skipif(
    UNSHARE is None or subprocess.run(["unshare", "-U", "true"], capture_output=True).returncode != 0,
    reason="user namespaces (unshare -U) are not available here",
)
DB = "conversations.sqlite3"


def _conversations(path: Path, count: int, *, words: int = 60) -> None:
    """``count`` conversations of three exchanges, long enough to fill pages."""
    store = ConversationStore(path)
    for n in range(count):
        history: list[dict[str, Any]] = []
        for turn in range(3):
            history += [{"role": "user", "content": f"question {n}.{turn} " + "lorem ipsum " * words},
                        {"role": "assistant", "content": f"answer {n}.{turn} " + "dolor sit " * words}]
        store.save(f"c{n:03d}", history_items(history), [{"type": "user", "text": history[0]["content"]}])
    store.close()


def _damage(path: Path, pages: range) -> None:
    """Overwrite these pages (1 = the header page, kept) with garbage."""
    db = sqlite3.connect(path)
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    with path.open("r+b") as fh:
        for page in pages:
            assert page > 1
            fh.seek((page - 1) * size)
            fh.write(bytes((page * 37 + i * 11) % 251 for i in range(size)))


def _readable(path: Path) -> dict[str, list[int]]:
    """What a row-by-row reader can still get: each conversation's readable
    message seqs (rows fetched one by one by rowid, nothing else relied on)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    found: dict[str, list[int]] = {}
    for rowid in range(1, 2000):
        try:
            row = db.execute("SELECT conversation_id, seq, body FROM messages NOT INDEXED WHERE rowid = ?",
                             (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None:
            json.loads(row[2])
            found.setdefault(row[0], []).append(row[1])
    db.close()
    return found


def _stored(path: Path, role: str | None = None) -> dict[str, list[str]]:
    """Each stored conversation's message texts (of ``role`` only, when given)."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT conversation_id, body FROM messages ORDER BY conversation_id, seq").fetchall()
    finally:
        db.close()
    out: dict[str, list[str]] = {}
    for conversation_id, body in rows:
        message = json.loads(body)
        if role is None or message["role"] == role:
            out.setdefault(conversation_id, []).append(message["content"])
    return out


# ------------------------------------------------------------- damaged


async def test_a_damaged_database_is_kept_aside_and_every_readable_conversation_recovered(tmp_path: Path) -> None:
    source = tmp_path / "source.sqlite3"
    _conversations(source, 40)
    pages = source.stat().st_size // 4096
    _damage(source, range(pages // 2, pages // 2 + 3))
    readable = _readable(source)
    assert 0 < len(readable) < 40 or any(len(seqs) < 6 for seqs in readable.values())  # damage that matters
    assert _quick_check(source) != "ok"
    damaged = source.read_bytes()

    rows = [Row("headless", script(DONE), files={DB: damaged})]
    result = (await run_rows(tmp_path, rows))["headless"]
    result.check(0)
    (line,) = result.lines()
    kept = result.home / f"{DB}.corrupt-1"
    assert line.startswith("warning: saved conversations in ") and "were damaged" in line, line
    assert f"kept the file as {DB}.corrupt-1 and recovered {len(readable)} of " in line, line
    assert kept.read_bytes() == damaged  # kept aside untouched
    stored = _stored(result.home / DB)
    recovered = {cid: seqs for cid, seqs in readable.items()}
    assert set(stored) >= set(recovered)  # every readable one, and this run's own conversation
    for conversation_id, seqs in recovered.items():
        assert len(stored[conversation_id]) >= len(seqs), conversation_id
    assert len(set(stored) - set(recovered)) == 1  # the run's own turn was saved after the recovery


def test_the_window_starts_on_a_damaged_database_and_shows_what_was_recovered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    _conversations(home / DB, 30)
    pages = (home / DB).stat().st_size // 4096
    _damage(home / DB, range(pages - 4, pages - 2))
    readable = _readable(home / DB)
    done = _window(home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert (home / f"{DB}.corrupt-1").exists()
    assert set(_stored(home / DB)) == set(readable)
    assert done.stderr.count(f"recovered {len(readable)} of ") == 1, done.stderr


# ------------------------------------------------------------- read-only


@needs_unshare
async def test_a_read_only_database_or_folder_is_used_read_only_never_renamed_or_changed(tmp_path: Path) -> None:
    source = tmp_path / "source.sqlite3"
    _conversations(source, 3)
    healthy = source.read_bytes()
    rows = [
        Row("file_0444", script(DONE), files={DB: healthy}, modes={DB: 0o444}, prefix=("unshare", "-U")),
        Row("folder_0500", script(DONE), files={DB: healthy}, modes={".": 0o500}, prefix=("unshare", "-U")),
    ]
    results = await run_rows(tmp_path, rows)
    for name, why in (("file_0444", "the file is read-only"), ("folder_0500", "the folder is read-only")):
        result = results[name]
        result.check(0)
        (line,) = result.lines()
        assert line == (f"warning: saved conversations in {result.home / DB} cannot be changed ({why}); you can "
                        "open and search them, but new turns are not saved"), line
        assert (result.home / DB).read_bytes() == healthy, name  # neither renamed nor written
        assert sorted(p.name for p in result.home.iterdir() if p.name.startswith(DB)) == [DB], name
        assert result.types()[-1] == "turn_end", name
    assert stat.S_IMODE((results["file_0444"].home / DB).stat().st_mode) == 0o444  # the user's mode, kept
    assert stat.S_IMODE(results["folder_0500"].home.stat().st_mode) == 0o500


@needs_unshare
def test_a_read_only_database_can_be_browsed_and_searched(tmp_path: Path) -> None:
    path = tmp_path / DB
    _conversations(path, 3)
    store = ConversationStore(path)
    store.save("zh", history_items([{"role": "user", "content": "明天的天气怎么样"}, {"role": "assistant", "content": "晴"}]))
    store.close()
    path.chmod(0o444)
    probe = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from desktop_agent.core.history_items import UserMessage\n"
        "from desktop_agent.storage.conversations import ConversationStore\n"
        "s = ConversationStore(Path(sys.argv[1]))\n"
        "s.save('new', [UserMessage('not saved')])\n"
        "loaded = s.load('c001')\n"
        "print(json.dumps({'writable': s.writable, 'ids': [c.id for c in s.conversations()],\n"
        "    'c001': len(loaded.messages) if loaded else None,\n"
        "    'search': [h.conversation_id for h in s.search('天气')],\n"
        "    'short': [h.conversation_id for h in s.search('晴')]}))\n"
    )
    done = subprocess.run(["unshare", "-U", sys.executable, "-c", probe, str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found == {"writable": False, "ids": ["zh", "c002", "c001", "c000"], "c001": 6,
                     "search": ["zh"], "short": ["zh"]}
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


@needs_unshare
def test_the_window_starts_with_a_read_only_file_and_with_a_read_only_folder(tmp_path: Path) -> None:
    for name, target, mode in (("file", DB, 0o444), ("folder", ".", 0o500)):
        home = tmp_path / name / "home"
        home.mkdir(parents=True)
        _conversations(home / DB, 2)
        before = (home / DB).read_bytes()
        (home / target).chmod(mode)
        done = _window(home, tmp_path / name, prefix=("unshare", "-U"))
        assert done.returncode == 0, f"{name}: {done.stderr}"
        assert "Traceback" not in done.stderr, f"{name}: {done.stderr}"
        assert (home / DB).read_bytes() == before, name
        assert not list(home.glob("*.corrupt-*")), name
        assert stat.S_IMODE((home / target).stat().st_mode) == mode, name
        assert done.stderr.count("cannot be changed") == 1, done.stderr  # said once


# ------------------------------------------------------------- two processes


async def test_headless_runs_writing_at_once_each_keep_their_own_conversation(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    turns = 8
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home)}

    async def session(n: int) -> tuple[int, str]:
        lines = "".join(f"run {n}.{t}: hello\n" for t in range(turns)).encode()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--tts", "none",
            "--mcp-config", str(_no_servers(tmp_path)), "--approve", "none", env=env, cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(120):
            _out, err = await proc.communicate(lines)
        return proc.returncode or 0, err.decode()

    async def one_shot(n: int) -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--tts", "none",
            "--mcp-config", str(_no_servers(tmp_path)), "--prompt", f"one shot {n}", env=env, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(120):
            _out, err = await proc.communicate()
        return proc.returncode or 0, err.decode()

    results = await asyncio.gather(*(session(n) for n in range(3)), *(one_shot(n) for n in range(4)))
    for code, err in results:
        assert code == 0 and "Traceback" not in err and "could not save" not in err, err
    stored = _stored(home / DB, "user")
    users = sorted(text for texts in stored.values() for text in texts)
    assert users == sorted([f"run {n}.{t}: hello" for n in range(3) for t in range(turns)]
                           + [f"one shot {n}" for n in range(4)])
    assert len(stored) == 7  # a conversation each


def test_a_second_window_hands_its_prompt_to_the_first_and_exits(tmp_path: Path) -> None:
    from desktop_agent.ui.shell.single_instance import socket_path

    home = tmp_path / "home"
    home.mkdir()
    env = _window_env(home)
    first = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent", "--model", "demo", "--tts", "none", "--mcp-config",
         str(_no_servers(tmp_path)), "--quit-after-ms", "12000"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listening = socket_path(home)
        _wait(listening.exists, 30)
        second = subprocess.run(
            [sys.executable, "-m", "desktop_agent", "--prompt", "hello from the second launch", "--model", "x"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 0, second.stderr
        assert "already open; brought it forward" in second.stderr
        _out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err
    stored = _stored(home / DB, "user")
    assert list(stored.values()) == [["hello from the second launch"]]


# ------------------------------------------------------------- the key in the model's words


async def test_the_key_the_model_writes_into_arguments_never_reaches_the_database_or_exports(tmp_path: Path) -> None:
    leak = tool_reply("run_command", {"command": f"echo {API_KEY}"})
    rows = [Row("leak", script(PLAN, leak, text_reply(f"Your key is {API_KEY}.")),
                extra=("--prompt", "show me my key", "--approve", "all"))]
    result = (await run_rows(tmp_path, rows))["leak"]
    result.check(0, lines=1)
    files = [p for p in result.home.iterdir() if p.name.startswith(DB)]
    assert files and all(API_KEY.encode() not in p.read_bytes() for p in files)
    stored = ConversationStore(result.home / DB, redact=lambda text: text)
    (summary,) = stored.conversations()
    loaded = stored.load(summary.id)
    assert loaded is not None
    calls = [m for m in loaded.messages if isinstance(m, AssistantMessage) and m.tool_calls]
    assert '"echo [redacted]"' in calls[0].tool_calls[0].arguments
    assert loaded.messages[-1] == AssistantMessage("Your key is [redacted].")


def test_an_export_never_holds_the_key_even_from_rows_saved_before(tmp_path: Path) -> None:
    from desktop_agent.conversation_library import ConversationLibrary
    from desktop_agent.core.redaction import Redactor

    path = tmp_path / DB
    old = ConversationStore(path)  # as an older version saved it: no redaction
    old.save("c", history_items([{"role": "user", "content": f"my key is {API_KEY}"}]))
    old.close()
    library = ConversationLibrary(ConversationStore(path, redact=Redactor([API_KEY])), lambda _id: None)  # type: ignore[arg-type, return-value]
    for kind in ("markdown", "json"):
        text = library.export("c", kind)
        assert text is not None and API_KEY not in text and "[redacted]" in text


# ------------------------------------------------------------- import


def test_a_bad_import_file_is_one_line_and_stores_nothing(tmp_path: Path) -> None:
    from desktop_agent.conversation_library import ConversationLibrary
    from desktop_agent.storage.conversation_export import ConversationFileError
    from desktop_agent.storage.user_files import UserFileError

    path = tmp_path / DB
    _conversations(path, 2)
    before = path.read_bytes()
    store = ConversationStore(path)
    library = ConversationLibrary(store, lambda _id: None)  # type: ignore[arg-type, return-value]
    bad = {
        "tool_calls_text": ('{"messages": [{"role": "assistant", "content": "x", "tool_calls": "abc"}]}',
                            "messages[0].tool_calls must be a list"),
        "bad_call": ('{"messages": [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": 1, '
                     '"arguments": "{}"}}]}]}', "messages[0].tool_calls[0].function.name must be text"),
        "call_not_object": ('{"messages": [{"role": "assistant", "tool_calls": [7]}]}',
                            "messages[0].tool_calls[0] must be an object"),
        "surrogate": ('{"messages": [{"role": "user", "content": "a\\ud800b"}]}',
                      "messages[0].content holds text that is not valid Unicode (a lone surrogate)"),
        "deep": ('{"messages": [{"role": "user", "content": "x", "meta": ' + "[" * 100_000 + "]" * 100_000 + "}]}",
                 "it is nested more than 100 levels deep"),
        "role": ('{"messages": [{"role": "robot", "content": "x"}]}', "messages[0].role is not one of the values"),
    }
    for name, (text, words) in bad.items():
        file = tmp_path / f"{name}.json"
        file.write_text(text, encoding="utf-8", errors="surrogatepass")
        with pytest.raises(ConversationFileError) as caught:
            library.import_file(file)
        assert words in str(caught.value) and "\n" not in str(caught.value), name
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    with pytest.raises(UserFileError) as not_regular:
        library.import_file(pipe)  # returns at once: a blocking read would hang here
    assert not_regular.value.code == "not_regular"
    assert [c.id for c in store.conversations()] == ["c001", "c000"]
    store.close()
    assert _stored(path) == _stored_bytes(before, tmp_path)


def test_an_imported_huge_title_is_cut_and_the_sidebar_stays_fast(tmp_path: Path) -> None:
    from desktop_agent.conversation_library import ConversationLibrary

    store = ConversationStore(tmp_path / DB)
    library = ConversationLibrary(store, lambda _id: None)  # type: ignore[arg-type, return-value]
    file = tmp_path / "huge.json"
    file.write_text(json.dumps({"title": "长" * 10_000_000, "messages": [{"role": "user", "content": "hi"}]}))
    conversation_id = library.import_file(file)
    (summary,) = library.summaries()
    assert (summary.id, summary.title) == (conversation_id, "长" * 200)
    stored_title = sqlite3.connect(tmp_path / DB).execute("SELECT length(title) FROM conversations").fetchone()
    assert stored_title == (200,)


# ------------------------------------------------------------- helpers


def _quick_check(path: Path) -> str:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return str(db.execute("PRAGMA quick_check").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        db.close()


def _stored_bytes(data: bytes, tmp_path: Path) -> dict[str, list[str]]:
    copy = tmp_path / "copy.sqlite3"
    copy.write_bytes(data)
    return _stored(copy)


def _no_servers(tmp_path: Path) -> Path:
    path = tmp_path / "no-servers.json"
    if not path.exists():
        path.write_text('{"mcpServers": {}}')
    return path


def _window_env(home: Path) -> dict[str, str]:
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_LANG": "en",
            "DESKTOP_AGENT_HOME": str(home)}


def _window(home: Path, tmp_path: Path, *, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "desktop_agent", "--model", "demo", "--tts", "none",
         "--mcp-config", str(_no_servers(tmp_path)), "--quit-after-ms", "1500"],
        cwd=ROOT, env=_window_env(home), capture_output=True, text=True, timeout=90,
    )


def _wait(ready: Any, timeout_s: float) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while not ready():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)

"""Installing a real ``.mcpb`` bundle: checked whole first, unpacked under the
data folder, its server added to the servers file with the user's settings
(a sensitive one in the keyring store, not the file), started by the engine;
uninstalled without a trace. Bad bundles: one line, nothing installed."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_agent.mcp_engine import McpEngine, load_mcp_config
from desktop_agent.mcp_engine.bundle_manifest import BundleError
from desktop_agent.mcp_engine.bundles import bundles_dir, install, read_bundle, uninstall
from desktop_agent.storage.paths import data_dir
from desktop_agent.storage.secrets import get_secret
from desktop_agent.testing.bundle_maker import make_bundle, manifest
from tests.mcp_engine.conftest import CallContext

TOKEN = "sk-secret-123"


def servers(tmp_path: Path) -> Path:
    path = tmp_path / "mcp_servers.json"
    path.write_text('{"mcpServers": {}}')
    return path


def test_reading_a_bundle_shows_what_it_is_and_asks() -> None:
    bundle = read_bundle(make_bundle(data_dir() / "greeter.mcpb"))

    m = bundle.manifest
    assert (m.name, m.display_name, m.version, m.author, m.description) == (
        "greeter", "Greeter", "1.2.0", "Ada Lovelace", "Greets people politely."
    )
    assert [t.name for t in m.tools] == ["greet"]
    assert [(o.key, o.type, o.required, o.sensitive, o.default) for o in m.user_config] == [
        ("greeting", "string", True, False, "Hello"),
        ("api_token", "string", True, True, None),
        ("loud", "boolean", False, False, False),
    ]


@pytest.mark.integration
async def test_an_installed_bundle_runs_with_its_settings_and_uninstalls(
    tmp_path: Path, make_ctx: Callable[..., CallContext]
) -> None:
    path = servers(tmp_path)
    bundle = read_bundle(make_bundle(tmp_path / "greeter.mcpb"))

    installed = install(bundle, {"greeting": "Bonjour", "api_token": TOKEN}, path)

    assert installed.server == "greeter"
    assert installed.folder == bundles_dir() / "greeter"
    assert (installed.folder / "server/main.py").is_file()
    text = path.read_text()
    assert TOKEN not in text  # the secret stays out of the servers file
    assert get_secret("mcpb.greeter.api_token") == TOKEN
    entry = json.loads(text)["mcpServers"]["greeter"]
    assert entry["env"]["GREETING"] == "Bonjour"
    assert entry["args"] == [f"{installed.folder}/server/main.py"]

    engine = McpEngine(load_mcp_config(path))
    try:
        assert await engine.start() == []
        result = await engine.shared_source().call("greet", {"name": "Ada"}, make_ctx().ctx)
    finally:
        await engine.aclose()
    assert (result.text, result.is_error) == (f"Bonjour, Ada! (token of {len(TOKEN)} characters)", False)

    uninstall("greeter", path)

    assert json.loads(path.read_text())["mcpServers"] == {}
    assert not installed.folder.exists()
    assert get_secret("mcpb.greeter.api_token") is None


def test_installing_again_replaces_the_bundle_under_the_same_name(tmp_path: Path) -> None:
    path = servers(tmp_path)
    install(read_bundle(make_bundle(tmp_path / "a.mcpb")), {"api_token": "x"}, path)
    again = install(read_bundle(make_bundle(tmp_path / "b.mcpb")), {"api_token": "y", "greeting": "Hi"}, path)

    entries = json.loads(path.read_text())["mcpServers"]
    assert list(entries) == ["greeter"] and again.server == "greeter"
    assert entries["greeter"]["env"]["GREETING"] == "Hi"
    assert sorted(p.name for p in bundles_dir().iterdir()) == ["greeter"]


def test_a_missing_required_setting_installs_nothing(tmp_path: Path) -> None:
    path = servers(tmp_path)
    with pytest.raises(BundleError, match=r'^"API token" is required to install Greeter$'):
        install(read_bundle(make_bundle(tmp_path / "g.mcpb")), {}, path)
    assert json.loads(path.read_text())["mcpServers"] == {}
    assert not bundles_dir().exists() or not any(bundles_dir().iterdir())


def _bad_server(data: dict[str, object]) -> dict[str, object]:
    server = dict(manifest()["server"])
    server.update(data)
    return manifest(server=server)


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        ("{not json", None, r"^bad\.mcpb: manifest\.json is not valid JSON \("),
        (manifest(manifest_version="9.0"), None, r"^manifest_version '9\.0' is not supported \(this app reads 0\.1, 0\.2, 0\.3\)$"),
        (_bad_server({"entry_point": "server/missing.py"}), None,
         r"^bad\.mcpb: the entry point 'server/missing\.py' is not in the bundle$"),
        (_bad_server({"type": "ruby"}), None, r'^"server\.type" must be one of node, python, binary, not \'ruby\'$'),
        (None, {"../../evil.sh": b"x"}, r"^bad\.mcpb: refusing the path '\.\./\.\./evil\.sh', which points outside"),
        (None, {"/etc/evil": b"x"}, r"^bad\.mcpb: refusing the path '/etc/evil'"),
    ],
)
def test_a_bad_bundle_is_one_line_and_installs_nothing(
    tmp_path: Path, content: object, extra: dict[str, bytes] | None, message: str
) -> None:
    path = make_bundle(tmp_path / "bad.mcpb", content, extra=extra)  # type: ignore[arg-type]

    with pytest.raises(BundleError, match=message) as caught:
        read_bundle(path)
    assert "\n" not in str(caught.value)
    assert not bundles_dir().exists()


def test_not_a_zip_and_no_manifest_are_said_plainly(tmp_path: Path) -> None:
    text = tmp_path / "notes.mcpb"
    text.write_text("hello")
    empty = tmp_path / "empty.mcpb"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("readme.txt", "hi")

    with pytest.raises(BundleError, match=r"^notes\.mcpb is not a zip file \(an \.mcpb bundle is one\)$"):
        read_bundle(text)
    with pytest.raises(BundleError, match=r"^empty\.mcpb has no manifest\.json$"):
        read_bundle(empty)


def test_an_absurd_size_is_refused_before_unpacking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_agent.mcp_engine import bundles

    monkeypatch.setattr(bundles, "MAX_UNPACKED_BYTES", 1 << 30)
    path = make_bundle(tmp_path / "big.mcpb", extra={"data.bin": b"\0" * 1024})
    monkeypatch.setattr(bundles, "MAX_UNPACKED_BYTES", 512)

    with pytest.raises(BundleError, match=r"^big\.mcpb unpacks to more than 512 bytes$"):
        read_bundle(path)


def test_uninstalling_a_server_that_is_no_bundle_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mcp_servers.json"
    path.write_text('{"mcpServers": {"time": {"command": "python3", "args": ["-m", "mcp_server_time"]}}}')

    with pytest.raises(BundleError, match=r'^"time" was not installed from a bundle$'):
        uninstall("time", path)
    assert "time" in json.loads(path.read_text())["mcpServers"]


def test_settings_of_every_type_are_filled_into_the_command(tmp_path: Path) -> None:
    data = manifest(
        server={
            "type": "node",
            "entry_point": "server/main.py",
            "mcp_config": {
                "command": "node",
                "args": ["${__dirname}/server/main.py", "--dirs", "${user_config.dirs}", "--max=${user_config.max}"],
                "env": {"LOUD": "${user_config.loud}", "HOME_DIR": "${HOME}", "KEEP": "${unknown}"},
            },
        },
        user_config={
            "dirs": {"type": "directory", "title": "Folders", "multiple": True, "required": True},
            "max": {"type": "number", "title": "Most", "default": 3, "min": 1, "max": 10},
            "loud": {"type": "boolean", "title": "Shout", "default": False},
        },
    )
    path = servers(tmp_path)

    installed = install(read_bundle(make_bundle(tmp_path / "n.mcpb", data)), {"dirs": ("/a", "/b b"), "loud": True}, path)

    entry = json.loads(path.read_text())["mcpServers"]["greeter"]
    assert entry["command"] == "node"  # only a python bundle's python runs on this app's interpreter
    assert entry["args"] == [f"{installed.folder}/server/main.py", "--dirs", "/a", "/b b", "--max=3"]
    assert entry["env"] == {"LOUD": "true", "HOME_DIR": str(Path.home()), "KEEP": "${unknown}"}
    assert entry["cwd"] == str(installed.folder) and entry["bundle"] == "greeter"

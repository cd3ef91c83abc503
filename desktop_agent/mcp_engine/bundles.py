"""Installing and removing MCP bundles (``.mcpb``: a zip with ``manifest.json``).

:func:`read_bundle` opens the file and checks all of it before anything is
written (a zip, a manifest this app reads, an entry point inside it, no
member that would land outside its folder, no absurd size), so the dialog
can show what the user is agreeing to. :func:`install` unpacks it under the
data folder (``bundles/<name>/``, through a temporary folder renamed into
place, so a failed unpack leaves nothing), fills ``${__dirname}`` and
``${user_config.KEY}`` into its start command and adds it to the servers
file; the caller reloads the servers as after any edit of that file.

A sensitive setting (an API key) goes to the keyring (``storage.secrets``,
with its file fallback), never into the servers file: the entry holds
``${secret:NAME}`` and :func:`fill_secrets` puts the value in when the
server starts. :func:`uninstall` removes the entry, the folder and those
secrets.

A ``python`` bundle whose command is ``python``/``python3`` runs on this
app's own interpreter (as Claude Desktop runs such bundles on the one it
ships): a bundle brings its dependencies in its folder, and a
``python3`` on PATH may be any version or none.
"""

from __future__ import annotations

import re
import shutil
import stat
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from desktop_agent.mcp_engine import servers_file
from desktop_agent.mcp_engine.bundle_manifest import (
    BundleError,
    ConfigValue,
    Manifest,
    UserConfigOption,
    parse_manifest,
)
from desktop_agent.storage.paths import data_dir
from desktop_agent.storage.user_files import size_words

MAX_BUNDLE_BYTES = 512 << 20
"""The ``.mcpb`` file itself."""
MAX_UNPACKED_BYTES = 2 << 30
"""Everything inside it, unpacked."""
MAX_MEMBERS = 50_000
MAX_MANIFEST_BYTES = 1 << 20
SECRET_PREFIX = "mcpb."
_SECRET_REF = re.compile(r"\$\{secret:([^}]+)\}")
_PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")


@dataclass(frozen=True, slots=True)
class Bundle:
    path: Path
    manifest: Manifest


@dataclass(frozen=True, slots=True)
class Installed:
    server: str
    """The server's name in the servers file."""
    folder: Path


def _unreadable(name: str, exc: OSError) -> BundleError:
    why = exc.strerror or str(exc)
    return BundleError(f"cannot read {name}: {why}", "bundle_unreadable", name=name, error=why, errno=exc.errno)


def bundles_dir() -> Path:
    return data_dir() / "bundles"


def read_bundle(path: Path) -> Bundle:
    """The bundle at ``path``, checked whole; a :class:`BundleError` says what is wrong."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _unreadable(path.name, exc) from None
    if size > MAX_BUNDLE_BYTES:
        limit = size_words(MAX_BUNDLE_BYTES)
        raise BundleError(f"{path.name} is larger than a bundle may be ({limit})", "bundle_too_large", name=path.name,
                          limit=limit)
    try:
        with zipfile.ZipFile(path) as archive:
            members = _check_members(path.name, archive)
            if "manifest.json" not in members:
                raise BundleError(f"{path.name} has no manifest.json", "bundle_no_manifest", name=path.name)
            info = archive.getinfo("manifest.json")
            if info.file_size > MAX_MANIFEST_BYTES:
                raise BundleError(f"{path.name}: manifest.json is too large", "bundle_manifest_too_large", name=path.name)
            raw = archive.read(info)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError):
        raise BundleError(f"{path.name} is not a zip file (an .mcpb bundle is one)", "bundle_not_zip",
                          name=path.name) from None
    except OSError as exc:
        raise _unreadable(path.name, exc) from None
    try:
        import json

        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BundleError(f"{path.name}: manifest.json is not valid JSON ({exc})", "bundle_manifest_not_json",
                          name=path.name) from None
    manifest = parse_manifest(data)
    entry = _member_name(manifest.entry_point)
    if entry is None or entry not in members:
        raise BundleError(f"{path.name}: the entry point {manifest.entry_point!r} is not in the bundle",
                          "bundle_no_entry_point", name=path.name, entry=manifest.entry_point)
    return Bundle(path, manifest)


def _member_name(name: str) -> str | None:
    """``name`` as a safe relative path inside the folder, or None (zip-slip)."""
    if "\\" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return None
    parts = PurePosixPath(name).parts
    if not parts or any(p == ".." for p in parts):
        return None
    return str(PurePosixPath(*[p for p in parts if p != "."]))


def _check_members(label: str, archive: zipfile.ZipFile) -> set[str]:
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise BundleError(f"{label} holds {len(infos)} files; a bundle may hold at most {MAX_MEMBERS}")
    total, names = 0, set()
    for info in infos:
        name = _member_name(info.filename)
        if name is None:
            raise BundleError(f"{label}: refusing the path {info.filename!r}, which points outside the bundle's folder")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise BundleError(f"{label}: refusing the link {info.filename!r}")
        total += info.file_size
        if total > MAX_UNPACKED_BYTES:
            raise BundleError(f"{label} unpacks to more than {size_words(MAX_UNPACKED_BYTES)}")
        names.add(name)
    return names


def missing_values(manifest: Manifest, values: Mapping[str, ConfigValue]) -> list[UserConfigOption]:
    """The required settings without a value (given or default)."""
    return [
        o for o in manifest.user_config
        if o.required and _blank(values.get(o.key, o.default))
    ]


def _blank(value: ConfigValue | None) -> bool:
    return value is None or value == "" or value == ()


def install(bundle: Bundle, values: Mapping[str, ConfigValue], servers_path: Path) -> Installed:
    """Unpack ``bundle`` and add its server to the file at ``servers_path``."""
    manifest = bundle.manifest
    missing = missing_values(manifest, values)
    if missing:
        raise BundleError(f'"{missing[0].title}" is required to install {manifest.display_name}', "bundle_required",
                          title=missing[0].title, name=manifest.display_name)
    doc = servers_file.read_document(servers_path)
    current = servers_file.entries(doc)
    folder_name = servers_file.valid_name(manifest.name)
    ours = [n for n, e in current.items() if e.get("bundle") == folder_name]
    server = ours[0] if ours else servers_file.valid_name(manifest.name, frozenset(current))
    root = bundles_dir()
    root.mkdir(parents=True, exist_ok=True)
    folder = root / folder_name
    staging = Path(tempfile.mkdtemp(prefix=f".{folder_name}-", dir=root))
    try:
        with zipfile.ZipFile(bundle.path) as archive:
            _check_members(bundle.path.name, archive)
            _unpack(archive, staging)
        if folder.exists():
            shutil.rmtree(folder)
        staging.rename(folder)
    except (OSError, zipfile.BadZipFile) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise BundleError(f"cannot unpack {bundle.path.name}: {exc}") from None
    entry = _entry(manifest, folder, server, values)
    try:
        servers_file.write_document(servers_path, servers_file.with_entry(doc, server, entry, old_name=server if ours else None))
    except Exception:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Installed(server, folder)


def _unpack(archive: zipfile.ZipFile, into: Path) -> None:
    for info in archive.infolist():
        name = _member_name(info.filename)
        assert name is not None  # checked by _check_members
        target = into / name
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(info) as source, target.open("wb") as out:
            shutil.copyfileobj(source, out)
        mode = (info.external_attr >> 16) & 0o777
        if mode & 0o111:
            target.chmod(0o755)


def _entry(manifest: Manifest, folder: Path, server: str, values: Mapping[str, ConfigValue]) -> dict[str, Any]:
    options = {o.key: o for o in manifest.user_config}
    secrets: list[str] = []

    def text(key: str) -> str | tuple[str, ...]:
        option = options.get(key)
        value = values.get(key, option.default if option else None)
        if option is not None and option.sensitive and not _blank(value):
            name = f"{SECRET_PREFIX}{server}.{key}"
            _store_secret(name, str(value))
            secrets.append(name)
            return "${secret:" + name + "}"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return f"{value:g}"
        if isinstance(value, tuple):
            return value
        return "" if value is None else str(value)

    def fill(template: str) -> str | tuple[str, ...]:
        whole = _PLACEHOLDER.fullmatch(template)
        if whole and whole.group(1).startswith("user_config."):
            return text(whole.group(1).removeprefix("user_config."))

        def one(match: re.Match[str]) -> str:
            key = match.group(1)
            if key == "__dirname":
                return str(folder)
            if key == "HOME":
                return str(Path.home())
            if key in ("pathSeparator", "/"):
                return "/" if sys.platform != "win32" else "\\"
            if key.startswith("user_config."):
                value = text(key.removeprefix("user_config."))
                return ",".join(value) if isinstance(value, tuple) else value
            return match.group(0)

        return _PLACEHOLDER.sub(one, template)

    args: list[str] = []
    for arg in manifest.args:
        filled = fill(arg)
        args.extend(filled if isinstance(filled, tuple) else (filled,))
    env = {}
    for key, value in manifest.env.items():
        filled = fill(value)
        env[key] = ",".join(filled) if isinstance(filled, tuple) else filled
    command = str(fill(manifest.command))
    if manifest.server_type == "python" and command in ("python", "python3"):
        command = sys.executable
    entry: dict[str, Any] = {"command": command, "args": args, "cwd": str(folder), "bundle": folder.name}
    if env:
        entry["env"] = env
    if secrets:
        entry["bundle_secrets"] = secrets
    return entry


def uninstall(server: str, servers_path: Path) -> None:
    """Remove a bundle's server from the file, its folder and its secrets."""
    doc = servers_file.read_document(servers_path)
    entry = servers_file.entries(doc).get(server)
    if entry is None or not isinstance(entry.get("bundle"), str):
        raise BundleError(f'"{server}" was not installed from a bundle', "bundle_not_bundle", name=server)
    folder = bundles_dir() / entry["bundle"]
    if folder.resolve().parent != bundles_dir().resolve():
        raise BundleError(f'"{server}": its bundle folder is not under {bundles_dir()}')
    servers_file.write_document(servers_path, servers_file.without_entry(doc, server))
    for name in entry.get("bundle_secrets", []):
        if isinstance(name, str) and name.startswith(SECRET_PREFIX):
            _store_secret(name, None)
    shutil.rmtree(folder, ignore_errors=True)


def is_bundle_entry(entry: Mapping[str, Any]) -> bool:
    return isinstance(entry.get("bundle"), str)


def fill_secrets(value: str) -> str:
    """``${secret:NAME}`` replaced by the kept secret (empty when it is gone)."""
    if "${secret:" not in value:
        return value
    from desktop_agent.storage.secrets import get_secret

    return _SECRET_REF.sub(lambda m: get_secret(m.group(1)) or "", value)


def _store_secret(name: str, value: str | None) -> None:
    from desktop_agent.storage.secrets import set_secret

    set_secret(name, value)

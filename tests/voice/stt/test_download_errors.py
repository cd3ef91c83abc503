"""Why a download failed, said plainly: the resolver's and the socket's own
errors found along the chain of causes (never ``[Errno -2]`` on screen),
the source and host named, and every line the English of its UI text."""

from __future__ import annotations

import asyncio
import hashlib
import socket
import string
from pathlib import Path

import httpx2
import pytest

from desktop_agent.testing.loopback import LoopbackServer
from desktop_agent.texts import text_in
from desktop_agent.voice.stt.download_errors import _TEMPLATES, ModelDownloadError, connection_failure
from desktop_agent.voice.stt.model_spec import ModelFile, ModelSpec
from desktop_agent.voice.stt.models import NO_DOWNLOADS_ENV, ModelStore, source_of

SPEC = ModelSpec(key="m", label="Whisper base", base_url="https://huggingface.co/x/resolve/abc",
                 files=(ModelFile("model.bin", 3, hashlib.sha256(b"abc").hexdigest()),))


def test_a_name_that_does_not_resolve_is_no_network_on_hugging_face() -> None:
    error = ModelDownloadError("no_network", source="huggingface", host="huggingface.co", model="Whisper base")
    assert str(error) == (
        "could not download Whisper base from Hugging Face: could not reach huggingface.co "
        "(no network: the name could not be resolved)"
    )
    assert (error.key, error.source, error.host, error.kind) == (
        "model_error_no_network", "huggingface", "huggingface.co", "no_network")


async def test_a_real_unresolvable_host_is_said_without_errno(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``.invalid`` never resolves (RFC 6761): the resolver answers at once,
    with or without a network; nothing is downloaded."""
    monkeypatch.delenv(NO_DOWNLOADS_ENV)
    with pytest.raises(ModelDownloadError) as caught:
        async with asyncio.timeout(30):
            await ModelStore(tmp_path).ensure(SPEC, base_url="http://speech-models.invalid/base")
    assert str(caught.value) == (
        "could not download Whisper base from the custom address: could not reach speech-models.invalid "
        "(no network: the name could not be resolved)"
    )
    assert "Errno" not in str(caught.value) and caught.value.kind == "no_network"
    assert list(tmp_path.rglob("*.part")) == []


async def test_a_refused_connection_names_the_host(tmp_path: Path) -> None:
    async with LoopbackServer() as server:
        port = server.port  # closed below: nothing listens there any more
    with pytest.raises(ModelDownloadError) as caught:
        async with asyncio.timeout(30):
            await ModelStore(tmp_path).ensure(SPEC, base_url=f"http://127.0.0.1:{port}/m")
    assert str(caught.value) == (
        f"could not download Whisper base from the custom address: could not reach 127.0.0.1:{port} "
        "(the connection was refused)"
    )


def test_the_causes_are_read_along_the_chain() -> None:
    def chained(cause: BaseException) -> httpx2.ConnectError:
        error = httpx2.ConnectError(str(cause))
        error.__cause__ = cause
        return error

    assert connection_failure(chained(socket.gaierror(-2, "Name or service not known"))) == ("no_network", "")
    assert connection_failure(chained(ConnectionRefusedError(111, "refused"))) == ("refused", "")
    assert connection_failure(chained(OSError(101, "Network is unreachable"))) == (
        "unreachable", "the network is unreachable")
    assert connection_failure(httpx2.ReadTimeout("slow")) == ("timeout", "")
    assert connection_failure(httpx2.ConnectError("something else")) == ("unreachable", "something else")


def test_each_source_is_known_by_its_host() -> None:
    assert [source_of(url) for url in (
        "https://huggingface.co/a/resolve/b", "https://modelscope.cn/models/a/resolve/master",
        "https://hf-mirror.com/a", "http://127.0.0.1:8000/m")] == ["huggingface", "modelscope", "custom", "custom"]


@pytest.mark.parametrize("kind", sorted(_TEMPLATES))
def test_every_line_is_the_english_of_its_ui_text(kind: str) -> None:
    names = {name for _, name, _, _ in string.Formatter().parse(_TEMPLATES[kind]) if name}
    fields = {name: f"<{name}>" for name in names - {"source", "host"}}
    error = ModelDownloadError(kind, source="modelscope", host="modelscope.cn", **fields)  # type: ignore[arg-type]
    source = text_in("en", "model_source_modelscope")
    assert text_in("en", error.key, source=source, **error.fields) == str(error)
    assert text_in("zh", error.key, source=text_in("zh", "model_source_modelscope"), **error.fields)

"""Services: the composition shared by the window and the headless mode."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import AudioMessage
from desktop_agent.llm.demo import DemoModel
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.services import build_services
from desktop_agent.storage.conversation_events import SavedEvents, items_of
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.bus_reader import BusReader
from desktop_agent.testing.fake_tts import FakeCommunicate, FakeCommunicateFactory, FakeTTS
from desktop_agent.testing.services_listener import RecordingListener
from desktop_agent.texts import text_in
from desktop_agent.voice import EdgeTTSEngine


@pytest.fixture
def no_servers(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}')
    return path


async def test_without_an_endpoint_the_demo_model_is_used_and_said(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        assert isinstance(services.llm, DemoModel)
        assert services.demo_notice is not None and "--base-url" in services.demo_notice
        assert services.tts is None
        names = [s.name for s in services.router.specs()]
        assert names[:4] == ["ask_user_question", "show_card", "run_command", "get_skill"]
    finally:
        await services.aclose()


async def test_edited_settings_apply_to_running_conversations(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        conversation = services.new_conversation()
        edited = replace(services.settings, base_url="http://127.0.0.1:9/v1", model="m1",
                         tts_engine="espeak", max_steps=3)
        applied = services.apply_settings(edited)
        assert (applied.model, applied.is_demo, applied.error) == ("m1", False, None)
        assert isinstance(conversation.agent.llm, OpenAIProvider) and conversation.agent.llm is services.llm
        assert conversation.agent.max_steps == 3
        assert services.tts is not None and services.tts.name == "espeak"

        broken = services.apply_settings(replace(edited, base_url="ftp://nowhere", model="m2"))
        assert broken.error is not None and "http://" in broken.error and "\n" not in broken.error
        assert broken.model == "m1"  # the working model stays
    finally:
        await services.aclose()


async def test_a_bad_mcp_file_is_one_clear_error(tmp_path: Path) -> None:
    from desktop_agent.mcp_engine import McpConfigError

    bad = tmp_path / "mcp.json"
    bad.write_text('{"mcpServers": {"fs": {"command": 5}}}')
    with pytest.raises(McpConfigError, match='"fs"'):
        await build_services(mcp_config=bad, tts="none")


async def test_the_window_services_keep_conversations_across_restarts(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none", keep_conversations=True)
    first = services.resume_conversation()
    assert first.history == []
    first.history.extend(history_items([{"role": "user", "content": "remember me"}, {"role": "assistant", "content": "ok"}]))
    services.save_conversation(first)
    await services.aclose()

    again = await build_services(mcp_config=no_servers, tts="none", keep_conversations=True)
    try:
        restored = again.resume_conversation()
        assert restored.conversation_id == first.conversation_id
        assert restored.history == first.history
    finally:
        await again.aclose()


async def test_a_conversation_with_a_display_log_is_appended_and_reopened_by_id(no_servers: Path) -> None:
    # The display log is saved beside the history, a taken-back
    # exchange rewrites only the tail, and any saved conversation reopens by id.
    services = await build_services(mcp_config=no_servers, tts="none", keep_conversations=True)
    try:
        one = services.new_conversation()
        one.history += history_items([{"role": "user", "content": "first"}, {"role": "assistant", "content": "a"}])
        one.events += items_of([{"type": "user", "text": "first"}, {"type": "text", "text": "a"}])
        services.save_conversation(one)
        one.history += history_items([{"role": "user", "content": "second"}, {"role": "assistant", "content": "b"}])
        one.events += items_of([{"type": "user", "text": "second"}, {"type": "text", "text": "b"}])
        services.save_conversation(one)
        assert one.take_back_last_exchange() == "second"
        one.history += history_items([{"role": "user", "content": "edited"}, {"role": "assistant", "content": "c"}])
        one.events += items_of([{"type": "user", "text": "edited"}, {"type": "text", "text": "c"}])
        services.save_conversation(one)
        assert one.rewound is None
        two = services.new_conversation()
        two.history.append(*history_items([{"role": "user", "content": "other"}]))
        services.save_conversation(two)
        back = services.resume_conversation(one.conversation_id)
        assert (back.history, back.events) == (one.history, one.events)
        assert services.resume_conversation().conversation_id == two.conversation_id
        reopened = SavedEvents(services.resume_conversation(two.conversation_id).events)
        assert [e["type"] for e in reopened] == ["user", "turn_end"]
    finally:
        await services.aclose()


async def test_settings_that_leave_the_endpoint_alone_keep_the_model(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none", base_url="http://127.0.0.1:9/v1",
                                    model="from-the-command-line", api_key="sk-cli")
    try:
        conversation = services.new_conversation()
        model = services.llm
        applied = services.apply_settings(replace(services.settings, muted=True, always_allow=("echo",), max_steps=2))
        assert services.llm is model and conversation.agent.llm is model
        assert (applied.model, applied.error) == ("from-the-command-line", None)
        assert services.settings.always_allow == ("echo",) and conversation.agent.max_steps == 2

        services.apply_settings(services.settings, key_changed=True)  # a new key: reconnect
        assert services.llm is not model and conversation.agent.llm is services.llm
    finally:
        await services.aclose()


async def test_the_reply_limit_and_timeout_come_from_the_flags_then_from_edited_settings(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none", base_url="http://127.0.0.1:9/v1",
                                    model="m", api_key="k", max_tokens=64, request_timeout_s=600.0)
    try:
        model = services.llm
        assert isinstance(model, OpenAIProvider) and model.limits == (64, 600.0)
        conversation = services.new_conversation()
        # The settings hold no endpoint (it came from the flags): the model is kept, with the new limits.
        services.apply_settings(replace(services.settings, max_tokens=2048, request_timeout_s=30.0))
        assert services.llm is model and conversation.agent.llm is model
        assert (model.model, model.limits) == ("m", (2048, 30.0))
    finally:
        await services.aclose()


async def test_the_demo_model_is_told_edited_limits_too_and_stays(no_servers: Path) -> None:
    """Every provider takes ``set_limits`` (the port declares it): the demo ignores them."""
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        model = services.llm
        assert model.is_demo
        applied = services.apply_settings(replace(services.settings, max_tokens=16, request_timeout_s=5.0))
        assert applied.error is None and services.llm is model
    finally:
        await services.aclose()


async def test_the_provider_starts_with_the_wire_profile_remembered_for_its_endpoint(no_servers: Path) -> None:
    from desktop_agent.core.wire import STANDARD, STRICT

    services = await build_services(mcp_config=no_servers, tts="none")
    listener = services.listener = RecordingListener()
    try:
        remembered = replace(services.settings, base_url="http://127.0.0.1:9/v1/", model="m",
                             wire_profiles={"http://127.0.0.1:9/v1": "strict"})
        services.apply_settings(remembered)
        assert isinstance(services.llm, OpenAIProvider) and services.llm.wire_profile is STRICT

        services.apply_settings(replace(remembered, base_url="http://127.0.0.1:8/v1"))
        assert isinstance(services.llm, OpenAIProvider) and services.llm.wire_profile is STANDARD
        services.remember_wire_profile("http://127.0.0.1:8/v1", STRICT)
        assert services.settings.wire_profiles["http://127.0.0.1:8/v1"] == "strict"
        assert listener.wire_profiles == [("http://127.0.0.1:8/v1", "strict")]
    finally:
        await services.aclose()


class ClientConnectorCertificateError(Exception):
    """Stands in for aiohttp's: its text carries an ``ssl.SSLContext`` repr."""


SSL_TEXT = (
    "Cannot connect to host speech.platform.bing.com:443 ssl:<ssl.SSLContext object at 0x7f3a2c1e5b50> "
    "[SSLCertVerificationError: (1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed')]"
)


@pytest.fixture
def edge_fails_on_tls(monkeypatch: pytest.MonkeyPatch) -> None:
    """``auto`` builds an edge engine whose every stream fails a moment in
    (so concurrent segments are all inside it at once), and a fake espeak;
    no Piper voice is on this machine (the registry's joe is not found)."""
    import desktop_agent.voice.factory as factory
    from desktop_agent.voice import piper_voices

    joe = piper_voices.CATALOGUE["en_US-joe-medium"]
    monkeypatch.setitem(piper_voices.CATALOGUE, joe.name, replace(joe, package=""))

    failing = FakeCommunicate([{"type": "WordBoundary"}], error=ClientConnectorCertificateError(SSL_TEXT))

    def edge(voice: str, rate: str, volume: str, **timeouts: float) -> EdgeTTSEngine:
        return EdgeTTSEngine(voice, rate, volume, communicate_factory=FakeCommunicateFactory(failing), **timeouts)

    monkeypatch.setattr(factory, "EdgeTTSEngine", edge)
    monkeypatch.setattr(factory, "EspeakEngine", lambda **_kw: FakeTTS(name="espeak"))


async def test_the_online_voice_s_fallback_is_one_translated_line_per_session_and_its_reason_is_logged(
    no_servers: Path, edge_fails_on_tls: None, caplog: pytest.LogCaptureFixture
) -> None:
    services = await build_services(mcp_config=no_servers, tts="auto")
    listener = services.listener = RecordingListener()
    told = listener.speech_notices
    try:
        engines = []
        for turn in range(3):  # three turns of four concurrent segments each
            bus = SessionMessageBus(f"s{turn}")
            reader = BusReader(bus)
            speech = services.speech_factory(bus)
            assert speech is not None
            for segment in range(1, 5):
                speech.submit(segment, f"Turn {turn}, sentence {segment}.")
            async with asyncio.timeout(5):
                await speech.drain()
            engines += [item.message.engine for item in reader.items if isinstance(item.message, AudioMessage)]
            if turn == 1:  # a settings change makes a new engine: still nothing more to say
                engine = services.tts
                services.apply_settings(replace(services.settings, voice="en-GB-SoniaNeural"))
                assert services.tts is not engine
    finally:
        await services.aclose()

    assert engines == ["espeak"] * 12
    assert told == ["speech_offline_fallback"]
    assert [text_in("en", kind) for kind in told] == ["Online voice unavailable — using the offline voice (espeak-ng)"]
    assert [text_in("zh", kind) for kind in told] == ["在线语音不可用 —— 改用离线语音（espeak-ng）"]
    # The reason is for the log, whole enough to diagnose.
    assert f"ClientConnectorCertificateError: {SSL_TEXT}" in caplog.text


async def test_the_window_starts_mcp_in_the_background_and_asks_before_each_turn(tmp_path: Path) -> None:
    import asyncio
    import json

    from desktop_agent.mcp_engine import Readiness
    from desktop_agent.testing.mcp_servers import SILENT_CODE, silent_entry
    from desktop_agent.testing.procs import live_processes

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"silent": silent_entry()}}))
    services = await build_services(mcp_config=path, tts="none", start_mcp=False)
    listener = services.listener = RecordingListener()
    seen, starting = listener.statuses, listener.heard
    try:
        assert services.before_turn() == Readiness()  # nothing started yet
        services.start_mcp_in_background()
        assert services.before_turn() == Readiness(starting=("silent",))
        async with asyncio.timeout(10):
            await starting.wait()
        assert services.before_turn() == Readiness(starting=("silent",))
        assert not services.retry_mcp("silent")  # it has not failed
    finally:
        await services.aclose()
    assert [s.state for s in seen] == ["starting", "stopped"]
    assert live_processes(SILENT_CODE) == []


async def test_an_mcp_tool_hidden_by_a_built_in_one_later_is_said_once(tmp_path: Path) -> None:
    import asyncio
    import json

    from desktop_agent.core.tool_context import BusToolContext
    from desktop_agent.testing.bus_reader import RecordingBus
    from desktop_agent.testing.mcp_servers import gated_entry

    gate = tmp_path / "gate"
    gate.touch()
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"gated": gated_entry(gate)}}))
    listener = RecordingListener()
    notices = listener.notices
    services = await build_services(mcp_config=path, tts="none", listener=listener)
    try:
        routed = services.router.lookup("add_tool")
        assert routed is not None and services.startup_warnings == []
        ctx = BusToolContext(RecordingBus("s"), "call-1", "conv-1")
        await routed.run({"name": "run_command"}, ctx)
        async with asyncio.timeout(10):
            while not notices:  # statuses are heard too
                listener.heard.clear()
                await listener.heard.wait()
        await routed.run({"name": "another"}, ctx)  # the list changes again; nothing new to say
    finally:
        await services.aclose()
    assert notices == ["tool 'run_command' from MCP server 'gated' is hidden by a tool of the same name"]


async def test_the_stored_key_is_read_only_for_a_real_model_and_then_kept_out_of_tool_output(
    no_servers: Path,
) -> None:
    # The demo model never reads the key (the keyring loads only then, so
    # an idle window stays light); once a real model uses it, tools cannot
    # repeat it (the key is redacted from their output).
    from desktop_agent.storage import secrets

    stored = "sk-stored-0123456789"
    secrets.set_api_key(stored)
    services = await build_services(mcp_config=no_servers, tts="none")
    try:
        redactor = services.router.redactor
        assert isinstance(services.llm, DemoModel) and redactor is not None
        assert redactor(f"key={stored}") == f"key={stored}"  # not read: nothing sends it anywhere
        applied = services.apply_settings(replace(services.settings, base_url="http://127.0.0.1:9/v1", model="m"))
        assert applied.error is None and isinstance(services.llm, OpenAIProvider)
        assert redactor(f"key={stored}") == "key=[redacted]"
    finally:
        await services.aclose()
        secrets.set_api_key(None)


async def test_the_key_is_read_once_for_the_model_and_the_openai_recogniser(
    no_servers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_agent.app_speech import speech_recognizers
    from desktop_agent.storage import secrets

    reads: list[int] = []

    def get_api_key() -> str:
        reads.append(1)
        return "sk-once-0123456789"

    monkeypatch.setattr(secrets, "get_api_key", get_api_key)
    services = await build_services(mcp_config=no_servers, tts="none", base_url="http://127.0.0.1:9/v1", model="m")
    try:
        stt = replace(services.settings, stt_engine="openai", stt_base_url="http://127.0.0.1:9/v1")
        dictation, _answers, note = speech_recognizers(stt, services.read_key)
        assert dictation is not None and note is None
        assert len(reads) == 1  # the endpoint, the redactor and the recogniser share one read
        services.apply_settings(services.settings, key_changed=True)
        speech_recognizers(stt, services.read_key)
        assert len(reads) == 2  # a new key is read again, once
    finally:
        await services.aclose()

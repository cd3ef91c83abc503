"""The window's words in English and Chinese, picked by the system locale.

A small in-code table instead of Qt's ``.ts``/``.qm`` machinery: the UI has a
few dozen strings, and a table keeps every translation next to its English
original, testable without Qt. ``DESKTOP_AGENT_LANG`` (``en``/``zh``)
overrides the locale, which screenshots and tests use.
"""

from __future__ import annotations

import os
from typing import Literal

Language = Literal["en", "zh"]

_TEXTS: dict[str, tuple[str, str]] = {
    # window
    "app_title": ("Desktop Agent", "桌面助手"),
    "send": ("Send", "发送"),
    "interrupt": ("Interrupt", "中断"),
    "interrupting": ("Interrupting…", "中断中…"),
    "input_placeholder": (
        "Type a message — Enter sends, Shift+Enter starts a new line",
        "输入消息 —— Enter 发送，Shift+Enter 换行",
    ),
    "starting": ("Starting…", "正在启动…"),
    "you": ("You", "你"),
    "assistant": ("Assistant", "助手"),
    "settings_action": ("Settings…", "设置…"),
    "new_chat": ("New conversation (Ctrl+N)", "新对话（Ctrl+N）"),
    "restored": ("Earlier conversation restored", "已恢复上次的对话"),
    "earlier_hidden": ("{count} earlier messages are kept but not shown", "更早的 {count} 条消息已保留但未显示"),
    "tool_line": ("Tool {name}: {summary}", "工具 {name}：{summary}"),
    "mute": ("Mute", "静音"),
    "unmute": ("Unmute", "取消静音"),
    "volume": ("Volume", "音量"),
    # speech notices: the keys are voice.SpeechNotice kinds, and the window's no-device line
    "speech_offline_fallback": (
        "Online voice unavailable — using the offline voice (espeak-ng)",
        "在线语音不可用 —— 改用离线语音（espeak-ng）",
    ),
    "no_audio_output": (
        "No audio output device — replies are shown but not spoken",
        "没有音频输出设备 —— 回复只显示，不朗读",
    ),
    # the system messages of seed 000 §4; the seed's "session" and
    # "conversation" interrupted are one wording (one thing happened)
    "sys_interrupted": ("Conversation interrupted", "已中断对话"),
    "sys_approval_timeout": (
        "Tool approval timed out; the call was rejected and the conversation interrupted",
        "工具审批超时，已自动拒绝调用并中断对话",
    ),
    "sys_approval_lost": (
        "That approval was no longer pending; the waiting tool calls were invalidated",
        "该审批已失效，等待中的工具调用已作废",
    ),
    "warning": ("Warning", "警告"),
    "error": ("Error", "错误"),
    # tool cards (DESIGN §7)
    "card_preparing": ("{name} — preparing…", "{name} 准备中…"),
    "card_approval": ("{name} needs your approval", "{name} 需要授权"),
    "card_sub_approval": ("Sub-agent wants to run {name}", "子代理想要运行 {name}"),
    "card_executing": ("{name} — running…", "{name} 执行中…"),
    "card_done": ("{name}", "{name}"),
    "card_failed": ("{name} — failed", "{name} 出错"),
    "card_rejected": ("{name} — rejected", "{name} 已拒绝"),
    "card_not_run": ("{name} — not run", "{name} 未执行"),
    "card_stopped": ("{name} — stopped", "{name} 已停止"),
    "card_not_answered": ("{name} — not answered", "{name} 未回答"),
    "card_running_for": ("running · {elapsed}", "运行中 · {elapsed}"),
    "card_from_server": ("from {server}", "来自 {server}"),
    "outcome_rejected": ("Rejected by you", "已被你拒绝"),
    "outcome_timed_out": ("No answer in {seconds} s — not run", "{seconds} 秒内未回答 —— 未执行"),
    "outcome_timed_out_unknown": ("No answer in time — not run", "未及时回答 —— 未执行"),
    "outcome_no_answer": ("No answer in {seconds} s", "{seconds} 秒内未回答"),
    "outcome_no_answer_unknown": ("No answer in time", "未及时回答"),
    "outcome_step_timed_out": (
        "Stopped: a step got no answer in {seconds} s",
        "已停止：有一步在 {seconds} 秒内未获回答",
    ),
    "outcome_step_timed_out_unknown": ("Stopped: a step got no answer in time", "已停止：有一步未及时获得回答"),
    "sys_speech_stopped": ("Speech stopped", "已停止朗读"),
    # speech input (ui/mic_button.py, ui/voice_input.py)
    "mic_idle": ("Hold to talk (or Space in an empty box; Esc cancels)", "按住说话（输入框为空时也可按住空格；Esc 取消）"),
    "mic_listening": ("Listening… release to finish, Esc cancels", "正在听…松开结束，Esc 取消"),
    "mic_recognising": ("Recognising speech…", "正在识别语音…"),
    "mic_unavailable": ("Speech input unavailable: {reason}", "语音输入不可用：{reason}"),
    "mic_none": ("no microphone found", "未找到麦克风"),
    "mic_busy": ("the microphone “{device}” could not be opened (in use by another program?)", "无法打开麦克风“{device}”（是否被其他程序占用？）"),
    "mic_format": ("the microphone “{device}” offers no usable sound format", "麦克风“{device}”没有可用的声音格式"),
    "mic_no_recognizer": ("no speech recogniser is set up (Settings)", "尚未设置语音识别引擎（设置）"),
    "mic_heard_nothing": ("No speech was recognised", "没有识别到语音"),
    "mic_stt_error": ("Speech recognition failed: {error}", "语音识别失败：{error}"),
    "hands_free": ("Hands-free: listen for speech and send each sentence", "免提：自动聆听并发送每一句话"),
    "hands_free_short": ("Hands-free", "免提"),
    "voice_approval_ask": ("{tool} needs your approval: say yes or no", "{tool} 需要你的批准：请说可以或不行"),
    "voice_approval_again": ("Please say yes or no", "请说可以或不行"),
    "voice_approval_unclear": ("Not understood; answer on the card", "没有听懂，请在卡片上回答"),
    "approved_by_voice": ("approved by voice", "已通过语音批准"),
    "rejected_by_voice": ("rejected by voice", "已通过语音拒绝"),
    "voice_send_at_once": ("Send recognised speech at once", "识别后立即发送"),
    "settings_speech_input": ("Speech input", "语音输入"),
    "settings_stt": ("Speech recognition", "语音识别"),
    "stt_engine_pocketsphinx": ("Offline, English (pocketsphinx)", "离线，英语（pocketsphinx）"),
    "stt_engine_openai": ("Transcription endpoint (OpenAI-compatible)", "转写接口（兼容 OpenAI）"),
    "stt_engine_sensevoice": ("Offline, Chinese and English (SenseVoice)", "离线，中文和英语（SenseVoice）"),
    "stt_note_pocketsphinx": ("Works with no download; English only, best for short clear commands.",
                              "无需下载；仅英语，适合简短清晰的指令。"),
    "stt_note_openai": ("Sends each utterance to /audio/transcriptions (whisper-1, a local whisper server…). Empty endpoint: the chat endpoint.",
                        "将每段语音发送到 /audio/transcriptions（whisper-1、本地 whisper 服务等）。接口留空：使用聊天接口。"),
    "stt_note_sensevoice": ("Runs on this computer. The model (240 MB) is downloaded once, when first needed; its progress is shown.",
                            "在本机运行。模型（240 MB）在首次需要时下载一次，并显示进度。"),
    "stt_endpoint": ("Endpoint", "接口地址"),
    "stt_endpoint_hint": ("empty: the chat endpoint", "留空：使用聊天接口"),
    "stt_model": ("Model", "模型"),
    "stt_mirror": ("Download from", "下载地址"),
    "stt_mirror_hint": ("empty: Hugging Face; or a mirror such as https://hf-mirror.com/…", "留空：Hugging Face；或镜像，例如 https://hf-mirror.com/…"),
    "stt_folder": ("Model folder", "模型文件夹"),
    "stt_folder_hint": ("empty: download; or a folder with model.int8.onnx and tokens.txt", "留空：自动下载；或包含 model.int8.onnx 和 tokens.txt 的文件夹"),
    "settings_bad_address": ("{field}: the address must start with http:// or https:// (got “{value}”)",
                             "{field}：地址必须以 http:// 或 https:// 开头（当前为“{value}”）"),
    "settings_barge_in": ("Speaking interrupts the assistant (barge-in)", "说话打断助手（插话）"),
    "barge_in": (
        "Interrupt the assistant by speaking (needs a headset: there is no echo cancellation, so its own voice would interrupt it)",
        "说话即可打断助手（需要耳机：没有回声消除，助手自己的声音也会打断它）",
    ),
    # the speech model's first-use download (ui/model_download.py)
    "model_downloading": ("Downloading the speech model: {details}", "正在下载语音识别模型：{details}"),
    "model_download_percent": ("{n} %", "{n}%"),
    "model_download_size": ("{done} of {total} MB", "{done}/{total} MB"),
    "model_download_eta": ("about {eta} left", "约 {eta}"),
    "model_download_failed": ("Speech model download failed: {reason}", "语音识别模型下载失败：{reason}"),
    "model_download_cancel": ("Cancel", "取消"),
    "model_download_close": ("Close", "关闭"),
    "sys_form_timeout": (
        "Nobody answered the form in time; the conversation was interrupted",
        "表单未及时回答，已中断对话",
    ),
    "outcome_stopped": ("Stopped by you", "已被你停止"),
    "outcome_not_run": ("Not run: the turn was interrupted", "未执行：本轮已中断"),
    "outcome_ended": ("Stopped: the turn ended with an error", "已停止：本轮因错误结束"),
    "outcome_not_answered": ("Not answered", "未回答"),
    "output": ("Output", "输出"),
    "output_more": ("More lines", "更多行"),
    "output_less": ("Fewer lines", "更少行"),
    "output_cut": ("[… {n} earlier characters not kept …]", "[… 更早的 {n} 个字符未保留 …]"),
    "approve": ("Approve", "批准"),
    "reject": ("Reject", "拒绝"),
    "always_allow": ("Always allow this tool", "自动批准此工具"),
    "auto_approved": ("always allowed", "已自动批准"),
    "arguments": ("Arguments", "参数"),
    "result": ("Result", "结果"),
    "partial_result": ("Partial result", "部分结果"),
    "details_show": ("Details", "详情"),
    "progress_eta": ("about {eta} left", "预计还需 {eta}"),
    "seconds": ("{n} s", "{n} 秒"),
    "minutes": ("{n} min", "{n} 分钟"),
    "hours": ("{n} h {m} min", "{n} 小时 {m} 分钟"),
    "hours_only": ("{n} h", "{n} 小时"),
    "minutes_seconds": ("{n} min {s} s", "{n} 分 {s} 秒"),
    # forms and cards
    "form_title": ("A question for you", "需要你的回答"),
    "form_submit": ("Submit", "提交"),
    "form_cancel": ("Cancel", "取消"),
    "form_submitted": ("Answers sent", "已提交"),
    "form_cancelled": ("Not answered", "未回答"),
    "form_required": ("Please answer “{question}”", "请回答“{question}”"),
    "form_invalid": ("“{question}”: {problem}", "“{question}”：{problem}"),
    "form_closed": ("Form closed", "表单已关闭"),
    "form_optional": ("(optional)", "（可选）"),
    "form_text_placeholder": ("Your answer", "你的回答"),
    "card_image_missing": ("(image not found)", "（找不到图片）"),
    # status bar
    "status_model": ("Model: {model}", "模型：{model}"),
    "status_demo": (
        "Demo model (offline) — open Settings to connect a real one",
        "演示模型（离线）—— 在设置中连接真实模型",
    ),
    "status_mcp": ("MCP {name}: {state}", "MCP {name}：{state}"),
    "status_mcp_tools": ("{state}, {count} tools", "{state}，{count} 个工具"),
    "status_mcp_one_tool": ("{state}, 1 tool", "{state}，1 个工具"),
    "mcp_state_starting": ("starting", "启动中"),
    "mcp_state_ready": ("ready", "就绪"),
    "mcp_state_failed": ("failed", "启动失败"),
    "mcp_state_stopped": ("stopped", "已停止"),
    "mcp_state_disabled": ("disabled", "已停用"),
    "mcp_tip_starting": ("Starting — its tools join once it is ready", "启动中 —— 就绪后即可使用它的工具"),
    "mcp_no_tools": ("No tools", "没有工具"),
    "mcp_retry": ("Retry", "重试"),
    # one system line when a turn starts before every MCP server is ready
    "mcp_not_ready": (
        "Answering without the tools of MCP {names} — not ready yet",
        "本次回复不使用 MCP {names} 的工具 —— 尚未就绪",
    ),
    "mcp_retrying": ("{name} (failed, retrying)", "{name}（启动失败，正在重试）"),
    "list_separator": (", ", "、"),
    # tray
    "tray_approval": ("{name} is waiting for your approval", "{name} 正在等待你的批准"),
    "tray_form": ("A form is waiting for your answers", "有一个表单等待你填写"),
    # settings dialog
    "settings_title": ("Settings", "设置"),
    "settings_endpoint": ("Endpoint (base URL)", "接口地址（base URL）"),
    "settings_endpoint_hint": ("empty: the offline demo model", "留空：使用离线演示模型"),
    "settings_model": ("Model", "模型"),
    "settings_api_key": ("API key", "API 密钥"),
    "settings_api_key_set": ("a key is stored — type to replace it", "已保存密钥 —— 输入以替换"),
    "settings_api_key_clear": ("Forget the stored key", "删除已保存的密钥"),
    "settings_tts": ("Speech engine", "语音引擎"),
    "settings_voice": ("Voice", "音色"),
    "settings_voice_hint": ("empty: chosen by the text's language", "留空：按文本语言自动选择"),
    "settings_speak_all": ("Speak every reply", "朗读每一条回复"),
    "settings_mcp_file": ("MCP servers file", "MCP 服务器配置文件"),
    "settings_browse": ("Browse…", "浏览…"),
    "settings_always_allow": ("Always-allowed tools", "自动批准的工具"),
    "settings_revoke": ("Revoke", "撤销"),
    "settings_none_allowed": ("(none)", "（无）"),
    "allow_builtin": ("{tool} (built-in)", "{tool}（内置）"),
    "allow_server": ("{tool} — from {server}", "{tool} —— 来自 {server}"),
    "allow_unknown": (
        "{tool} (server not known yet: not approved automatically)",
        "{tool}（服务器未知：暂不自动批准）",
    ),
    "settings_max_steps": ("Max agent steps", "最大 Agent 步数"),
    "settings_approval_timeout": ("Approval timeout", "审批超时"),
    "settings_restart_note": (
        "Endpoint, model, key and speech apply from the next reply; MCP server changes after a restart.",
        "接口、模型、密钥和语音从下一次回复起生效；MCP 服务器的修改在重启后生效。",
    ),
    "settings_saved_error": ("Could not save the settings: {error}", "无法保存设置：{error}"),
    "settings_tab_general": ("General", "常规"),
    "settings_tab_skills": ("Skills", "技能"),
    # settings → skills (DESIGN §9)
    "skills_intro": (
        "Checked skills are offered to the model, which reads one with get_skill before following it. "
        "Start a message with /name to use a skill directly. Changes apply from the next message.",
        "勾选的技能会提供给模型，模型在使用某个技能前会先用 get_skill 读取它。"
        "以 /技能名 开头发送消息可直接使用该技能。修改从下一条消息起生效。",
    ),
    "skills_source_bundled": ("bundled", "内置"),
    "skills_source_user": ("user", "用户"),
    "skills_broken": ("Not loaded — {problem}", "未加载 —— {problem}"),
    "skills_none": ("No skills found.", "没有找到技能。"),
    "skills_user_folder": ("Your own skills go in {folder}", "你自己的技能放在 {folder}"),
    # Settings → Hooks (DESIGN §9)
    "hooks_tab": ("Hooks", "钩子"),
    "hooks_intro": (
        "Prompts added to the conversation at fixed points of a turn; never shown in the chat. "
        "Your own go in {folder} (read at start-up).",
        "在回合的固定时刻加入对话的提示词，不会显示在聊天中。自定义钩子放在 {folder}（启动时读取）。",
    ),
    "hooks_none": ("No hooks found.", "没有找到钩子。"),
    "hooks_detail": ("{checkpoint} · {role} · {lifetime} · {source}", "{checkpoint} · {role} · {lifetime} · {source}"),
    "hooks_cp_turn_start": ("at the start of a turn", "回合开始时"),
    "hooks_cp_before_tool_round": ("before each tool round", "每轮工具调用前"),
    "hooks_cp_after_tool_result": ("after each tool round's results", "每轮工具结果之后"),
    "hooks_cp_after_rejection": ("after a rejected or stopped call", "工具调用被拒绝或中断后"),
    "hooks_cp_turn_end": ("at the end of a turn", "回合结束时"),
    "hooks_role_system": ("system message", "系统消息"),
    "hooks_role_user": ("user message", "用户消息"),
    "hooks_persistent": ("kept in the conversation", "保留在对话中"),
    "hooks_once": ("sent once, then removed", "只发送一次"),
    "hooks_source_bundled": ("bundled", "内置"),
    "hooks_source_user": ("yours", "自定义"),
    "hooks_broken": ("Not usable: {problem}", "无法使用：{problem}"),
}

_current: Language = "en"


def language_for_locale(name: str) -> Language:
    """``zh_CN``, ``zh-Hant``, ``zh`` → Chinese; anything else → English."""
    return "zh" if name.lower().replace("-", "_").startswith("zh") else "en"


def choose_language(system_locale: str) -> Language:
    """The override in ``DESKTOP_AGENT_LANG`` if valid, else by locale."""
    forced = os.environ.get("DESKTOP_AGENT_LANG", "").strip().lower()
    if forced in ("en", "zh"):
        return "zh" if forced == "zh" else "en"
    return language_for_locale(system_locale)


def set_language(language: Language) -> None:
    global _current
    if language not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', got {language!r}")
    _current = language


def language() -> Language:
    return _current


def tr(key: str, **fields: object) -> str:
    """The text for ``key`` in the current language, formatted with ``fields``."""
    return text_in(_current, key, **fields)


def text_in(language: Language, key: str, **fields: object) -> str:
    """The text for ``key`` in ``language`` (the terminal speaks English)."""
    try:
        en, zh = _TEXTS[key]
    except KeyError:
        raise KeyError(f"no UI text named {key!r}") from None
    text = zh if language == "zh" else en
    return text.format(**fields) if fields else text


INTERRUPTED_TEXT: dict[str, str | None] = {
    "user": "sys_interrupted",
    "rejected": "sys_interrupted",
    "approval_timeout": "sys_approval_timeout",
    "error": None,  # the error notice already said what happened
}
"""The system message for each ``interrupted.reason``: the one table the
window and the terminal read."""


def keys() -> frozenset[str]:
    return frozenset(_TEXTS)

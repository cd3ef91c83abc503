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
    # conversations (issue 14)
    "conv_search_placeholder": ("Search all conversations", "搜索所有对话"),
    "conv_heading": ("Conversations", "对话"),
    "conv_none": ("No saved conversations yet", "还没有保存的对话"),
    "conv_results": ("{count} matching messages", "{count} 条匹配的消息"),
    "conv_no_results": ("No message matches", "没有匹配的消息"),
    "conv_untitled": ("(untitled)", "（无标题）"),
    "conv_rename": ("Rename…", "重命名…"),
    "conv_rename_label": ("Title:", "标题："),
    "conv_delete": ("Delete", "删除"),
    "conv_deleted": ("Deleted “{title}”", "已删除“{title}”"),
    "conv_undo": ("Undo", "撤销"),
    # sidebar: undo more than one deletion (ui/conversations/sidebar.py, QA)
    "conv_undo_count": ("Undo ({count})", "撤销（{count}）"),
    "conv_undo_tip": (
        "Brings back “{title}”. Deleted conversations are removed for good when Desktop Agent next starts.",
        "恢复“{title}”。已删除的对话会在桌面助手下次启动时被彻底移除。",
    ),
    "conv_export": ("Export conversation", "导出对话"),
    "conv_export_md": ("Export as Markdown…", "导出为 Markdown…"),
    "conv_export_json": ("Export as JSON…", "导出为 JSON…"),
    "conv_import": ("Import…", "导入…"),
    "conv_import_failed": ("Could not import {name}: {reason}", "无法导入 {name}：{reason}"),
    # conversations: the rename, export and import dialogs and their outcome
    "conv_rename_title": ("Rename conversation", "重命名对话"),
    "conv_import_title": ("Import a conversation", "导入对话"),
    "conv_save": ("Save", "保存"),
    "conv_open": ("Open", "打开"),
    "conv_file_name": ("File name:", "文件名："),
    "conv_file_type": ("Files of type:", "文件类型："),
    "conv_markdown_files": ("Markdown (*.md)", "Markdown 文件 (*.md)"),
    "conv_json_files": ("Conversation JSON (*.json)", "对话 JSON 文件 (*.json)"),
    "conv_exported": ("Saved {name}", "已保存 {name}"),
    "conv_export_failed": ("Could not save {name}: {error}", "无法保存 {name}：{error}"),
    "conv_export_gone": ("That conversation no longer exists", "该对话已不存在"),
    "conv_import_unreadable": ("it cannot be read ({error})", "文件无法读取（{error}）"),
    "conv_import_not_text": ("it is not UTF-8 text", "文件不是 UTF-8 文本"),
    "conv_import_not_json": ("it is not JSON", "文件不是 JSON 格式"),
    "conv_import_no_messages": ("it holds no message list", "文件中没有消息列表"),
    "conv_import_bad_messages": ("its message list holds entries that are not messages", "消息列表中有不是消息的条目"),
    "conv_import_not_unicode": ("{where} holds text that is not valid Unicode (a lone surrogate)",
                                "{where} 含有无效的 Unicode 文本（孤立的代理字符）"),
    "conv_import_too_deep": ("it is nested more than {limit} levels deep", "嵌套超过 {limit} 层"),
    "conv_import_too_large": ("it is larger than {limit}", "文件超过 {limit}"),
    "conv_import_not_regular": ("it is not a regular file", "它不是普通文件"),
    "conv_import_read_only": ("saved conversations cannot be changed now, so nothing was imported",
                              "已保存的对话现在无法修改，因此没有导入任何内容"),
    "conv_import_why_missing": ("{where} is missing", "缺少 {where}"),
    "conv_import_why_string_type": ("{where} must be text", "{where} 必须是文本"),
    "conv_import_why_string_too_short": ("{where} must not be empty", "{where} 不能为空"),
    "conv_import_why_list_type": ("{where} must be a list", "{where} 必须是列表"),
    "conv_import_why_dict_type": ("{where} must be an object", "{where} 必须是对象"),
    "conv_import_why_model_type": ("{where} must be an object", "{where} 必须是对象"),
    "conv_import_why_model_attributes_type": ("{where} must be an object", "{where} 必须是对象"),
    "conv_import_why_literal_error": ("{where} is not one of the values allowed", "{where} 不是允许的取值"),
    "conv_import_why_invalid": ("{where} is not valid", "{where} 无效"),
    "conv_busy": (
        "A reply is still running: interrupt it or wait before switching conversations.",
        "回复仍在进行：请先中断或等待它结束，再切换对话。",
    ),
    "conv_sidebar": ("Conversations (Ctrl+B)", "对话列表（Ctrl+B）"),
    "conv_show_earlier": ("Show earlier messages", "显示更早的消息"),
    # a search hit's window: what follows it is drawn when asked (issue 14)
    "conv_show_later": ("Show {count} later messages", "显示之后的 {count} 条消息"),
    "conv_drawing_later": ("Drawing {count} later messages…", "正在显示之后的 {count} 条消息…"),
    # first run and chat (issue 13)
    "welcome_title": ("Hello! I'm your desktop assistant.", "你好！我是你的桌面助手。"),
    "welcome_body": (
        "I answer in text and speech, and I can use tools on this computer. "
        "Anything that changes something waits for your approval.",
        "我用文字和语音回答，也能使用这台电脑上的工具。会改动东西的操作都要先经过你的批准。",
    ),
    "welcome_demo": (
        "You are talking to the offline demo model: it follows a script to show how approvals, "
        "cards, forms and speech work. Connect a real model for real answers.",
        "你正在和离线演示模型对话：它按脚本演示审批、卡片、表单和语音如何工作。连接真实模型即可获得真正的回答。",
    ),
    "welcome_connect": ("Connect a model", "连接模型"),
    "welcome_connect_tip": (
        "Open Settings and enter an OpenAI-compatible endpoint, model and API key",
        "打开设置，填写兼容 OpenAI 的接口地址、模型和 API 密钥",
    ),
    "welcome_try": ("Try one of these:", "试试这些："),
    "welcome_prompt_tour": ("Take the tour", "演示"),
    "welcome_prompt_time": ("What time is it?", "现在几点？"),
    "welcome_prompt_date": ("Run `date`", "运行 `date`"),
    "welcome_prompt_ask": ("Ask me something", "问我一些问题"),
    "code_plain": ("code", "代码"),
    "code_copy": ("Copy", "复制"),
    "code_copy_tip": ("Copy the code", "复制代码"),
    "copied": ("Copied", "已复制"),
    "msg_copy": ("Copy", "复制"),
    "msg_copy_tip": ("Copy the message's text", "复制这条消息的文字"),
    "msg_regenerate": ("Regenerate", "重新生成"),
    "msg_regenerate_tip": ("Ask your last message again for a new reply", "重新发送你的上一条消息，生成新的回复"),
    "msg_edit": ("Edit", "编辑"),
    "msg_edit_tip": (
        "Put your last message back in the box; sending it replaces the last exchange",
        "把你的上一条消息放回输入框；发送后替换上一轮对话",
    ),
    "msg_cancel_edit": ("Cancel edit", "取消编辑"),
    "msg_editing": (
        "Editing your last message: Enter sends it in place of the last exchange, Esc cancels",
        "正在编辑上一条消息：Enter 发送并替换上一轮对话，Esc 取消",
    ),
    # speech notices: the keys are voice.SpeechNotice kinds, and the window's no-device line
    "speech_offline_fallback": (
        "Online voice unavailable — using the offline voice (espeak-ng)",
        "在线语音不可用 —— 改用离线语音（espeak-ng）",
    ),
    "speech_offline_fallback_piper": (
        "Online voice unavailable — using the offline voice (Piper)",
        "在线语音不可用 —— 改用离线语音（Piper）",
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
    # tool cards (contracts §7)
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
    # speech input (ui/voice/mic_button.py, ui/voice/speech_input.py)
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
    # audio devices (ui/voice/device_glue.py, ui/settings/voice_page.py, app.deferred_sink)
    "mic_lost_kept": (
        "The microphone “{device}” was disconnected — what you said until then is being recognised",
        "麦克风“{device}”已断开 —— 断开前说的话正在识别",
    ),
    "mic_lost": ("The microphone “{device}” was disconnected", "麦克风“{device}”已断开"),
    "audio_output_back": (
        "Speaker found (“{device}”) — replies are spoken again",
        "已找到扬声器（“{device}”）—— 回复将重新朗读",
    ),
    "settings_mic_device": ("Microphone", "麦克风"),
    "settings_speaker_device": ("Speaker", "扬声器"),
    "device_system_default": ("System default", "系统默认"),
    "device_system_default_named": ("System default ({device})", "系统默认（{device}）"),
    "device_not_connected": ("{device} (not connected)", "{device}（未连接）"),
    "settings_no_microphone": ("No microphone is connected", "未连接麦克风"),
    "settings_no_speaker": ("No speaker is connected", "未连接扬声器"),
    "settings_devices_note": (
        "Used from the next utterance or reply. A chosen device that is unplugged is used again when it "
        "comes back; the system default meanwhile.",
        "从下一句话或下一条回复起生效。所选设备拔出后，重新连接时会再次使用；其间使用系统默认设备。",
    ),
    "voice_approval_ask": ("{tool} needs your approval: say yes or no", "{tool} 需要你的批准：请说可以或不行"),
    "voice_approval_again": ("Please say yes or no", "请说可以或不行"),
    "voice_approval_unclear": ("Not understood; answer on the card", "没有听懂，请在卡片上回答"),
    # the voice interaction (core/voice_machine.py, ui/voice/speech_input.py, ui/chat/send_countdown.py)
    "voice_hint": (
        "{tool} needs your approval — say “yes” or “no”, or use the buttons",
        "{tool} 需要你的批准 —— 请说“可以”或“不行”，或点击按钮",
    ),
    "voice_hint_again": (
        "Not understood — say “yes” or “no” once more, or use the buttons",
        "没有听懂 —— 请再说一次“可以”或“不行”，或点击按钮",
    ),
    "voice_barge_unclear": ("Not understood — nothing was sent", "没有听懂 —— 没有发送任何内容"),
    "voice_countdown": (
        "Sending in {seconds} s — press any key or click the text to edit it",
        "{seconds} 秒后发送 —— 按任意键或点击文字即可编辑",
    ),
    "voice_send_mode_at_once": ("Send recognised speech at once", "识别后立即发送"),
    "voice_send_mode_countdown": (
        "Show recognised speech, send it after 2 s (any key lets you edit)",
        "先显示识别结果，2 秒后发送（按任意键可编辑）",
    ),
    "voice_send_mode_review": ("Show recognised speech; I send it myself", "先显示识别结果，由我自己发送"),
    "barge_in_words": (" words at least", " 个字词以上"),
    "barge_in_words_tip": (
        "What you say over the assistant is sent only with at least this many words (a Chinese character "
        "counts as one); fillers such as “um” and coughs never are",
        "在助手说话时你说的话，至少有这么多个词才会发送（一个汉字算一个）；“嗯”之类的语气词和咳嗽永远不会发送",
    ),
    "barge_in_gated": (
        "Interrupt the assistant by speaking (hands-free). Its own voice is ignored: while it speaks, speak "
        "louder than it sounds at the microphone — a headset works best",
        "说话即可打断助手（免提时）。助手自己的声音会被忽略：它说话时，你的声音要比麦克风听到的它的声音更大 —— 使用耳机效果最好",
    ),
    "approved_by_voice": ("approved by voice", "已通过语音批准"),
    "rejected_by_voice": ("rejected by voice", "已通过语音拒绝"),
    "settings_speech_input": ("Speech input", "语音输入"),
    "settings_stt": ("Speech recognition", "语音识别"),
    "stt_engine_pocketsphinx": ("Offline, English (pocketsphinx)", "离线，英语（pocketsphinx）"),
    "stt_engine_openai": ("Transcription endpoint (OpenAI-compatible)", "转写接口（兼容 OpenAI）"),
    "stt_engine_sensevoice": ("Offline, Chinese and English (SenseVoice)", "离线，中文和英语（SenseVoice）"),
    "stt_engine_auto": ("Automatic (the best offline model on this computer)", "自动（使用本机上最好的离线模型）"),
    "stt_engine_whisper": ("Offline, Chinese and English (Whisper)", "离线，中文和英语（Whisper）"),
    "stt_note_auto": ("Whisper when its model is on this computer, else SenseVoice when its model is, else pocketsphinx (English only).",
                      "本机有 Whisper 模型时使用 Whisper，否则有 SenseVoice 模型时使用 SenseVoice，否则使用 pocketsphinx（仅英语）。"),
    "stt_note_whisper": ("Runs on this computer; Chinese comes out in simplified characters. The model (base 141 MB, small 464 MB) is downloaded once, when first needed; its progress is shown.",
                         "在本机运行，中文输出为简体字。模型（base 141 MB，small 464 MB）在首次需要时下载一次，并显示进度。"),
    "stt_note_pocketsphinx": ("Works with no download; English only, best for short clear commands.",
                              "无需下载；仅英语，适合简短清晰的指令。"),
    "stt_note_openai": ("Sends each utterance to /audio/transcriptions (whisper-1, a local whisper server…). Empty endpoint: the chat endpoint.",
                        "将每段语音发送到 /audio/transcriptions（whisper-1、本地 whisper 服务等）。接口留空：使用聊天接口。"),
    "stt_note_sensevoice": ("Runs on this computer. The model (240 MB) is downloaded once, when first needed; its progress is shown.",
                            "在本机运行。模型（240 MB）在首次需要时下载一次，并显示进度。"),
    "stt_endpoint": ("Endpoint", "接口地址"),
    "stt_endpoint_hint": ("empty: the chat endpoint", "留空：使用聊天接口"),
    "stt_model": ("Model", "模型"),
    "stt_mirror": ("Custom address", "自定义地址"),
    "stt_mirror_hint": ("a mirror's folder of the model, e.g. https://hf-mirror.com/…", "模型在镜像上的文件夹，例如 https://hf-mirror.com/…"),
    "stt_folder": ("Model folder", "模型文件夹"),
    "stt_folder_hint": ("empty: download; or a model folder on this computer (Whisper: model.bin, config.json…; SenseVoice: model.int8.onnx, tokens.txt)", "留空：自动下载；或本机上的模型文件夹（Whisper：model.bin、config.json…；SenseVoice：model.int8.onnx、tokens.txt）"),
    "settings_bad_address": ("{field}: the address must start with http:// or https:// (got “{value}”)",
                             "{field}：地址必须以 http:// 或 https:// 开头（当前为“{value}”）"),
    "settings_barge_in": ("Speaking interrupts the assistant (barge-in)", "说话打断助手（插话）"),
    # the speech model's first-use download (ui/voice/model_download.py)
    "model_downloading": ("Downloading the speech model: {details}", "正在下载语音识别模型：{details}"),
    "model_download_percent": ("{n} %", "{n}%"),
    "model_download_size": ("{done} of {total} MB", "{done}/{total} MB"),
    "model_download_eta": ("about {eta} left", "约 {eta}"),
    "model_download_failed": ("Speech model download failed: {reason}", "语音识别模型下载失败：{reason}"),
    "model_download_cancel": ("Cancel", "取消"),
    "model_download_close": ("Close", "关闭"),
    "model_download_retry": ("Retry", "重试"),
    "model_download_try_source": ("Try {source}", "改用{source}"),
    "model_download_failed_line": ("{reason}. What you said is kept.", "{reason}。你说的话已保留。"),
    "model_offer": (
        "Recognising Chinese and English offline needs {model}: {mb} MB from {source}, downloaded once.",
        "离线识别中文和英语需要 {model}：从{source}下载 {mb} MB，只需下载一次。",
    ),
    "model_offer_download": ("Download", "下载"),
    "model_offer_not_now": ("Not now (English only)", "暂不下载（仅英语）"),
    "mic_heard_instead": (
        "Heard with {engine} instead: {wanted} is not on this computer yet.",
        "已改用 {engine} 识别：{wanted} 尚未下载到本机。",
    ),
    "mic_held_for_model": (
        "What you said is kept and will be recognised when {wanted} has arrived.",
        "你说的话已保留，{wanted} 下载完成后会立即识别。",
    ),
    "engines_input": ("Speech recognition, offline", "离线语音识别"),
    "engines_output": ("Speech, offline", "离线语音合成"),
    "engine_ready": ("Ready", "可用"),
    "engine_needs_download": ("Needs a download of {mb} MB", "需要下载 {mb} MB"),
    "engine_downloading": ("Downloading… {percent} %", "正在下载… {percent}%"),
    "engine_failed": ("Failed: {reason}", "失败：{reason}"),
    "engine_missing": ("Not installed", "未安装"),
    "engine_download": ("Download", "下载"),
    "engine_cancel": ("Cancel", "取消"),
    "engine_retry": ("Retry", "重试"),
    "engine_delete": ("Delete", "删除"),
    "engine_delete_confirm": ("Delete? Click again", "确定删除？再点一次"),
    "engine_delete_failed": ("Could not delete it: {reason}", "无法删除：{reason}"),
    "language_zh": ("Chinese", "中文"),
    "language_en": ("English", "英语"),
    "language_ja": ("Japanese", "日语"),
    "language_ko": ("Korean", "韩语"),
    "language_yue": ("Cantonese", "粤语"),
    "stt_source": ("Download from", "下载来源"),
    "stt_whisper_model": ("Whisper model", "Whisper 模型"),
    "stt_whisper_base": ("base (141 MB, faster)", "base（141 MB，较快）"),
    "stt_whisper_small": ("small (464 MB, more accurate)", "small（464 MB，更准确）"),
    "settings_engines": ("Offline engines", "离线引擎"),
    "settings_custom_source_empty": ("Speech models: a custom download address is chosen but none is given",
                                     "语音模型：选择了自定义下载地址，但没有填写地址"),
    # why a speech model download failed (voice/stt/download_errors.py; {source} is a model_source_* text)
    "model_source_huggingface": ("Hugging Face", "Hugging Face"),
    "model_source_modelscope": ("ModelScope", "ModelScope（魔搭社区）"),
    "model_source_custom": ("the custom address", "自定义地址"),
    "model_error_no_network": ("could not download {model} from {source}: could not reach {host} (no network: the name could not be resolved)",
                               "无法从 {source} 下载 {model}：无法连接 {host}（没有网络：无法解析域名）"),
    "model_error_refused": ("could not download {model} from {source}: could not reach {host} (the connection was refused)",
                            "无法从 {source} 下载 {model}：无法连接 {host}（连接被拒绝）"),
    "model_error_unreachable": ("could not download {model} from {source}: could not reach {host} ({detail})",
                                "无法从 {source} 下载 {model}：无法连接 {host}（{detail}）"),
    "model_error_timeout": ("could not download {model} from {source}: {host} did not answer in time",
                            "无法从 {source} 下载 {model}：{host} 没有及时响应"),
    "model_error_broken": ("could not download {model} from {source}: the connection to {host} broke after {done} of {total} bytes of {file} ({detail})",
                           "无法从 {source} 下载 {model}：与 {host} 的连接在 {file} 下载到 {done}/{total} 字节时中断（{detail}）"),
    "model_error_http": ("could not download {model} from {source}: {file}: HTTP {status} from {url}",
                         "无法从 {source} 下载 {model}：{file}：{url} 返回 HTTP {status}"),
    "model_error_checksum": ("could not download {model} from {source}: {file}: checksum mismatch (the download from {url} is damaged or not this model)",
                             "无法从 {source} 下载 {model}：{file} 校验和不符（从 {url} 下载的文件已损坏，或不是这个模型）"),
    "model_error_size": ("could not download {model} from {source}: {file}: size mismatch, {url} gives {got} bytes where {expected} are expected",
                         "无法从 {source} 下载 {model}：{file} 大小不符，{url} 提供 {got} 字节，应为 {expected} 字节"),
    "model_error_no_file": ("could not download {model} from {source}: the model is not offered there",
                            "无法从 {source} 下载 {model}：那里没有提供这个模型"),
    "model_error_folder": ("could not download {model}: cannot write {path}: {detail}",
                           "无法下载 {model}：无法写入 {path}：{detail}"),
    "model_error_disk_space": ("could not download {model}: not enough disk space in {path}: it needs {needed} MB, {free} MB are free",
                               "无法下载 {model}：{path} 所在磁盘空间不足：需要 {needed} MB，只剩 {free} MB"),
    "model_error_turned_off": ("could not download {model}: downloads are turned off ({variable}): not fetching {url}",
                               "无法下载 {model}：下载已关闭（{variable}），不会获取 {url}"),
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
    # the keyboard: approval keys, skipping a sentence, Enter while a reply runs
    "card_approve_key": ("Approve ({shortcut})", "批准（{shortcut}）"),
    "card_reject_key": ("Reject ({shortcut})", "拒绝（{shortcut}）"),
    "card_keys_description": (
        "Waiting for your approval: {approve} approves, {reject} rejects, Esc stops the reply",
        "等待你的批准：{approve} 批准，{reject} 拒绝，Esc 停止回复",
    ),
    "skip_sentence": ("Skip this sentence ({shortcut})", "跳过这一句（{shortcut}）"),
    "reply_running": (
        "A reply is still running — press Esc to stop it, then send your message",
        "回复仍在进行中 —— 先按 Esc 停止，再发送你的消息",
    ),
    "reply_waits_for_approval": (
        "The reply is waiting for your approval above — {approve} approves, {reject} rejects, Esc stops it",
        "回复正在等待你在上方批准 —— {approve} 批准，{reject} 拒绝，Esc 停止",
    ),
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
    # settings → skills (contracts §9)
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
    # Settings → Hooks (contracts §9)
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
    # why a skill or hook is not used (issue 13): skill_problem_<SkillProblemCode>,
    # hook_problem_<HookProblemCode>; the English equals the logged warning, and
    # SKILL.md / hooks.json keywords stay as written
    "skill_problem": ("skill {path}: {problem}", "技能 {path}：{problem}"),
    "skill_problem_file_not_utf8": ("file is not UTF-8 text", "文件不是 UTF-8 文本"),
    "skill_problem_file_unreadable": ("file cannot be read ({error})", "文件无法读取（{error}）"),
    "skill_problem_file_outside": ("file is outside its folder {folder}", "文件在其技能文件夹 {folder} 之外"),
    "skill_problem_file_not_regular": ("file is not a regular file", "文件不是普通文件"),
    "skill_problem_file_too_large": ("file is larger than {limit}", "文件超过 {limit}"),
    "skill_problem_front_matter_missing": (
        "front matter is missing (the file must start with a --- block)",
        "缺少 front matter（文件必须以 --- 块开头）",
    ),
    "skill_problem_front_matter_yaml": ("front matter is not valid YAML", "front matter 不是有效的 YAML"),
    "skill_problem_front_matter_yaml_at": (
        "front matter is not valid YAML (line {line})",
        "front matter 不是有效的 YAML（第 {line} 行）",
    ),
    "skill_problem_front_matter_too_deep": (
        "front matter is nested more than {limit} levels deep (line {line})",
        "front matter 的嵌套超过 {limit} 层（第 {line} 行）",
    ),
    "skill_problem_front_matter_alias": (
        "front matter must not use YAML aliases (line {line})",
        "front matter 不能使用 YAML 别名（第 {line} 行）",
    ),
    "skill_problem_front_matter_not_mapping": (
        "front matter must be a YAML mapping of fields",
        "front matter 必须是由字段组成的 YAML 映射",
    ),
    "skill_problem_missing": ("{field} is missing", "缺少 {field} 字段"),
    "skill_problem_not_string": ("{field} must be a string", "{field} 字段必须是字符串"),
    "skill_problem_empty": ("{field} is empty", "{field} 字段为空"),
    "skill_problem_too_long": (
        "{field} must be at most {limit} characters, got {got}",
        "{field} 字段最多 {limit} 个字符，当前为 {got} 个",
    ),
    "skill_problem_name_chars": (
        "{field} must use only a-z, 0-9 and '-', got {got!r}",
        "{field} 字段只能使用 a-z、0-9 和 “-”，当前为 {got!r}",
    ),
    "skill_problem_name_folder": (
        "{field} must equal the folder name {folder!r}, got {got!r}",
        "{field} 字段必须与文件夹名 {folder!r} 相同，当前为 {got!r}",
    ),
    "skill_problem_not_mapping": ("{field} must be a mapping", "{field} 字段必须是映射（键值对）"),
    "skill_problem_allowed_tools_type": (
        "{field} must be a space-separated string or a list of strings",
        "{field} 字段必须是以空格分隔的字符串或字符串列表",
    ),
    "hook_problem_duplicate": (
        "hooks file {file}: hook {name!r} appears twice; the second one is not used",
        "钩子文件 {file}：钩子 {name!r} 出现了两次，第二个不会使用",
    ),
    "hook_problem_checkpoint": (
        'hooks file {file}: hook {name!r}: "checkpoint" must be one of {choices}, got {got!r}',
        '钩子文件 {file}：钩子 {name!r} 的 "checkpoint" 必须是 {choices} 之一，当前为 {got!r}',
    ),
    "hook_problem_role": (
        'hooks file {file}: hook {name!r}: "role" must be one of {choices}, got {got!r}',
        '钩子文件 {file}：钩子 {name!r} 的 "role" 必须是 {choices} 之一，当前为 {got!r}',
    ),
    "hook_problem_not_bool": (
        'hooks file {file}: hook {name!r}: "{field}" must be true or false',
        '钩子文件 {file}：钩子 {name!r} 的 "{field}" 必须是 true 或 false',
    ),
    "hook_problem_prompt_file": (
        'hooks file {file}: hook {name!r}: "prompt_file" must name a file beside hooks.json',
        '钩子文件 {file}：钩子 {name!r} 的 "prompt_file" 必须指定与 hooks.json 在同一文件夹中的文件',
    ),
    "hook_problem_prompt_missing": (
        "hooks file {file}: hook {name!r}: prompt file {prompt} is missing",
        "钩子文件 {file}：钩子 {name!r} 的提示词文件 {prompt} 不存在",
    ),
    "hook_problem_prompt_outside": (
        "hooks file {file}: hook {name!r}: prompt file {prompt} is outside {folder}",
        "钩子文件 {file}：钩子 {name!r} 的提示词文件 {prompt} 不在钩子文件夹 {folder} 内",
    ),
    "hook_problem_prompt_not_regular": (
        "hooks file {file}: hook {name!r}: prompt file {prompt} is not a regular file",
        "钩子文件 {file}：钩子 {name!r} 的提示词文件 {prompt} 不是普通文件",
    ),
    "hook_problem_prompt_too_large": (
        "hooks file {file}: hook {name!r}: prompt file {prompt} is larger than {limit}",
        "钩子文件 {file}：钩子 {name!r} 的提示词文件 {prompt} 超过 {limit}",
    ),
    "hook_problem_prompt_unreadable": (
        "hooks file {file}: hook {name!r}: prompt file {prompt} cannot be read ({error})",
        "钩子文件 {file}：钩子 {name!r} 的提示词文件 {prompt} 无法读取（{error}）",
    ),
    "hook_problem_prompt_not_utf8": (
        "hooks file {file}: hook {name!r}: prompt file {prompt} cannot be read (not UTF-8 text)",
        "钩子文件 {file}：钩子 {name!r} 的提示词文件 {prompt} 无法读取（不是 UTF-8 文本）",
    ),
    "hook_problem_prompt_empty": (
        "hooks file {file}: hook {name!r}: prompt file {prompt} is empty",
        "钩子文件 {file}：钩子 {name!r} 的提示词文件 {prompt} 是空的",
    ),
    # start-up and runtime warnings (issue 13, core/notice.py Notice.key):
    # the English UI shows the logged line itself; file names and keywords stay
    "notice_conversations_set_aside": (
        "saved conversations in {path} could not be read; kept the file as {kept} and started afresh",
        "无法读取 {path} 中保存的对话；已将该文件另存为 {kept}，并重新开始",
    ),
    "notice_conversations_recovered": (
        "saved conversations in {path} were damaged; kept the file as {kept} and recovered {recovered} of "
        "{listed} conversations",
        "{path} 中保存的对话已损坏；已将该文件另存为 {kept}，并恢复了 {listed} 个对话中的 {recovered} 个",
    ),
    "notice_conversations_damaged_not_moved": (
        "saved conversations in {path} are damaged and the file could not be moved aside; showing the "
        "{recovered} conversations that could be read, kept only until the app closes",
        "{path} 中保存的对话已损坏，且无法移走该文件；现显示可读取的 {recovered} 个对话，只保留到应用关闭",
    ),
    "notice_conversations_read_only": (
        "saved conversations in {path} cannot be changed ({problem}); you can open and search them, but new "
        "turns are not saved",
        "{path} 中保存的对话无法修改（{problem}）；仍可打开和搜索，但新的对话轮次不会保存",
    ),
    "notice_conversations_not_saved": (
        "conversations cannot be saved in {folder} ({problem}); this session's conversations are kept only "
        "until the app closes",
        "无法在 {folder} 中保存对话（{problem}）；本次会话的对话只保留到应用关闭",
    ),
    "conversations_why_file_read_only": ("the file is read-only", "文件为只读"),
    "conversations_why_folder_read_only": ("the folder is read-only", "文件夹为只读"),
    "conversations_why_file_unreadable": ("the file cannot be read", "文件无法读取"),
    "conversations_why_folder_missing": ("the folder cannot be made", "无法创建文件夹"),
    "second_launch_ignored": (
        "This window was already open, so {options} did not apply; close it and start again to use them.",
        "窗口已经打开，因此 {options} 未生效；关闭窗口后重新启动即可使用。",
    ),
    "second_launch_bad_arguments": (
        "Another launch passed options this window cannot read: {argv}",
        "另一次启动传来了本窗口无法识别的选项：{argv}",
    ),
    "notice_settings_unreadable": ("cannot read settings file {path}: {error}", "无法读取设置文件 {path}：{error}"),
    "notice_settings_problem": ("settings file {path}: {problem}", "设置文件 {path}：{problem}"),
    "notice_settings_set_aside": (
        "settings file {path}: {problem}; kept it as {backup} and started with defaults",
        "设置文件 {path}：{problem}；已将其另存为 {backup}，并使用默认设置启动",
    ),
    "settings_problem_not_json": (
        "not valid JSON (line {line}, column {column})",
        "不是有效的 JSON（第 {line} 行，第 {column} 列）",
    ),
    "settings_problem_not_utf8": ("not UTF-8 text", "不是 UTF-8 文本"),
    "settings_problem_too_deep": ("nested too deeply to be settings", "嵌套层级过深，不是有效的设置"),
    "settings_problem_not_object": ("the file must hold a JSON object", "文件必须是一个 JSON 对象"),
    "settings_problem_bad_field": ("{field} has a value that is not allowed", "{field} 的值无效"),
    "settings_problem_number_too_long": ("holds a number too long to read", "包含一个过长、无法读取的数字"),
    "settings_problem_not_regular": ("not a regular file", "不是普通文件"),
    "settings_problem_too_large": ("larger than {limit}", "超过 {limit}"),
    "notice_mcp_set_aside": (
        "{problem}; kept it as {backup} and started with the default servers",
        "MCP 服务器文件有误：{problem}；已将其另存为 {backup}，并使用默认服务器启动",
    ),
    "notice_skill_skipped": ("skill {path}: {problem}; the skill is skipped", "技能 {path}：{problem}；已跳过该技能"),
    "notice_skills_unknown": ("--skills: no skill is named {name!r}", "--skills：没有名为 {name!r} 的技能"),
    "notice_skills_more": ("… and {count} more skills in {folder} are skipped", "……{folder} 中另有 {count} 个技能已跳过"),
    "notice_hooks_unreadable": (
        "hooks file {file} cannot be read ({error}); its hooks are not used",
        "无法读取钩子文件 {file}（{error}），其中的钩子不会使用",
    ),
    "notice_hooks_not_json": (
        "hooks file {file} is not valid JSON (line {line}, column {column}); its hooks are not used",
        "钩子文件 {file} 不是有效的 JSON（第 {line} 行，第 {column} 列），其中的钩子不会使用",
    ),
    "notice_hooks_too_deep": (
        "hooks file {file} is nested too deeply; its hooks are not used",
        "钩子文件 {file} 嵌套层级过深，其中的钩子不会使用",
    ),
    "notice_hooks_not_list": (
        "hooks file {file} must hold a JSON list of hooks; its hooks are not used",
        "钩子文件 {file} 必须是由钩子组成的 JSON 列表，其中的钩子不会使用",
    ),
    "notice_hooks_no_name": (
        'hooks file {file}: hook #{number} has no "name" (a non-empty string); skipped',
        '钩子文件 {file}：第 {number} 个钩子没有 "name"（非空字符串），已跳过',
    ),
    "notice_hooks_not_regular": (
        "hooks file {file} is not a regular file; its hooks are not used",
        "钩子文件 {file} 不是普通文件，其中的钩子不会使用",
    ),
    "notice_hooks_too_large": (
        "hooks file {file} is larger than {limit}; its hooks are not used",
        "钩子文件 {file} 超过 {limit}，其中的钩子不会使用",
    ),
    "notice_hooks_more": (
        "… and {count} more problems in hooks file {file}",
        "……钩子文件 {file} 中另有 {count} 个问题未列出",
    ),
    "notice_tool_shadowed": (
        "tool {tool!r} from MCP server {server!r} is hidden by a tool of the same name",
        "MCP 服务器 {server!r} 的工具 {tool!r} 与内置工具同名，已被隐藏",
    ),
    "notice_mcp_tool_bad_name": (
        "mcp server \"{server}\": tool \"{tool}\" is hidden: the name must be 1-64 letters, digits, '_' or '-'",
        "MCP 服务器 “{server}” 的工具 “{tool}” 已被隐藏：名称必须由 1-64 个字母、数字、“_” 或 “-” 组成",
    ),
    "notice_mcp_tool_duplicate": (
        'mcp server "{server}": tool "{tool}" is hidden by the tool of the same name from server "{owner}" '
        "(first server in the file wins)",
        "MCP 服务器 “{server}” 的工具 “{tool}” 与服务器 “{owner}” 的同名工具冲突，已被隐藏（文件中靠前的服务器优先）",
    ),
    "notice_mcp_stdout_noise": (
        'mcp server "{server}" wrote a line that is not MCP (JSON-RPC) to its standard output; such lines are ignored',
        "MCP 服务器 “{server}” 向标准输出写入了不是 MCP（JSON-RPC）消息的内容；这样的行会被忽略",
    ),
    "notice_mcp_stdout_noise_more": (
        'mcp server "{server}" wrote {count} more lines that are not MCP (JSON-RPC) to its standard output; '
        "they were ignored",
        "MCP 服务器 “{server}” 又向标准输出写入了 {count} 行不是 MCP（JSON-RPC）消息的内容，已忽略",
    ),
    "notice_save_failed": ("could not save the conversation", "无法保存对话"),
    # settings pages (issue 13)
    "settings_page_model": ("Model", "模型"),
    "settings_page_voice": ("Voice", "语音"),
    "settings_page_tools": ("Tools", "工具"),
    "settings_page_appearance": ("Appearance", "外观"),
    "settings_ok": ("OK", "确定"),
    "settings_cancel": ("Cancel", "取消"),
    "settings_apply_note": (
        "Changes apply from the next reply; MCP server changes apply at once.",
        "修改从下一次回复起生效；MCP 服务器的修改立即生效。",
    ),
    "model_provider": ("Provider", "服务商"),
    "model_preset_custom": ("Custom", "自定义"),
    "model_fetch": ("Fetch models", "获取模型列表"),
    "model_test": ("Test connection", "测试连接"),
    "model_address_scheme": (
        "The address must start with http:// or https://",
        "地址必须以 http:// 或 https:// 开头",
    ),
    "model_address_host": ("The address has no server name after http(s)://", "地址在 http(s):// 之后缺少服务器名"),
    "model_address_empty": (
        "Enter the endpoint's address first (empty means the offline demo model)",
        "请先填写接口地址（留空表示使用离线演示模型）",
    ),
    "model_fetching": ("Asking the endpoint for its models…", "正在获取模型列表…"),
    "model_fetched": ("{count} models found — type to filter", "找到 {count} 个模型 —— 输入可筛选"),
    "model_testing": ("Sending a test message…", "正在发送测试消息…"),
    "model_test_ok": ("Connected in {ms} ms — the model answered: “{answer}”", "连接成功，用时 {ms} 毫秒 —— 模型回答：“{answer}”"),
    "model_fail_refused": (
        "Could not reach the endpoint: nothing answers at that address (is the server running?)",
        "无法连接接口：该地址无人应答（服务是否已启动？）",
    ),
    "model_fail_timeout": ("The endpoint did not answer in time", "接口响应超时"),
    "model_fail_auth": (
        "The endpoint refused the API key (HTTP {detail}): check the key",
        "接口拒绝了 API 密钥（HTTP {detail}）：请检查密钥",
    ),
    "model_fail_not_found": (
        "Not found (HTTP 404): check the address (often it ends in /v1) and the model name",
        "未找到（HTTP 404）：请检查地址（通常以 /v1 结尾）和模型名",
    ),
    "model_fail_rate_limited": ("Too many requests or no quota left (HTTP 429)", "请求过多或额度不足（HTTP 429）"),
    "model_fail_status": ("The endpoint answered with an error (HTTP {detail})", "接口返回错误（HTTP {detail}）"),
    "model_fail_empty": ("The endpoint lists no models: type the model's name", "接口没有列出模型：请手动输入模型名"),
    "model_fail_other": ("The check failed ({detail})", "检查失败（{detail}）"),
    "voice_rate": ("Speaking rate", "语速"),
    "voice_preview": ("Hear this voice", "试听此音色"),
    "voice_preview_no_speaker": ("No speaker: there is no audio output to play a sample", "没有扬声器：无法播放试听"),
    "voice_preview_text": ("Hello! This is how I sound.", "你好！这是我的声音。"),
    "voice_preview_failed": ("The sample could not be played: {reason}", "无法播放试听：{reason}"),
    "voice_preview_off": ("the speech engine is “Off — text only”", "语音引擎为“关闭 —— 只显示文字”"),
    "mcp_servers": ("MCP servers", "MCP 服务器"),
    "mcp_line": ("{name} — {state}", "{name} —— {state}"),
    "mcp_line_tools": ("{name} — {state} · {count} tools", "{name} —— {state} · {count} 个工具"),
    "mcp_line_off": ("{name} — off", "{name} —— 已关闭"),
    "mcp_add": ("Add…", "添加…"),
    "mcp_edit": ("Edit…", "编辑…"),
    "mcp_remove": ("Remove", "删除"),
    "mcp_import": ("Import from Claude Desktop / Cursor…", "从 Claude Desktop / Cursor 导入…"),
    "mcp_applied_at_once": (
        "Server changes are saved to the servers file and applied at once.",
        "服务器的修改会保存到配置文件并立即生效。",
    ),
    "mcp_no_control": ("The servers can be changed once the app has started.", "应用启动完成后即可修改服务器。"),
    "mcp_saved": ("Saved; the servers are restarting.", "已保存，服务器正在重启。"),
    "mcp_removed": ("Removed {name}; the servers are restarting.", "已删除 {name}，服务器正在重启。"),
    "mcp_save_failed": ("Not saved: {reason}", "未保存：{reason}"),
    "mcp_reload_failed": ("Saved, but the servers could not be restarted: {reason}", "已保存，但无法重启服务器：{reason}"),
    "mcp_import_failed": ("Nothing imported: {reason}", "未导入：{reason}"),
    "mcp_imported": ("Imported {count} servers.", "已导入 {count} 个服务器。"),
    "mcp_imported_one": ("Imported 1 server.", "已导入 1 个服务器。"),
    "mcp_import_renamed": ("Renamed to avoid a clash: {pairs}.", "为避免重名已改名：{pairs}。"),
    "mcp_add_title": ("Add an MCP server", "添加 MCP 服务器"),
    "mcp_edit_title": ("Edit the MCP server", "编辑 MCP 服务器"),
    "mcp_name": ("Name", "名称"),
    "mcp_kind": ("Connection", "连接方式"),
    "mcp_kind_stdio": ("Run a command (stdio)", "运行命令（stdio）"),
    "mcp_kind_sse": ("Remote, SSE", "远程，SSE"),
    "mcp_kind_http": ("Remote, streamable HTTP", "远程，Streamable HTTP"),
    "mcp_command": ("Command", "命令"),
    "mcp_args": ("Arguments", "参数"),
    "mcp_env": ("Environment (NAME=value, one a line)", "环境变量（每行一个 NAME=value）"),
    "mcp_cwd": ("Working folder", "工作目录"),
    "mcp_url": ("Address (URL)", "地址（URL）"),
    "mcp_bad_name": (
        "The name must be 1–64 letters, digits, '_', '-' or '.'",
        "名称须为 1–64 个字母、数字、“_”、“-”或“.”",
    ),
    "mcp_name_taken": ("A server named {name} already exists", "已有名为 {name} 的服务器"),
    "mcp_need_command": ("Enter the command that starts the server", "请填写启动服务器的命令"),
    "mcp_bad_args": ("The arguments have an unclosed quote", "参数中有未闭合的引号"),
    "mcp_bad_env": ("Each environment line must be NAME=value, not “{line}”", "每行环境变量须为 NAME=value，而不是“{line}”"),
    # MCP servers file problems and import outcome (issue 13 QA; settings_tools/mcp_wording):
    # mcp_problem_<McpProblemCode>, mcp_expected_<ValueKind>; the log keeps the English line.
    "mcp_problem_in_server": ("server “{server}”: {problem}", "服务器“{server}”：{problem}"),
    "mcp_problem_missing_file": ("{path} does not exist", "{path} 不存在"),
    "mcp_problem_not_regular": ("{path} is not a regular file", "{path} 不是普通文件"),
    "mcp_problem_too_large": ("{path} is larger than {limit}", "{path} 超过 {limit}"),
    "mcp_problem_unreadable": ("cannot read {path} ({error})", "无法读取 {path}（{error}）"),
    "mcp_problem_unwritable": ("cannot write {path} ({error})", "无法写入 {path}（{error}）"),
    "mcp_problem_not_utf8": ("{path} is not UTF-8 text", "{path} 不是 UTF-8 文本"),
    "mcp_problem_not_json": (
        "{path} is not valid JSON (line {line}, column {column})",
        "{path} 不是有效的 JSON（第 {line} 行第 {column} 列）",
    ),
    "mcp_problem_too_deep": ("{path} is nested too deeply to be a servers file", "{path} 嵌套层级太深，不是服务器配置文件"),
    "mcp_problem_number_too_long": ("{path} holds a number too long to read", "{path} 中有一个长得无法读取的数字"),
    "mcp_problem_duplicate_key": ("“{field}” appears twice in the same object", "同一个对象里“{field}”出现了两次"),
    "mcp_problem_not_object": (
        "the file must hold a JSON object with “mcpServers”",
        "文件必须是含有“mcpServers”的 JSON 对象",
    ),
    "mcp_problem_servers_missing": ("the file has no “mcpServers”", "文件中没有“mcpServers”"),
    "mcp_problem_servers_not_object": (
        "“{field}” must be an object (server name → settings)",
        "“{field}”必须是对象（服务器名称 → 设置）",
    ),
    "mcp_problem_servers_empty": ("“{field}” holds no servers", "“{field}”中没有服务器"),
    "mcp_problem_bad_value": ("“{field}” {expected}", "“{field}”{expected}"),
    "mcp_problem_bad_value_got": ("“{field}” {expected}, got {got}", "“{field}”{expected}，而不是 {got}"),
    "mcp_problem_bad_name": (
        "the name must be 1–64 letters, digits, '_', '-' or '.'",
        "名称须为 1–64 个字母、数字、“_”、“-”或“.”",
    ),
    "mcp_problem_server_not_object": ("must be an object", "必须是对象"),
    "mcp_problem_url_on_stdio": (
        "“url” is for sse/http servers; a stdio server needs “command”",
        "“url”用于 sse/http 远程服务器；stdio 服务器需要“command”",
    ),
    "mcp_problem_command_required": ("“command” is required for a stdio server", "stdio 服务器必须填写“command”"),
    "mcp_problem_no_command_or_url": (
        "has neither “command” (a program to run) nor “url” (a remote server)",
        "既没有“command”（要运行的程序）也没有“url”（远程服务器）",
    ),
    "mcp_problem_command_and_url": (
        "give either “command” (stdio) or “url” ({transport}), not both",
        "“command”（stdio）和“url”（{transport}）只能填一个",
    ),
    "mcp_problem_url_scheme": (
        "“url” must be an http:// or https:// address for a {transport} server",
        "{transport} 服务器的“url”必须以 http:// 或 https:// 开头",
    ),
    "mcp_problem_enabled_contradicts": ("“enabled” and “disabled” contradict each other", "“enabled”与“disabled”互相矛盾"),
    "mcp_expected_transport": ("must be “stdio”, “sse” or “http”", "必须是“stdio”“sse”或“http”"),
    "mcp_expected_string": ("must be a string", "必须是字符串"),
    "mcp_expected_string_list": ("must be a list of strings", "必须是字符串列表"),
    "mcp_expected_string_map": ("must be an object of string values", "必须是值为字符串的对象"),
    "mcp_expected_isolation": ("must be “shared” or “per_conversation”", "必须是“shared”或“per_conversation”"),
    "mcp_expected_seconds": ("must be a positive number of seconds", "必须是正数（秒）"),
    "mcp_expected_bool": ("must be true or false", "必须是 true 或 false"),
    "mcp_expected_positive_int": ("must be a positive integer", "必须是正整数"),
    "mcp_expected_server_map": ("must be an object (server name → settings)", "必须是对象（服务器名称 → 设置）"),
    "mcp_expected_invalid": ("is not valid", "无效"),
    "mcp_os_denied": ("permission denied", "没有权限"),
    "mcp_os_folder": ("it is a folder", "这是一个文件夹"),
    "mcp_os_missing": ("no such file or folder", "文件或文件夹不存在"),
    "mcp_os_full": ("the disk is full", "磁盘已满"),
    "mcp_os_read_only": ("the disk is read-only", "磁盘是只读的"),
    "mcp_os_not_folder": ("a file stands where a folder should be", "应是文件夹的位置是一个文件"),
    "mcp_import_fixed": ("Renamed to a valid name: {pairs}.", "已改为有效的名称：{pairs}。"),
    "mcp_import_skipped": ("Skipped: {items}.", "已跳过：{items}。"),
    "mcp_import_skipped_item": ("{name} ({problem})", "{name}（{problem}）"),
    "mcp_import_none_usable": ("no server can be used — {items}", "没有可用的服务器 —— {items}"),
    "mcp_import_all_there": ("Nothing new: these servers are already here.", "没有新内容：这些服务器已经存在。"),
    "mcp_servers_ready": ("Servers ready.", "服务器已就绪。"),
    "mcp_servers_not_running": (
        "Servers restarted; not running: {names} (hover over one for why).",
        "服务器已重启；未能运行：{names}（将鼠标悬停在其上查看原因）。",
    ),
    "appearance_language": ("Language", "语言"),
    "appearance_system_language": ("System language", "跟随系统"),
    "appearance_theme": ("Theme", "主题"),
    "appearance_theme_system": ("System", "跟随系统"),
    "appearance_theme_light": ("Light", "浅色"),
    "appearance_theme_dark": ("Dark", "深色"),
    "appearance_note": ("Language and theme change at once.", "语言和主题会立即切换。"),
    # approval audit and risk (issue 14)
    "card_risk_destructive": ("May change or delete data", "可能修改或删除数据"),
    "card_risk_open_world": ("Reaches outside this computer", "会访问本机以外的资源"),
    "card_result_cut": (
        "Result cut to fit the model's context: {n} characters left out",
        "结果过长，为适应模型的上下文已截断：省略了 {n} 个字符",
    ),
    "card_read_only_allowed": ("read-only, allowed by your setting", "只读，按你的设置自动批准"),
    "card_confirm_always_text": (
        "Always allow a tool that may change or delete data? Its later calls will run without asking.",
        "要自动批准一个可能修改或删除数据的工具吗？以后调用它将不再询问。",
    ),
    "card_confirm_always": ("Yes, always allow", "确定，始终允许"),
    "card_confirm_once": ("Just this once", "仅本次"),
    "card_confirm_back": ("Back", "返回"),
    "audit_title": ("Approval history", "审批记录"),
    "audit_filter_tool": ("Filter by tool", "按工具筛选"),
    "audit_any_server": ("All servers", "全部服务器"),
    "audit_any_decision": ("All decisions", "全部结果"),
    "audit_builtin": ("built-in", "内置"),
    "audit_period_any": ("Any time", "任意时间"),
    "audit_period_today": ("Today", "今天"),
    "audit_period_week": ("Last 7 days", "最近 7 天"),
    "audit_period_month": ("Last 30 days", "最近 30 天"),
    "audit_col_time": ("Time", "时间"),
    "audit_col_tool": ("Tool", "工具"),
    "audit_col_server": ("Server", "服务器"),
    "audit_col_decision": ("Decision", "结果"),
    "audit_col_by": ("Decided by", "决定方"),
    "audit_col_waited": ("Waited", "等待"),
    "audit_col_arguments": ("Arguments", "参数"),
    "audit_decision_approved": ("Approved", "已批准"),
    "audit_decision_rejected": ("Rejected", "已拒绝"),
    "audit_decision_timed_out": ("Timed out", "已超时"),
    "audit_decision_interrupted": ("Interrupted", "已中断"),
    "audit_by_user": ("You", "你"),
    "audit_by_voice": ("Your voice", "你的语音"),
    "audit_by_always_allow": ("Always-allow list", "自动批准列表"),
    "audit_by_headless_flag": ("Command-line flag", "命令行参数"),
    "audit_by_read_only_setting": ("Read-only setting", "只读设置"),
    "audit_by_timeout": ("Nobody (timed out)", "无人（超时）"),
    "audit_by_interrupt": ("Interrupt", "中断"),
    "audit_sub_agent": ("Asked by the sub-agent of call {parent}", "由调用 {parent} 的子代理发起"),
    "audit_count": ("{shown} of {total} decisions", "显示 {shown} 条，共 {total} 条"),
    "audit_empty": ("No approval decisions recorded yet.", "还没有审批记录。"),
    "audit_skipped": ("unreadable lines skipped: {n}", "跳过了 {n} 行无法读取的记录"),
    "audit_refresh": ("Refresh", "刷新"),
    "audit_export": ("Export CSV…", "导出 CSV…"),
    "audit_export_title": ("Export approval history", "导出审批记录"),
    "audit_exported": ("Saved {path}", "已保存 {path}"),
    "audit_export_failed": ("Could not save {path}: {error}", "无法保存 {path}：{error}"),
    # approval history read off the GUI thread
    "audit_loading": ("Loading…", "正在加载…"),
    "audit_read_failed": ("Could not read {path}: {error}", "无法读取 {path}：{error}"),
    "trust_title": ("Read-only tools", "只读工具"),
    "trust_server": ("Allow read-only tools from {server} without asking", "允许 {server} 的只读工具无需询问"),
    "trust_note": (
        "A server says itself which of its tools only read: trust it per server. "
        "Such calls still show as cards and are recorded in the approval history.",
        "工具是否只读由服务器自己声明，请按服务器决定是否信任。这些调用仍会显示为卡片，并记入审批记录。",
    ),
    "trust_no_servers": ("No MCP servers are configured.", "尚未配置 MCP 服务器。"),
    # settings wording (issue 13 QA): engine names, where the key is kept, presets
    "tts_engine_auto": ("Automatic (online, offline fallback)", "自动（在线优先，离线备用）"),
    "tts_engine_edge": ("Edge (online)", "Edge（在线）"),
    "tts_engine_espeak": ("eSpeak NG (offline)", "eSpeak NG（离线）"),
    "tts_engine_piper": ("Piper (offline, natural voice)", "Piper（离线，自然语音）"),
    "tts_engine_none": ("Off — text only", "关闭 —— 只显示文字"),
    "key_storage_keyring": ("Stored in the system keyring", "保存在系统密钥环中"),
    "key_storage_file": (
        "No system keyring: stored in {path} (readable only by you)",
        "没有系统密钥环：保存在 {path}（仅你本人可读）",
    ),
    "model_preset_dashscope": ("Qwen / DashScope", "通义千问 / DashScope"),
    "model_preset_moonshot": ("Moonshot", "月之暗面 Moonshot"),
    "model_preset_zhipu": ("Zhipu", "智谱 AI"),
    "model_fix_address": ("Fix the address above first", "请先修正上面的地址"),
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

"""Words of the conversation view: first run, bubbles, the system messages a turn ends with.

Each key maps to its (English, Chinese) text; :mod:`desktop_agent.texts` merges the
catalogues and refuses a key defined twice.
"""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # first run and chat
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
    # a message's MCP prompt and resources (contracts §10), as chips under its text
    "chip_prompt": ("Prompt · {server} · {name}", "提示词 · {server} · {name}"),
    "chip_resource": ("Resource · {server} · {name}", "资源 · {server} · {name}"),
    "chip_cut": ("{chip} (cut to fit)", "{chip}（已截断）"),
    "chip_prompt_tip": ("Prompt “{name}” of MCP server {server}", "MCP 服务器 {server} 的提示词“{name}”"),
    "chip_resource_tip": (
        "{uri} from MCP server {server}, attached for the model",
        "来自 MCP 服务器 {server} 的 {uri}，已附给模型",
    ),
    "chip_cut_tip": (
        "{tip}; too long to attach whole, only its start was sent",
        "{tip}；内容过长，只发送了开头部分",
    ),
    "msg_not_sent": (
        "Not sent (your message is back in the box): {reason}",
        "未发送（消息已放回输入框）：{reason}",
    ),
    "msg_editing": (
        "Editing your last message: Enter sends it in place of the last exchange, Esc cancels",
        "正在编辑上一条消息：Enter 发送并替换上一轮对话，Esc 取消",
    ),
    # the system messages (contracts §4); the design's "session" and
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
    "notice_reply_cut": (
        "the reply was cut off at the reply length limit (max_tokens); ask the model to continue, "
        "or raise the limit in Settings (Model)",
        "回复在长度上限（max_tokens）处被截断；可以让模型继续，或在“设置 → 模型”中提高上限",
    ),
    "error": ("Error", "错误"),
    # one system line when a turn starts before every MCP server is ready
    "mcp_not_ready": (
        "Answering without the tools of MCP {names} — not ready yet",
        "本次回复不使用 MCP {names} 的工具 —— 尚未就绪",
    ),
    "mcp_retrying": ("{name} (failed, retrying)", "{name}（启动失败，正在重试）"),
    "list_separator": (", ", "、"),
    # the / and @ pickers in the input box, and the app's own / commands
    "picker_origin_app": ("App", "应用"),
    "picker_origin_skill": ("Skill", "技能"),
    "picker_origin_prompt": ("{server} · prompt", "{server} · 提示词"),
    "picker_origin_resource": ("{server} · resource", "{server} · 资源"),
    "picker_origin_template": ("{server} · template", "{server} · 资源模板"),
    "picker_required": ("required", "必填"),
    "picker_optional": ("optional", "可选"),
    "picker_template_ask": ("{name}: {variable} ({index}/{count})", "{name}：{variable}（{index}/{count}）"),
    "picker_template_field": (
        "Value of {variable}: Enter goes on, Esc cancels", "{variable} 的值：Enter 继续，Esc 取消"
    ),
    "picker_list_name": ("Suggestions", "候选"),
    "cmd_new": ("Start a new conversation", "开始新对话"),
    "cmd_settings": ("Open Settings", "打开设置"),
    "cmd_help": ("List the commands", "列出命令"),
    "cmd_help_text": (
        "Commands: /new starts a new conversation, /settings opens Settings, /help shows this line. "
        "Type / to list them with your skills and the MCP servers' prompts, @ to attach an MCP resource.",
        "命令：/new 开始新对话，/settings 打开设置，/help 显示这一行。"
        "输入 / 可列出这些命令、你的技能和 MCP 服务器的提示词，输入 @ 可附加 MCP 资源。",
    ),
}

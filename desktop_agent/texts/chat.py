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
    "welcome_prompt_tools": ("What tools can you use here?", "你在这里能用哪些工具？"),
    "welcome_prompt_files": ("List the files in my home folder", "列出我主目录里的文件"),
    "welcome_prompt_explain": ("Explain simply how Wi-Fi works", "用简单的话解释 Wi-Fi 是怎么工作的"),
    "welcome_prompt_write": ("Help me write a short, polite email", "帮我写一封简短、礼貌的邮件"),
    "code_plain": ("code", "代码"),
    "code_copy": ("Copy", "复制"),
    "code_copy_tip": ("Copy the code", "复制代码"),
    "copied": ("Copied", "已复制"),
    "msg_copy": ("Copy", "复制"),
    "msg_copy_tip": ("Copy the message's text", "复制这条消息的文字"),
    "msg_regenerate": ("Regenerate", "重新生成"),
    "msg_regenerate_tip": (
        "Ask your last message again for a new reply (this one is kept: ‹ › switches between them)",
        "重新发送你的上一条消息，生成新的回复（这条会保留：用 ‹ › 切换）",
    ),
    "msg_edit": ("Edit", "编辑"),
    "msg_edit_tip": (
        "Put this message back in the box; sending it replaces it and what followed "
        "(kept as the earlier version: ‹ › switches back)",
        "把这条消息放回输入框；发送后替换它及之后的对话（原来的保留为上一版本：用 ‹ › 切换回去）",
    ),
    "msg_version": ("{index}/{count}", "{index}/{count}"),
    "msg_version_tip": ("Version {index} of {count} of this reply", "这条回复的第 {index} 个版本，共 {count} 个"),
    "msg_version_previous": ("Previous version", "上一个版本"),
    "msg_version_next": ("Next version", "下一个版本"),
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
        "Editing your message: Enter sends it in place of it and what followed, Esc cancels",
        "正在编辑消息：Enter 发送并替换它及之后的对话，Esc 取消",
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
    # why a message's MCP prompt or mention could not be expanded (core.mentions.MentionError.key)
    "mention_prompt_form": ("\"{word}\": a prompt is written /mcp__SERVER__PROMPT", "“{word}”：提示词的写法是 /mcp__服务器__提示词"),
    "mention_no_server": ("\"{word}\": no mcp server is called \"{server}\"", "“{word}”：没有名为“{server}”的 MCP 服务器"),
    "mention_not_key_value": ("{command}: \"{word}\" is not a key=value argument", "{command}：“{word}”不是 键=值 形式的参数"),
    "mention_open_quote": ("{command}: a quoted value has no closing quote", "{command}：带引号的值缺少结尾的引号"),
    "mention_server_starting": ("{command}: mcp server \"{server}\" is still starting", "{command}：MCP 服务器“{server}”仍在启动"),
    "mention_server_stopped": ("{command}: mcp server \"{server}\" is not running", "{command}：MCP 服务器“{server}”未运行"),
    "mention_server_failed": (
        "{command}: mcp server \"{server}\" is not running (it failed to start)",
        "{command}：MCP 服务器“{server}”未运行（启动失败）",
    ),
    "mention_server_disabled": ("{command}: mcp server \"{server}\" is disabled", "{command}：MCP 服务器“{server}”已停用"),
    "mention_no_prompt": ("{command}: mcp server \"{server}\" has no prompt \"{name}\"", "{command}：MCP 服务器“{server}”没有提示词“{name}”"),
    "mention_unknown_argument": (
        "{command}: no argument \"{name}\" (its arguments: {offered})", "{command}：没有参数“{name}”（可用参数：{offered}）",
    ),
    "mention_unknown_argument_none": ("{command}: no argument \"{name}\" (its arguments: none)", "{command}：没有参数“{name}”（它没有参数）"),
    "mention_repeated": ("{command}: \"{name}\" is given twice", "{command}：参数“{name}”给出了两次"),
    "mention_missing": ("{command}: missing {needed}", "{command}：缺少参数 {needed}"),
    # known kinds of failure (ui/common/error_wording.py); the engine's English line follows as the detail
    "err_detail": ("Details", "详情"),
    "err_stream_cut": ("The reply from {url} was cut off mid-way", "来自 {url} 的回复中途断开"),
    "err_refused": ("{url} refused the connection (is the model server running?)", "{url} 拒绝了连接（模型服务器是否在运行？）"),
    "err_host_not_found": ("The host of {url} was not found (check the address and the network)", "找不到 {url} 的主机（请检查地址和网络）"),
    "err_timeout_connect": ("Connecting to {url} timed out", "连接 {url} 超时"),
    "err_timeout": ("{url} did not answer within {seconds} s", "{url} 在 {seconds} 秒内没有应答"),
    "err_unreachable": ("Cannot reach {url}", "无法连接 {url}"),
    "err_http_401": ("{url} rejected the API key (check the key in Settings)", "{url} 拒绝了 API 密钥（请在设置中检查密钥）"),
    "err_http_403": ("{url} denied access (check the key's permissions)", "{url} 拒绝访问（请检查密钥的权限）"),
    "err_model_not_found": ("The model {model} was not found at {url} (check the model name in Settings)", "在 {url} 找不到模型 {model}（请在设置中检查模型名称）"),
    "err_http_404": ("{url} answered 404 Not Found (check the base URL)", "{url} 返回 404 未找到（请检查接口地址）"),
    "err_http_429": ("{url} is rate limiting requests: wait a moment and try again", "{url} 正在限制请求频率：请稍候再试"),
    "err_context": (
        "The conversation is longer than the model's context: start a new conversation or lower the context size in Settings",
        "对话超出了模型的上下文长度：请开始新对话，或在设置中调小上下文大小",
    ),
    "err_http_5xx": ("The model server {url} failed (HTTP {status}): try again later", "模型服务器 {url} 出错（HTTP {status}）：请稍后再试"),
    "err_no_reply": ("{url} ended the reply without any text", "{url} 结束了回复，但没有任何内容"),
    "err_mcp_start_timeout": ("The MCP server {server} did not start within {seconds} s", "MCP 服务器 {server} 未能在 {seconds} 秒内启动"),
    "err_mcp_start": ("The MCP server {server} failed to start", "MCP 服务器 {server} 启动失败"),
    "err_mcp_sign_in_expired": ("The sign-in to the MCP server {server} has expired: sign in again", "MCP 服务器 {server} 的登录已过期：请重新登录"),
    "err_mcp_sign_in": ("The MCP server {server} needs you to sign in", "MCP 服务器 {server} 需要你登录"),
    "err_mcp_not_answering": ("The MCP server {server} stopped answering", "MCP 服务器 {server} 停止了响应"),
    "err_mcp_other": ("The MCP server {server} had a problem", "MCP 服务器 {server} 出现问题"),
    "err_tool_arguments": ("The tool {tool} was called with invalid arguments", "调用工具 {tool} 时参数无效"),
    "err_tool_json": ("The model sent tool arguments that are not valid JSON", "模型发送的工具参数不是有效的 JSON"),
    "err_mcp_shut_down": ("The MCP server {server} is shut down", "MCP 服务器 {server} 已关闭"),
    "err_mcp_unknown": ("There is no MCP server {server}", "没有名为 {server} 的 MCP 服务器"),
    "err_resource_timeout": (
        "The MCP server {server} did not give the resource {uri} within {seconds} s",
        "MCP 服务器 {server} 未在 {seconds} 秒内给出资源 {uri}",
    ),
    "err_resource_not_found": ("The MCP server {server} has no resource {uri}", "MCP 服务器 {server} 上没有资源 {uri}"),
    "err_resource_failed": ("The MCP server {server} could not read the resource {uri}", "MCP 服务器 {server} 无法读取资源 {uri}"),
    "err_prompt_timeout": (
        "The MCP server {server} did not give the prompt {name} within {seconds} s",
        "MCP 服务器 {server} 未在 {seconds} 秒内给出提示词 {name}",
    ),
    "err_prompt_failed": ("The MCP server {server} could not give the prompt {name}", "MCP 服务器 {server} 无法给出提示词 {name}"),
    # an MCP server's form that no form can show (mcp_engine/elicitation.py): declined, said on its call's card
    "err_form_refused": (
        "The MCP server {server} asked for a form the app cannot show; it was declined",
        "MCP 服务器 {server} 请求的表单无法显示，已拒绝",
    ),
    "err_form_nested": (
        "The MCP server {server} asked for a form the app cannot show (the field “{field}” is a nested object); it was declined",
        "MCP 服务器 {server} 请求的表单无法显示（字段“{field}”是嵌套对象），已拒绝",
    ),
    "err_form_type": (
        "The MCP server {server} asked for a form the app cannot show (the field “{field}” has the type {type}); it was declined",
        "MCP 服务器 {server} 请求的表单无法显示（字段“{field}”的类型 {type} 无法填写），已拒绝",
    ),
    "err_form_no_options": (
        "The MCP server {server} asked for a form the app cannot show (the field “{field}” is a choice without options); it was declined",
        "MCP 服务器 {server} 请求的表单无法显示（字段“{field}”是没有选项的选择），已拒绝",
    ),
    "err_form_option": (
        "The MCP server {server} asked for a form the app cannot show (an option of the field “{field}” has no value); it was declined",
        "MCP 服务器 {server} 请求的表单无法显示（字段“{field}”的某个选项没有取值），已拒绝",
    ),
    "err_form_field": (
        "The MCP server {server} asked for a form the app cannot show (the field “{field}” is not described); it was declined",
        "MCP 服务器 {server} 请求的表单无法显示（字段“{field}”没有有效的描述），已拒绝",
    ),
    # a tool's error result, above the tool's own words on its card
    "err_tool_own": ("The tool's own error message:", "工具自己的错误信息："),
    "err_mcp_tool_failed": (
        "The tool {tool} of the MCP server {server} failed", "MCP 服务器 {server} 的工具 {tool} 运行失败"
    ),
    "err_tool_unknown": ("The model called a tool that does not exist: {tool}", "模型调用了不存在的工具：{tool}"),
    "err_tool_crashed": ("The tool {tool} failed unexpectedly", "工具 {tool} 意外出错"),
    "err_command_start": ("The command could not be started", "无法启动该命令"),
    "err_command_cwd": ("The working folder does not exist: {cwd}", "工作文件夹不存在：{cwd}"),
    "err_skill_unknown": ("No enabled skill is named {name}", "没有名为 {name} 的已启用技能"),
    "err_form_not_shown": ("The form could not be shown", "无法显示该表单"),
    "err_sub_agent_nested": ("A sub-agent cannot start another sub-agent", "子代理不能再启动子代理"),
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

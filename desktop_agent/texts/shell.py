"""Words of the window itself: its title, Send and the input, the status bar, the tray and the keyboard's hints.

Each key maps to its (English, Chinese) text; :mod:`desktop_agent.texts` merges the
catalogues and refuses a key defined twice.
"""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # window
    "app_title": ("Desktop Agent", "桌面助手"),
    "send": ("Send", "发送"),
    "interrupt": ("Interrupt", "中断"),
    "interrupting": ("Interrupting…", "中断中…"),
    "input_placeholder": (
        "Type a message — Enter sends, Shift+Enter starts a new line",
        "输入消息 —— Enter 发送，Shift+Enter 换行",
    ),
    "input_placeholder_short": ("Type a message", "输入消息"),
    "starting": ("Starting…", "正在启动…"),
    "notice_dismiss": ("Dismiss — not shown again while this holds", "关闭 —— 情况不变时不再显示"),
    "you": ("You", "你"),
    "assistant": ("Assistant", "助手"),
    "settings_action": ("Settings…", "设置…"),
    "new_chat": ("New conversation (Ctrl+N)", "新对话（Ctrl+N）"),
    "show_sidebar": ("Show conversations ({shortcut})", "显示对话列表（{shortcut}）"),
    "restored": ("Earlier conversation restored", "已恢复上次的对话"),
    "earlier_hidden": ("{count} earlier messages are kept but not shown", "更早的 {count} 条消息已保留但未显示"),
    "earlier_hidden_one": ("{count} earlier message is kept but not shown", "更早的 {count} 条消息已保留但未显示"),
    "tool_line": ("Tool {name}: {summary}", "工具 {name}：{summary}"),
    "mute": ("Mute", "静音"),
    "unmute": ("Unmute", "取消静音"),
    "volume": ("Volume", "音量"),
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
    # status bar
    "status_model": ("Model: {model}", "模型：{model}"),
    "status_demo": (
        "Demo model (offline) — open Settings to connect a real one",
        "演示模型（离线）—— 在设置中连接真实模型",
    ),
    "status_mcp": ("MCP {name}: {state}", "MCP {name}：{state}"),
    "status_mcp_tools": ("{state}, {count} tools", "{state}，{count} 个工具"),
    "status_mcp_tools_one": ("{state}, {count} tool", "{state}，{count} 个工具"),
    "mcp_state_starting": ("starting", "启动中"),
    "mcp_state_ready": ("ready", "就绪"),
    "mcp_state_failed": ("failed", "启动失败"),
    "mcp_state_stopped": ("stopped", "已停止"),
    "mcp_state_disabled": ("disabled", "已停用"),
    "mcp_tip_starting": ("Starting — its tools join once it is ready", "启动中 —— 就绪后即可使用它的工具"),
    "mcp_no_tools": ("No tools", "没有工具"),
    "mcp_retry": ("Retry", "重试"),
    # tray
    "tray_approval": ("{name} is waiting for your approval", "{name} 正在等待你的批准"),
    "tray_form": ("A form is waiting for your answers", "有一个表单等待你填写"),
}

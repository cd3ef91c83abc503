"""Words of saved conversations: the sidebar, search, rename, export and import.

Each key maps to its (English, Chinese) text; :mod:`desktop_agent.texts` merges the
catalogues and refuses a key defined twice.
"""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # conversations
    "conv_search_placeholder": ("Search all conversations", "搜索所有对话"),
    "conv_heading": ("Conversations", "对话"),
    "conv_none": ("No saved conversations yet", "还没有保存的对话"),
    "conv_results": ("{count} matching messages", "{count} 条匹配的消息"),
    "conv_results_one": ("{count} matching message", "{count} 条匹配的消息"),
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
    "conv_import_already": (
        "{name} is already imported as “{title}”: opened it, nothing was added",
        "{name} 已导入为“{title}”：已打开它，未重复添加",
    ),
    "conv_import_copy": ("Import as a copy", "作为副本导入"),
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
    # a search hit's window: what follows it is drawn when asked
    "conv_show_later": ("Show {count} later messages", "显示之后的 {count} 条消息"),
    "conv_show_later_one": ("Show {count} later message", "显示之后的 {count} 条消息"),
    "conv_drawing_later": ("Drawing {count} later messages…", "正在显示之后的 {count} 条消息…"),
    "conv_drawing_later_one": ("Drawing {count} later message…", "正在显示之后的 {count} 条消息…"),
}

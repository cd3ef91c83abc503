"""Words of tool cards and forms: states, approval buttons, risk badges, the always-allow confirmation.

Each key maps to its (English, Chinese) text; :mod:`desktop_agent.texts` merges the
catalogues and refuses a key defined twice.
"""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # tool cards (contracts §7)
    "card_preparing": ("{name} — preparing…", "{name} 准备中…"),
    "card_approval": ("{name} needs your approval", "{name} 需要授权"),
    "card_sub_approval": ("Sub-agent wants to run {name}", "子代理想要运行 {name}"),
    "card_sampling_approval": (
        "MCP server {server} asks the model to answer", "MCP 服务器 {server} 请求由模型回答"
    ),
    "card_sampling": ("Model answer for {server}", "为 {server} 生成的模型回答"),
    "card_sampling_limit": ("At most {n} tokens", "最多 {n} 个词元"),
    "card_sampling_limit_one": ("At most {n} token", "最多 {n} 个词元"),
    "card_sampling_limit_unknown": ("No token limit given", "未给出词元上限"),
    "card_sampling_role_user": ("User", "用户"),
    "card_sampling_role_assistant": ("Assistant", "助手"),
    "card_sampling_always": ("Always allow for {server}", "始终允许 {server} 的此类请求"),
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
    # the approval keys on a card
    "card_approve_key": ("Approve ({shortcut})", "批准（{shortcut}）"),
    "card_reject_key": ("Reject ({shortcut})", "拒绝（{shortcut}）"),
    "card_keys_description": (
        "Waiting for your approval: {approve} approves, {reject} rejects, Esc stops the reply",
        "等待你的批准：{approve} 批准，{reject} 拒绝，Esc 停止回复",
    ),
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
    # an MCP server's form (elicitation)
    "form_server_asks": ("Server “{server}” asks:", "服务器“{server}”请求："),
    "form_decline": ("Decline", "拒绝"),
    "form_declined": ("Declined", "已拒绝"),
    "form_yes": ("Yes", "是"),
    "form_number_placeholder": ("A number", "数字"),
    "form_integer_placeholder": ("A whole number", "整数"),
    "form_email_placeholder": ("name@example.com", "name@example.com"),
    "form_uri_placeholder": ("https://…", "https://…"),
    "form_date_placeholder": ("YYYY-MM-DD", "年-月-日（YYYY-MM-DD）"),
    "form_datetime_placeholder": ("YYYY-MM-DDTHH:MM", "年-月-日T时:分（YYYY-MM-DDTHH:MM）"),
    "form_range": ("({low} – {high})", "（{low} – {high}）"),
    "form_at_least": ("(at least {low})", "（至少 {low}）"),
    "form_at_most": ("(at most {high})", "（至多 {high}）"),
    "form_url_host": ("Opens {host} in your browser", "将在浏览器中打开 {host}"),
    "form_url_open": ("Open", "打开"),
    "form_url_opened": ("Opened in your browser", "已在浏览器中打开"),
    "form_url_not_web": (
        "Only a web address (http or https) can be opened here",
        "这里只能打开网址（http 或 https）",
    ),
    "form_url_failed": ("The browser could not be opened", "无法打开浏览器"),
    # why a form's answer does not fit (the English is core's form_values.PROBLEMS)
    "form_problem_expects_text": ("expects text, got {got}", "需要文字，而不是 {got}"),
    "form_problem_not_an_option": ("{value} is not one of its options", "{value} 不是可选项之一"),
    "form_problem_expects_options": ("expects a list of options", "需要一组选项"),
    "form_problem_min_choices": ("needs at least {n} choices", "至少要选 {n} 项"),
    "form_problem_min_choices_one": ("needs at least {n} choice", "至少要选 {n} 项"),
    "form_problem_max_choices": ("takes at most {n} choices", "最多只能选 {n} 项"),
    "form_problem_max_choices_one": ("takes at most {n} choice", "最多只能选 {n} 项"),
    "form_problem_expects_number": ("expects a number", "需要一个数字"),
    "form_problem_expects_whole": ("expects a whole number", "需要一个整数"),
    "form_problem_not_a_number": ("expects a number, not {value}", "需要一个数字，而不是 {value}"),
    "form_problem_not_whole": ("expects a whole number, not {value}", "需要一个整数，而不是 {value}"),
    "form_problem_at_least": ("must be at least {n}", "不能小于 {n}"),
    "form_problem_at_most": ("must be at most {n}", "不能大于 {n}"),
    "form_problem_expects_yes_no": ("expects yes or no", "需要回答是或否"),
    "form_problem_min_chars": ("needs at least {n} characters", "至少需要 {n} 个字符"),
    "form_problem_min_chars_one": ("needs at least {n} character", "至少需要 {n} 个字符"),
    "form_problem_max_chars": ("takes at most {n} characters", "最多 {n} 个字符"),
    "form_problem_max_chars_one": ("takes at most {n} character", "最多 {n} 个字符"),
    "form_problem_format_email": ("expects an email address (name@example.com)", "需要一个邮箱地址（name@example.com）"),
    "form_problem_format_uri": ("expects a web address (https://…)", "需要一个网址（https://…）"),
    "form_problem_format_date": ("expects a date (YYYY-MM-DD)", "需要一个日期（YYYY-MM-DD）"),
    "form_problem_format_date_time": ("expects a date and time (YYYY-MM-DDTHH:MM)", "需要日期和时间（YYYY-MM-DDTHH:MM）"),
    # approval audit and risk
    "card_risk_destructive": ("May change or delete data", "可能修改或删除数据"),
    "card_risk_open_world": ("Reaches outside this computer", "会访问本机以外的资源"),
    "card_risk_changes": ("May change things", "可能会做出改动"),
    "card_always_prefix": ("Always allow “{prefix} …”", "始终允许“{prefix} …”"),
    "card_always_read_only": (
        "Always allow read-only tools from {server}", "始终允许 {server} 的只读工具"
    ),
    "card_confirm_prefix_text": (
        "Always allow “{prefix} …” commands? They may change or delete data, and will run without asking.",
        "要始终允许“{prefix} …”命令吗？它们可能修改或删除数据，以后将不再询问。",
    ),
    "card_redirect_label": ("Tell the model what to do instead:", "告诉模型改做什么："),
    "card_redirect_placeholder": (
        "e.g. only list the files, do not delete them", "例如：只列出文件，不要删除"
    ),
    "card_redirect_send": ("Send", "发送"),
    "card_redirect_sent": ("Sent to the model: {text}", "已发给模型：{text}"),
    "card_redirect_busy": (
        "The model is still answering; send this once it stops.", "模型还在回答，等它停下后再发送。"
    ),
    "card_result_cut": (
        "Result cut to fit the model's context: {n} characters left out",
        "结果过长，为适应模型的上下文已截断：省略了 {n} 个字符",
    ),
    "card_result_cut_one": ("Result cut to fit the model's context: {n} character left out", "结果过长，为适应模型的上下文已截断：省略了 {n} 个字符"),
    "card_read_only_allowed": ("read-only, allowed by your setting", "只读，按你的设置自动批准"),
    "card_confirm_always_text": (
        "Always allow a tool that may change or delete data? Its later calls will run without asking.",
        "要自动批准一个可能修改或删除数据的工具吗？以后调用它将不再询问。",
    ),
    "card_confirm_always": ("Yes, always allow", "确定，始终允许"),
    "card_confirm_once": ("Just this once", "仅本次"),
    "card_confirm_back": ("Back", "返回"),
    # structured content and resources in a tool's result
    "card_more_rows": ("… {n} more rows", "……另有 {n} 行"),
    "card_more_rows_one": ("… {n} more row", "……另有 {n} 行"),
    "card_resources": ("Resources ({n})", "资源（{n}）"),
    "card_resource_bytes": ("{n} bytes", "{n} 字节"),
    "card_resource_bytes_one": ("{n} byte", "{n} 字节"),
    "card_image_undecoded": ("[image: {mime}, {n} bytes]", "[图片：{mime}，{n} 字节]"),
    "card_image_undecoded_one": ("[image: {mime}, {n} byte]", "[图片：{mime}，{n} 字节]"),
    "card_resource_show": ("Show", "展开"),
    "card_resource_hide": ("Hide", "收起"),
    "resource_viewer_title": ("{name} — {server}", "{name} —— {server}"),
    "resource_viewer_close": ("Close", "关闭"),
    "resource_viewer_binary": ("{mime}, {n} bytes: not text", "{mime}，{n} 字节：不是文本"),
    "resource_viewer_binary_one": ("{mime}, {n} byte: not text", "{mime}，{n} 字节：不是文本"),
    "resource_viewer_truncated": ("Shown in part: the resource is larger", "只显示了一部分：资源更大"),
    "resource_open_failed": ("Could not open {uri}: {reason}", "无法打开 {uri}：{reason}"),
}

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
    # approval audit and risk
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
}

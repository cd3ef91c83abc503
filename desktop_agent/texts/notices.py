"""Words of start-up and runtime warnings and why a skill or hook is not used (core.notice.Notice keys).

Each key maps to its (English, Chinese) text; :mod:`desktop_agent.texts` merges the
catalogues and refuses a key defined twice.
"""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # why a skill or hook is not used: skill_problem_<SkillProblemCode>,
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
    # start-up and runtime warnings (core/notice.py Notice.key):
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
    "notice_conversations_recovered_one": (
        "saved conversations in {path} were damaged; kept the file as {kept} and recovered {recovered} of {listed} conversation",
        "{path} 中保存的对话已损坏；已将该文件另存为 {kept}，并恢复了 {listed} 个对话中的 {recovered} 个",
    ),
    "notice_conversations_damaged_not_moved": (
        "saved conversations in {path} are damaged and the file could not be moved aside; showing the "
        "{recovered} conversations that could be read, kept only until the app closes",
        "{path} 中保存的对话已损坏，且无法移走该文件；现显示可读取的 {recovered} 个对话，只保留到应用关闭",
    ),
    "notice_conversations_damaged_not_moved_one": (
        "saved conversations in {path} are damaged and the file could not be moved aside; "
        "showing the {recovered} conversation that could be read, kept only until the app closes",
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
    "notice_skills_more_one": ("… and {count} more skill in {folder} is skipped", "……{folder} 中另有 {count} 个技能已跳过"),
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
    "notice_hooks_more_one": ("… and {count} more problem in hooks file {file}", "……钩子文件 {file} 中另有 {count} 个问题未列出"),
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
    "notice_mcp_stdout_noise_more_one": (
        'mcp server "{server}" wrote {count} more line that is not MCP (JSON-RPC) to its standard output; it was ignored',
        "MCP 服务器 “{server}” 又向标准输出写入了 {count} 行不是 MCP（JSON-RPC）消息的内容，已忽略",
    ),
    "notice_save_failed": ("could not save the conversation", "无法保存对话"),
}

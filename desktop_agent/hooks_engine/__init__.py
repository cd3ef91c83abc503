"""Prompt hooks (contracts §9): loading ``hooks.json`` and its prompt files.

What a checkpoint adds to a turn is pure logic in :mod:`desktop_agent.core.hooks`.
"""

from desktop_agent.hooks_engine.loader import (
    HOOKS_FILE,
    HookCatalog,
    HookInfo,
    HookProblemCode,
    HookSource,
    bundled_hooks_dir,
    load_hooks,
    user_hooks_dir,
)

__all__ = [
    "HOOKS_FILE",
    "HookCatalog",
    "HookInfo",
    "HookProblemCode",
    "HookSource",
    "bundled_hooks_dir",
    "load_hooks",
    "user_hooks_dir",
]

"""Argument checks shared by the built-in tools.

The model reads the error text and corrects its call, so every message names
the argument and says what was expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ArgumentError(ValueError):
    """Tool arguments that do not fit the tool's schema (one line)."""


def require_str(args: Mapping[str, Any], key: str, where: str = "") -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ArgumentError(f"{where}{key!s} must be a non-empty string")
    return value


def optional_str(args: Mapping[str, Any], key: str, where: str = "") -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"{where}{key!s} must be a string, got {type(value).__name__}")
    return value


def optional_bool(args: Mapping[str, Any], key: str, default: bool, where: str = "") -> bool:
    value = args.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ArgumentError(f"{where}{key!s} must be true or false, got {value!r}")
    return value


def optional_list(args: Mapping[str, Any], key: str, where: str = "") -> list[Any] | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise ArgumentError(f"{where}{key!s} must be a list, got {type(value).__name__}")
    return value

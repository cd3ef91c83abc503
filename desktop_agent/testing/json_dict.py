"""The unchecked JSON object tests read: bus messages as JSON, the scripted
server's requests, saved histories.

A test reads deep into these by key (``message["arguments"]["text"]``); a
value of the wrong shape fails it with a KeyError or TypeError, which is
the check a test wants, so narrowing every step would only add noise. The
product never uses this type: ``desktop_agent.core.json_types`` has the
checked ones (JSONObject, JSONMapping), and the import-linter contract
keeps ``desktop_agent.testing`` out of the product.
"""

from __future__ import annotations

from typing import Any

JSONDict = dict[str, Any]
"""A JSON object whose values are not checked (test support only)."""

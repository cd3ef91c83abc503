"""What a call that did not run to its result tells the model (the
``tool_rejected`` reason), shared by the main turn and a sub-agent's calls.

The window words these for the user itself (``ui/cards/state.py`` maps the
constants to plain outcomes); these texts are written for the model.
"""

from __future__ import annotations

from desktop_agent.core.messages import InterruptReason

REASON_REJECTED = "The user rejected this tool call."
REASON_TIMEOUT = "The approval timed out, so the tool call was rejected."
REASON_INTERRUPTED = "The tool call was interrupted by the user."
REASON_NOT_RUN = "The turn was interrupted before this tool call ran."
REASON_NO_ANSWER = "The user did not answer in time, so the tool call was stopped."


def rejection_text(reason: InterruptReason, *, executing: bool) -> str:
    """The reason a call ended by ``reason`` gives; ``executing``: it was
    running (not waiting for approval) when it was stopped."""
    if reason == "approval_timeout":
        return REASON_NO_ANSWER if executing else REASON_TIMEOUT
    if reason == "rejected":
        return REASON_REJECTED
    return REASON_INTERRUPTED if executing else REASON_NOT_RUN

"""Ranges of the numbers a user sets, shared by the settings file and the
command-line flags (kept free of imports: the window's start-up reads it).

Beyond these a value is a typo, not a wish: a NaN or an
infinite approval timeout rejected every approval at once.
"""

MAX_STEPS_LIMIT = 1000
APPROVAL_TIMEOUT_LIMIT_S = 7 * 24 * 3600.0
CONTEXT_TOKENS_MIN = 2048
"""Below this a request could not hold the prompts and one exchange."""
CONTEXT_TOKENS_LIMIT = 10_000_000
"""Past the largest context windows models have."""
MAX_TOKENS_LIMIT = 1_000_000
"""Past the longest replies any model writes in one request."""
REQUEST_TIMEOUT_LIMIT_S = 3600.0
"""An hour without a byte from the model is a dead server, not a slow one."""

"""PyInstaller entry point (a script, since the bundle has no console_scripts)."""

import os
import sys

if getattr(sys, "frozen", False):
    # The bootloader points LD_LIBRARY_PATH at the bundle's own libraries
    # (keeping the caller's value in LD_LIBRARY_PATH_ORIG). The dynamic loader
    # has read it already, so this process keeps finding them; what it starts
    # (the user's commands, espeak-ng, MCP servers such as npx or uvx) must get
    # the user's value, not libraries built for the bundle.
    _original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if _original is None:
        os.environ.pop("LD_LIBRARY_PATH", None)
    else:
        os.environ["LD_LIBRARY_PATH"] = _original

from desktop_agent.__main__ import main  # after the environment is set right

sys.exit(main())

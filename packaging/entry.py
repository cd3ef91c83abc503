"""PyInstaller entry point (a script, since the bundle has no console_scripts)."""

import sys

from desktop_agent.__main__ import main

sys.exit(main())

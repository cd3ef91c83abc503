"""desktop-agent's window.

Importing it first stops PySide6 from keeping the source of every module
imported after Qt (:mod:`desktop_agent.ui.shell.source_scan`): every window
path comes through here before most of its imports, the composition root
included.
"""

from desktop_agent.ui.shell.source_scan import stop_source_cache

stop_source_cache()

"""Services: the parts a conversation needs, built once from settings and
command-line overrides. Shared by the window (``app.py``) and the headless
mode (``cli.py``), so both run the same core the same way.

What lives where:

- :mod:`.listener`: what the services tell their front end
  (:class:`ServicesListener`) and what a settings change reports
  (:class:`AppliedSettings`);
- :mod:`.running`: :class:`Services`, the running parts and how settings
  reach them (model, limits, skills, hooks, tool facts);
- :mod:`.mcp`: the MCP servers' side of it (start, reload, retry, mentions,
  answering servers' forms, sampling and roots);
- :mod:`.conversations`: new, resumed and saved conversations;
- :mod:`.speech`: the speech engine and its notices;
- :mod:`.model`: :func:`build_llm`, the provider the settings ask for;
- :mod:`.build`: :func:`build_services`, from the settings file and the
  command line.
"""

from __future__ import annotations

from desktop_agent.core.ports import LLMError
from desktop_agent.services.build import build_services
from desktop_agent.services.listener import AppliedSettings, ServicesListener
from desktop_agent.services.model import build_llm
from desktop_agent.services.running import Services

__all__ = ["AppliedSettings", "LLMError", "Services", "ServicesListener", "build_llm", "build_services"]

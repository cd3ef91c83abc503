#!/usr/bin/env bash
# Install what is missing, then start the desktop-agent window.
# Without a display (a server, CI) the window runs under Xvfb.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && "$(uname)" == "Linux" ]]; then
    exec xvfb-run -a -s "-screen 0 1280x900x24" .venv/bin/python -m desktop_agent "$@"
fi
exec .venv/bin/python -m desktop_agent "$@"

#!/usr/bin/env bash
# Shared set-up for scripts/run.sh and scripts/test.sh: Debian libraries
# (when root and missing), the .venv in the repo root, and the package.
# Usage: source scripts/bootstrap.sh [dev]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

DEBIAN_PKGS=(libpulse0 fonts-noto-cjk fonts-wqy-microhei fonts-noto-color-emoji espeak-ng xvfb xauth libxcb-icccm4 libxcb-keysyms1
             libxcb-cursor0 libxcb-shape0 libxcb-randr0 libxcb-render-util0 libxcb-image0
             libxcb-xkb1 libxkbcommon-x11-0 libegl1 libgl1 libfontconfig1 libdbus-1-3)
if [[ "${1:-}" == "dev" ]]; then
    DEBIAN_PKGS+=(nodejs npm desktop-file-utils)
fi

if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
    missing=()
    for pkg in "${DEBIAN_PKGS[@]}"; do
        if [[ "$pkg" == nodejs || "$pkg" == npm ]] && command -v "${pkg/nodejs/node}" >/dev/null 2>&1; then
            continue
        fi
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    if (( ${#missing[@]} )); then
        echo "bootstrap: installing Debian packages: ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
fi

PY="${PYTHON:-python3}"
if [[ ! -x .venv/bin/python ]]; then
    "$PY" -m venv .venv
fi
stamp=".venv/.installed-${1:-app}"
if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" ]]; then
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null
    if [[ "${1:-}" == "dev" ]]; then
        .venv/bin/python -m pip install -q -e ".[dev,build]"
    else
        .venv/bin/python -m pip install -q -e .
    fi
    touch "$stamp"
fi

#!/usr/bin/env bash
# Install the app's launcher for the current user (Linux): the .desktop file
# in $XDG_DATA_HOME/applications and the icon in
# $XDG_DATA_HOME/icons/hicolor/scalable/apps ($XDG_DATA_HOME: ~/.local/share
# unless set). The launcher starts the bundle (dist/desktop-agent/desktop-agent,
# see scripts/build-bundle.sh) when it is built, else the venv's
# `desktop-agent`; an argument names another executable.
# Usage: bash scripts/install-desktop-entry.sh [EXECUTABLE]
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ $# -gt 0 ]]; then
    exe="$1"
elif [[ -x "$REPO/dist/desktop-agent/desktop-agent" ]]; then
    exe="$REPO/dist/desktop-agent/desktop-agent"
elif [[ -x "$REPO/.venv/bin/desktop-agent" ]]; then
    exe="$REPO/.venv/bin/desktop-agent"
else
    echo "install-desktop-entry: no bundle and no venv: run scripts/build-bundle.sh or scripts/run.sh first" >&2
    exit 1
fi
if [[ ! -x "$exe" ]]; then
    echo "install-desktop-entry: not an executable: $exe" >&2
    exit 1
fi
exe="$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")"

data="${XDG_DATA_HOME:-$HOME/.local/share}"
apps="$data/applications"
icons="$data/icons/hicolor/scalable/apps"
mkdir -p "$apps" "$icons"
install -m 0644 "$REPO/resources/icon.svg" "$icons/desktop-agent.svg"

# The Desktop Entry spec quotes an Exec argument that holds spaces or
# reserved characters in double quotes, escaping ", `, $ and \ inside.
quoted="$exe"
if [[ "$exe" =~ [[:space:]\"\'\`\$\\\>\<\~\|\&\;\*\?\#\(\)] ]]; then
    escaped="$(printf '%s' "$exe" | sed -e 's/[\\"`$]/\\\\&/g')"
    quoted="\"$escaped\""
fi
entry="$apps/desktop-agent.desktop"
tmp="$(mktemp "$apps/.desktop-agent.XXXXXX")"
sed -e "s|^Exec=.*|Exec=$(printf '%s' "$quoted" | sed 's/[&|\\]/\\&/g')|" \
    -e "s|^Icon=.*|Icon=desktop-agent|" "$REPO/resources/desktop-agent.desktop" > "$tmp"
chmod 0644 "$tmp"
mv "$tmp" "$entry"

if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$apps" || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [[ -f "$data/icons/hicolor/index.theme" ]]; then
    gtk-update-icon-cache -q "$data/icons/hicolor" || true
fi
echo "install-desktop-entry: $entry (Exec=$quoted), icon $icons/desktop-agent.svg"

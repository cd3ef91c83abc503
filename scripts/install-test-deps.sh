#!/usr/bin/env bash
# Install the npm MCP test server (@modelcontextprotocol/server-everything) into
# <repo>/.venv/npm, so the MCP integration tests run without any download at
# test time. Idempotent: does nothing when the pinned version is present.
set -euo pipefail

PKG="@modelcontextprotocol/server-everything"
VERSION="2026.8.31"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$REPO/.venv/npm"
PKG_JSON="$PREFIX/node_modules/$PKG/package.json"

if [[ -f "$PKG_JSON" ]] && grep -q "\"version\": \"$VERSION\"" "$PKG_JSON" \
    && [[ -f "$PREFIX/node_modules/$PKG/dist/index.js" ]]; then
    echo "install-test-deps: $PKG@$VERSION already in $PREFIX"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install-test-deps: npm not found; install Node.js 20+ first" >&2
    exit 1
fi

mkdir -p "$PREFIX"
npm install --prefix "$PREFIX" --no-audit --no-fund --no-save "$PKG@$VERSION"
echo "install-test-deps: installed $PKG@$VERSION into $PREFIX"

#!/usr/bin/env bash
# Build the bundle (scripts/build-bundle.sh), copy it elsewhere and run its
# self-test there with a minimal environment: what a user's machine gives a
# launcher. scripts/test.sh runs this beside the test suite.
# Usage: bash scripts/bundle-check.sh
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
bash scripts/build-bundle.sh
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp -a dist/desktop-agent "$scratch/bundle"
mkdir "$scratch/home"
echo "bundle-check: dist/desktop-agent/desktop-agent --self-test (copied elsewhere, env -i)"
started=$SECONDS
(cd "$scratch" && env -i HOME="$scratch/home" PATH=/usr/bin:/bin QT_QPA_PLATFORM=offscreen \
    timeout 180 "$scratch/bundle/desktop-agent" --self-test)
echo "bundle-check: self-test passed in $((SECONDS - started)) s"

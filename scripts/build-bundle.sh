#!/usr/bin/env bash
# Build the PyInstaller onedir bundle from packaging/ into dist/desktop-agent/
# (the executable: dist/desktop-agent/desktop-agent; onefile would unpack
# ~200 MB at every start). Prints its size. PyInstaller's work folder
# (build/pyinstaller) and its cache of binary dependencies
# (~/.cache/pyinstaller) are kept between builds: a rebuild is faster.
# Usage: bash scripts/build-bundle.sh
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
if [[ ! -x .venv/bin/python ]]; then
    source scripts/bootstrap.sh
fi
if ! .venv/bin/python -c "import PyInstaller" 2>/dev/null; then
    # The build extra's requirements by name, not `-e .[build]`: reinstalling
    # the package would disturb tests running beside this build (scripts/test.sh).
    echo "build-bundle: installing the build extra"
    mapfile -t reqs < <(.venv/bin/python -c 'import tomllib
print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["build"], sep="\n")')
    .venv/bin/python -m pip install -q "${reqs[@]}"
fi
started=$SECONDS
.venv/bin/python -m PyInstaller --noconfirm --log-level WARN \
    --workpath build/pyinstaller --distpath dist packaging/desktop-agent.spec
test -x dist/desktop-agent/desktop-agent
cp packaging/NOTES.md dist/desktop-agent/NOTES.md  # the system packages it needs (fonts, espeak-ng)
echo "build-bundle: dist/desktop-agent/desktop-agent built in $((SECONDS - started)) s;" \
     "size $(du -sh dist/desktop-agent | cut -f1)"

#!/usr/bin/env bash
# Install everything the tests need, then run the linters and the whole suite.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh" dev
bash scripts/install-test-deps.sh
export QT_QPA_PLATFORM=offscreen
echo "== ruff (includes the rule that keeps Qt and network libraries out of core/)"
.venv/bin/ruff check desktop_agent tests benchmarks
echo "== mypy --strict desktop_agent tests"
.venv/bin/mypy desktop_agent
.venv/bin/mypy --explicit-package-bases tests
echo "== pytest"
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"

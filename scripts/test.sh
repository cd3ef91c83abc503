#!/usr/bin/env bash
# Install everything the tests need, then run the linters and the whole suite.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh" dev
bash scripts/install-test-deps.sh
export QT_QPA_PLATFORM=offscreen
# The PyInstaller bundle builds and runs its self-test beside the linters and
# the tests (its own process group, so a failure here stops it too); its
# output comes at the end. PyInstaller keeps its work folder (build/) and
# cache (~/.cache/pyinstaller) between runs.
mkdir -p build
bundle_log=build/bundle-check.log
setsid bash scripts/bundle-check.sh > "$bundle_log" 2>&1 &
bundle_pid=$!
trap 'kill -- -"$bundle_pid" 2>/dev/null || true' EXIT
echo "== ruff (includes the rule that keeps Qt and network libraries out of core/)"
.venv/bin/ruff check desktop_agent tests benchmarks scripts
echo "== mypy --strict desktop_agent tests scripts"
.venv/bin/mypy desktop_agent
.venv/bin/mypy --explicit-package-bases tests
.venv/bin/mypy scripts/import_cycles.py
echo "== lint-imports (the layers, no import circles: [tool.importlinter] in pyproject.toml)"
.venv/bin/lint-imports --no-cache
echo "== pytest"
status=0
# Three workers (a Qt application each), a whole file per worker: most tests
# wait on timers, servers and subprocesses, so two cores run three at once
# (2,580 tests: 13 min 27 s with two workers, 12 min 0 s with three).
# PYTEST_WORKERS=0 runs it serially.
workers="${PYTEST_WORKERS:-3}"
parallel=()
if [[ "$workers" != 0 ]]; then
    parallel=(-n "$workers" --dist loadfile)
fi
.venv/bin/python -m pytest -q -p no:cacheprovider "${parallel[@]}" "$@" || status=$?
echo "== bundle: build, then --self-test copied elsewhere with a minimal environment"
bundle_status=0
wait "$bundle_pid" || bundle_status=$?
trap - EXIT
cat "$bundle_log"
if (( bundle_status != 0 )); then
    echo "bundle check failed (exit $bundle_status)"
    status=1
fi
exit "$status"

#!/usr/bin/env bash
# Run the whole test suite: every API test on SQLite AND on PostgreSQL (127.0.0.1:5432),
# the Celery path on Redis (127.0.0.1:6379), the web interface in Debian's chromium. Starts those
# services (installs chromium) when they are missing, and fails when the committed web build is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
bash scripts/services.sh
bash scripts/web_build_check.sh
.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/mypy
# one xdist worker per core (the browser tests keep to one worker); TDG_TEST_WORKERS=N sets the
# count, TDG_TEST_WORKERS=0 runs the tests in this process. Each worker has its own PostgreSQL
# database, temp dirs, Redis databases and loopback ports; no test relies on wall-clock speed.
# The 15 slowest are listed at the end: the suite's time is kept under watch (issue 15)
exec .venv/bin/python -m pytest -n "${TDG_TEST_WORKERS:-auto}" --dist loadgroup --durations=15 "$@"

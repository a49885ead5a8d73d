#!/usr/bin/env bash
# Run the whole test suite: every API test on SQLite AND on PostgreSQL (127.0.0.1:5432),
# the Celery path on Redis (127.0.0.1:6379), the web interface in Debian's chromium. Starts those
# services (installs chromium) when they are missing, and fails when the committed web build is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
# Python caches what it compiles (__pycache__, ignored by git): with PYTHONDONTWRITEBYTECODE set,
# every process the suite starts (each `tdg serve`, pool and probe process, CLI run) compiled
# FastAPI, SQLAlchemy, Strawberry and the app from source again: `tdg serve` took 11.3 CPU s to
# answer instead of 4.6 s
unset PYTHONDONTWRITEBYTECODE
bash scripts/bootstrap.sh test
bash scripts/services.sh
# the web build check (npm ci, tsc, vite: the network and mostly one core) runs beside the Python
# gates (mypy: one core), both before the tests; its output is printed once it is done
web_log="$(mktemp "${TMPDIR:-/tmp}/tdg-web-check.XXXXXX")"
bash scripts/web_build_check.sh >"$web_log" 2>&1 &
web_pid=$!
gates=0
{ .venv/bin/ruff check . && .venv/bin/lint-imports && .venv/bin/mypy; } || gates=$?
web=0
wait "$web_pid" || web=$?
cat "$web_log"
rm -f "$web_log"
[ "$gates" -eq 0 ] && [ "$web" -eq 0 ] || exit 1
# one xdist worker per core (the browser tests keep to one worker); TDG_TEST_WORKERS=N sets the
# count, TDG_TEST_WORKERS=0 runs the tests in this process. Each worker has its own PostgreSQL
# database, temp dirs, Redis databases and loopback ports; no test relies on wall-clock speed.
# The 15 slowest are listed at the end: the suite's time is kept under watch (issue 15)
exec .venv/bin/python -m pytest -n "${TDG_TEST_WORKERS:-auto}" --dist loadgroup --durations=15 "$@"

#!/usr/bin/env bash
# Create .venv and install the project (with test extras) when missing or when pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "Python 3.11 or newer is required (found $("$PY" --version 2>&1))." >&2
  exit 1
fi
# the C extension is built in place by the editable install: its sources are part of the stamp
stamp=".venv/.installed-$(cat pyproject.toml setup.py app/generation/writers/*.c | sha256sum | cut -c1-16)"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[test]'
  rm -f .venv/.installed-* && touch "$stamp"
fi

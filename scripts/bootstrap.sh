#!/usr/bin/env bash
# Create .venv and install the project when missing or when pyproject.toml changed.
#   bootstrap.sh runtime   what the service needs (scripts/serve.sh): the package and its dependencies
#   bootstrap.sh test      the same with the test extras (scripts/test.sh; the default)
# Each mode has its own stamp: a test run after serve.sh installs the extras; a test install also
# satisfies runtime (it is a superset).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-test}"
case "$mode" in
  runtime) target='.' ;;
  test) target='.[test]' ;;
  *) echo "usage: bootstrap.sh [runtime|test]" >&2; exit 2 ;;
esac
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "Python 3.11 or newer is required (found $("$PY" --version 2>&1))." >&2
  exit 1
fi
# the C extension is built in place by the editable install: its sources are part of the stamp
hash="$(cat pyproject.toml setup.py app/generation/writers/*.c | sha256sum | cut -c1-16)"
stamp() { echo ".venv/.installed-$1-$hash"; }
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# the one stamp of earlier versions of this script marked an install with the test extras
if [ -f ".venv/.installed-$hash" ]; then
  touch "$(stamp test)" "$(stamp runtime)" && rm -f ".venv/.installed-$hash"
fi
if [ ! -f "$(stamp "$mode")" ]; then
  echo "Installing the $mode dependencies into .venv (once; again only when pyproject.toml changes)..." >&2
  # uv fetches and unpacks the hundred-odd packages in parallel: a first install took 15 s with it
  # where pip took 60-110 s on this project's machines. pip remains the way when uv cannot be had.
  if ! { .venv/bin/python -m pip install --quiet uv >/dev/null 2>&1 &&
         .venv/bin/uv pip install --quiet --python .venv/bin/python -e "$target"; }; then
    echo "(uv could not install it; pip does)" >&2
    .venv/bin/python -m pip install --quiet -e "$target"
  fi
  # stamps of another pyproject.toml (and the unmoded ones of earlier versions) are stale
  find .venv -maxdepth 1 -name '.installed-*' ! -name ".installed-*-$hash" -delete
  touch "$(stamp "$mode")"
  if [ "$mode" = test ]; then touch "$(stamp runtime)"; fi
fi

#!/usr/bin/env bash
# Run the service at http://127.0.0.1:8000 (SQLite + local process pool under ./var, no setup needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh runtime
exec .venv/bin/tdg serve "$@"

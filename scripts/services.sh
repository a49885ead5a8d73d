#!/usr/bin/env bash
# Make sure the local PostgreSQL and Redis the tests use are running (start them if not), and that
# Debian's chromium (browser tests), curl and jq (the README walk-through test) are installed.
set -uo pipefail
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    echo "Starting PostgreSQL..." >&2
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
pg_up || { echo "PostgreSQL is not running on 127.0.0.1:5432 and could not be started." >&2; exit 1; }
if command -v redis-cli >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "Starting Redis..." >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 20); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.5; done
fi
# the browser tests drive Debian's chromium through Playwright (which cannot download browsers here)
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing chromium..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends chromium fonts-liberation fonts-dejavu-core >/dev/null || true
fi
[ -x /usr/bin/chromium ] || { echo "chromium is not installed at /usr/bin/chromium and could not be installed." >&2; exit 1; }
# the README walk-through test runs its curl | jq blocks as written
if { ! command -v jq >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; } && command -v apt-get >/dev/null 2>&1; then
  echo "Installing curl and jq..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends curl jq >/dev/null || true
fi
command -v jq >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 || { echo "curl and jq are needed and could not be installed." >&2; exit 1; }
exit 0

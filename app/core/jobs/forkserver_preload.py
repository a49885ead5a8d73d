"""Imported once by the fork server (app/core/processes.py) before it forks any worker: the modules a
generation or probe process runs, and the engine's warm-up, done there once instead of in each
process. Nothing here may start a thread or open a connection: every child would inherit it
half-copied (a fork copies the forking thread alone)."""

from __future__ import annotations

import logging

from app.core import schema_probe
from app.core.jobs import plans, worker_run

__all__ = ["plans", "schema_probe", "worker_run"]

try:
    plans.warm_up()
except Exception:  # a warm-up that fails leaves the work to the first shard (executors._init_worker)
    logging.getLogger("tdg.jobs").exception("the fork server could not warm up the engine")

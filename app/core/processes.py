"""How the service starts its worker processes (the generation pool, the schema probes): forked
from a fork server that imported the engine and warmed it up once (forkserver_preload).

Spawning each process cost about 1.5 CPU seconds (1 s of imports, 0.5 s of warm-up) on every
pool start, every replacement of a dead process and every probe pool (replaced after 16 probes
or 5 idle seconds). A fork server is a fresh interpreter like a spawned child, so nothing of the
server leaks into a worker (its event loop, its connection pools, its threads); its children are
forks of it, ready in milliseconds, sharing the engine's pages until they write them.
A worker's environment is the fork server's, taken when it started (the server's first pool)."""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

PRELOAD = "app.core.jobs.forkserver_preload"


def process_context() -> BaseContext:
    """The multiprocessing context of the service's pools."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([PRELOAD])  # read when the fork server starts, once
    return context

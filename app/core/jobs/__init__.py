"""Dataset generation jobs: the dispatcher (claims queued work, reaps lapsed leases), the
executors (local process pool or Celery) and the worker-side run. The dataset row is the
source of truth; every worker write is fenced by `attempt`."""

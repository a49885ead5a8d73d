"""The Celery application for scale-out generation (`tdg worker`). Late acknowledgement and
re-delivery on worker loss; the shard row's fenced attempt makes re-delivery safe."""

from __future__ import annotations

from celery import Celery

from app.core.jobs.worker_run import run_shard
from app.core.settings import Settings, get_settings

# one Celery app per distinct configuration; Settings is unhashable, so an lru_cache on the
# argument raised TypeError and neither `tdg worker` nor `tdg serve` with a broker could start
_apps: dict[str, Celery] = {}


def celery_for(settings: Settings | None = None) -> Celery:
    settings = settings or get_settings()
    key = settings.model_dump_json()
    if key in _apps:
        return _apps[key]
    app = _apps[key] = Celery("tdg", broker=settings.broker_url)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue="tdg",
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        # a shard must finish before the broker re-delivers it to another worker
        broker_transport_options={"visibility_timeout": 6 * 3600},
        worker_hijack_root_logger=False,
    )

    # the JSON form run_shard validates back into Settings (executors.settings_payload sends the same)
    payload = settings.model_dump(mode="json")

    @app.task(name="tdg.generate_shard", acks_late=True, reject_on_worker_lost=True)
    def generate_shard(shard_id: int, attempt: int) -> str:
        return run_shard(payload, shard_id, attempt)

    return app

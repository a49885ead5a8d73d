"""Service settings. The only module that reads the environment (prefix `TDG_`)."""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TDG_", env_file=None, extra="ignore")

    env: Literal["development", "production", "test"] = "development"
    database_url: str = "sqlite:///./var/tdg.db"
    # connections each server process keeps open (requests beyond them wait for one, in turn):
    # all kept, none opened for a burst and closed after it, as a pool with overflow did under
    # steady load (an SQLite connection is a thread of its own, a PostgreSQL one a server process)
    database_pool_size: int = Field(default=15, ge=1, le=200)
    # how long a request waits for one of them before it is answered 503 (Retry-After: 1)
    database_pool_timeout_seconds: float = Field(default=30.0, gt=0)
    data_dir: Path = Path("./var/data")
    secret_key: str | None = Field(
        default=None, description="JWT signing key; generated under data_dir when unset"
    )
    admin_username: str = "admin"
    admin_password: str | None = None
    token_ttl_hours: int = Field(default=24, ge=1, le=24 * 365)
    invitation_ttl_hours: int = Field(default=24 * 7, ge=1)
    # where people reach the service (invitation links); unset, `tdg serve` uses the address it listens on
    public_url: str | None = None
    # login throttling: failures per key within the window before 429
    login_max_failures: int = Field(default=5, ge=1)
    login_window_seconds: int = Field(default=300, ge=1)
    login_lockout_seconds: int = Field(default=300, ge=1)
    # argon2id cost of new password hashes; OWASP's floor by default, refused below it in
    # production (the test suite hashes at t=1, 8 KiB: hundreds of logins otherwise cost minutes)
    password_hash_time_cost: int = Field(default=2, ge=1)
    password_hash_memory_kib: int = Field(default=19456, ge=8)
    graphql_max_depth: int = 12
    graphql_max_aliases: int = 30
    graphql_max_tokens: int = 4000
    graphql_introspection: bool = True
    # start the local pool's processes (imports, locale data) with the server rather than with the
    # first dataset; off in the in-process test apps, which start hundreds of servers
    warm_pool: bool = True
    # a thread of each worker renews its shard's lease every quarter lease, whatever the progress;
    # a lapsed lease means the worker is gone (dead, or cut off from the database)
    job_lease_seconds: float = Field(default=30.0, gt=0)
    # a running shard closes its parts at the next block edge after this many seconds and records
    # them: a shard taken over after its worker died resumes from there instead of from its start.
    # The price: a file whose range takes longer than this to write is joined from its parts (a
    # kernel copy and one hashing read) instead of hard-linked whole
    job_checkpoint_seconds: float = Field(default=120.0, gt=0)
    job_max_attempts: int = Field(default=3, ge=1)
    # a worker's transaction that loses its connection (refused, terminated, reset) is run again
    # with doubling waits for this long before the worker gives up
    job_database_retry_seconds: float = Field(default=300.0, gt=0)
    dispatch_interval_seconds: float = Field(default=1.0, gt=0)
    # the local pool's size; with Celery, the generation slots the dispatcher plans shards for
    workers: int = Field(default=2, ge=1)
    # A dataset is cut into shards of at most this many records, and into more when workers
    # would otherwise idle (each at least `split_records`). Fewer, larger shards spare the
    # joining and re-hashing of parts. A shard with at least twice `split_records` left is split
    # while it runs when a worker idles (the tail of a run, a lone dataset).
    shard_records: int = Field(default=1_000_000, ge=1)
    split_records: int = Field(default=131_072, ge=1)
    max_shards: int = Field(default=64, ge=1)
    default_types: list[str] = ["json"]
    broker_url: str | None = None
    webhook_allow_private: bool = False
    # Standard Webhooks retry schedule: seconds to wait before each retry after the first attempt
    webhook_retry_schedule: list[float] = [5, 300, 1800, 7200, 18000, 36000, 36000]
    webhook_timeout_seconds: float = Field(default=15.0, gt=0)
    webhook_poll_seconds: float = Field(default=1.0, gt=0)
    # an integration is disabled after this many consecutive events whose delivery failed for good
    webhook_max_failed_events: int = Field(default=5, ge=1)
    # where files are kept: unset, the local folder data_dir; `file:///path` another folder;
    # `s3://bucket/prefix` S3-compatible object storage (credentials: the standard AWS chain)
    storage_url: str | None = None
    # the object store's endpoint when it is not AWS (MinIO, Ceph, R2, a test server)
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    # downloads from an object store answered with a 307 to a presigned URL valid this long
    download_redirect: bool = False
    download_url_seconds: int = Field(default=300, ge=1, le=7 * 24 * 3600)
    # multipart threshold and part size of object-store uploads
    export_part_bytes: int = Field(default=8 * 1024 * 1024, ge=5 * 1024 * 1024)
    # An object-store call waits this long for an answer (a server-side copy, which answers only
    # when done, the copy timeout) and is tried again after a transient failure (a timeout, a
    # connection lost, 5xx, SlowDown) with doubling waits until the retry deadline: a store that
    # freezes for less than that delays the work in progress and does not fail it
    storage_timeout_seconds: float = Field(default=60.0, gt=0)
    storage_copy_timeout_seconds: float = Field(default=900.0, gt=0)
    storage_retry_seconds: float = Field(default=300.0, gt=0)
    # /readyz answers 503 when the database or the store does not answer within this
    ready_timeout_seconds: float = Field(default=3.0, gt=0)
    retention_interval_seconds: float = Field(default=3600.0, gt=0)
    # webhook deliveries that ended (and their attempts) and events already fanned out are
    # deleted after this many days: both tables otherwise grow with every dataset forever
    history_retention_days: int = Field(default=30, ge=1)
    max_record_count: int = 10_000_000
    # a coverage set a request waits for (creation's size check, a coverage plan, a preview) is
    # built in a probe process within this many seconds, else 422 coverage_too_large
    coverage_seconds: float = Field(default=15.0, gt=0)
    # HTTP connections (`tdg serve`, app/serving.py): a request's line and headers must arrive
    # within http_header_timeout_seconds of its first byte (of the connection, for the first
    # request), however slowly they trickle; an idle keep-alive connection closes after
    # http_keep_alive_seconds; connections past http_max_connections are answered 503 and closed
    http_header_timeout_seconds: float = Field(default=10.0, gt=0)
    http_keep_alive_seconds: int = Field(default=5, ge=1)
    http_max_connections: int = Field(default=1000, ge=1)
    http_max_header_bytes: int = Field(default=64 * 1024, ge=1024)
    # memory that parsed schemas may hold, measured (app/core/schema_cache.py), per process; 0: no
    # cache. A 1 MB JSON Schema parses into about 13 MB; typical schemas (10-100 kB) into 0.1-2 MB
    schema_cache_bytes: int = Field(default=32 * 1024 * 1024, ge=0)

    @field_validator("secret_key")
    @classmethod
    def _strong_secret(cls, value: str | None) -> str | None:
        if value is not None and len(value.encode()) < 32:
            raise ValueError("TDG_SECRET_KEY must be at least 32 bytes")
        if value in {"changeme", "secret", "changethis"}:
            raise ValueError("TDG_SECRET_KEY is a placeholder")
        return value

    @field_validator("storage_url")
    @classmethod
    def _storage_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        scheme, _, rest = value.partition("://")
        if scheme == "file" and rest.startswith("/"):
            return value
        if scheme == "s3" and rest.split("/", 1)[0]:
            return value
        raise ValueError("TDG_STORAGE_URL must be file:///absolute/path or s3://bucket/prefix")

    @model_validator(mode="after")
    def _password_cost_floor(self) -> Settings:
        if self.is_production and (self.password_hash_time_cost < 2 or self.password_hash_memory_kib < 19456):
            raise ValueError(
                "TDG_PASSWORD_HASH_TIME_COST/_MEMORY_KIB are below OWASP's floor (2, 19456) in production"
            )
        return self

    @property
    def site_url(self) -> str:
        """public_url without a trailing slash (`tdg serve`'s default address when unset)."""
        return (self.public_url or "http://127.0.0.1:8000").rstrip("/")

    @property
    def is_production(self) -> bool:
        return self.env == "production"

    def signing_key(self) -> str:
        """The configured secret, else one generated once and kept under the data dir."""
        if self.secret_key:
            return self.secret_key
        path = self.data_dir / "secret_key"
        if not path.exists():
            self.data_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(secrets.token_urlsafe(48))
            path.chmod(0o600)
        return path.read_text().strip()


@lru_cache
def get_settings() -> Settings:
    return Settings()

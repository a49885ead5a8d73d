"""The one domain error hierarchy. Mapped to HTTP in app/rest/errors.py and to GraphQL
`extensions.code` in app/graphql/errors.py — nowhere else.

    DomainError
    ├── BadRequest        400  malformed JSON, missing required field
    ├── Unauthenticated   401  token missing, invalid, expired, revoked; one-time code needed
    ├── Forbidden         403  visible resource, role lacks the action
    ├── NotFound          404  missing, or invisible to the caller (no existence leak)
    ├── Conflict          409  state does not allow the action (dataset not queued, schema in use)
    ├── Gone              410  a dataset's stored file is missing (the dataset is marked expired)
    ├── PayloadTooLarge   413  upload above the limit
    ├── UnsupportedMedia  415  JSON route given another content type
    ├── Invalid           422  present but invalid values, constraint conflicts, bad schemas
    ├── TooManyRequests   429  throttled (carries retry_after seconds)
    ├── Busy              503  no database connection free within the pool's timeout
    ├── DatabaseUnavailable 503 the database refused, dropped or could not open the connection
    └── StorageUnavailable 503 the file store cannot be used (endpoint, bucket, credentials)

An error with `retry_after` (seconds) is answered with a Retry-After header.
"""

from __future__ import annotations

from typing import Any, ClassVar


class DomainError(Exception):
    code: ClassVar[str] = "error"
    status: ClassVar[int] = 500
    retry_after: int | None = None  # seconds a client should wait before trying again

    def __init__(self, detail: str, *, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = errors


class BadRequest(DomainError):
    code = "bad_request"
    status = 400


class Unauthenticated(DomainError):
    code = "unauthenticated"
    status = 401


class Forbidden(DomainError):
    code = "forbidden"
    status = 403


class NotFound(DomainError):
    code = "not_found"
    status = 404


class Conflict(DomainError):
    code = "conflict"
    status = 409


class Gone(DomainError):
    """What was asked for existed and is gone for good (a dataset's file lost from the store)."""

    code = "gone"
    status = 410


class PayloadTooLarge(DomainError):
    code = "payload_too_large"
    status = 413


class UnsupportedMedia(DomainError):
    code = "unsupported_media_type"
    status = 415


class Invalid(DomainError):
    code = "invalid"
    status = 422


class TooManyRequests(DomainError):
    code = "too_many_requests"
    status = 429

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class Busy(DomainError):
    """Every database connection of the process stayed in use for the pool's whole timeout."""

    code = "busy"
    status = 503
    retry_after = 1

    def __init__(self) -> None:
        super().__init__("The service is busy: every database connection stayed in use; retry in a moment.")


class DatabaseUnavailable(DomainError):
    """The database refused a connection, dropped one, or (SQLite) could not open or read its file:
    the request is answered 503 and the service serves again once the database is back (the pool
    checks a connection before lending it)."""

    code = "database_unavailable"
    status = 503
    retry_after = 5

    def __init__(self) -> None:
        super().__init__("The database cannot be reached right now; retry in a moment.")


class StorageUnavailable(DomainError):
    code = "storage_unavailable"
    status = 503
    retry_after = 5

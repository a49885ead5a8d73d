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

Every error carries a stable `code` (snake_case, one of app/core/error_codes.ErrorCode): the
kind's default below, or a finer one given where it is raised (`schema_not_found`,
`invalid_record_count`); a client branches on it, never on the sentence. An error about one input
also names its `field`: the path of the value in the operation's input (`record_count`,
`params.seed`, `rules.2.pattern`), so a form shows it next to that control.

An error with `retry_after` (seconds) is answered with a Retry-After header.
"""

from __future__ import annotations

from typing import Any, ClassVar

from app.core.error_codes import ErrorCode


class DomainError(Exception):
    default_code: ClassVar[ErrorCode] = ErrorCode.INTERNAL
    status: ClassVar[int] = 500
    retry_after: int | None = None  # seconds a client should wait before trying again

    def __init__(
        self,
        detail: str,
        *,
        code: ErrorCode | None = None,
        field: str | None = None,
        errors: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code: ErrorCode = code or self.default_code
        self.field = field
        self.errors = errors


class BadRequest(DomainError):
    default_code = ErrorCode.BAD_REQUEST
    status = 400


class Unauthenticated(DomainError):
    default_code = ErrorCode.UNAUTHENTICATED
    status = 401


class Forbidden(DomainError):
    default_code = ErrorCode.FORBIDDEN
    status = 403


class NotFound(DomainError):
    default_code = ErrorCode.NOT_FOUND
    status = 404


class Conflict(DomainError):
    default_code = ErrorCode.CONFLICT
    status = 409


class Gone(DomainError):
    """What was asked for existed and is gone for good (a dataset's file lost from the store)."""

    default_code = ErrorCode.GONE
    status = 410


class PayloadTooLarge(DomainError):
    default_code = ErrorCode.PAYLOAD_TOO_LARGE
    status = 413


class UnsupportedMedia(DomainError):
    default_code = ErrorCode.UNSUPPORTED_MEDIA_TYPE
    status = 415


class Invalid(DomainError):
    default_code = ErrorCode.INVALID
    status = 422


class TooManyRequests(DomainError):
    default_code = ErrorCode.TOO_MANY_REQUESTS
    status = 429

    def __init__(self, detail: str, *, retry_after: int, code: ErrorCode | None = None) -> None:
        super().__init__(detail, code=code)
        self.retry_after = retry_after


class Busy(DomainError):
    """Every database connection of the process stayed in use for the pool's whole timeout."""

    default_code = ErrorCode.BUSY
    status = 503
    retry_after = 1

    def __init__(self) -> None:
        super().__init__("The service is busy: every database connection stayed in use; retry in a moment.")


class DatabaseUnavailable(DomainError):
    """The database refused a connection, dropped one, or (SQLite) could not open or read its file:
    the request is answered 503 and the service serves again once the database is back (the pool
    checks a connection before lending it)."""

    default_code = ErrorCode.DATABASE_UNAVAILABLE
    status = 503
    retry_after = 5

    def __init__(self) -> None:
        super().__init__("The database cannot be reached right now; retry in a moment.")


class StorageUnavailable(DomainError):
    default_code = ErrorCode.STORAGE_UNAVAILABLE
    status = 503
    retry_after = 5

"""Transient faults of the object store, retried: a call that times out, loses its connection or is
answered "slow down" / 5xx is tried again after a wait that doubles (with jitter) until the
call's deadline (TDG_STORAGE_RETRY_SECONDS); only then does it fail. A store frozen for less
than that delays the work in progress without failing it.

Every call retried here may be sent twice: uploading a part again replaces it, a copy writes the
same bytes, a read starts again where it stopped. The one call that is not idempotent, completing
a multipart upload, is handled by its caller (a repeat answered NoSuchUpload, after a first try
whose answer was lost, finds the object in place)."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    HTTPClientError,
    ReadTimeoutError,
    ResponseStreamingError,
)

log = logging.getLogger("tdg.storage")
T = TypeVar("T")
FIRST_WAIT_SECONDS = 0.2
LONGEST_WAIT_SECONDS = 5.0
# answers that say "not now" rather than "no": the request may succeed as it is, later
_TRANSIENT_CODES = frozenset({"SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable",
                              "Throttling", "ThrottlingException", "RequestTimeTooSkewed"})  # fmt: skip


def transient(exc: BaseException) -> bool:
    """Whether a failure of an object-store call may pass if the call is sent again."""
    if isinstance(
        exc,
        EndpointConnectionError
        | ConnectTimeoutError
        | ReadTimeoutError
        | ConnectionClosedError
        | ResponseStreamingError
        | HTTPClientError,
    ):
        return True
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
        return str(error.get("Code", "")) in _TRANSIENT_CODES or status >= 500
    return False


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How long one call is retried, in seconds (its first try included)."""

    deadline_seconds: float

    def run(self, call: Callable[[], T], what: str, give_up: Callable[[], bool] | None = None) -> T:
        """`call()`, tried again after each transient failure until the deadline passes, or
        until `give_up()` (the work it serves was cancelled or taken over meanwhile)."""
        deadline = time.monotonic() + self.deadline_seconds
        wait = FIRST_WAIT_SECONDS
        while True:
            try:
                return call()
            except Exception as exc:
                if (
                    not transient(exc)
                    or time.monotonic() + wait > deadline
                    or (give_up is not None and give_up())
                ):
                    raise
                log.warning(
                    "object store: %s failed (%s), retrying in %.1f s", what, exc.__class__.__name__, wait
                )
            time.sleep(wait * random.uniform(0.5, 1.0))
            wait = min(2 * wait, LONGEST_WAIT_SECONDS)


__all__ = ["RetryPolicy", "transient"]

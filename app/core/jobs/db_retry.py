"""The job machinery's database transactions, tried again through a short outage: a connection
refused, terminated or reset (PostgreSQL restarting, a failover, a proxy dropping connections)
rolls the transaction back, and the whole of it runs again after a wait that doubles until
TDG_JOB_DATABASE_RETRY_SECONDS have passed. A worker then goes on where it was instead of failing
its dataset; the dispatcher's loop, which runs each pass in its own transactions, simply meets the
database again at its next pass.

A transaction retried here may have committed before its connection broke (the answer lost):
each is written to be run twice safely (fenced updates of the same values), or to see its own
earlier commit as a lost fence, which the reaper and the next attempt settle."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

log = logging.getLogger("tdg.worker")
T = TypeVar("T")
FIRST_WAIT_SECONDS = 0.1
LONGEST_WAIT_SECONDS = 5.0


def transient(exc: BaseException) -> bool:
    """A failure of the connection rather than of the statement: worth running it again."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, OperationalError | InterfaceError)


def retry_db(call: Callable[[], T], what: str, deadline_seconds: float) -> T:
    """`call()` (a whole transaction), run again after each transient failure until the deadline."""
    deadline = time.monotonic() + deadline_seconds
    wait = FIRST_WAIT_SECONDS
    while True:
        try:
            return call()
        except Exception as exc:
            if not transient(exc) or time.monotonic() + wait > deadline:
                raise
            log.warning("database: %s failed (%s), retrying in %.1f s", what, exc.__class__.__name__, wait)
        time.sleep(wait * random.uniform(0.5, 1.0))
        wait = min(2 * wait, LONGEST_WAIT_SECONDS)


__all__ = ["retry_db", "transient"]

"""A pause of Python's cyclic garbage collector around work that allocates many objects and frees
none of them as cycles: building or unpickling a schema (tens of thousands of objects) and the
guard's validation (many short-lived ones). The collections those allocations trigger traverse every
live object, the schema's whole component graph included, at about the cost of the work itself;
reference counting still frees what goes. Collection resumes afterwards, unless it was off."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# net new container objects since the last collection above which `collect_if_grown` collects
GROWN_OBJECTS = 500_000


def collect_if_grown(threshold: int = GROWN_OBJECTS) -> None:
    """One collection now if collection is off (`tdg generate` defers it for the whole load and
    compile) and more than `threshold` container objects were made since the last: loading UBL 2.1
    Invoice's 14 files leaves 1.3 million objects of cyclic garbage (about 110 MiB, a third of the
    run's peak memory) that would otherwise stay to the end; an ordinary schema's load makes under
    100,000 and is not collected here."""
    if not gc.isenabled() and gc.get_count()[0] > threshold:
        gc.collect()

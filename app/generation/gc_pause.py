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

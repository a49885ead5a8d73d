"""One chunk of records as UTF-8 bytes from per-column text: the writers' final assembly step.

`interleave(pieces, columns, n)` is, for each row r, `pieces[0] + columns[0][r] + pieces[1] +
... + columns[k-1][r] + pieces[k]`, all rows concatenated and UTF-8 encoded. The C extension
`_interleave` (built by `pip install`, see setup.py) does it in one pass with a memcpy per
piece; where it could not be built (no C compiler) the same bytes come from `_interleave_py`:
a slice-assigned list of the pieces, one `str.join`, one `str.encode`.
"""

from __future__ import annotations

from collections.abc import Callable

try:
    from app.generation.writers._interleave import interleave as _native
except ImportError:  # built without a compiler: the pure-Python path gives the same bytes
    _native = None


def _interleave_py(pieces: list[str], columns: list[list[str]], n: int) -> bytes:
    k = len(columns)
    if len(pieces) != k + 1:
        raise ValueError("interleave() needs one more piece than columns")
    if n < 0:
        raise ValueError("interleave() needs n >= 0")
    stride = 2 * k + 1
    flat: list[str] = [""] * (stride * n)
    for j, piece in enumerate(pieces):
        flat[2 * j::stride] = [piece] * n
    for j, values in enumerate(columns):
        if not isinstance(values, list) or len(values) != n:
            raise ValueError(f"interleave() column {j} is not a list of {n} values")
        flat[2 * j + 1::stride] = values
    try:
        return "".join(flat).encode()
    except TypeError as exc:
        raise TypeError(f"interleave() takes str values: {exc}") from None


interleave: Callable[[list[str], list[list[str]], int], bytes] = _native or _interleave_py
NATIVE = _native is not None

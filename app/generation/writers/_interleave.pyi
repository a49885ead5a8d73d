# The C extension built from _interleave.c (optional: interleave.py falls back to Python).

def interleave(
    pieces: list[str],
    columns: list[list[str]] | list[list[str | None]],
    n: int,
    modes: bytes | None = None,
    delimiter: str = ",",
    optional: list[tuple[str, bytes] | None] | None = None,
    /,
) -> bytes: ...
def join_groups(
    pieces: list[str], columns: list[list[str]], n_items: int, offsets: list[int], /
) -> list[str]: ...

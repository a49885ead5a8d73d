"""Forcing a value at a location of a JSON-shaped record (dicts, lists, scalars).

A location *template* is a tuple of steps: a property name (str), an array position (int), or
ANY_ITEM (every item of an array). `locations` turns a template into the concrete paths a record
holds; `put` and `remove` return a copy of the record with one value replaced, added or removed,
sharing every part they do not touch. Coverage sets (app/generation/coverage) use the same API."""

from __future__ import annotations

from typing import Any

ANY_ITEM = None  # the template step matching every item of an array
Step = str | int | None
Path = tuple[str | int, ...]


def pointer(path: Path) -> str:
    """RFC 6901 JSON Pointer of a concrete path ("" for the root)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def locations(record: Any, template: tuple[Step, ...]) -> list[Path]:
    """Every concrete path of `record` that `template` matches, in document order."""
    found: list[Path] = []
    stack: list[tuple[Any, Path, int]] = [(record, (), 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth == len(template):
            found.append(path)
            continue
        step = template[depth]
        if isinstance(step, str):
            if isinstance(value, dict) and step in value:
                stack.append((value[step], (*path, step), depth + 1))
        elif isinstance(value, list):
            if step is None:
                stack.extend((v, (*path, i), depth + 1) for i, v in reversed(list(enumerate(value))))
            elif step < len(value):
                stack.append((value[step], (*path, step), depth + 1))
    return found


def get(record: Any, path: Path) -> Any:
    for p in path:
        record = record[p]
    return record


def put(record: Any, path: Path, value: Any) -> Any:
    """A copy of `record` holding `value` at `path` (a new member when the last step is a name
    the object lacks). Only the containers along the path are copied."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(record, dict):
        out: Any = dict(record)
        out[head] = put(record[head], rest, value) if rest else value
        return out
    out = list(record)
    assert isinstance(head, int)
    out[head] = put(record[head], rest, value) if rest else value
    return out


def remove(record: Any, path: Path) -> Any:
    """A copy of `record` without the member or item at `path` (not the root)."""
    parent, last = path[:-1], path[-1]
    container = get(record, parent)
    if isinstance(container, dict):
        changed: Any = {k: v for k, v in container.items() if k != last}
    else:
        changed = [v for i, v in enumerate(container) if i != last]
    return put(record, parent, changed)

"""Lone UTF-16 surrogates in a decoded JSON body. Python's json turns an escape such as `\\ud800`
with no partner into a one-character string that no output, driver or database can encode: a
resolver handed one failed with a 500. The REST facade decodes with orjson, which refuses them."""

from __future__ import annotations

from typing import Any


def _lone(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= ch <= "\udfff" for ch in text)


def lone_surrogate_at(value: Any) -> str | None:
    """The JSON pointer of the first key or string holding a lone surrogate, None when none does."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, pointer = stack.pop()
        if isinstance(item, str):
            if _lone(item):
                return pointer or "/"
        elif isinstance(item, dict):
            for key, child in item.items():
                step = f"{pointer}/{key}"
                if isinstance(key, str) and _lone(key):
                    return step.encode("utf-8", "backslashreplace").decode("utf-8")
                stack.append((child, step))
        elif isinstance(item, list):
            stack.extend((child, f"{pointer}/{i}") for i, child in enumerate(item))
    return None

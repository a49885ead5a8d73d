"""The generation engine (a stand-alone library: no server, database or settings machinery)."""

from __future__ import annotations

import sys
import types
from typing import Any


def _defer_rfc3987_syntax() -> None:
    """jsonschema's format module imports rfc3987_syntax (its `iri` and `iri-reference` checks)
    as it is imported, and rfc3987_syntax compiles 38 Lark grammars then: about 0.3 s (1 s on a
    loaded machine) that every `tdg generate` of a JSON Schema paid before its first record, though
    few schemas have an IRI field. A stand-in module takes its place until an IRI is checked: its
    `is_valid_syntax` (the one name jsonschema imports) and any other attribute import the real
    module then and hand over to it, so every check answers exactly as before."""
    if "rfc3987_syntax" in sys.modules or "jsonschema" in sys.modules:
        return
    import importlib
    import importlib.util

    try:
        spec = importlib.util.find_spec("rfc3987_syntax")
    except (ImportError, ValueError):
        return
    if spec is None:
        return  # not installed: jsonschema skips those checks, as it would have
    stand_in = types.ModuleType("rfc3987_syntax", "A stand-in importing rfc3987_syntax on first use.")

    def real() -> types.ModuleType:
        if sys.modules.get("rfc3987_syntax") is stand_in:
            del sys.modules["rfc3987_syntax"]
        return importlib.import_module("rfc3987_syntax")

    def is_valid_syntax(term: str, value: str) -> Any:
        return real().is_valid_syntax(term, value)

    def attribute(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(real(), name)

    stand_in.__dict__.update(is_valid_syntax=is_valid_syntax, __getattr__=attribute, __spec__=spec)
    sys.modules["rfc3987_syntax"] = stand_in


_defer_rfc3987_syntax()

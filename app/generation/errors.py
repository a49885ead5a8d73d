"""The engine's own errors: every sentence names what is wrong, for a person to read. The engine
imports nothing from the service; app/core/generation.py maps these to its domain errors."""

from __future__ import annotations


class GenerationError(Exception):
    """Base: the engine cannot do what it was asked with these inputs."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class SchemaError(GenerationError):
    """The schema cannot be read or modelled (not JSON Schema or XSD, broken, unsafe, unknown root)."""


class SchemaTooLarge(SchemaError):
    """The schema (or a zip's content) is above the size limit."""


class RuleError(GenerationError):
    """A constraint rule does not fit the schema or conflicts with its facets."""


class ParamsError(GenerationError):
    """A generation parameter (seed, locale, format, dialect, ...) is not valid."""


class Unsatisfiable(GenerationError):
    """The facets, rules and parameters admit no value or record (found while compiling or drawing)."""

"""The engine's own errors: every sentence names what is wrong, for a person to read. The engine
imports nothing from the service; app/core/generation.py maps these to its domain errors.

Each error carries a stable `code` (its class's, listed in app/core/error_codes.py too) and, when
it concerns one input, the `field` it names: `params.seed`, or `rules.2.pattern` for a rule (the
rule's index in the list and the rule key at fault)."""

from __future__ import annotations

from typing import ClassVar


class GenerationError(Exception):
    """Base: the engine cannot do what it was asked with these inputs."""

    code: ClassVar[str] = "invalid"

    def __init__(self, detail: str, *, field: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field


class SchemaError(GenerationError):
    """The schema cannot be read or modelled (not JSON Schema or XSD, broken, unsafe, unknown root)."""

    code = "invalid_schema"


class SchemaTooLarge(SchemaError):
    """The schema (or a zip's content) is above the size limit."""

    code = "schema_too_large"


class RuleError(GenerationError):
    """A constraint rule does not fit the schema or conflicts with its facets. `rule_path` is the
    rule's field path and `key` the rule key at fault, until parse_rules places it with `at`."""

    code = "invalid_rule"

    def __init__(
        self, detail: str, *, key: str | None = None, rule_path: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(detail, field=field)
        self.key = key
        self.rule_path = rule_path

    def at(self, index: int) -> RuleError:
        """This error about the rule at `index` of the list sent: field `rules.<index>[.<key>]`."""
        self.field = f"rules.{index}" + (f".{self.key}" if self.key else "")
        return self


class ParamsError(GenerationError):
    """A generation parameter (seed, locale, format, dialect, ...) is not valid."""

    code = "invalid_params"


class Unsatisfiable(GenerationError):
    """The facets, rules and parameters admit no value or record (found while compiling or drawing)."""

    code = "unsatisfiable"


class CoverageTooLarge(GenerationError):
    """A coverage set past its bounds: more targets or records than the limits, or not built
    within the time it was given (app/generation/coverage/sets.py)."""

    code = "coverage_too_large"

"""The "exactly one" rule of negative records, judged by the independent validator.

A record breaks exactly the labelled constraint when every error the validator reports is at the
labelled location with the labelled keyword, or comes from an applicator (allOf, anyOf, oneOf,
$ref, if/then/else, ...) at that location or above it whose nested errors hold the labelled one.
The engine checks each record it breaks with this; the tests check every label with it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

APPLICATORS = frozenset(
    {
        "allOf",
        "anyOf",
        "oneOf",
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
        "if",
        "then",
        "else",
        "dependentSchemas",
    }
)


# keywords whose errors jsonschema names by the subschema keyword that failed inside them
# (propertyNames: {maxLength: 3} reports `maxLength` at the object, schema path propertyNames/...)
_NAMED_INSIDE = frozenset({"propertyNames"})


def is_keyword(error: Any, keyword: str) -> bool:
    """Whether a jsonschema error is one of `keyword`."""
    if error.validator == keyword:
        return True
    return keyword in _NAMED_INSIDE and keyword in list(error.relative_schema_path)


def _holds(error: Any, path: tuple[Any, ...], keyword: str) -> bool:
    """Whether `error` (or an error nested in its context) is the labelled one."""
    if tuple(error.absolute_path) == path and is_keyword(error, keyword):
        return True
    return any(_holds(e, path, keyword) for e in error.context or ())


def judge_json(errors: Iterable[Any], path: tuple[Any, ...], keyword: str) -> tuple[str | None, Any]:
    """(None, the labelled error) when `errors` (jsonschema ValidationErrors of one record) are
    the break of `keyword` at `path` alone; else (why not, None)."""
    found = None
    for error in errors:
        at = tuple(error.absolute_path)
        if at == path and is_keyword(error, keyword):
            found = found or error
            continue
        if error.validator in APPLICATORS and at == path[: len(at)] and _holds(error, path, keyword):
            found = found or error
            continue
        where = "".join(f"/{p}" for p in at)
        return f"the validator also reports {error.validator!r} at {where or '(root)'}", None
    if found is None:
        return f"the validator reports no {keyword!r} error there", None
    return None, found

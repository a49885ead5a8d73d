"""jsonschema-rs for the value at one location instead of the whole record, where that says the
same: the fast first look at each candidate of a break (json_breaker) then reads a few fields, not
the record. Only where no other schema can see the changed value: the location is reached from
the root through `properties` and `items` alone, no schema on the way holds a keyword that reads
its children's values (enum, const, uniqueItems, contains, an applicator, patternProperties,
unevaluated*, dependentSchemas, ...), and the location's own schema holds no reference (it is
compiled alone). Anywhere else the whole record is validated, as before."""

from __future__ import annotations

from typing import Any

import orjson

from app.generation.negative.constraints import Constraint

# keywords of a schema above the location that never read the values below it
_BLIND = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "minProperties", "maxProperties",
        "items", "minItems", "maxItems", "dependentRequired", "propertyNames", "title", "description",
        "$schema", "$id", "$comment", "$defs", "definitions", "examples", "default", "readOnly",
        "writeOnly", "deprecated",
    }
)  # fmt: skip
_REFS = (b'"$ref"', b'"$dynamicRef"', b'"$recursiveRef"', b'"$dynamicAnchor"', b'"$recursiveAnchor"')


def _steps(pointer: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]


def subtree_validator(cls: Any, contents: Any, c: Constraint) -> Any:
    """A jsonschema-rs validator of c.schema alone when validating the value at c's location
    with it tells what validating the whole record tells; else None."""
    if cls is None or not isinstance(contents, dict) or not isinstance(c.schema, dict) or not c.template:
        return None
    location, _, keyword = c.schema_pointer.rpartition("/")
    if keyword != c.keyword:
        return None
    parts = _steps(location)
    schema: Any = contents
    i = 0
    while i < len(parts):  # the ancestors: properties/NAME and items only, each blind to children
        if not isinstance(schema, dict) or set(schema) - _BLIND:
            return None
        if parts[i] == "properties" and i + 1 < len(parts):
            props = schema.get("properties")
            if not isinstance(props, dict) or parts[i + 1] not in props:
                return None
            schema, i = props[parts[i + 1]], i + 2
        elif parts[i] == "items" and isinstance(schema.get("items"), dict) and "prefixItems" not in schema:
            schema, i = schema["items"], i + 1
        else:
            return None
    if schema is not c.schema:
        return None
    text = orjson.dumps(c.schema)
    if any(ref in text for ref in _REFS):
        return None
    try:
        return cls(c.schema, validate_formats=True)
    except Exception:  # e.g. a pattern its regex engine refuses
        return None

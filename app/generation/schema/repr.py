"""The schema representation (`GET /schemas/{id}/repr`): a JSON-ready view of one field tree."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from app.generation.model import SCALAR_KINDS, Kind, Node
from app.generation.schema.loader import LoadedSchema
from app.generation.values.categories import FieldSemantics


def _json_value(value: Any) -> Any:
    """Decimal -> int when integral else float; anything non-JSON becomes its string form."""
    if isinstance(value, bool) or value is None or isinstance(value, int | float | str):
        return value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    return str(value)


def _pattern(node: Node) -> str | None:
    if not node.patterns:
        return None
    if len(node.patterns) == 1:
        return node.patterns[0]
    # several patterns must all match: shown as lookaheads so one string still says it
    return "".join(f"(?={p})" for p in node.patterns[:-1]) + node.patterns[-1]


def _field(node: Node, unsupported: list[dict[str, str]], semantics: FieldSemantics) -> dict[str, Any]:
    for reason in node.unsupported:
        unsupported.append({"path": node.path, "reason": reason})
    enum = node.enum
    if node.has_const and enum is None:
        enum = [node.const]
    out: dict[str, Any] = {
        "path": node.path,
        "name": node.name,
        "type": node.kind.value,
        "required": node.required,
        "nullable": node.nullable,
        "min": _json_value(node.minimum),
        "max": _json_value(node.maximum),
        "min_length": node.min_length,
        "max_length": node.max_length,
        "pattern": _pattern(node),
        "enum": _json_value(enum) if enum is not None else None,
        "format": node.format,
        "min_items": node.min_items,
        "max_items": node.max_items,
        # what the field's name and context suggest (a rule's `category` overrides it); None for
        # containers, enum/const leaves and values nothing more specific than the facets describes
        "inferred_category": semantics.category(node) if node.kind in SCALAR_KINDS else None,
        "children": [],
    }
    if node.exclusive_minimum:
        out["exclusive_min"] = True
    if node.exclusive_maximum:
        out["exclusive_max"] = True
    if node.multiple_of is not None:
        out["multiple_of"] = _json_value(node.multiple_of)
    if node.kind is Kind.REF:
        out["ref"] = node.ref
    if node.kind is Kind.OBJECT:
        out["children"] = [_field(c, unsupported, semantics) for c in node.children]
    elif node.kind is Kind.ARRAY:
        items = [*node.prefix_items, *([node.items] if node.items is not None else [])]
        out["children"] = [_field(c, unsupported, semantics) for c in items]
    elif node.kind is Kind.CHOICE:
        out["choice_mode"] = node.choice_mode.value if node.choice_mode else None
        out["children"] = [_field(c, unsupported, semantics) for c in node.options]
    return out


def schema_repr(loaded: LoadedSchema, root: str | None = None) -> dict[str, Any]:
    """``{"root", "roots", "fields", "definitions", "unsupported"}`` for one record root.

    ``fields`` lists the root's children (the root object itself is implicit); a root that is
    not an object (a scalar or array record) is listed as the single field with path "".
    ``definitions`` holds the subtrees REF fields point at (recursion points).
    """
    name = loaded.resolve_root(root)
    tree = loaded.field_tree(name)
    unsupported: list[dict[str, str]] = []
    semantics = FieldSemantics(tree)
    top = _field(tree.root, unsupported, semantics)
    fields = top["children"] if tree.root.kind is Kind.OBJECT else [top]
    definitions = {key: _field(node, unsupported, semantics) for key, node in tree.definitions.items()}
    return {
        "root": name,
        "roots": list(loaded.roots),
        "fields": fields,
        "definitions": definitions,
        "unsupported": unsupported,
    }

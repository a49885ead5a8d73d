"""The compiler skips a recursion depth whose expansion is certain to pass MAX_COMPILED_NODES
(engine/expansion_floor.py) instead of building it and throwing it away. The floor it uses must never
exceed the nodes an attempt really visits, and skipping must not change a single record."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.generation.engine import compiler as compiler_module
from app.generation.engine.compiler import MAX_COMPILED_NODES, Compiler, _TooLarge
from app.generation.engine.expansion_floor import expansion_floor
from app.generation.errors import GenerationError
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.corpus import manifest, schema_bytes

XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'


def _wide_recursive_xsd(width: int) -> bytes:
    """A type of `width` optional children of its own type, a required code and two attributes:
    about 4 * width**3 nodes at recursion depth 3 (past the limit for width 40), width**2 at 2."""
    kids = "".join(f'<xs:element name="k{i}" type="T" minOccurs="0"/>' for i in range(width))
    return (
        f'<xs:schema {XS}><xs:element name="root" type="T"/>'
        f'<xs:complexType name="T"><xs:sequence><xs:element name="code" type="xs:token"/>{kids}'
        '</xs:sequence><xs:attribute name="id" type="xs:string"/>'
        '<xs:attribute name="n" type="xs:int" use="required"/></xs:complexType></xs:schema>'
    ).encode()


def _schemas() -> list[tuple[bytes, str]]:
    draft7 = next(e for e in manifest() if e["id"] == "metaschema-draft-07")
    return [
        (_wide_recursive_xsd(40), "wide.xsd"),
        (_wide_recursive_xsd(6), "narrow.xsd"),
        schema_bytes(draft7),
    ]


@pytest.mark.parametrize("which", range(3))
def test_the_floor_never_exceeds_what_an_attempt_visits(which: int) -> None:
    loaded = load_schema(*_schemas()[which])
    tree = loaded.field_tree(None)
    c = Compiler(tree, [], xsd=loaded.type == "xsd", null_rate=None, record_count=3)
    skipped = 0
    for cap in (3, 2, 1):
        c.max_depth, c.count, c.shared = cap, 0, None
        floor = expansion_floor(c, tree.root)
        assert floor is not None
        try:
            c.node(tree.root, "", 0, tree.root_name)
            too_large = False
        except _TooLarge:
            too_large = True
        except GenerationError:
            too_large = False
        # an attempt that passed the limit stopped counting there; any other visited it all
        assert floor <= c.count or too_large, (cap, floor, c.count)
        skipped += floor > MAX_COMPILED_NODES
        assert too_large or floor <= MAX_COMPILED_NODES
        if not too_large:
            break
    assert skipped == [1, 0, 2][which]  # the wide type at depth 3; draft-07 at depths 3 and 2


@pytest.mark.parametrize("which", [0])
def test_skipping_changes_no_record(which: int, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = _schemas()[which]

    def records() -> list[Any]:
        plan = compile_plan(load_schema(*schema), [], {"seed": 5}, record_count=20)
        return [json.dumps(r, sort_keys=True, default=str) for r in plan.records()]

    skipping = records()
    monkeypatch.setattr(compiler_module, "expansion_floor", lambda compiler, root: None)
    assert records() == skipping


def test_rules_turn_the_floor_off() -> None:
    loaded = load_schema(_wide_recursive_xsd(3), "s.xsd")
    tree = loaded.field_tree(None)
    c = Compiler(tree, [{"path": "code", "pattern": "[A-Z]{3}"}], xsd=True, null_rate=None, record_count=3)
    assert expansion_floor(c, tree.root) is None

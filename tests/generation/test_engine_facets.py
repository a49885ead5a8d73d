"""Every facet honoured by construction, on hand-built field trees (no loader involved)."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from fractions import Fraction

import orjson
import pytest
from jsonschema import Draft202012Validator

from app.generation.errors import GenerationError
from app.generation.model import ChoiceMode, FieldTree, Kind, Node
from app.generation.plan import Plan, compile_plan


def tree(*children: Node, **obj: object) -> FieldTree:
    return FieldTree(root=Node(Kind.OBJECT, name="rec", children=list(children), **obj), root_name="rec")


def records(t: FieldTree, n: int = 500, seed: int = 1, **params: object) -> list[dict]:
    plan = compile_plan(t, [], {"seed": seed, **params}, record_count=n)
    return orjson.loads(_write(plan, "json"))


def _write(plan: Plan, fmt: str) -> bytes:
    buf = io.BytesIO()
    plan.write(fmt, buf)
    return buf.getvalue()


def float_multiple_ok(x: float, m: float) -> bool:
    """jsonschema's own multipleOf test for float divisors."""
    q = x / m
    return int(q) == q


def test_integer_bounds_exclusive_and_multiple() -> None:
    t = tree(Node(Kind.INTEGER, name="n", path="n", minimum=10, maximum=50, exclusive_minimum=True,
                  exclusive_maximum=True, multiple_of=Decimal(7)))
    values = {r["n"] for r in records(t)}
    assert values == {14, 21, 28, 35, 42, 49}


@pytest.mark.parametrize("m", ["0.01", "0.1", "0.05", "0.3", "2.5"])
def test_decimal_multiple_of_passes_the_float_check(m: str) -> None:
    t = tree(Node(Kind.NUMBER, name="amount", path="amount", minimum=Decimal(0), maximum=Decimal(100000),
                  multiple_of=Decimal(m)))
    raw = _write(compile_plan(t, [], {"seed": 3}, record_count=3000), "ndjson")
    for line in raw.splitlines():
        text = line.decode().split(":", 1)[1].rstrip("}")
        value = orjson.loads(text)
        assert float_multiple_ok(value, float(m)), text
        assert Fraction(text) % Fraction(m) == 0  # an exact decimal multiple, too
        assert 0 <= value <= 100000


def test_total_and_fraction_digits() -> None:
    t = tree(Node(Kind.NUMBER, name="x", path="x", total_digits=4, fraction_digits=2,
                  minimum=Decimal("-99.99"), maximum=Decimal("99.99")))
    for r in records(t):
        d = Decimal(str(r["x"]))
        assert len(d.as_tuple().digits) <= 4 and -d.as_tuple().exponent <= 2


def test_empty_numeric_range_fails_at_compile_time() -> None:
    t = tree(Node(Kind.INTEGER, name="n", path="n", minimum=5, maximum=6, multiple_of=Decimal(10)))
    with pytest.raises(GenerationError, match="n: no integer that is a multiple of 10"):
        compile_plan(t, [], {"seed": 1}, record_count=10)


def test_string_lengths_and_pattern_together() -> None:
    t = tree(
        Node(Kind.STRING, name="code", path="code", min_length=6, max_length=8, patterns=[r"^[A-Z0-9]+$"]),
        Node(Kind.STRING, name="tag", path="tag", patterns=["x-"], min_length=5, max_length=9),
        Node(Kind.STRING, name="both", path="both", patterns=[r"^[a-z]+$", r"^.{3}$"], pattern_anchored=True),
    )
    for r in records(t):
        assert 6 <= len(r["code"]) <= 8 and re.fullmatch(r"[A-Z0-9]+", r["code"])
        assert 5 <= len(r["tag"]) <= 9 and "x-" in r["tag"]
        assert re.fullmatch(r"[a-z]{3}", r["both"])


def test_contradictory_string_facets_fail_with_the_path() -> None:
    t = tree(Node(Kind.STRING, name="zip", path="zip", patterns=[r"^[0-9]{5}$"], max_length=3))
    with pytest.raises(GenerationError, match=r"^zip: the pattern needs at least 5 characters"):
        compile_plan(t, [], {"seed": 1}, record_count=10)
    t = tree(Node(Kind.STRING, name="s", path="s", patterns=[r"(a)\1"]))
    with pytest.raises(GenerationError, match="backreferences"):
        compile_plan(t, [], {"seed": 1}, record_count=10)


FORMATS = ["email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri",
           "iri-reference", "uuid", "date", "date-time", "time", "duration", "json-pointer",
           "relative-json-pointer", "regex", "uri-template"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_formats_pass_the_format_checker(fmt: str) -> None:
    kind = {"date": Kind.DATE, "date-time": Kind.DATETIME, "time": Kind.TIME}.get(fmt, Kind.STRING)
    t = tree(Node(kind, name="v", path="v", format=fmt, max_length=80))
    validator = Draft202012Validator({"properties": {"v": {"type": "string", "format": fmt, "maxLength": 80}}},
                                     format_checker=Draft202012Validator.FORMAT_CHECKER)
    for r in records(t, 300):
        assert not list(validator.iter_errors(r)), r


def test_email_with_tight_max_length_falls_back_to_short_addresses() -> None:
    t = tree(Node(Kind.STRING, name="email", path="email", format="email", max_length=9))
    checker = Draft202012Validator.FORMAT_CHECKER
    for r in records(t, 300):
        assert len(r["email"]) <= 9 and checker.conforms(r["email"], "email")


def test_enum_const_and_booleans() -> None:
    t = tree(
        Node(Kind.STRING, name="s", path="s", enum=["a", "b", "c"]),
        Node(Kind.INTEGER, name="c", path="c", const=3, has_const=True),
        Node(Kind.BOOLEAN, name="b", path="b"),
    )
    rs = records(t)
    assert {r["s"] for r in rs} == {"a", "b", "c"}
    assert {r["c"] for r in rs} == {3}
    assert {r["b"] for r in rs} == {True, False}


def test_dates_within_bounds() -> None:
    t = tree(
        Node(Kind.DATE, name="d", path="d", minimum="2020-02-27", maximum="2020-03-02"),
        Node(Kind.DATETIME, name="ts", path="ts", minimum="2021-01-01T00:00:00Z", maximum="2021-01-01T00:00:10Z",
             exclusive_maximum=True),
        Node(Kind.TIME, name="t", path="t", minimum="10:00:00", maximum="10:00:05"),
    )
    for r in records(t):
        assert "2020-02-27" <= r["d"] <= "2020-03-02"
        assert "2021-01-01T00:00:00Z" <= r["ts"] < "2021-01-01T00:00:10Z"
        assert "10:00:00" <= r["t"][:8] <= "10:00:05"


def test_arrays_min_max_and_unique_items() -> None:
    t = tree(Node(Kind.ARRAY, name="tags", path="tags", min_items=2, max_items=4, unique_items=True,
                  items=Node(Kind.STRING, name="tags", path="tags", enum=["a", "b", "c", "d", "e"])))
    for r in records(t):
        assert 2 <= len(r["tags"]) <= 4 and len(set(r["tags"])) == len(r["tags"])


def test_unique_items_impossible_fails() -> None:
    t = tree(Node(Kind.ARRAY, name="tags", path="tags", min_items=3, unique_items=True,
                  items=Node(Kind.BOOLEAN, name="tags", path="tags")))
    with pytest.raises(GenerationError, match="tags: could not draw 3 distinct items"):
        compile_plan(t, [], {"seed": 1}, record_count=10)


def test_optional_presence_and_null_rate() -> None:
    t = tree(
        Node(Kind.STRING, name="opt", path="opt", required=False, max_length=5),
        Node(Kind.INTEGER, name="maybe", path="maybe", nullable=True, minimum=0, maximum=9),
    )
    rs = records(t, 4000, null_rate=0.3)
    present = sum("opt" in r for r in rs) / len(rs)
    nulls = sum(r["maybe"] is None for r in rs) / len(rs)
    assert 0.76 <= present <= 0.84  # OPTIONAL_PRESENCE = 0.8
    assert 0.27 <= nulls <= 0.33


def test_one_of_values_match_exactly_one_option() -> None:
    opts = [Node(Kind.INTEGER, minimum=0, maximum=10), Node(Kind.INTEGER, minimum=5, maximum=20),
            Node(Kind.STRING, max_length=3)]
    t = tree(Node(Kind.CHOICE, name="v", path="v", options=opts, choice_mode=ChoiceMode.ONE_OF))
    validator = Draft202012Validator({"properties": {"v": {"oneOf": [
        {"type": "integer", "minimum": 0, "maximum": 10}, {"type": "integer", "minimum": 5, "maximum": 20},
        {"type": "string", "maxLength": 3}]}}})
    rs = records(t, 1000)
    assert all(validator.is_valid(r) for r in rs)
    assert {type(r["v"]) for r in rs} == {int, str}


def test_recursion_is_bounded() -> None:
    node = Node(Kind.OBJECT, name="node", children=[
        Node(Kind.STRING, name="label", path="label", max_length=10),
        Node(Kind.ARRAY, name="children", path="children", min_items=0, max_items=2,
             items=Node(Kind.REF, name="children", path="children", ref="node")),
    ])
    t = FieldTree(root=node, root_name="node", definitions={"node": node})

    def depth(v: dict) -> int:
        return 1 + max((depth(c) for c in v.get("children", [])), default=0)

    rs = records(t, 300)
    assert max(depth(r) for r in rs) <= 5 and max(depth(r) for r in rs) >= 3


def test_recursion_without_a_way_out_fails() -> None:
    node = Node(Kind.OBJECT, name="node", children=[Node(Kind.REF, name="next", path="next", ref="node")])
    t = FieldTree(root=node, root_name="node", definitions={"node": node})
    with pytest.raises(GenerationError, match="recursion cannot terminate"):
        compile_plan(t, [], {"seed": 1}, record_count=10)


def test_dependent_required() -> None:
    t = tree(
        Node(Kind.STRING, name="card", path="card", required=False, max_length=4),
        Node(Kind.STRING, name="cvv", path="cvv", required=False, patterns=[r"^\d{3}$"]),
        dependent_required={"card": ["cvv"]},
    )
    rs = records(t, 1000)
    assert all("cvv" in r for r in rs if "card" in r)
    assert any("cvv" in r and "card" not in r for r in rs)


def test_unique_values_fit_or_fail() -> None:
    t = tree(Node(Kind.INTEGER, name="n", path="n", minimum=1, maximum=100))
    rules = [{"path": "n", "unique": True}]
    plan = compile_plan(t, rules, {"seed": 1}, record_count=100)
    values = [r["n"] for r in orjson.loads(_write(plan, "json"))]
    assert sorted(values) == list(range(1, 101))
    with pytest.raises(GenerationError, match="n: only 100 distinct values"):
        compile_plan(t, rules, {"seed": 1}, record_count=101)


def test_unique_strings_and_patterns_across_the_dataset() -> None:
    t = tree(
        Node(Kind.STRING, name="sku", path="sku", patterns=[r"^[A-Z]{2}[0-9]{2}$"]),
        Node(Kind.STRING, name="email", path="email", format="email"),
        Node(Kind.STRING, name="uuid", path="uuid", format="uuid"),
    )
    rules = [{"path": p, "unique": True} for p in ("sku", "email", "uuid")]
    plan = compile_plan(t, rules, {"seed": 9}, record_count=9000)
    rs = orjson.loads(_write(plan, "json"))
    for key in ("sku", "email", "uuid"):
        assert len({r[key] for r in rs}) == 9000
    assert all(re.fullmatch(r"[A-Z]{2}[0-9]{2}", r["sku"]) for r in rs)


def test_rules_narrow_the_schema() -> None:
    t = tree(
        Node(Kind.INTEGER, name="age", path="age", minimum=0, maximum=150),
        Node(Kind.STRING, name="who", path="who"),
        Node(Kind.STRING, name="ref", path="ref"),
        Node(Kind.STRING, name="color", path="color"),
    )
    rules = [{"path": "age", "min": 30, "max": 40}, {"path": "who", "category": "email"},
             {"path": "ref", "pattern": r"R-\d{3}"}, {"path": "color", "enum": ["red", "blue"]}]
    rs = orjson.loads(_write(compile_plan(t, rules, {"seed": 2}, record_count=300), "json"))
    assert all(30 <= r["age"] <= 40 and "@" in r["who"] and re.fullmatch(r"R-\d{3}", r["ref"]) for r in rs)
    assert {r["color"] for r in rs} == {"red", "blue"}


def test_unknown_params_are_refused() -> None:
    with pytest.raises(GenerationError, match="Unknown params: colour"):
        compile_plan(tree(), [], {"colour": 1}, record_count=1)


def test_if_then_tagged_union() -> None:
    from app.generation.model import Conditional

    def branch(kind: str, extra: Node) -> Conditional:
        return Conditional(
            if_=Node(Kind.OBJECT, children=[Node(Kind.STRING, name="type", path="type", const=kind, has_const=True)]),
            then=Node(Kind.OBJECT, children=[extra], additional_properties=True))

    t = tree(
        Node(Kind.STRING, name="type", path="type", enum=["text", "number"]),
        conditionals=[
            branch("text", Node(Kind.STRING, name="label", path="label", max_length=6)),
            branch("number", Node(Kind.INTEGER, name="value", path="value", minimum=1, maximum=9)),
        ],
    )
    rs = records(t, 400)
    assert {r["type"] for r in rs} == {"text", "number"}
    for r in rs:
        if r["type"] == "text":
            assert isinstance(r["label"], str) and len(r["label"]) <= 6
        else:
            assert 1 <= r["value"] <= 9


def test_if_then_variants_flatten_to_one_csv_header() -> None:
    import csv

    from app.generation.model import Conditional

    t = tree(
        Node(Kind.STRING, name="type", path="type", enum=["a", "b"]),
        Node(Kind.INTEGER, name="n", path="n", minimum=0, maximum=5),
        conditionals=[Conditional(
            if_=Node(Kind.OBJECT, children=[Node(Kind.STRING, name="type", path="type", const="a", has_const=True)]),
            then=Node(Kind.OBJECT, children=[Node(Kind.INTEGER, name="n", path="n", minimum=5, maximum=5)]))],
    )
    plan = compile_plan(t, [], {"seed": 1}, record_count=200)
    rows = list(csv.DictReader(io.StringIO(_write(plan, "csv").decode())))
    assert list(rows[0]) == ["type", "n"]
    assert all(r["n"] == "5" for r in rows if r["type"] == "a")
    assert {r["type"] for r in rows} == {"a", "b"}


def test_several_search_patterns_are_all_found() -> None:
    t = tree(Node(Kind.STRING, name="include", path="include", format="uri-reference",
                  patterns=[r"[A-Za-z0-9_]\.ya?ml\Z", r"^https?://"]))
    for r in records(t, 300):
        assert re.search(r"[A-Za-z0-9_]\.ya?ml\Z", r["include"]) and re.search(r"^https?://", r["include"])


def test_format_time_passes_the_guard_of_an_uploaded_schema() -> None:
    """The guard checks with the schema's own draft (a bare FormatChecker() holds draft 3's "time")."""
    import io
    import json as _json

    from app.generation.plan import compile_plan
    from app.generation.schema.loader import load_schema

    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["t"],
              "properties": {"t": {"type": "string", "format": "time"}}}
    plan = compile_plan(load_schema(_json.dumps(schema).encode()), [], {"seed": 3}, record_count=300)
    out = io.BytesIO()
    plan.write("json", out)
    assert len(_json.loads(out.getvalue())) == 300

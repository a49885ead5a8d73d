"""The validity guard matches schema patterns with a time budget (DESIGN §12): RE2 where the
pattern means the same there as in Python's `re` (what jsonschema uses), `regex` with a timeout
otherwise; a hostile pattern fails the run naming the field and the pattern instead of hanging."""

from __future__ import annotations

import io
import json
import re
import time

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from app.generation.errors import GenerationError
from app.generation.guard import (
    JsonSchemaRecordValidator,
    PatternBudgetExceeded,
    _re2_form,
    budgeted_search,
)
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

# catastrophic for a backtracking engine on "aaaa…!" (RE2 cannot take \w with re's meaning)
HOSTILE = r"^(\w|\w\w)+$"
SLOW_VALUE = "a" * 60 + "!"
# generous: the regex module checks its timeout periodically, and CI machines are shared
GIVE_UP_WITHIN_S = 30


@pytest.mark.parametrize("pattern", [
    r"^\+?[0-9]{10,14}$", r"^[A-Z]{3}-[0-9]{4}$", r"^\d+$", r"\D", r"^a$", r"^x-", r"a[$]", r"^(a|b)*c\Z",
    r"^\w+$", r"(?i)^abc$", r"^a{,3}$", r"^é+$", r"\bword\b", r"^[^@\s]+@[^@\s]+$", r"colou?r",
])
def test_budgeted_search_agrees_with_re(pattern: str) -> None:
    values = ["1234567890", "+12345678901", "ABC-1234", "abc", "ABC", "a\n", "a", "a$", "x-y", "٣٤",
              "12", "aaa", "aaaa", "ééé", "", "abc\n", "a word here", "me@x.org", "color", "colour"]
    search = budgeted_search(pattern)
    for value in values:
        assert search(value) == (re.search(pattern, value) is not None), (pattern, value)


def test_re2_takes_patterns_with_the_same_meaning_only() -> None:
    assert _re2_form(r"^[0-9]{5}$") is not None
    assert _re2_form(r"^\d{5}$") == "^\\p{Nd}{5}(?:\n?\\z)"  # re's \d is Unicode
    for pattern in (r"^\w+$", r"\s", r"\bx", r"a$|b", r"(?i)x", r"x{,2}", r"x\Z"):
        assert _re2_form(pattern) is None, pattern


def test_catastrophic_pattern_is_linear_in_re2() -> None:
    t0 = time.perf_counter()
    assert not budgeted_search(r"^(a|aa)+$")("a" * 5000 + "!")
    assert time.perf_counter() - t0 < 1


def test_over_budget_match_raises() -> None:
    t0 = time.perf_counter()
    with pytest.raises(PatternBudgetExceeded) as info:
        budgeted_search(HOSTILE)(SLOW_VALUE)
    assert info.value.pattern == HOSTILE
    assert time.perf_counter() - t0 < GIVE_UP_WITHIN_S


@pytest.mark.parametrize("record, field", [
    ({"name": SLOW_VALUE}, "name"),  # pattern
    ({"tags": {SLOW_VALUE: 1}}, f"tags.{SLOW_VALUE}"),  # patternProperties (and additionalProperties)
    ({"ref": SLOW_VALUE}, "ref"),  # a $ref into a resource of another draft keeps the budget
])
def test_guard_names_field_and_pattern_over_budget(record: dict, field: str) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": HOSTILE},
            "tags": {"type": "object", "patternProperties": {HOSTILE: {"type": "integer"}},
                     "additionalProperties": False},
            "ref": {"$ref": "urn:example:ref"},
        },
        "$defs": {"ref": {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:example:ref",
                          "type": "string", "pattern": HOSTILE}},
    }
    guard = JsonSchemaRecordValidator(Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER))
    assert guard.json_error({"name": "abc", "tags": {"k": 1}, "ref": "x"}) is None
    assert guard.json_error({"tags": {"k-1": 1}}) == "tags: 'k-1' does not match any of the regexes: " + repr(HOSTILE)
    t0 = time.perf_counter()
    with pytest.raises(GenerationError) as info:
        guard.json_error(record)
    assert time.perf_counter() - t0 < GIVE_UP_WITHIN_S
    assert f"gave up on {field}:" in info.value.detail
    assert repr(HOSTILE) in info.value.detail


def test_draft7_validator_keeps_its_checks() -> None:
    schema = {"type": "object", "properties": {"d": {"type": "string", "pattern": r"^\d{4}$"}},
              "additionalProperties": False}
    guard = JsonSchemaRecordValidator(Draft7Validator(schema))
    assert guard.json_error({"d": "2024"}) is None
    assert guard.json_error({"d": "20x4"}) == "d: '20x4' does not match '^\\\\d{4}$'"
    assert guard.json_error({"e": 1}).startswith("(root): Additional properties are not allowed")


def test_run_with_hostile_pattern_property_fails_instead_of_hanging() -> None:
    """A generated record whose required key backtracks catastrophically in patternProperties:
    jsonschema's own `re` would not return for hours; the run fails naming the key and pattern."""
    schema = ('{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",'
              f' "required": ["{SLOW_VALUE}"], "properties": {{"{SLOW_VALUE}": {{"type": "integer"}}}},'
              ' "patternProperties": {"^(\\\\w|\\\\w\\\\w)+$": {"type": "integer"}}}')
    loaded = load_schema(schema.encode(), "hostile.schema.json")
    t0 = time.perf_counter()
    with pytest.raises(GenerationError) as info:  # the compile-time probe record already trips it
        plan = compile_plan(loaded, [], {"seed": 1}, record_count=3)
        plan.write("ndjson", io.BytesIO())
    assert time.perf_counter() - t0 < GIVE_UP_WITHIN_S
    assert SLOW_VALUE in info.value.detail and repr(HOSTILE) in info.value.detail


def test_xsd_guard_parses_its_own_records_without_the_defusing_pass_but_never_expands_entities() -> None:
    """The guard skips xmlschema's defusing pre-parse for the writer's own output (it cannot hold
    markup declarations); text that does hold one is still parsed defused, so no entity of a
    DTD is ever expanded and the record is reported, not accepted."""
    xsd = (b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="r">'
           b'<xs:simpleType><xs:restriction base="xs:string"><xs:maxLength value="5"/></xs:restriction>'
           b'</xs:simpleType></xs:element></xs:schema>')
    validator = compile_plan(load_schema(xsd, "r.xsd"), [], {"seed": 1}, record_count=1).validator
    assert list(validator.xml_errors(["<r>abc</r>", "<r>abcdef</r>"])) == [
        (1, next(iter(validator.xml_errors(["<r>abcdef</r>"])))[1])]
    bomb = '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><r>&b;</r>'
    errors = list(validator.xml_errors(["<r>ok</r>", bomb]))
    assert [i for i, _ in errors] == [1]
    assert "aaaaaaaaaa" not in errors[0][1]


def _stricter(schema: bytes, name: str, limit: int) -> tuple[object, object]:
    """(the schema as uploaded, a validator of the same schema whose `id` may not exceed `limit`):
    the generator keeps numbering records 1..N, so exactly the records past `limit` are invalid."""
    if name.endswith(".xsd"):
        strict = schema.replace(b'<xs:attribute name="id" type="xs:positiveInteger" use="required"/>',
                                b'<xs:attribute name="id" use="required"><xs:simpleType><xs:restriction '
                                b'base="xs:positiveInteger"><xs:maxInclusive value="' + str(limit).encode() +
                                b'"/></xs:restriction></xs:simpleType></xs:attribute>')
    else:
        doc = json.loads(schema)
        doc["properties"]["id"]["maximum"] = limit
        strict = json.dumps(doc).encode()
    return load_schema(schema, name), load_schema(strict, name).record_validator()


XSD_IDS = (b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="r"><xs:complexType>'
           b'<xs:sequence><xs:element name="name" type="xs:string"/></xs:sequence>'
           b'<xs:attribute name="id" type="xs:positiveInteger" use="required"/></xs:complexType></xs:element>'
           b'</xs:schema>')
JSON_IDS = json.dumps({"type": "object", "required": ["id", "name"], "properties": {
    "id": {"type": "integer", "minimum": 1}, "name": {"type": "string"}}}).encode()


@pytest.mark.parametrize(("schema", "name"), [(JSON_IDS, "ids.json"), (XSD_IDS, "ids.xsd")])
def test_sampled_guard_of_a_large_run_names_a_record_that_really_is_invalid(schema: bytes, name: str) -> None:
    """100,000 records, 200 sampled and validated in batches after the first chunk: records past
    95,000 break the stricter schema: only the final batch holds them, and it names one."""
    loaded, strict = _stricter(schema, name, 95_000)
    plan = compile_plan(loaded, [], {"seed": 2}, record_count=100_000, validator=strict)
    done: list[int] = []
    with pytest.raises(GenerationError) as failure:
        plan.write("ndjson", io.BytesIO(), progress=done.append)
    number = int(re.search(r"Generated record (\d+) is invalid", failure.value.detail).group(1))  # type: ignore[union-attr]
    assert 95_000 < number <= 100_000 and "id" in failure.value.detail
    assert sum(done) >= 95_000  # found by the last batch, after the records before it were written
    # the first chunk's sample is validated at once: an invalid early record stops the run there
    loaded, strict = _stricter(schema, name, 100)
    plan = compile_plan(loaded, [], {"seed": 2}, record_count=100_000, validator=strict)
    done.clear()
    with pytest.raises(GenerationError, match=r"Generated record \d+ is invalid"):
        plan.write("ndjson", io.BytesIO(), progress=done.append)
    assert done == []

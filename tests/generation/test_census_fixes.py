"""Corpus census failures (issue 18), each reduced to the smallest schema that showed it: a oneOf
with an unconstrained option (commitlint's `typeof: function`), and `dependencies` schemas on a
oneOf option (swagger 1.2's dataType); and the time-outs of wide recursive meta-schemas, compiled
shallower or reported at upload. Records are judged by jsonschema with format checking."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import jsonschema
import pytest
import referencing

from app.generation.engine.budget import MAX_DRAW_WORK, draw_work
from app.generation.plan import compile_plan
from app.generation.problems import root_problems
from app.generation.schema.loader import LoadedSchema, load_schema
from tests.generation.corpus import CORPUS
from tests.generation.validated import validated_records


def test_oneof_with_an_unconstrained_option_draws_values_outside_the_others() -> None:
    # any value matches `{typeof: function}`, so only a value that is neither a string nor an
    # object matches exactly one option
    preset = {"oneOf": [{"type": "string"},
                        {"type": "object", "properties": {"name": {"type": "string"}}},
                        {"typeof": "function"}]}
    schema = {"type": "object", "required": ["preset"], "properties": {"preset": preset}}
    records = validated_records(schema, n=100)
    assert all(not isinstance(r["preset"], (str, dict)) for r in records)


def test_dependency_trigger_is_not_the_property_made_required_to_tell_oneof_options_apart() -> None:
    # the other option is closed too and admits only `type`: an optional property must be made
    # required to keep values apart, and `format` (which turns the dependency on) must not be it
    model = {"type": "object", "required": ["type"], "additionalProperties": False,
             "properties": {"type": {"type": "string", "not": {"enum": ["boolean", "integer", "number"]}}}}
    formats = {"oneOf": [
        {"properties": {"type": {"enum": ["integer"]}, "format": {"enum": ["int32", "int64"]}}},
        {"properties": {"type": {"enum": ["number"]}, "format": {"enum": ["float", "double"]}}},
    ]}  # a random `format` string never meets this
    primitive = {"type": "object", "required": ["type"], "additionalProperties": False,
                 "properties": {"type": {"enum": ["boolean", "integer", "number"]}, "format": {"type": "string"},
                                "defaultValue": {"type": "integer"}},
                 "dependencies": {"format": formats}}
    schema = {"oneOf": [primitive, model]}
    records = validated_records(schema, n=100)
    assert any("defaultValue" in r for r in records)



def _corpus(name: str) -> LoadedSchema:
    path = CORPUS / "json" / name
    return load_schema(path.read_bytes(), path.name)


def test_wide_recursion_is_compiled_shallower_when_its_draws_explode() -> None:
    # the draft-04 meta-schema: at three levels of recursion one record drew about 4.2 million
    # values before presence masks (over 150 s for 50 records); one level draws about 18,000
    plan = compile_plan(_corpus("metaschema-draft-04.json"), [], {"seed": 3}, record_count=10)
    assert draw_work(plan.gen) <= MAX_DRAW_WORK
    plan.write("json", io.BytesIO(), guard=True)  # the guard validates every record


def test_a_record_too_costly_to_probe_is_reported_at_upload_not_probed() -> None:
    # ajv's security meta-schema nests if/then re-draws in every level of its recursion: even at
    # one level a record costs over MAX_DRAW_WORK draws; the probe used to run for minutes
    started = time.monotonic()
    found = root_problems(_corpus("ajv-json-schema-secure.json"))
    assert time.monotonic() - started < 60
    assert len(found) == 1 and found[0]["blocking"] is False
    assert "slow to generate" in found[0]["reason"] and "215,434" in found[0]["reason"]


def test_references_to_embedded_ids_crawl_the_registry_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # asyncapi 3.x is ~2,000 subschemas, each with its own $id, referenced by that id: an uncrawled
    # registry crawled the whole document again on each of 131 lookups and kept nothing (over 60 s
    # before the first record); one crawl at load serves every lookup
    crawls = []  # crawls that walk the uploaded document (its base URI still uncrawled)
    real_crawl = referencing.Registry.crawl

    def counted(self: referencing.Registry[Any]) -> referencing.Registry[Any]:
        crawls.extend(uri for uri in self._uncrawled if uri.startswith("http://asyncapi.com/"))
        return real_crawl(self)

    monkeypatch.setattr(referencing.Registry, "crawl", counted)
    loaded = _corpus("asyncapi-3.1.0.json")
    plan = compile_plan(loaded, [], {"seed": 3}, record_count=20)
    plan.write("json", io.BytesIO(), guard=True)  # the guard validates every record
    assert crawls == ["http://asyncapi.com/definitions/3.1.0/asyncapi.json"]
    schema = json.loads((CORPUS / "json" / "asyncapi-3.1.0.json").read_bytes())  # jsonschema's own reading
    validator = jsonschema.validators.validator_for(schema)
    checker = validator(schema, format_checker=validator.FORMAT_CHECKER)
    records = json.loads(json.dumps(plan.records()))
    assert len(records) == 20
    for record in records:
        assert not list(checker.iter_errors(record))

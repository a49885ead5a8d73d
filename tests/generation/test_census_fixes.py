"""Corpus census failures (issue 18), each reduced to the smallest schema that showed it: a oneOf
with an unconstrained option (commitlint's `typeof: function`), and `dependencies` schemas on a
oneOf option (swagger 1.2's dataType). Records are judged by jsonschema with format checking."""

from __future__ import annotations

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


"""app/core/generation.py is where the engine's own errors become domain errors: the same sentence,
413 for a schema above the size limit, 422 for anything else the engine refuses."""

from __future__ import annotations

import re

import orjson
import pytest

from app.core import generation
from app.core.errors import Invalid, PayloadTooLarge
from app.generation.errors import GenerationError
from app.generation.schema.loader import MAX_SCHEMA_BYTES

# `n` required: an optional property no value meets is left out (issue 18), a required one is refused
SCHEMA = orjson.dumps(
    {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}}}
)


def test_a_schema_above_the_limit_is_payload_too_large_with_the_engine_sentence() -> None:
    with pytest.raises(PayloadTooLarge, match=re.escape("the limit is 10 MiB (10,485,760 bytes)")) as info:
        generation.load_schema(b" " * (MAX_SCHEMA_BYTES + 1), "big.json")
    assert isinstance(info.value.__cause__, GenerationError)


def test_engine_refusals_are_invalid_with_the_engine_sentence() -> None:
    with pytest.raises(Invalid, match="not valid UTF-8"):
        generation.load_schema(b"\xff\xfe", "bad.json")
    loaded = generation.load_schema(SCHEMA, "s.json")
    with pytest.raises(Invalid, match="Unknown root 'nope'"):
        generation.resolve_root(loaded, "nope")
    with pytest.raises(Invalid, match="Unknown params: colour"):
        generation.parse_params({"colour": "red"})
    with pytest.raises(Invalid, match=r"^n: "):
        generation.compile_plan(loaded, [], {"seed": 1}, record_count=10)

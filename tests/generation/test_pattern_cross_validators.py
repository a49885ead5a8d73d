"""Every `pattern` of the JSON Schema corpus: strings the engine draws for it (ECMA-262 translated,
search semantics) also match in jsonschema (Python `re`, the pattern as written) and in
jsonschema-rs (Rust, ECMA-like), so generated records validate whichever of them a user runs."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import numpy as np
import pytest

from app.generation.schema.ecma_regex import translate_ecma_pattern
from app.generation.values.regex import RegexGenerator, UnsupportedPattern
from tests.generation.corpus import CORPUS, manifest

_VALUES = frozenset({"enum", "const", "examples", "default"})


def _patterns(doc: Any) -> Iterator[str]:
    stack = [doc]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if isinstance(value.get("pattern"), str):
                yield value["pattern"]
            props = value.get("patternProperties")
            if isinstance(props, dict):
                yield from (k for k in props if isinstance(k, str))
            stack.extend(v for k, v in value.items() if k not in _VALUES and isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend(v for v in value if isinstance(v, dict | list))


def _corpus_patterns() -> list[str]:
    found: dict[str, None] = {}
    for entry in manifest():
        if entry["type"] != "json_schema":
            continue
        for rel in entry["files"]:
            if rel.endswith(".json"):
                found.update(dict.fromkeys(_patterns(json.loads((CORPUS / rel).read_text("utf-8")))))
    return sorted(found)


PATTERNS = _corpus_patterns()


def test_the_corpus_has_many_patterns() -> None:
    assert len(PATTERNS) >= 200


@pytest.mark.parametrize("chunk", range(8))
def test_generated_strings_match_in_python_and_rust(chunk: int) -> None:
    checked = 0
    for pattern in PATTERNS[chunk::8]:
        try:
            gen = RegexGenerator(translate_ecma_pattern(pattern), anchored=False)
        except (ValueError, UnsupportedPattern):
            continue  # reported as unsupported at upload; nothing is drawn from it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            python = re.compile(pattern)
        try:
            rust: Any = jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
        except (jsonschema_rs.ValidationError, ValueError):
            rust = None  # not an ECMA regex (`\\A...\\Z`): jsonschema-rs refuses the schema itself
        drawn = gen.generate(np.random.default_rng(11), 30)
        # the string generator keeps only drawn values its own check accepts (lookarounds,
        # boundaries): judge those, as they are what reaches a record
        kept = [v for v in drawn if gen.matches(v)]
        assert kept or gen.assertions, pattern
        for value in kept:
            assert python.search(value), (pattern, value, "jsonschema (Python re)")
            assert rust is None or rust.is_valid(value), (pattern, value, "jsonschema-rs")
        checked += 1
    assert checked

"""Many more hostile schema files than the HTTP test sends (tests/api/test_hostile_input.py), straight
through the loader: each is loaded and its field tree built, and the only way out is a
GenerationError with a sentence (a 413/422 at the service), never another exception. Drawn from
a new seed each run (TDG_HOSTILE_SEED=<seed> replays it)."""

from __future__ import annotations

import random
import time

from app.generation.errors import GenerationError
from app.generation.schema.files import load_schema_path
from app.generation.schema.loader import load_schema
from app.generation.values.regex import RegexGenerator, UnsupportedPattern
from tests.paths import REPO
from tests.support.hostile_inputs import hostile_patterns, schema_files, seed_of_run

SEED = seed_of_run()
ROUNDS = 8


def test_hostile_files_are_refused_with_a_sentence() -> None:
    started = time.process_time()
    for round_ in range(ROUNDS):
        seed = SEED + round_
        for case in schema_files(seed, flips=40):
            try:
                load_schema(case.content, case.filename).field_tree()
            except GenerationError as exc:
                assert isinstance(exc.detail, str) and len(exc.detail) > 10, (seed, case.name, exc.detail)
                continue
            assert not case.must_refuse, f"seed {seed}: {case.name} was accepted"
    assert time.process_time() - started < 120


def test_hostile_patterns_are_unsupported_not_crashes() -> None:
    rng = random.Random(SEED)
    for _ in range(ROUNDS):
        for pattern in hostile_patterns(rng):
            try:
                RegexGenerator(pattern, anchored=True)
            except (UnsupportedPattern, RecursionError):
                continue  # RecursionError: rules.py and the schema loaders refuse those before
            raise AssertionError(f"seed {SEED}: {pattern[:60]!r} was accepted")


def test_a_deep_real_xsd_is_measured_without_exhausting_the_stack() -> None:
    """XHTML 1.0 Strict's nested block/inline groups make a field tree deeper than Python's stack
    allows a recursive walk (the field-limit check raised RecursionError on it): the walk is
    iterative and the schema loads, its tree measured."""
    loaded = load_schema_path(REPO / "tests/corpus/xsd/xhtml1-strict/XHTML/xhtml1-strict.xsd")
    tree = loaded.field_tree()
    assert tree.root is not None
